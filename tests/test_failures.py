"""Honest failures: a full disk, a read-only data directory, a text index without permission.

The disk and the read-only directory are real: a small tmpfs and a read-only bind mount, which need root with
CAP_SYS_ADMIN (CI's container has it); elsewhere these tests are skipped and say why.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

from memory_graph import Config, Engine, MemoryGraphError, ReadOnlyError
from memory_graph.store import text_index as text_index_module
from memory_graph.store.text_index import TextIndex
from conftest import HashEmbedder


def _mount(args: list[str], why: str) -> None:
    r = subprocess.run(["mount", *args], capture_output=True, text=True)
    if r.returncode:
        pytest.skip(f"cannot {why} here ({r.stderr.strip() or r.returncode}): needs root with CAP_SYS_ADMIN")


@contextmanager
def small_disk(path: Path, size: str):
    path.mkdir()
    _mount(["-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], "mount a small tmpfs to fill")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


@contextmanager
def read_only_view(src: Path, path: Path):
    path.mkdir()
    _mount(["--bind", str(src), str(path)], "bind-mount a directory")
    try:
        _mount(["-o", "remount,bind,ro", str(path)], "remount a directory read-only")
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


def _fill(disk: Path, leave: int) -> Path:
    """Fill the disk but for ``leave`` bytes; returns the filler file."""
    filler = disk / "filler"
    st = os.statvfs(disk)
    with open(filler, "wb") as f:
        f.write(b"\0" * max(0, st.f_bavail * st.f_frsize - leave))
    return filler


def test_a_full_disk_fails_writes_honestly_keeps_reads_and_recovers_when_freed(tmp_path):
    with small_disk(tmp_path / "disk", "8m") as disk:
        eng = Engine(disk / "data", config=Config(), embedder=HashEmbedder())
        stored = eng.store_many([{"content": f"note {i} about the Kestrel ledger"} for i in range(5)])
        filler = _fill(disk, 96 * 1024)
        failed = None
        for i in range(400):
            try:
                stored.append(eng.store(f"memory {i} written as the disk fills " + "padding words " * 40))
            except MemoryGraphError as exc:
                failed = exc
                break
        assert failed is not None, "the disk never filled"
        assert "full" in (failed.hint or "") and "Traceback" not in str(failed)
        # a write reported as failed left nothing a reader sees; every acknowledged one is there
        assert sorted(m.id for m in eng.get(stored)) == sorted(stored)
        assert eng.list(limit=1000)[1] == len(stored)
        with pytest.raises(MemoryGraphError) as again:
            eng.store("another memory while the disk is full")
        assert "full" in (again.value.hint or "")
        # reads work, in this process and in a new one
        assert eng.search("Kestrel ledger", mode="bm25")
        reader = Engine(disk / "data", config=Config(), embedder=HashEmbedder())
        assert reader.list(limit=1000)[1] == len(stored) and reader.search("Kestrel ledger note 3")
        assert reader.stats()["counts"]["memories"] == len(stored)
        reader.close()
        filler.unlink()
        stored.append(eng.store("the disk has room again"))
        assert eng.check()["ok"] and eng.stats()["healthy"]
        eng.close()
        fresh = Engine(disk / "data", config=Config(), embedder=HashEmbedder())
        assert fresh.list(limit=1000)[1] == len(stored) and fresh.check()["ok"]
        assert fresh.search("room again", mode="bm25")
        fresh.close()


def _tree(path: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(path)): (p.stat().st_size, p.stat().st_mtime_ns) for p in path.rglob("*")
            if p.is_file()}


def test_a_read_only_data_directory_reads_without_a_lock_and_refuses_writes_clearly(tmp_path):
    from codebase import index_project
    from conftest import FIXTURE_REPO

    src = tmp_path / "src"
    eng = Engine(src, config=Config(), embedder=HashEmbedder())
    ids = eng.store_many([{"content": f"note {i} about the Kestrel ledger"} for i in range(5)])
    index_project(eng, FIXTURE_REPO, project="demo")
    eng.close()
    before = _tree(src)
    with read_only_view(src, tmp_path / "ro") as ro:
        eng = Engine(ro, config=Config(), embedder=HashEmbedder())
        assert [m.id for m in eng.get(ids)] == ids
        assert eng.search("Kestrel ledger note 2", mode="bm25") and eng.search("Kestrel ledger")
        assert eng.search_code("normalize_sku", limit=3) and eng.stats()["counts"]["memories"] == 5
        assert eng.check()["ok"]
        for write in (lambda: eng.store("a new note"), lambda: eng.delete(ids[:1]),
                      lambda: eng.update(ids[0], importance=9)):
            with pytest.raises(ReadOnlyError) as err:
                write()
            assert str(ro) in str(err.value)
        eng.close()
    assert _tree(src) == before


def test_the_cli_reads_a_read_only_directory_and_a_write_says_why_it_cannot(tmp_path):
    src = tmp_path / "src"
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    cli = [sys.executable, "-c", "from server.cli import app; app()"]
    r = subprocess.run([*cli, "--data-dir", str(src), "store", "the Kestrel ledger closes on Fridays"],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    with read_only_view(src, tmp_path / "ro") as ro:
        for args in (["list"], ["stats"], ["search", "Kestrel ledger", "--mode", "bm25"]):
            r = subprocess.run([*cli, "--data-dir", str(ro), *args], capture_output=True, text=True, env=env)
            assert r.returncode == 0 and "Traceback" not in r.stderr, (args, r.stderr[-2000:])
            assert "Kestrel" in r.stdout or args == ["stats"], args
        r = subprocess.run([*cli, "--data-dir", str(ro), "store", "a new note"], capture_output=True, text=True,
                           env=env)
        assert r.returncode != 0 and "Traceback" not in r.stderr
        assert "cannot be written" in r.stderr and str(ro) in r.stderr


def test_a_text_index_that_permission_denies_is_not_wiped_and_is_read_from_a_copy(tmp_path, monkeypatch):
    eng = Engine(tmp_path / "data", config=Config(), embedder=HashEmbedder())
    eng.store_many([{"content": f"note {i} about the Kestrel ledger"} for i in range(5)])
    eng.close()
    path = tmp_path / "data" / "bm25"
    files = sorted(p.name for p in path.iterdir())
    real = text_index_module.tantivy.Index

    def denied(schema, path=None, reuse=True):
        if path and "memory-graph-bm25-" not in path:
            raise ValueError(f"Failed to open file for read: 'IoError {{ io_error: Os {{ code: 13, kind: "
                             f"PermissionDenied, message: \"Permission denied\" }}, filepath: {path} }}'")
        return real(schema, path=path, reuse=reuse)

    monkeypatch.setattr(text_index_module.tantivy, "Index", denied)
    text = TextIndex(path)
    assert text.unwritable and "Permission denied" in text.unwritable
    assert sorted(p.name for p in path.iterdir()) == files  # not taken for damage and wiped
    eng = Engine(tmp_path / "data", config=Config(), embedder=HashEmbedder())
    assert len(eng.search("Kestrel ledger", mode="bm25", limit=10)) == 5  # read from a private copy
    with pytest.raises(ReadOnlyError, match="reading only"):
        eng.store("a new note")
    eng.close()
    assert sorted(p.name for p in path.iterdir()) == files
    shutil.rmtree(tmp_path / "data")
