"""Jupyter notebooks are indexed as the code their cells hold: outputs dropped, magics commented out."""

from __future__ import annotations

import json

import pytest

from codebase import index_project
from codebase.languages.notebooks import notebook_source
from memory_graph.errors import ValidationError

from conftest import write_files


def notebook(*cells: tuple[str, str], language: str | None = "python", output_bytes: int = 0) -> str:
    """nbformat 4 JSON of (cell type, source) cells; each code cell gets an image output of output_bytes."""
    out = [{"output_type": "display_data", "data": {"image/png": "iVBOR" + "A" * output_bytes}, "metadata": {}}]
    nb = {"nbformat": 4, "nbformat_minor": 5, "cells": [
        {"cell_type": kind, "metadata": {}, "source": src.splitlines(keepends=True),
         **({"outputs": out if output_bytes else [], "execution_count": 1} if kind == "code" else {})}
        for kind, src in cells],
        "metadata": {"kernelspec": {"name": "k", "language": language}} if language else {}}
    return json.dumps(nb, indent=1)


def test_a_notebook_is_its_cells_in_the_percent_format():
    text = notebook(("markdown", "# Churn\nLoad the data."),
                    ("code", "%matplotlib inline\n!pip install x\nimport pandas"),
                    ("code", "def churn_rate(df):\n    return df.left.mean()"), output_bytes=50)
    source, language = notebook_source(text)
    assert language == "python"
    assert source == ("# %% cell 1 [markdown]\n# # Churn\n# Load the data.\n\n"
                      "# %% cell 2\n# %matplotlib inline\n# !pip install x\nimport pandas\n\n"
                      "# %% cell 3\ndef churn_rate(df):\n    return df.left.mean()\n")
    assert "iVBOR" not in source  # outputs are no one's code
    assert notebook_source(notebook(("code", "x <- 1"), language="R")) == ("# %% cell 1\nx <- 1\n", "r")
    assert notebook_source(notebook(("code", "x = 1"), language="julia"))[1] == "text"
    assert notebook_source(notebook(("code", "x = 1"), language=None))[1] == "python"  # nbformat's default


@pytest.mark.parametrize("text", ["", "[1, 2]", '{"cells": 3}', "<<<<<<< HEAD\n{}"])
def test_what_is_not_a_notebook_is_an_error(text):
    with pytest.raises(ValidationError, match="not a Jupyter notebook"):
        notebook_source(text)


def test_a_notebooks_functions_are_symbols_and_its_cells_are_found(engine, tmp_path):
    engine.config = engine.config.with_(index_max_file_bytes=20_000)
    root = write_files(tmp_path / "lab", {
        "analysis.ipynb": notebook(("markdown", "Churn by month"), ("code", "import helpers"),
                                   ("code", "def churn_rate(df):\n    return helpers.ratio(df.left, df.total)"),
                                   output_bytes=100_000),  # five times index_max_file_bytes, with its outputs
        "helpers.py": "def ratio(a, b):\n    return a / b\n",
        "broken.ipynb": '<<<<<<< HEAD\n{"cells": []}\n=======\nchurn_rate retention cohort\n>>>>>>> main\n'})
    report = index_project(engine, root, project="lab")
    assert report.skipped.get("too_large", 0) == 0 and report.files_indexed == 3
    assert report.parse_errors == 1  # broken.ipynb, indexed as text
    sym = engine.find_symbols("churn_rate", project="lab")
    assert [(s["path"], s["kind"], s["start_line"]) for s in sym] == [("analysis.ipynb", "function", 7)]
    callees = engine.symbol_graph("churn_rate", "callees", project="lab")["results"]
    assert [c["qualname"] for c in callees] == ["ratio"]  # through the notebook's import of helpers
    top = engine.search_code("churn rate", project="lab", languages=["python"])[0]
    assert top.record["path"] == "analysis.ipynb" and "iVBOR" not in engine.get_chunks([top.id])[0]["content"]
    assert "broken.ipynb" in {h.record["path"] for h in engine.search_code("retention cohort", project="lab")}
