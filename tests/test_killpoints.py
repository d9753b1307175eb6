"""A kill before and after every commit of every kind of write: the next open finds the write whole or absent.

A helper process, which never touches LanceDB itself, forks one child per kill point from a copy of a
prepared data directory. The child counts the commits of one write (each LanceDB add, upsert, delete or meta
write, and each Tantivy commit) and sends itself SIGKILL just before or just after commit number k. The test
then opens the directory as the next process would and requires: the rows are exactly those before the write
or exactly those after it (compared by content, since ids and times are drawn anew), `check` finds nothing
torn or dangling, and the BM25 index and the graph agree with LanceDB. Index runs are several writes by
design: there a rerun must reach the state of a run that was never interrupted, edges included.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Iterator

import pytest

from memory_graph import Config, Engine
from conftest import WindowEmbedder, write_files

TESTS = Path(__file__).parent
ROOT = TESTS.parent
CONFIG = dict(passage_tokens=20, passage_stride=15)
FILLER = " ".join(f"routine{i} note{i} about the weekly sync" for i in range(12))

# what each kind of write does, run by the child on an engine `eng` over the prepared directory
WRITES = {
    "store": "eng.store(f'{FILLER} Kestrel now also feeds the Osprey ledger', tags=['billing'], project='acme',"
             " entities=['Osprey'])",
    "store_many": "eng.store_many([{'content': 'Heron replaces Kestrel for refunds'},"
                  " {'content': f'{FILLER} the Heron rollout plan', 'tags': ['plan']},"
                  " {'content': 'Ibis is the new name of the ledger exporter'}])",
    "update_content": "eng.update(ids['long'], content=f'{FILLER} Kestrel moved to the Petrel cluster')",
    "update_tags": "eng.update(ids['short'], tags=['ops', 'oncall'], project='infra')",
    "invalidate": "eng.invalidate(ids['short'], reason='replaced', superseded_by=ids['other'])",
    "delete": "eng.delete([ids['long'], ids['other']])",
    "relate": "eng.create_relation('Kestrel', 'Condor', 'depends_on')",
    "delete_entity": "eng.delete_entity('Kestrel')",
    "import": "eng.import_(dump)",
    "index": "index_project(eng, repo, project='demo')",
    "index_force": "index_project(eng, repo, project='demo', force=True)",
    "delete_project": "eng.delete_project('demo')",
}
#: index runs are a sequence of writes that a rerun completes: the test reruns them after each kill
RUNS = {"index": "index", "index_force": "index_force"}

FORKER = """
import json, os, signal, sys
sys.path[:0] = [%r, %r]
from pathlib import Path
from memory_graph import Config, Engine
from memory_graph.store.lance import LanceStore
from memory_graph.store.text_index import TantivyIndex
from codebase import index_project
from conftest import WindowEmbedder
from test_killpoints import CONFIG, FILLER, WRITES
import warnings, lancedb, pyarrow.compute, scipy.sparse  # imported once here, not in every child
warnings.filterwarnings("ignore", "lancedb fork support")

counter = {"on": False, "n": 0, "at": None, "when": None}

def commit(fn, empty=lambda *a, **k: False):
    def wrapped(*args, **kwargs):
        if not counter["on"] or empty(*args, **kwargs):
            return fn(*args, **kwargs)
        counter["n"] += 1
        if counter["n"] == counter["at"] and counter["when"] == "before":
            os.kill(os.getpid(), signal.SIGKILL)
        out = fn(*args, **kwargs)
        if counter["n"] == counter["at"] and counter["when"] == "after":
            os.kill(os.getpid(), signal.SIGKILL)
        return out
    return wrapped

no_rows = lambda self, name, rows, *a, **k: len(rows) == 0
LanceStore.add = commit(LanceStore.add, no_rows)
LanceStore.upsert = commit(LanceStore.upsert, no_rows)
LanceStore.delete = commit(LanceStore.delete)
LanceStore.set_meta = commit(LanceStore.set_meta)
TantivyIndex.write = commit(TantivyIndex.write, lambda self, upserts=(), deletes=(): not upserts and not deletes)

