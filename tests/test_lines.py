"""A file's line in a code query (`ledger.py:70`, a traceback's frame) names the chunk that holds it: the window
of a long function with that line, before the function's other windows and its class."""

from __future__ import annotations

import pytest

from codebase import index_project
from memory_graph.code_search import line_prior

from conftest import write_files

STEPS = "".join(f"        total += invoice.line_{i} * rate  # ledger line {i}\n" for i in range(80))
LEDGER = ("class Ledger:\n"
          "    def __init__(self, rate):\n"
          "        self.rate = rate\n\n"
          "    def reconcile(self, invoice, rate):\n"
          "        total = 0\n" + STEPS + "        return total\n\n"
          "    def close(self):\n"
          "        return self.reconcile(None, self.rate)\n")


@pytest.fixture
def ledger(engine, tmp_path):
    write_files(tmp_path / "books", {"app/ledger.py": LEDGER,
                                     "app/shop.py": "class Shop:\n    def reconcile(self):\n        return 0\n"})
    index_project(engine, tmp_path / "books", project="books")
    windows = sorted((h["start_line"], h["end_line"]) for h in engine.lance.query(
        "code_chunks", "path = 'app/ledger.py' AND chunk_type = 'method'", ["start_line", "end_line"]).to_pylist()
        if h["start_line"] >= 5 and h["end_line"] <= 87)
    assert len(windows) >= 3, windows  # reconcile is cut into windows
    return engine, tmp_path / "books", windows


def test_a_line_picks_the_window_that_holds_it(ledger):
    eng, root, windows = ledger
    for start, end in windows:
        line = (start + end) // 2
        for query in (f"app/ledger.py:{line}", f"{root}/app/ledger.py:{line}",
                      f'File "/srv/books/app/ledger.py", line {line}, in reconcile'):
            top = eng.search_code(query, project="books")[0]
            assert (top.record["path"], top.title) == ("app/ledger.py", "class Ledger > def reconcile"), query
            assert top.record["start_line"] <= line <= top.record["end_line"], (query, top.record)
            assert top.explanation.prior_factor == 1.0
    # the frame's function is the one on the line, not every function of that name (Shop.reconcile)
    frame = eng.search_code(f'File "/srv/books/app/ledger.py", line {windows[1][0] + 2}, in reconcile',
                            mode="graph", project="books")
    assert "app/shop.py" not in {h.record["path"] for h in frame}
    # a line of the class itself, outside its methods, names the class
    assert eng.search_code("app/ledger.py:1", project="books")[0].title == "class Ledger"


def test_a_namesake_whose_text_matches_the_path_does_not_outrank_its_line(engine, tmp_path):
    """Shop.reconcile's comment has every word of the query's path and line (as the folders of an absolute
    path may happen to): the line of Ledger.reconcile still comes first."""
    root = write_files(tmp_path / "books", {"app/ledger.py": LEDGER, "app/shop.py": (
        "class Shop:\n    def reconcile(self):\n        # app ledger py 21 31 app ledger py\n        return 0\n")})
    index_project(engine, root, project="books")
    shop = engine.search_code("app ledger py 21", project="books")[0]
    assert shop.record["path"] == "app/shop.py"  # what the words alone find
    for line in (21, 31):
        for query in (f"app/ledger.py:{line}", f"{root}/app/ledger.py:{line}"):
            top = engine.search_code(query, project="books")[0]
            assert (top.record["path"], top.record["start_line"] <= line <= top.record["end_line"]) == \
                ("app/ledger.py", True), query


def test_line_prior_keeps_the_chunk_holding_the_line_in_its_definition():
    chunk = {"project": "p", "path": "a.py", "symbol_id": "f", "start_line": 10, "end_line": 20}
    at = {("p", "a.py"): ("f", 15)}
    assert line_prior(chunk, at, 0.8) == 1.0
    assert line_prior({**chunk, "start_line": 16}, at, 0.8) == 0.8  # another window of f
    assert line_prior({**chunk, "symbol_id": "cls", "start_line": 1, "end_line": 30}, at, 0.8) == 0.8  # its class
    assert line_prior({**chunk, "path": "b.py"}, at, 0.8) == 0.8  # another file's namesake, say
    assert line_prior({**chunk, "path": "b.py", "start_line": 11}, {**at, ("p", "b.py"): ("f", 12)}, 0.8) == 1.0
    assert line_prior(chunk, {}, 0.8) == 1.0


#: how tools and runtimes name a file's line; {n} is the line. The frames name the function on that line
FRAMES = {
    "node": "    at Ledger.reconcile (/srv/books/app/ledger.py:{n}:12)",
    "java": "\tat app.Ledger.reconcile(ledger.py:{n})",
    "dotnet": "   at App.Ledger.Reconcile() in /srv/books/app/ledger.py:line {n}",
    "php": "#0 /srv/books/app/ledger.py({n}): Ledger->reconcile()",
    "go": "\t/srv/books/app/ledger.py:{n} +0x1d",
    "rust": "   at ./app/ledger.py:{n}:5",
    "ruby": "/srv/books/app/ledger.py:{n}:in 'reconcile'",
    "compiler": "app/ledger.py:{n}:5: error: expected ';'",
    "linter": "app/ledger.py:{n}:9: F841 Local variable `x` is assigned to but never used",
}


@pytest.mark.parametrize("frame", list(FRAMES))
def test_a_frame_naming_the_method_its_line_is_in_picks_the_window_of_the_line(ledger, frame):
    """A stack frame of another language names the method as well as the line (`at app.Ledger.reconcile(
    ledger.py:21)`): the name agrees with the line, so the window holding the line still comes first."""
    eng, _, windows = ledger
    for start, end in windows[1:3]:
        line = (start + end) // 2
        top = eng.search_code(FRAMES[frame].format(n=line), project="books")[0]
        assert (top.record["path"], top.title) == ("app/ledger.py", "class Ledger > def reconcile"), frame
        assert top.record["start_line"] <= line <= top.record["end_line"], (frame, line, top.record)
    if frame == "dotnet":  # the symbol tools read .NET's `:line N` too
        assert eng.symbol_graph(f"app/ledger.py:line {line}", "callers")["symbol"]["qualname"] == "Ledger.reconcile"
