"""Several processes on one data directory, SIGKILL at random points, damaged derived indexes, old schemas."""

from __future__ import annotations

import logging
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from memory_graph import Config, Engine
from memory_graph.errors import ConfigError, ValidationError
from conftest import FIXTURE_REPO, HashEmbedder

TESTS = Path(__file__).parent
ROOT = TESTS.parent


def spawn(code: str, *args: str) -> subprocess.Popen:
    script = "import sys; sys.path[:0] = [%r, %r]\n" % (str(TESTS), str(ROOT)) + textwrap.dedent(code)
    return subprocess.Popen([sys.executable, "-c", script, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})


def consistent(data_dir: Path) -> Engine:
    """Open the engine (which reconciles) and check that every store agrees with LanceDB."""
    eng = Engine(data_dir, config=Config(), embedder=HashEmbedder())
    truth = set(eng.lance.query("memories", None, ["id"]).column("id").to_pylist())
    assert set(eng.text.revisions("memory")) == truth
    graph_memories = {n for n, a in eng.graph.nodes() if a.get("kind") == "memory"}
    assert graph_memories == truth
    chunks = set(eng.lance.query("code_chunks", None, ["id"]).column("id").to_pylist())
    assert set(eng.text.revisions("code")) == chunks
    ents = set(eng.lance.query("entities", None, ["id"]).column("id").to_pylist())
    mentioned = set(eng.lance.query("mentions", None, ["entity_id"]).column("entity_id").to_pylist())
    assert mentioned <= ents
    return eng


def graph_of(eng: Engine) -> tuple:
    """The memory graph's nodes and edges, comparable across engines."""
    return dict(eng.graph.nodes()), sorted((u, v, k) for u, v, k, _ in eng.graph.edges())


WRITER = """
from memory_graph import Config, Engine
from conftest import HashEmbedder
w, data = int(sys.argv[1]), sys.argv[2]
eng = Engine(data, config=Config(), embedder=HashEmbedder())
for i in range(50):
    eng.store(f"writer {w} wrote memory {i} uniq{w}x{i}", tags=[f"w{w}"])
for b in range(15):
    eng.store_many([{"content": f"writer {w} batch {b} item {j} uniq{w}x{50 + 10 * b + j}"} for j in range(10)])
first = eng.list(tags=[f"w{w}"], limit=5, order_by="created_at", descending=False)[0]
eng.update(first[0].id, importance=9)
eng.delete([first[1].id])
eng.store(f"writer {w} replacement uniq{w}x{1}")
print("done")
"""