for line in sys.stdin:
    job = json.loads(line)
    pid = os.fork()
    if pid == 0:
        try:
            counter.update(at=job["at"], when=job["when"])
            eng = Engine(job["data"], config=Config(**CONFIG), embedder=WindowEmbedder())
            env = dict(eng=eng, ids=job["ids"], FILLER=FILLER, dump=job["dump"], repo=job["repo"],
                       index_project=index_project)
            counter["on"] = True
            exec(WRITES[job["kind"]], env)
            counter["on"] = False
            Path(job["data"], "commits").write_text(str(counter["n"]))
            os._exit(0)
        except BaseException:
            import traceback
            traceback.print_exc()
            os._exit(3)
    _, status = os.waitpid(pid, 0)
    print(json.dumps({"data": job["data"], "status": status}), flush=True)
""" % (str(TESTS), str(ROOT))


def run_jobs(jobs: list[dict]) -> Iterator[tuple[str, int]]:
    """Run the jobs in forked children of one helper process; yields each data directory with its child's wait
    status as soon as it ends, so that the caller checks one while the next runs."""
    p = subprocess.Popen([sys.executable, "-c", FORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    feeder = threading.Thread(target=lambda: (p.stdin.write("".join(json.dumps(j) + "\n" for j in jobs)),
                                              p.stdin.close()))
    feeder.start()
    n = 0
    for line in p.stdout:
        r = json.loads(line)
        n += 1
        yield r["data"], r["status"]
    feeder.join()
    err = p.stderr.read()
    assert p.wait(timeout=60) == 0 and n == len(jobs), err[-3000:]


def state(eng: Engine) -> dict:
    """Every row of every table that a write changes, by content: generated ids and times left out."""
    q = lambda table, cols: eng.lance.query(table, None, cols).to_pylist()  # noqa: E731
    mem = {r["id"]: r for r in q("memories", ["id", "content", "title", "tags", "project", "importance",
                                              "valid_until", "superseded_by", "invalidation_reason"])}
    ents = {r["id"]: r for r in q("entities", ["id", "name", "entity_type", "aliases"])}

    def label(i: str) -> str:
        return f"m:{mem[i]['content'][-40:]}" if i in mem else f"e:{ents[i]['name']}" if i in ents else f"?{i}"

    return {
        "memories": sorted((r["content"], r["title"], tuple(sorted(r["tags"])), r["project"], r["importance"],
                            r["valid_until"] is not None, label(r["superseded_by"]) if r["superseded_by"] else "",
                            r["invalidation_reason"]) for r in mem.values()),
        "entities": sorted((r["name"], r["entity_type"], tuple(sorted(r["aliases"] or ()))) for r in ents.values()),
        "mentions": sorted((label(r["memory_id"]), label(r["entity_id"]), r["kind"])
                           for r in q("mentions", ["memory_id", "entity_id", "kind"])),
        "passages": sorted((label(r["memory_id"]), r["id"].rsplit("#", 1)[1])
                           for r in q("passages", ["id", "memory_id"])),
        "relations": sorted((label(r["source"]), label(r["target"]), r["relation_type"])
                            for r in q("relations", ["source", "target", "relation_type"])),
        "files": sorted((r["project"], r["path"], r["content_hash"]) for r in q("files", ["project", "path",
                                                                                        "content_hash"])),
        "chunks": sorted(r["id"] for r in q("code_chunks", ["id"])),
        "symbols": sorted(r["id"] for r in q("symbols", ["id"])),
        "edges": sorted((r["source"], r["target"], r["target_name"], r["kind"], r["line"])
                        for r in q("symbol_edges", ["source", "target", "target_name", "kind", "line"])),
        "neighbours": sorted((r["id"], tuple(r["neighbours"])) for r in q("chunk_neighbours", ["id", "neighbours"])),
    }


def whole(data: Path) -> tuple[Engine, dict]:
    """Open a directory as the next process would, and check that nothing is torn or dangling and that the
    derived stores agree with LanceDB."""
    eng = Engine(data, config=Config(**CONFIG), embedder=WindowEmbedder())
    report = eng.check()
    assert report["ok"], report
    assert not (data / "write-intent.json").exists()
    truth = set(eng.lance.query("memories", None, ["id"]).column("id").to_pylist())
    assert set(eng.text.revisions("memory")) == truth
    assert {n for n, a in eng.graph.nodes() if a.get("kind") == "memory"} == truth
    assert set(eng.text.revisions("code")) == set(eng.lance.query("code_chunks", None, ["id"]).column("id").to_pylist())
    return eng, state(eng)


REPO = {
    "pkg/__init__.py": "from .core import Ledger\n",
    "pkg/core.py": "from .util import fmt\n\n\nclass Ledger:\n    def total(self, rows):\n"
                   "        return fmt(sum(rows))\n\n    def report(self):\n        return self.total([1, 2])\n",
    "pkg/util.py": "def fmt(x):\n    return f'{x:.2f}'\n\n\ndef parse(s):\n    return float(s)\n",
    "pkg/cli.py": "from .core import Ledger\nfrom .util import parse\n\n\ndef main(argv):\n"
                  "    return Ledger().total([parse(a) for a in argv])\n",
}


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> dict:
    """A data directory with memories (one long, with passages), entities, a relation and an indexed project;
    an export file to import; a repository with one file changed since it was indexed."""
    root = tmp_path_factory.mktemp("killpoints")
    repo = root / "repo"
    write_files(repo, REPO)
    data = root / "base"
    eng = Engine(data, config=Config(**CONFIG, index_batch_files=2), embedder=WindowEmbedder())
    from codebase import index_project

    ids = {"long": eng.store(f"{FILLER} Kestrel is the codename of the billing service", tags=["billing"]),
           "short": eng.store("The Kestrel deploy runs on Fridays", project="acme"),
           "other": eng.store("Deploys moved to Tuesdays for Kestrel", project="acme")}
    eng.create_relation("Kestrel", "Osprey", "feeds")
    assert index_project(eng, repo, project="demo").edges > 0
    src = Engine(root / "src", config=Config(**CONFIG), embedder=WindowEmbedder())
    src.store_many([{"content": f"{FILLER} imported note {i} about Module{i}"} for i in range(3)] +
                   [{"content": f"short imported note about Module{i}"} for i in range(3)])
    src.create_relation("Module1", "Module2", "calls")
    src.export(root / "dump.jsonl")
    src.close()
    eng.close()
    (repo / "pkg" / "util.py").write_text(REPO["pkg/util.py"] + "\n\ndef twice(x):\n    return 2 * fmt(x)\n")
    return {"root": root, "data": data, "ids": ids, "dump": str(root / "dump.jsonl"), "repo": str(repo)}


def _copy(base: dict, name: str) -> Path:
    dest = base["root"] / "runs" / name
    shutil.copytree(base["data"], dest)
    for stale in dest.glob("*.lock"):
        stale.unlink()
    return dest


def _job(base: dict, data: Path, kind: str, at: int | None = None, when: str | None = None) -> dict:
    return {"data": str(data), "kind": kind, "at": at, "when": when, "ids": base["ids"], "dump": base["dump"],
            "repo": base["repo"]}


def test_a_kill_before_or_after_any_commit_leaves_each_write_whole_or_absent(base):
    _, before = whole(_copy(base, "before"))
    full = {kind: _copy(base, f"{kind}-full") for kind in WRITES}
    statuses = dict(run_jobs([_job(base, d, kind) for kind, d in full.items()]))
    after, commits = {}, {}
    for kind, d in full.items():
        assert statuses[str(d)] == 0, kind
        commits[kind] = int((d / "commits").read_text())
        eng, after[kind] = whole(d)
        eng.close()
        assert after[kind] != before, f"{kind} changed nothing"
        assert commits[kind] >= 2, f"{kind}: one commit is atomic by itself; this kind tests nothing"
    jobs, points = [], {}
    for kind, n in commits.items():
        for at in range(1, n + 1):
            for when in ("before", "after"):
                d = _copy(base, f"{kind}-{at}-{when}")
                jobs.append(_job(base, d, kind, at, when))
                points[str(d)] = (kind, at, when)
    outcomes: dict[str, set[str]] = {kind: set() for kind in WRITES}
    for path, status in run_jobs(jobs):
        kind, at, when = points[path]
        assert os.WIFSIGNALED(status), f"{kind} was not killed at commit {at} ({when})"
        eng, found = whole(Path(path))
        if kind in RUNS:
            from codebase import index_project

            index_project(eng, base["repo"], project="demo", force=kind == "index_force")
            eng.close()
            eng, found = whole(Path(path))
            assert found == after[kind], f"{kind} killed {when} commit {at}, then run again"
            outcomes[kind].add("completed by a rerun")
        else:
            assert found in (before, after[kind]), f"{kind} killed {when} commit {at} left a torn write"
            outcomes[kind].add("absent" if found == before else "whole")
        eng.close()
    # a write is acknowledged once its intent is gone, after its last commit: a kill at any commit undoes it
    for kind in WRITES:
        if kind not in RUNS:
            assert outcomes[kind] >= {"absent"}, kind
    print(json.dumps({k: [commits[k], sorted(v)] for k, v in outcomes.items()}))


def test_check_finds_and_repair_mends_rows_an_older_version_left_torn(tmp_path):
    """Rows torn by hand as a kill between commits of an older version tore them: a memory without its
    passages, one without its links, a mention, passage and relation of a deleted memory, a code chunk of a
    file the project no longer has."""
    from codebase import index_project

    repo = tmp_path / "repo"
    write_files(repo, REPO)
    eng = Engine(tmp_path / "data", config=Config(**CONFIG), embedder=WindowEmbedder())
    long_id = eng.store(f"{FILLER} Kestrel is the codename of the billing service")
    linked = eng.store("The Kestrel deploy runs on Fridays")
    gone = eng.store("Petrel feeds Kestrel", entities=["Petrel"])
    eng.create_relation(gone, "Kestrel", "about")
    index_project(eng, repo, project="demo")
    assert eng.check()["ok"] and eng.stats()["healthy"]
    fine = state(eng)
    with eng.lance.transaction(["passages", "mentions", "memories", "files"]):
        eng.lance.delete("passages", f"memory_id = '{long_id}'")
        eng.lance.delete("mentions", f"memory_id = '{linked}'")
        eng.lance.delete("memories", f"id = '{gone}'")
        eng.lance.delete("files", "path = 'pkg/cli.py'")
    eng.close()
    eng = Engine(tmp_path / "data", config=Config(**CONFIG), embedder=WindowEmbedder())
    report = eng.check()
    assert not report["ok"]
    assert report["torn"] == {"passages": 1, "links": 1}
    assert {"mentions", "relations", "code_chunks", "symbols", "symbol_edges"} <= set(report["dangling"])
    stats = eng.stats()
    assert not stats["healthy"] and stats["dangling"] == {k: v for k, v in report["dangling"].items()}
    assert eng.check(repair=True)["repaired"]
    assert eng.check()["ok"] and eng.stats()["healthy"]
    mended = state(eng)
    assert mended["passages"] == fine["passages"]
    assert [m for m in mended["mentions"] if m[0].endswith("runs on Fridays")] == \
        [m for m in fine["mentions"] if m[0].endswith("runs on Fridays")]
    assert eng.lance.count("code_chunks", "path = 'pkg/cli.py'") == 0
    assert all("Petrel feeds" not in str(r) for r in mended["relations"])
    assert eng.search_code("Ledger total") and [h.id for h in eng.search("Kestrel billing", limit=3)]
    eng.close()


def test_a_pending_intent_is_undone_by_the_next_writer_and_reported_meanwhile(tmp_path):
    eng = Engine(tmp_path / "data", config=Config(**CONFIG), embedder=WindowEmbedder())
    eng.store("The Kestrel deploy runs on Fridays")
    before = state(eng)
    versions = eng.lance.versions(["memories", "mentions", "entities", "passages"])
    eng.lance._write_intent(versions)  # as a writer killed mid-write leaves it
    eng.lance.add("memories", [{**eng.lance.query("memories").to_pylist()[0], "id": "mem_torn"}])
    assert eng.stats()["unfinished_write"] and not eng.stats()["healthy"]
    eng.store("Deploys moved to Tuesdays")  # the next writer undoes the torn write first
    assert eng.lance.count("memories", "id = 'mem_torn'") == 0
    assert not (tmp_path / "data" / "write-intent.json").exists()
    assert len(state(eng)["memories"]) == len(before["memories"]) + 1
    eng.close()
