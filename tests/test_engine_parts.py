"""The Engine's components, each built alone from the stores and views it is given, and the facade's wiring."""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from types import SimpleNamespace

import pytest

from codebase import index_project
from conftest import HashEmbedder
from memory_graph import Config, Engine
from memory_graph.code import CodeStore
from memory_graph.code_search import CodeSearch
from memory_graph.entities import Entities
from memory_graph.errors import NotFoundError
from memory_graph.legs_runner import LegRunner
from memory_graph.memories import Memories
from memory_graph.memory_search import MemorySearch
from memory_graph.maintenance import Upkeep
from memory_graph.models import Filters
from memory_graph.projects import Projects
from memory_graph.retrieval import LegResult
from memory_graph.symbols import Symbols
from memory_graph.sync import WATCHED, Sync
from memory_graph.transfer import Transfer
from memory_graph.validation import check_filters
from memory_graph.views import CodeView, MemoryView
from memory_graph.writes import Writes


def test_symbols_built_alone_answers_from_the_view_it_is_given_and_calls_back_only_what_it_was_handed(engine, repo):
    index_project(engine, repo, project="demo")
    calls = []
    symbols = Symbols(engine.config, engine.lance, engine.code_view, threading.RLock(),
                      sync=lambda: calls.append("sync"), check_project=lambda p: calls.append(("project", p)))
    assert symbols.find("parse_config", None, None, None, 5) == engine.find_symbols("parse_config", limit=5)
    found = symbols.relations("parse_config", "callers", 1, None, 100)
    assert [r["qualname"] for r in found["results"]] == ["load_settings"]
    assert calls == []  # a plain name needs neither
    symbols.find("JsonLoader.nonexistent", None, None, None, 5)  # a dotted name: the bases may lag another process
    assert calls == ["sync"]
    with pytest.raises(NotFoundError):
        symbols.relations("no_such_symbol_anywhere", "callers", 1, "demo", 10)
    assert calls[-1] == ("project", "demo")
    # a reload replaces the view's graph: the component reads the new one, not the one it was built with
    before = engine.code_view.graph
    engine._load_code_graph()
    target = engine.find_symbols("parse_config")[0]["id"]
    before.g.remove_edges_from(list(before.g.in_edges(target, keys=True)))  # the old graph loses its callers
    assert symbols.relations("parse_config", "callers", 1, None, 100)["results"] == found["results"]
    assert engine.code_view.graph is not before and not list(before.neighbors(target, "in", ["calls"]))


def test_code_search_built_alone_ranks_as_the_engine_does(engine, repo):
    index_project(engine, repo, project="demo")
    runner = LegRunner(5.0)
    search = CodeSearch(engine.config, engine.lance, engine.text, engine.code_view, engine.symbols,
                        threading.RLock(), engine._embed_query, runner.collect, lambda project: 3.0)
    try:
        for query in ("parse the settings file", "JsonLoader.load", "format a user name"):
            alone = search.search(query, 5, "hybrid", Filters(project="demo", include_global=False), True, True, None)
            assert [h.id for h in alone] == [h.id for h in engine.search_code(query, limit=5, project="demo")]
            assert alone and alone.confidence == engine.search_code(query, limit=5, project="demo").confidence
    finally:
        runner.close()


def test_memory_search_built_alone_ranks_as_the_engine_does_and_forgets_its_reads_when_told(engine):
    ids = engine.store_many([{"content": t} for t in (
        "Orion is the codename of the billing-api rewrite", "the billing-api times out on a cold cache",
        "Kestrel replaced the nightly deploy pipeline", "the deploy pipeline now runs hourly")])
    runner = LegRunner(5.0)
    search = MemorySearch(engine.config, engine.lance, engine.text, engine.memory_view, threading.RLock(),
                          engine._embed_query, runner.collect)
    try:
        for query in ("Orion timeouts", "how often does the deploy run", "Kestrel"):
            alone = search.search(query, 3, "hybrid", Filters(), time.time(), None, True, True, True, None)
            assert [h.id for h in alone] == [h.id for h in engine.search(query, limit=3)]
        kept = [i for i in ids if search._described.get(i) is not None]
        assert kept  # what the late stages read is kept between writes
        search.forget_reads()
        assert all(search._described.get(i) is None for i in ids)
    finally:
        runner.close()


