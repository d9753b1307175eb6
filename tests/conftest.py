"""Shared fixtures: a deterministic fake embedder for unit tests, engines on temporary directories, and the
symbol edges of a small project (edges_of)."""

from __future__ import annotations

import hashlib
import os
import textwrap

import numpy as np
import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
if "MEMORY_GRAPH_CACHE_DIR" not in os.environ:
    # the built ONNX graph is kept for the whole run (its processes too), never in the user's cache folder
    import atexit
    import shutil
    import tempfile

    os.environ["MEMORY_GRAPH_CACHE_DIR"] = tempfile.mkdtemp(prefix="memory-graph-test-cache-")
    atexit.register(shutil.rmtree, os.environ["MEMORY_GRAPH_CACHE_DIR"], True)

from hypothesis import settings  # noqa: E402

from memory_graph import Config, Engine  # noqa: E402

# CI runs the same generated examples every time (a failure reproduces); HYPOTHESIS_PROFILE=explore draws
# new ones, as a developer should now and then.
settings.register_profile("ci", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
from memory_graph.text import words  # noqa: E402
from codebase.chunker import parse_file  # noqa: E402
from codebase.languages import detect_language  # noqa: E402
from codebase.methods import method_edges  # noqa: E402
from codebase.resolve import resolve_edges  # noqa: E402


class HashEmbedder:
    """Bag of hashed words, L2-normalised: texts sharing words are close. Counts what it embeds."""

    name = "hash-embedder"

    def __init__(self, dimension: int = 64) -> None:
        self.dimension = dimension
        self.texts_encoded = 0
        self.loaded = True

    def _one(self, text: str) -> np.ndarray:
        v = np.zeros(self.dimension, dtype=np.float32)
        for w in words(text) or ["<empty>"]:
            h = int(hashlib.md5(w.encode()).hexdigest(), 16)
            v[h % self.dimension] += 1.0 if (h >> 64) % 2 else -1.0
        n = np.linalg.norm(v)
        return v / n if n else v

    def encode(self, texts):
        self.texts_encoded += len(texts)
        return np.stack([self._one(t) for t in texts]) if texts else np.zeros((0, self.dimension), np.float32)

    def encode_query(self, text: str) -> np.ndarray:
        return self._one(text)


SEEN = 40  # words the fake model of WindowEmbedder reads of a text


class WindowEmbedder(HashEmbedder):
    """HashEmbedder that, like a real model, reads only the first SEEN words of a text, and splits the rest into
    passages (``passage_rows``)."""

    def _one(self, text: str):
        return super()._one(" ".join(text.split()[:SEEN]))

    def passages(self, text: str, size: int, stride: int, limit: int) -> list[str]:
        from memory_graph.embedding import window_starts

        words = text.split()
        return [" ".join(words[s:s + size]) for s in window_starts(len(words), SEEN, size, stride, limit)]


@pytest.fixture
def embedder() -> HashEmbedder:
    return HashEmbedder()


@pytest.fixture
def engine(tmp_path, embedder):
    eng = Engine(tmp_path / "data", config=Config(), embedder=embedder)
    yield eng
    eng.close()


FIXTURE_REPO = os.path.join(os.path.dirname(__file__), "fixtures", "repo")


def snapshot(eng: Engine) -> tuple:
    """Everything a write could change, in all three stores."""
    return (tuple(eng.lance.count(t) for t in ("memories", "entities", "relations", "mentions")),
            eng.text.num_docs(), eng.graph.number_of_nodes(), eng.graph.number_of_edges(),
            sorted(eng.lance.query("memories", None, ["id", "updated_at"]).to_pylist(), key=lambda r: r["id"]))


def fail_adds_to(eng: Engine, monkeypatch, table: str) -> None:
    """Make every LanceDB add to ``table`` crash (as a full disk would), after the write's other tables."""
    real_add = eng.lance.add

    def add(name, rows):
        if name == table:
            raise RuntimeError(f"crash while adding to {table}")
        return real_add(name, rows)

    monkeypatch.setattr(eng.lance, "add", add)


def write_files(root, files: dict[str, str]):
    """Write these files (path -> text, dedented) under ``root``; returns ``root``."""
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(textwrap.dedent(text))
    return root


def git_repo(root, files: dict[str, str]):
    """A git work tree at ``root`` holding these files (path -> text); nothing committed."""
    import subprocess

    write_files(root, files)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


@pytest.fixture
def repo(tmp_path):
    """A fresh copy of the multi-language fixture repository (outside any git work tree)."""
    import shutil

    dest = tmp_path / "repo"
    shutil.copytree(FIXTURE_REPO, dest)
    return dest


@pytest.fixture
def run(tmp_path):
    """Invoke the `memory-graph` CLI in-process on a temporary data directory; ok=True asserts exit code 0."""
    from typer.testing import CliRunner

    from server.cli import app

    runner = CliRunner()

    def invoke(*args, ok=True, input=None):
        result = runner.invoke(app, ["--data-dir", str(tmp_path / "data"), *args], input=input)
        if ok:
            assert result.exit_code == 0, result.output
        return result

    return invoke


def spans(parsed) -> dict[str, tuple[str, int, int]]:
    """(kind, first line, last line) of each symbol of a parsed file but its module, by qualified name."""
    return {s.qualname: (s.kind, s.start_line, s.end_line) for s in parsed.symbols if s.kind != "module"}


def called_by(files: dict[str, str], folder: str = "") -> dict[str, set[str]]:
    """Each caller's call targets ("path:qualname" without ``folder``, "?name" when unresolved) in a small
    project, each file's language from its name."""
    called: dict[str, set[str]] = {}
    for source, target in edges_of(files, "auto", paths=True):
        called.setdefault(source, set()).add(target.replace(folder, ""))
    return called


def edges_of(files: dict[str, str], language: str = "python", strip_receivers: bool = False,
             package: str = "", paths: bool = False, kind: str = "calls", ids: bool = False) -> set:
    """(source qualname, target qualname or "?name") of every call (or ``kind``) edge of a small project;
    ``paths``: the target as "path:qualname" (namesakes in two files told apart), ``ids`` the source too;
    ``language`` "auto": each file's from its name."""
    symbols, refs = [], {}
    for path, text in files.items():
        text = textwrap.dedent(text)
        parsed = parse_file(path, text, detect_language(path, text[:4096].encode()) if language == "auto" else language)
        for s in parsed.symbols:
            symbols.append({"id": f"{path}:{s.qualname}", "path": path, "name": s.name, "qualname": s.qualname,
                            "kind": s.kind, "parent": s.parent, "start_line": s.start_line,
                            "signature": s.signature})
        rows = [[r.source, r.kind, r.name, r.line, r.receiver, *([r.typed] if r.typed else [])]
                for r in parsed.refs]
        refs[path] = {"refs": [r[:4] for r in rows] if strip_receivers else rows, "imports": parsed.imports}
    all_edges = resolve_edges("demo", symbols, refs, package)
    all_edges += method_edges("demo", symbols, all_edges)
    qual = {s["id"]: s["id"] if ids else s["qualname"] for s in symbols}
    target = {s["id"]: s["id"] if paths or ids else s["qualname"] for s in symbols}
    return {(qual[e["source"]], target[e["target"]] if e["target"] else "?" + e["target_name"])
            for e in all_edges if e["kind"] == kind}