def test_four_writer_processes_and_an_index_run_lose_nothing(tmp_path):
    data = tmp_path / "data"
    Engine(data, config=Config(), embedder=HashEmbedder()).close()
    procs = [spawn(WRITER, str(w), str(data)) for w in range(4)]
    procs.append(spawn("""
        from memory_graph import Config, Engine
        from codebase import index_project
        from conftest import HashEmbedder
        eng = Engine(sys.argv[1], config=Config(), embedder=HashEmbedder())
        print(index_project(eng, sys.argv[2], project="demo").files_indexed)
    """, str(data), FIXTURE_REPO))
    outs = [p.communicate(timeout=600) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err[-3000:]
        assert "Timeout" not in err and "held the write lock" not in err and "Traceback" not in err
    assert outs[-1][0].strip() == "18"
    eng = consistent(data)
    assert eng.lance.count("memories") == 4 * 200
    for w in range(4):
        for i in random.Random(w).sample(range(200), 25):
            hits = eng.search(f"uniq{w}x{i}", mode="bm25", limit=1)
            assert hits and f"uniq{w}x{i}" in eng.get([hits[0].id])[0].content
    assert eng.lance.count("code_chunks") > 50 and eng.search_code("normalize_sku", limit=1)
    assert sorted(m.importance for m in eng.list(limit=1000)[0] if m.importance == 9) == [9] * 4


def test_another_process_sees_a_write_at_its_next_search(tmp_path):
    data = tmp_path / "data"
    reader = Engine(data, config=Config(), embedder=HashEmbedder())
    assert reader.search("zebra crossing", mode="bm25") == []
    p = spawn("""
        from memory_graph import Config, Engine
        from conftest import HashEmbedder
        Engine(sys.argv[1], config=Config(), embedder=HashEmbedder()).store("a zebra crossing near billing_service")
    """, str(data))
    assert p.wait(timeout=120) == 0
    assert [h.title for h in reader.search("zebra crossing", mode="bm25")] == ["a zebra crossing near billing_service"]
    assert reader.search("billing_service", mode="graph")


KILLED_WRITER = """
import random
from memory_graph import Config, Engine
from conftest import HashEmbedder
eng = Engine(sys.argv[1], config=Config(optimize_every_rows=40), embedder=HashEmbedder())
rng = random.Random(int(sys.argv[2]))
n = 0
print("ready", flush=True)
while True:
    ids = eng.store_many([{"content": f"round {sys.argv[2]} memory {n + j} about Project{rng.randint(0, 9)}"}
                          for j in range(rng.randint(1, 20))])
    n += len(ids)
    if rng.random() < 0.3:
        eng.update(ids[0], content=f"changed {n} mentions Service{rng.randint(0, 5)}")
    if rng.random() < 0.2:
        eng.delete(ids[-1:])
    if rng.random() < 0.1:
        eng.create_relation(f"Project{rng.randint(0, 9)}", f"Service{rng.randint(0, 5)}", "uses")
"""


def test_sigkill_at_random_points_of_writes_leaves_consistent_stores(tmp_path):
    data = tmp_path / "data"
    rng = random.Random(7)
    reader = Engine(data, config=Config(), embedder=HashEmbedder())  # open all along, as a server would be
    for round_ in range(8):
        p = spawn(KILLED_WRITER, str(data), str(round_))
        assert p.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.05, 1.5))
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=30)
        p.stdout.close()
        p.stderr.close()
        eng = consistent(data)
        rows = eng.lance.query("memories", None, ["id", "content"]).to_pylist()
        for r in rng.sample(rows, min(5, len(rows))):
            # MMR off: "round 1 memory 6" and "round 6 memory 1" are the same words, and MMR demotes the copy
            assert r["id"] in [h.id for h in eng.search(r["content"], mode="bm25", limit=50, use_mmr=False)]
        eng.close()
        reader.store(f"the reader writes after round {round_}")  # its write syncs under the lock
        assert graph_of(reader) == graph_of(consistent(data)), f"round {round_}"


def test_a_killed_index_run_resumes(tmp_path, repo):
    data = tmp_path / "data"
    p = spawn("""
        import time
        from memory_graph import Config, Engine
        from codebase import index_project
        from conftest import HashEmbedder
        class Slow(HashEmbedder):
            def encode(self, texts):
                time.sleep(0.3)
                return super().encode(texts)
        eng = Engine(sys.argv[1], config=Config(index_batch_files=2), embedder=Slow())
        print("ready", flush=True)
        index_project(eng, sys.argv[2], project="demo")
    """, str(data), str(repo))
    assert p.stdout.readline().strip() == "ready"
    time.sleep(1.5)
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=30)
    eng = consistent(data)
    done = len(eng.code_files("demo"))
    assert 0 < done < 18
    from codebase import index_project

    r = index_project(eng, repo, project="demo")
    assert r.files_indexed == 18 - done and len(eng.code_files("demo")) == 18
    fresh = Engine(tmp_path / "fresh", config=Config(), embedder=HashEmbedder())
    ref = index_project(fresh, repo, project="demo")
    assert (r.chunks, r.symbols, r.edges) == (ref.chunks, ref.symbols, ref.edges)
    consistent(data)