def test_setting_the_engines_config_sets_its_components(engine):
    changed = engine.config.with_(code_ppr=False, search_timeout_seconds=7.5)
    engine.config = changed
    assert engine.symbols.config is changed and engine.code_search.config is changed
    assert engine.memory_search.config is changed
    assert engine.legs.timeout_seconds == 7.5


def test_the_leg_runner_leaves_out_a_leg_that_fails_or_outlasts_the_budget_and_keeps_the_others():
    runner = LegRunner(0.2)
    order = []

    def fails():
        raise RuntimeError("boom")

    def slow():
        time.sleep(1.0)
        return ["late"], [1.0]

    try:
        legs = runner.collect({"a": lambda: order.append("a") or (["x"], [0.5]), "bad": fails, "slow": slow,
                               "b": lambda: LegResult(["y"], [0.1])}, pooled=("slow",))
    finally:
        runner.close()
    assert list(legs) == ["a", "bad", "slow", "b"] and order == ["a"]
    assert legs["a"].ids == ["x"] and legs["b"].ids == ["y"]
    assert legs["bad"].ids == [] and legs["slow"].ids == []


@pytest.mark.parametrize("kind", ["memory", "code"])
def test_a_search_embeds_the_question_on_its_own_thread_before_it_runs_the_bm25_leg(engine, repo, monkeypatch,
                                                                                     kind):
    """Beside the legs, in a thread of the pool, the embedding gained nothing on two cores and cost two
    hand-offs between threads: it comes first, on the caller's thread."""
    if kind == "code":
        index_project(engine, repo, project="demo")
    else:
        engine.store("the deploy pipeline runs hourly")
    order = []
    real_embed = engine.embedder.encode_query

    def embed(text):
        order.append(("embedded", threading.current_thread() is threading.main_thread()))
        return real_embed(text)

    part = engine.memory_search if kind == "memory" else engine.code_search
    name = "bm25_leg" if kind == "memory" else "_bm25_leg"
    real_bm25 = getattr(part, name)

    def bm25(*args):
        order.append("bm25")
        return real_bm25(*args)

    monkeypatch.setattr(engine.embedder, "encode_query", embed)
    monkeypatch.setattr(part, name, bm25)
    hits = engine.search("how often does the deploy run") if kind == "memory" else \
        engine.search_code("parse the settings file", project="demo")
    assert order == [("embedded", True), "bm25"] and hits


def recording_writes(calls: list, log=lambda ids: "log", now=time.time, after: bool = True) -> Writes:
    """A write interface that records, in ``calls``, each section entered and left ("enter", "leave"), each
    change logged (``log(ids)``, unless None), each write finished ("after") and each catch-up ("sync")."""
    @contextmanager
    def section():
        calls.append("enter")
        yield
        calls.append("leave")

    return Writes(section, lambda **ids: log is not None and calls.append(log(ids)),
                  lambda: after and calls.append("after"), now, lambda: calls.append("sync"))


def test_entities_built_alone_write_only_through_the_write_interface_they_are_given(engine):
    mid = engine.store("Kestrel replaced the nightly deploy pipeline")
    calls = []

    writes = recording_writes(calls, log=lambda ids: ("log", {k: list(v) for k, v in ids.items()}),
                              now=lambda: 1_700_000_000.0)
    entities = Entities(engine.config, engine.lance, engine.memory_view, threading.RLock(),
                        lambda: engine.embedder, writes)
    made = entities.create("Falcon", "service", "the search indexer")
    assert calls == ["enter", ("log", {"entities": [made.id]}), "after", "leave"]
    assert made.created_at == engine.get_entity("Falcon").created_at == 1_700_000_000.0  # the interface's clock
    assert engine.get_entity("Falcon").description == "the search indexer"  # the engine's view holds it
    calls.clear()
    relation = entities.create_relation("Falcon", mid, "documented_by")
    assert calls[0] == "enter" and calls[1][0] == "log" and calls[1][1]["relations"] == [relation.id]
    assert [r["id"] for r in entities.related("Falcon")] == [r["id"] for r in engine.get_related("Falcon")] == [mid]
    assert entities.projects() == engine.memory_projects() and calls[-1] == "sync"  # a read syncs first


