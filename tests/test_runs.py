"""Index runs in progress, seen from elsewhere: a code question about a project being indexed says that its answer
may be incomplete (the run may be in this process or another), and a run that ended or died says nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from codebase import Indexer, index_project
from memory_graph import Config, Engine
from memory_graph.errors import BusyError, NotFoundError
from memory_graph.runs import RunLock, describe, running

from conftest import HashEmbedder, write_files

HOLD = """
import sys
from memory_graph.runs import RunLock
lock = RunLock(sys.argv[1], sys.argv[2], "/src/" + sys.argv[2])
lock.acquire(timeout=5)
lock.update("index", 3, 40, force=True)
print("held", flush=True)
sys.stdin.read()
"""


@pytest.fixture
def other_process(tmp_path):
    """Start a process that holds a project's index lock, as an index run in another process does."""
    procs = []

    def start(project: str) -> subprocess.Popen:
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
        p = subprocess.Popen([sys.executable, "-c", HOLD, str(tmp_path / "data"), project], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True, env=env)
        procs.append(p)
        assert p.stdout.readline().strip() == "held"
        return p

    yield start
    for p in procs:
        p.kill()
        p.wait()


def test_a_held_lock_is_a_run_and_a_released_one_is_not(tmp_path):
    lock = RunLock(tmp_path, "shop", "/src/shop")
    assert running(tmp_path) == []
    lock.acquire(timeout=0)
    lock.update("index", 3, 10, force=True, chunks=40)
    runs = running(tmp_path)
    assert [(r["project"], r["root"], r["files_done"], r["files_total"], r["chunks_embedded"], r["pid"])
            for r in runs] == [("shop", "/src/shop", 3, 10, 40, os.getpid())]
    assert running(tmp_path, "shop") == runs and running(tmp_path, "cart") == []
    assert describe(runs[0]).startswith("project 'shop' is being indexed (3 of 10 changed files done): ")
    lock.update("index", 4, 10)  # within a second of the last write: not written again
    assert running(tmp_path)[0]["files_done"] == 3
    lock.update("resolve", 0, 1, force=True)  # a phase that embeds nothing keeps the count
    assert running(tmp_path)[0]["chunks_embedded"] == 40
    lock.release()
    assert running(tmp_path) == [] and running(tmp_path, "shop") == []


def test_a_dead_runs_file_is_ignored(tmp_path):
    """A run killed mid-way leaves its progress file behind, but its lock went with the process."""
    lock = RunLock(tmp_path, "shop", "/src/shop")
    lock.acquire(timeout=0)
    left = lock.info_path.read_text()
    lock.release()
    lock.info_path.write_text(left)
    assert json.loads(left)["project"] == "shop" and running(tmp_path) == []


def test_an_index_run_is_seen_while_it_runs_and_not_after(engine, tmp_path):
    root = write_files(tmp_path / "shop", {f"m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(3)})
    seen = []

    def progress(phase, done, total, info):
        seen.append((phase, [(r["project"], r["phase"]) for r in engine.indexing()]))

    index_project(engine, root, project="shop", progress=progress)
    assert ("index", [("shop", "index")]) in seen and all(runs for _, runs in seen)
    assert engine.indexing() == [] and engine.index_note("shop") is None


def test_code_questions_about_a_project_another_process_indexes(engine, tmp_path, other_process):
    write_files(tmp_path / "cart", {"cart.py": "def add_item():\n    return 1\n"})
    index_project(engine, tmp_path / "cart", project="cart")
    with pytest.raises(NotFoundError, match="unknown project: shop"):
        engine.search_code("orders", project="shop")
    proc = other_process("shop")
    # its first files are not written yet: an empty answer, not "unknown project"
    assert engine.search_code("orders", project="shop") == []
    assert engine.find_symbols("place_order", project="shop") == []
    note = engine.index_note("shop")
    assert note.startswith("project 'shop' is being indexed (3 of 40 changed files done)")
    assert engine.index_note(None) == note and engine.index_note("cart") is None
    assert [r["pid"] for r in engine.indexing()] == [proc.pid]
    with pytest.raises(NotFoundError) as e:
        engine.symbol_graph("place_order", project="shop")
    assert e.value.message == "unknown symbol: place_order" and e.value.hint.startswith(note + "; ")
    # a question about another project keeps its own hint
    with pytest.raises(NotFoundError) as e:
        engine.symbol_graph("place_order", project="cart")
    assert "being indexed" not in e.value.hint
    proc.kill()
    proc.wait()
    assert engine.indexing() == []  # the lock died with the process
    with pytest.raises(NotFoundError, match="unknown project: shop"):
        engine.search_code("orders", project="shop")


def test_the_cli_notes_a_run_in_progress(run, tmp_path, other_process):
    write_files(tmp_path / "cart", {"cart.py": "def add_item():\n    return 1\n"})
    run("index", str(tmp_path / "cart"), "--project", "cart")
    assert "being indexed" not in run("search-code", "add item").stderr
    proc = other_process("shop")
    for args in (["search-code", "add item"], ["symbols", "add_item"], ["callers", "add_item"]):
        assert "note: project 'shop' is being indexed (3 of 40 changed files done)" in run(*args).stderr
    assert "note:" not in run("search-code", "add item", "--project", "cart").stderr
    assert f"indexing: project 'shop' is being indexed (3 of 40 changed files done) by process {proc.pid}" in \
        run("projects").stderr


def test_a_project_another_process_indexes_is_not_deleted_under_it(engine, tmp_path, other_process):
    write_files(tmp_path / "shop", {"orders.py": "def place_order():\n    return 1\n"})
    index_project(engine, tmp_path / "shop", project="shop")
    proc = other_process("shop")
    with pytest.raises(BusyError) as e:
        engine.delete_project("shop", wait=0.1)
    assert e.value.message == f"project 'shop' is being indexed by process {proc.pid}; nothing was deleted"
    assert engine.has_code("shop") and [s["name"] for s in engine.find_symbols("place_order")] == ["place_order"]
    proc.kill()
    proc.wait()
    assert engine.delete_project("shop")["files"] == 1 and not engine.has_code("shop")
    assert engine.indexing() == []  # the deletion held the lock without announcing a run


def test_a_cancelled_run_stops_after_its_batch_and_the_next_one_finishes(tmp_path, repo):
    cfg = Config(index_batch_files=1)
    eng = Engine(tmp_path / "d", config=cfg, embedder=HashEmbedder())
    ref = index_project(Engine(tmp_path / "ref", config=cfg, embedder=HashEmbedder()), repo, project="demo")
    phases = []

    def progress(phase, done, total, info):
        phases.append(phase)
        if phase == "index" and done == 3:
            stopped.cancelled.set()

    stopped = Indexer(eng, repo, project="demo", progress=progress)
    report = stopped.run()
    assert report.files_indexed == 3 and "cancelled; the next run resumes" in report.errors
    assert "resolve" not in phases and "density" not in phases and eng.indexing() == []
    rest = index_project(eng, repo, project="demo")
    assert rest.files_indexed == 15 and (rest.chunks, rest.symbols, rest.edges) == (ref.chunks, ref.symbols, ref.edges)
    eng.close()
