"""Jupyter notebooks as the code they hold: their cells in the percent format, outputs left out.

A notebook's file is JSON (nbformat 4): its code sits in cells between outputs (images, tables) that are no
one's code and may be megabytes of base64. The indexer reads a notebook as the script its cells make, with a
line before each cell in Jupytext's and VS Code's percent format, its title the cell's number (``# %% cell
3``; ``# %% cell 4 [markdown]`` for a Markdown cell, whose lines become comments), so its functions and
classes are chunks and symbols like a module's, and a chunk's lines are those of that script.
"""

from __future__ import annotations

import json

from memory_graph.errors import ValidationError

#: nbformat's names for a notebook's language, mapped to the languages the chunker knows
_LANGUAGES = {"python": "python", "python3": "python", "ipython": "python", "r": "r", "scala": "scala",
              "javascript": "javascript", "typescript": "typescript", "bash": "bash", "sql": "sql"}


#: what a notebook file that is no notebook's JSON is read as (a merge conflict in it, say): its text is still
#: worth finding
NOT_A_NOTEBOOK = "json"


def notebook_source(text: str) -> tuple[str, str]:
    """The script a notebook's cells make, and its language ("text" for a kernel the chunker does not parse).

    IPython's magics and shell escapes (``%matplotlib inline``, ``!pip install x``) become comments, as
    Jupytext writes them, so that the rest parses as Python. Raises ValidationError if the text is not a
    notebook's JSON."""
    try:
        nb = json.loads(text)
        cells = nb["cells"] if isinstance(nb, dict) else None
    except (ValueError, KeyError):
        cells = None
    if not isinstance(cells, list):
        raise ValidationError("not a Jupyter notebook (nbformat 4 JSON with a list of cells)")
    meta = nb.get("metadata") if isinstance(nb.get("metadata"), dict) else {}
    named = (meta.get("kernelspec") or {}).get("language") or (meta.get("language_info") or {}).get("name") \
        or "python"
    language = _LANGUAGES.get(str(named).lower(), "text")
    parts = []
    for n, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict):
            continue
        source = cell.get("source", "")
        lines = ("".join(source) if isinstance(source, list) else str(source)).splitlines()
        kind = cell.get("cell_type")
        if kind == "code":
            parts.append("\n".join([f"# %% cell {n}"] +
                                   [_magic(line) if language == "python" else line for line in lines]))
        elif kind in ("markdown", "raw"):
            parts.append("\n".join([f"# %% cell {n} [{kind}]"] + [f"# {line}".rstrip() for line in lines]))
    return "\n\n".join(parts) + "\n", language


def _magic(line: str) -> str:
    stripped = line.lstrip()
    return f"# {line}" if stripped.startswith(("%", "!")) else line