def test_code_store_built_alone_fills_the_view_it_is_given_and_writes_through_its_interface(engine, repo):
    index_project(engine, repo, project="demo")
    calls = []

    writes = recording_writes(calls)
    view = CodeView()
    store = CodeStore(engine.config, engine.lance, engine.text, view, threading.RLock(), writes, engine.data_dir,
                      lambda: None, lambda old, new: calls.append("keep"), lambda: calls.append("settle"))
    store.load()
    assert sorted(view.graph.g.nodes) == sorted(engine.code_graph.g.nodes) and view.density == engine.chunk_density
    assert view.index.names == engine.symbol_index.names and calls == ["settle"]
    calls.clear()
    path, row = sorted(store.files("demo").items())[0]
    store.touch("demo", {path: (row["size"], row["mtime"] + 60)})
    assert calls == ["enter", "after", "leave"] and store.files("demo")[path]["mtime"] == row["mtime"] + 60
    assert engine.code_files("demo")[path]["mtime"] == row["mtime"] + 60  # the one store both read


def test_memories_built_alone_write_every_store_and_the_view_they_are_given_through_their_interface(engine):
    calls = []

    writes = recording_writes(calls, log=lambda ids: ("log", sorted(ids.get("memories", []))),
                              now=lambda: 1_700_000_000.0)
    view = MemoryView()
    memories = Memories(engine.config, engine.lance, engine.text, view, threading.RLock(), lambda: engine.embedder,
                        engine.entities, writes, lambda rows, passages: calls.append(("keep", len(rows))),
                        lambda: calls.append("settle?"), engine.memory_search.nearest_memories)
    [mid] = memories.store_many([{"content": "Orion is the codename of the billing-api rewrite"}])
    assert calls == ["enter", ("log", [mid]), ("keep", 1), "settle?", "after", "leave"]
    assert mid in view.graph and mid not in engine.graph  # the view it was given, not the engine's
    assert engine.get(mid)[0].created_at == 1_700_000_000.0  # the store both read, stamped by the given clock
    assert engine.text.search("billing rewrite codename", check_filters(engine.config, None, None, None, None,
                                                                        None, None, False), 0, 5, "memory")[0] == [mid]
    calls.clear()
    memories.delete(mid)
    assert calls == ["enter", ("log", [mid]), "after", "leave"] and mid not in view.graph and not engine.get(
        mid, strict=False)


def test_sync_built_alone_builds_the_views_it_is_given_and_catches_them_up_with_another_writer(engine, embedder):
    first = engine.store("Orion is the codename of the billing-api rewrite")
    memory, loaded, forgot = MemoryView(), [], []
    sync = Sync(engine.config, engine.lance, engine.text, engine.data_dir, memory, CodeView(), threading.RLock(),
                threading.RLock(), engine._file_lock, lambda vectors=True: loaded.append(vectors),
                lambda: forgot.append(True))
    sync.load_graph()
    assert first in memory.graph and memory.graph is not engine.graph and loaded == [True]
    assert sync.reconcile_text()["in_sync"] and sync.known_versions == engine.lance.versions(WATCHED)
    other = Engine(engine.data_dir, config=engine.config, embedder=embedder)  # another process's writes
    second = other.store("Kestrel replaced the nightly deploy pipeline")
    other.close()
    assert second not in memory.graph
    sync.catch_up()
    assert second in memory.graph and forgot and sync.known_versions == engine.lance.versions(WATCHED)


def test_projects_built_alone_answer_as_the_engine_does_and_count_again_only_when_the_data_changes(engine, repo):
    index_project(engine, repo, project="demo")
    generation = [0]
    projects = Projects(engine.config, engine.lance, engine.data_dir, lambda: generation[0])
    assert projects.code_projects() == engine.code_projects() and projects.has_code("demo")
    root = projects.project_root("demo")
    assert projects.path_scope(f"{root}/src/", None) == ("src/", "demo") == engine.path_scope(f"{root}/src/", None)
    with pytest.raises(NotFoundError):
        projects.check_project("nope")
    ratio = projects.chunks_per_file("demo")
    everywhere = projects.chunks_per_file(None)
    counted = []
    projects.lance = SimpleNamespace(count=lambda *a: counted.append(a))  # a count now would be recorded
    assert (projects.chunks_per_file("demo"), projects.chunks_per_file(None)) == (ratio, everywhere)
    assert counted == []  # each project's ratio is kept, not only the last one asked for
    projects.lance = engine.lance
    files = engine.code_files("demo")
    engine.code_write("demo", [], [], [], remove_paths=sorted(files)[:1])  # the data changes
    assert projects.chunks_per_file("demo") == ratio  # kept while the generation is the same
    generation[0] += 1
    assert projects.chunks_per_file("demo") == engine.lance.count("code_chunks") / (len(files) - 1)