# ---- damaged derived indexes ------------------------------------------------------
def _filled(tmp_path) -> Path:
    data = tmp_path / "data"
    eng = Engine(data, config=Config(), embedder=HashEmbedder())
    eng.store_many([{"content": f"memory {i} mentions `Widget{i % 3}`"} for i in range(30)])
    eng.close()
    return data


@pytest.mark.parametrize("damage", ["delete", "garbage", "truncate", "stamp"])
def test_a_damaged_text_index_is_rebuilt_from_lancedb_with_a_log_line(tmp_path, caplog, damage):
    data = _filled(tmp_path)
    bm25 = data / "bm25"
    if damage == "delete":
        for f in bm25.iterdir():
            f.unlink()
    elif damage == "garbage":
        (bm25 / "meta.json").write_text("{not json")
    elif damage == "truncate":
        for f in bm25.iterdir():
            if f.suffix in (".idx", ".term", ".store"):
                f.write_bytes(b"")
    else:  # a stale stamp, and the index lost a document (a crash between LanceDB and Tantivy)
        from memory_graph.store import TextIndex

        ti = TextIndex(bm25)
        ti.write(deletes=[next(iter(ti.revisions("memory")))])
        (data / "derived.json").write_text("[]")
    with caplog.at_level(logging.WARNING, logger="memory_graph"):
        eng = consistent(data)
    assert any("rebuilt" in r.message or "reconciled" in r.message for r in caplog.records)
    assert len(eng.search("memory 7", mode="bm25", limit=50)) >= 1
    assert eng.stats()["healthy"]


def test_a_data_directory_of_another_schema_version_is_refused_clearly(tmp_path):
    data = _filled(tmp_path)
    eng = Engine(data, config=Config(), embedder=HashEmbedder())
    eng.lance.set_meta({"schema_version": "0"})
    eng.close()
    with pytest.raises(ConfigError, match="schema version 0") as exc:
        Engine(data, config=Config(), embedder=HashEmbedder())
    assert "export" in exc.value.hint
    from memory_graph.store import LanceStore

    assert LanceStore(data / "lance", Config()).get_meta()["schema_version"] == "0"  # nothing was rewritten


def test_a_killed_batch_import_leaves_consistent_stores_and_a_rerun_completes(tmp_path):
    src = Engine(tmp_path / "src", config=Config(), embedder=HashEmbedder())
    src.store_many([{"content": f"imported memory {i} about Module{i % 17}"} for i in range(3000)])
    dump = tmp_path / "dump.jsonl"
    src.export(dump)
    src.close()
    data = tmp_path / "data"
    rng = random.Random(3)
    for _ in range(3):
        p = spawn("""
            from memory_graph import Config, Engine
            from conftest import HashEmbedder
            eng = Engine(sys.argv[1], config=Config(), embedder=HashEmbedder())
            print("ready", flush=True)
            eng.import_(sys.argv[2])
        """, str(data), str(dump))
        assert p.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.1, 2.0))
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=30)
        consistent(data).close()
    eng = consistent(data)
    eng.import_(dump)  # records already there are skipped: the rerun finishes the job
    assert eng.lance.count("memories") == 3000
    eng.close()
    consistent(data)


def test_optimize_can_keep_only_the_latest_version_and_loses_nothing(tmp_path):
    """``optimize(keep_versions_seconds=0)`` deletes the versions (and the fragments compaction replaced) that
    the default minute keeps for other processes' readers, and leaves the stamp current, so the next process
    to open the directory does not take it for another writer's and reconcile everything."""
    disk = lambda: sum(p.stat().st_size for p in tmp_path.rglob("*") if p.is_file())  # noqa: E731
    eng = Engine(tmp_path, config=Config(), embedder=HashEmbedder())
    for i in range(6):  # six writes, six fragments, which optimize compacts into one
        eng.store_many([{"content": f"batch {i} note {j} about the Vega pipeline"} for j in range(20)])
    eng.optimize()
    kept = disk()
    eng.optimize(keep_versions_seconds=0)
    assert disk() < kept and eng.sync.read_stamp() == eng.sync.stamp()
    with pytest.raises(ValidationError, match="keep_versions_seconds"):
        eng.optimize(keep_versions_seconds=-1)
    eng.close()
    again = consistent(tmp_path)
    assert again.lance.count("memories") == 120 and again.search("Vega pipeline batch 3", limit=5)


