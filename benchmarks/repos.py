"""Real repositories as data sets: hand-written questions about a package's source, and how to fetch it.

Each repository's questions are in benchmarks/queries/<folder>.json, a list of {"query": ..., "names": [...]}:
the names (``Class.method`` or a bare name) of the definitions that answer it, none for a question the
repository does not answer (judged, as devnotes' are, by whether the search says that nothing matches well). The sources are public packages
fetched once, before a run, into one folder (the harness's --repos):

  python -m benchmarks.repos fetch ~/.cache/memory-graph/bench-repos

Every system searches the same chunks: the ones memory-graph's indexer made of the whole folder (code, tests,
docs), each a document of its path, breadcrumb and text with the vector memory-graph stored for it. A chunk
answers a question when its breadcrumb's qualified name is one of the names (or ends with ".name") and it is
not in a test file.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from .data import Dataset, Query

QUERIES = Path(__file__).resolve().parent / "queries"
DEFAULT_DIR = Path.home() / ".cache" / "memory-graph" / "bench-repos"

#: data set name -> (folder under --repos, language, how it is fetched). click and requests are the questions
#: the code defaults were first checked on; marshmallow, commander, cobra and mobx were written after, to check
#: them
REPOS = {
    "click": ("click-8.1.7", "Python", ("pip", "click==8.1.7")),
    "requests": ("requests-2.32.3", "Python", ("pip", "requests==2.32.3")),
    "marshmallow": ("marshmallow-3.21.3", "Python", ("pip", "marshmallow==3.21.3")),
    "commander": ("commander-12.1.0", "JavaScript + TypeScript typings", ("npm", "commander@12.1.0")),
    "cobra": ("cobra-1.6.1", "Go", ("deb", "golang-github-spf13-cobra-dev=1.6.1-1",
                                    "usr/share/gocode/src/github.com/spf13/cobra")),
    "mobx": ("mobx-6.13.5", "TypeScript", ("npm", "mobx@6.13.5")),
}


def qualname(title: str) -> str:
    """'class HTTPAdapter > def send' -> 'HTTPAdapter.send' (the last word of each breadcrumb part)."""
    return ".".join(part.split()[-1] for part in title.split(" > ") if part.split())


def answers(title: str, path: str, names: list[str]) -> bool:
    """Whether a chunk (its breadcrumb and path) is one of the definitions ``names`` outside the tests."""
    from memory_graph.paths import is_test_path

    q = qualname(title)
    return not is_test_path(path) and any(q == n or q.endswith("." + n) for n in names)


def load_repo(name: str, root: Path) -> Dataset | None:
    """The questions of one repository; its documents are filled in once it is indexed (None: not fetched)."""
    folder = REPOS[name][0]
    source = root / folder
    if not source.is_dir():
        return None
    raw = json.loads((QUERIES / f"{folder}.json").read_text(encoding="utf-8"))
    queries = [Query(f"{name}:{i}", q["query"], set()) for i, q in enumerate(raw)]
    names = {q.id: r["names"] for q, r in zip(queries, raw)}
    return Dataset(name, "code", [], [q for q in queries if names[q.id]], ("mrr@10", "hit@1", "hit@10"),
                   source=source, answer_names=names, unanswerable=[q for q in queries if not names[q.id]],
                   notes=[f"{folder} ({REPOS[name][1]}): {len(queries)} hand-written questions, "
                          f"{sum(not n for n in names.values())} of them about what it does not hold"])


def fill_from_chunks(ds: Dataset, rows: list[dict]) -> None:
    """Every chunk becomes a document; each question's relevant set is the chunks that answer it (a question
    nothing answers, a name the indexer did not find, is dropped with a note)."""
    from .data import Doc

    ds.docs = [Doc(r["id"], r["content"], title=f"{r['path']}: {r['breadcrumb'] or r['name'] or ''}".strip())
               for r in rows]
    kept = []
    for q in ds.queries:
        q.relevant = {r["id"] for r in rows if answers(r["breadcrumb"] or r["name"] or r["path"], r["path"],
                                                       ds.answer_names[q.id])}
        if q.relevant:
            kept.append(q)
        else:
            ds.notes.append(f"dropped (no chunk is {ds.answer_names[q.id]}): {q.text[:60]}")
    ds.queries = kept


def fetch(root: Path, names: list[str]) -> None:
    """Download and unpack each repository's pinned package into ``root`` (pip, npm or apt-get download)."""
    root.mkdir(parents=True, exist_ok=True)
    for name in names:
        folder, _, (tool, spec, *inner) = REPOS[name]
        if (root / folder).is_dir():
            print(f"{folder}: already there")
            continue
        with tempfile.TemporaryDirectory() as tmp:
            cmd = {"pip": [sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps", "-d", tmp,
                           spec],
                   "npm": ["npm", "pack", spec, "--pack-destination", tmp],
                   "deb": ["apt-get", "download", spec]}[tool]
            subprocess.run(cmd, check=True, cwd=tmp)
            archive = next(Path(tmp).iterdir())
            out = Path(tmp) / "x"
            if tool == "deb":
                subprocess.run(["dpkg-deb", "-x", str(archive), str(out)], check=True)
                top = out / inner[0]
            else:
                with tarfile.open(archive) as tar:
                    tar.extractall(out, filter="data")
                top = next(out.iterdir())
            shutil.move(str(top), root / folder)
        print(f"{folder}: fetched")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.repos", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    f = sub.add_parser("fetch", help="download the pinned packages the repository questions are about")
    f.add_argument("folder", type=Path, nargs="?", default=DEFAULT_DIR,
                   help=f"where to unpack them (default: {DEFAULT_DIR}); pass it to python -m benchmarks --repos")
    f.add_argument("--only", nargs="+", choices=list(REPOS), default=list(REPOS), help="repositories to fetch")
    args = p.parse_args(argv)
    fetch(args.folder, args.only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