def test_upkeep_built_alone_writes_through_its_interface_and_reports_the_stores_it_is_given(engine):
    engine.store_many([{"content": f"note {i} about the deploy pipeline"} for i in range(3)])
    calls = []

    writes = recording_writes(calls, log=None, after=False)
    upkeep = Upkeep(engine.config, engine.lance, engine.text, engine.memory_view, engine.code_view,
                    lambda: engine.embedder, engine.sync, engine.code_store, writes, engine.data_dir, None,
                    engine._file_lock, lambda: None, lambda: calls.append("forget"))
    upkeep.optimize()
    assert calls == ["enter", "leave"]
    stats = upkeep.stats()
    assert stats["counts"] == engine.stats()["counts"] and stats["counts"]["memories"] == 3 and stats["healthy"]


def test_the_views_fields_are_the_engines_attributes(engine):
    assert engine.graph is engine.memory_view.graph and engine.code_graph is engine.code_view.graph
    assert engine.symbol_index is engine.code_view.index and engine.entity_index is engine.memory_view.index
    engine.chunk_density = {"c": 0.5}
    assert engine.code_view.density == {"c": 0.5}


def test_transfer_built_alone_exports_as_the_engine_does_and_imports_through_the_callbacks_it_is_given(
        engine, tmp_path):
    engine.store_many([{"content": "Orion is the billing-api rewrite"}, {"content": "Kestrel runs the deploys"}])
    calls = []

    @contextmanager
    def writing():
        calls.append("writing")
        yield

    def transfer(eng):
        return Transfer(eng.config, eng.lance, eng.text, lambda: eng.embedder, writing,
                        lambda: calls.append("log"), lambda: calls.append("reload"))

    counts = transfer(engine).export(tmp_path / "alone.jsonl")
    engine.export(tmp_path / "engine.jsonl")
    assert counts["memories"] == 2 and calls == []
    assert (tmp_path / "alone.jsonl").read_text() == (tmp_path / "engine.jsonl").read_text()
    other = Engine(tmp_path / "other", embedder=engine.embedder)
    try:
        assert transfer(other).import_(tmp_path / "alone.jsonl")["memories"] == 2
        assert calls == ["writing", "log", "reload"] and other.lance.count("memories") == 2
    finally:
        other.close()


def _fragments(eng: Engine) -> int:
    return eng.lance.table("memories").stats()["fragment_stats"]["num_fragments"]


def test_short_sessions_on_a_local_store_leave_it_compacted(tmp_path):
    """Each session writes fewer rows than optimize_every_rows; the first write of one that finds the memories
    in more than store_compact_fragments small fragments compacts every table (a read opens every fragment)."""
    cfg = dict(optimize_every_rows=10 ** 6, store_compact_fragments=8)
    seen, ids = [], []
    for i in range(12):  # twelve short sessions of one memory each, on one directory
        eng = Engine(tmp_path / "d", config=Config(**cfg), embedder=HashEmbedder())
        ids.append(eng.store(f"session {i} decided the cache keeps {i} entries"))
        seen.append(_fragments(eng))
        eng.close()
    assert seen == [1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4]
    eng = Engine(tmp_path / "d", config=Config(**cfg), embedder=HashEmbedder())
    assert eng.lance.count("memories") == 12
    assert [h.id for h in eng.search("session 11", mode="bm25", limit=1)] == [ids[11]]


def test_a_long_session_of_one_memory_writes_compacts_once_a_table_gathers_the_fragments(tmp_path):
    eng = Engine(tmp_path / "d", config=Config(optimize_every_rows=10 ** 6, store_compact_fragments=8),
                 embedder=HashEmbedder())
    seen = []
    for i in range(20):
        eng.store(f"note {i}: the deploy window of service {i} moved")
        seen.append(_fragments(eng))
    assert max(seen) <= 8 and seen[-1] < seen[6] and eng.lance.count("memories") == 20
    eng.close()