def test_a_stale_stamp_rewrites_only_the_documents_that_differ(tmp_path):
    """A stamp that does not match LanceDB (another process wrote, or one died mid-write) makes the next writer
    compare every record's revision with the text index's; records that agree are not written again."""
    from codebase import index_project

    eng = Engine(tmp_path, config=Config(), embedder=HashEmbedder())
    eng.store_many([{"content": f"note {i} about the Vega pipeline"} for i in range(5)])
    assert index_project(eng, FIXTURE_REPO).chunks > 0
    (tmp_path / "derived.json").write_text("[]")
    assert eng.sync.reconcile_text() == {"added": 0, "removed": 0, "in_sync": False}
    eng.text.write(deletes=[next(iter(eng.text.revisions("code")))])
    (tmp_path / "derived.json").write_text("[]")
    assert eng.sync.reconcile_text()["added"] == 1
    eng.close()
    consistent(tmp_path)


def test_memories_and_code_keep_their_own_bm25_statistics(tmp_path):
    """Indexing a code project beside the memories leaves the memories' BM25 scores as they were (one index for
    both changed every idf, and with it 81 of 112 devnotes top-10s); a data directory from when one index held
    both is split at the next open."""
    from codebase import index_project
    from memory_graph.models import Filters

    eng = Engine(tmp_path / "data", config=Config(), embedder=HashEmbedder())
    eng.store_many([{"content": f"note {i}: the config loader retries {i % 4} times on Widget{i % 5}"}
                    for i in range(40)])

    def bm25(e: Engine) -> list[tuple[str, float]]:
        ids, scores = e.text.search("config settings loader", Filters(), 0.0, 20, "memory")
        return list(zip(ids, [round(x, 6) for x in scores]))

    before = bm25(eng)
    index_project(eng, FIXTURE_REPO, project="demo")
    assert eng.text.num_docs() > 40 and bm25(eng) == before
    chunks = set(eng.lance.query("code_chunks", None, ["id"]).column("id").to_pylist())
    # the layout of before: the code documents in the memories' index, none in the code index
    rows = eng.lance.query("code_chunks").to_pylist()
    eng.text.by_kind["memory"].write(upserts=[(r, "code") for r in rows])
    assert bm25(eng) != before  # (what the shared statistics did)
    eng.text.by_kind["code"].clear()
    eng.close()
    again = consistent(tmp_path / "data")
    assert again.text.by_kind["memory"].revisions("code") == {}
    assert set(again.text.revisions("code")) == chunks
    assert bm25(again) == before and again.search_code("normalize_sku", limit=1)
    again.close()


def test_lancedb_opens_without_its_rest_client_which_still_loads_when_asked(tmp_path):
    """memory_graph.store.lancedb_import leaves LanceDB's REST namespace client unimported (most of lancedb's import time),
    and a caller that asks the package for a name still gets it whole."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from memory_graph.store.lance import LanceStore\n"
        "from memory_graph.config import Config\n"
        f"LanceStore(__import__('pathlib').Path({str(tmp_path / 'db')!r}), Config())\n"
        "print('api' , 'lance_namespace_urllib3_client.api' in sys.modules)\n"
        "from lance_namespace_urllib3_client import ApiClient, Configuration\n"
        "import lance_namespace_urllib3_client as c\n"
        "print('after', 'lance_namespace_urllib3_client.api' in sys.modules, ApiClient.__name__, c.__version__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.split("\n")
    assert lines[0] == "api False" and lines[1].startswith("after True ApiClient ")
