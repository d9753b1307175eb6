"""Another process's writes reach this engine's graph by the ids its change log names, not by a reload."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from conftest import HashEmbedder

from memory_graph import Config, Engine


def snapshot(eng: Engine):
    """The memory graph, the entity index and the in-process copy of the vectors, comparable across engines."""
    nodes = {n: dict(d) for n, d in eng.graph.nodes()}
    edges = sorted((u, v, k, tuple(sorted(d.items()))) for u, v, k, d in eng.graph.edges())
    index = (dict(eng.entity_index.names), {k: set(v) for k, v in eng.entity_index.by_norm.items() if v})
    vectors = [None if c is None else {i: tuple(np.round(c.get(i), 5)) for i in c._ids}
               for c in (eng.memory_vectors, eng.passage_vectors)]
    owners = None if eng.passage_vectors is None else dict(eng.passage_vectors._owner)
    return nodes, edges, index, vectors, owners


def fresh(data) -> tuple:
    """What an engine that opens the directory now builds from LanceDB."""
    eng = Engine(data, config=Config(), embedder=HashEmbedder())
    try:
        return snapshot(eng)
    finally:
        eng.close()


class Counting:
    """Counts the calls of a method of an engine's component and lets them through."""

    def __init__(self, part, name: str) -> None:
        self.calls, self._inner = 0, getattr(part, name)
        setattr(part, name, self)

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self._inner(*args, **kwargs)


@pytest.fixture
def pair(tmp_path):
    data = tmp_path / "data"
    reader = Engine(data, config=Config(), embedder=HashEmbedder())
    writer = Engine(data, config=Config(), embedder=HashEmbedder())
    yield data, reader, writer
    reader.close()
    writer.close()


def test_each_kind_of_write_is_applied_by_id_and_matches_a_fresh_load(pair):
    data, reader, writer = pair
    reloads = Counting(reader.sync, "load_memory_graph")
    refreshes = Counting(reader.sync, "refresh_graph")
    state: dict = {}

    def store():
        state["m1"], state["m2"] = writer.store_many([
            {"content": "Alice reviewed the billing_service rollout with Dana", "entities": ["Project Atlas"]},
            {"content": "Dana moved `payments/api.py` to the Atlas repo", "tags": ["infra"]}])

    def relation():
        state["rel"] = writer.create_relation("Alice", "Bob Stone", "works_with").id

    steps = [
        store,
        lambda: writer.create_entity("Alice", "person", description="tech lead", aliases=["Al"]),
        relation,
        lambda: writer.update(state["m1"], content="Carol now owns the ledger_service migration"),
        lambda: writer.update(state["m2"], importance=9, tags=["infra", "moved"]),
        lambda: writer.invalidate(state["m2"], reason="moved again", superseded_by=state["m1"]),
        lambda: writer.delete_entity(state["rel"]),
        lambda: writer.delete_entity("Bob Stone"),
        lambda: writer.delete([state["m1"]]),
    ]
    for n, step in enumerate(steps, 1):
        step()
        reader.search("Alice billing")
        assert snapshot(reader) == fresh(data), f"after step {n}"
        assert refreshes.calls == n
    assert reloads.calls == 0


def test_the_writer_does_not_replay_its_own_changes(pair):
    _, _, writer = pair
    refreshes = Counting(writer.sync, "refresh_graph")
    writer.store("Erin set up the staging cluster")
    writer.store("Erin tore down the staging cluster")
    writer.search("staging")
    assert refreshes.calls == 0


def test_a_reader_behind_the_pruned_log_reloads_whole(tmp_path):
    data = tmp_path / "data"
    reader = Engine(data, config=Config(), embedder=HashEmbedder())
    writer = Engine(data, config=Config(change_log_rows=2), embedder=HashEmbedder())
    reloads = Counting(reader.sync, "load_memory_graph")
    for i in range(4):
        writer.store(f"Frank deployed release {i} of the Orion service")
    writer.optimize()
    assert len(writer.lance.changes_since(0)) == 2
    reader.search("Orion")
    assert reloads.calls == 1
    assert snapshot(reader) == fresh(data)


def test_a_backlog_of_more_than_sync_max_ids_reloads_whole(tmp_path):
    data = tmp_path / "data"
    reader = Engine(data, config=Config(sync_max_ids=4), embedder=HashEmbedder())
    writer = Engine(data, config=Config(), embedder=HashEmbedder())
    reloads = Counting(reader.sync, "load_memory_graph")
    writer.store_many([{"content": f"a quiet note number {i}"} for i in range(4)])
    reader.search("note")
    assert reloads.calls == 0
    writer.store_many([{"content": f"another quiet note {i}"} for i in range(5)])
    reader.search("note")
    assert reloads.calls == 1
    assert snapshot(reader) == fresh(data)


def test_an_import_makes_other_processes_reload_whole(tmp_path):
    source = Engine(tmp_path / "source", config=Config(), embedder=HashEmbedder())
    source.store("Judy wrote the Kepler design doc", entities=["Kepler"])
    source.export(tmp_path / "dump.jsonl")
    data = tmp_path / "data"
    reader = Engine(data, config=Config(), embedder=HashEmbedder())
    writer = Engine(data, config=Config(), embedder=HashEmbedder())
    reloads = Counting(reader.sync, "load_memory_graph")
    writer.import_(tmp_path / "dump.jsonl")
    reader.search("Kepler")
    assert reloads.calls == 1
    assert snapshot(reader) == fresh(data)
    assert any(d.get("name") == "Kepler" for _, d in reader.graph.nodes())


def test_a_failed_write_logs_no_change(pair, monkeypatch):
    _, reader, writer = pair
    before = writer.lance.last_change()

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(writer.text, "write", broken)
    with pytest.raises(Exception):
        writer.store("Mallory tried to store this")
    assert writer.lance.last_change() == before
    assert reader.search("Mallory", mode="bm25") == []


@pytest.mark.parametrize("action", ["write", "graph search"])
def test_graph_changes_and_graph_walks_take_turns(engine, action):
    """A write (or another process's change applied by a search) changes the graph in place, so it waits for
    a walk of the graph in another thread to end, and a walk waits for it."""
    engine.store("Alice met Bob at the Orion kickoff")
    run = {"write": lambda: engine.store("Alice met Carol"),
           "graph search": lambda: engine.search("Alice", mode="graph")}[action]
    done = threading.Event()
    worker = threading.Thread(target=lambda: (run(), done.set()))
    with engine._graph_lock:  # what a walk of the graph (or a change to it) holds
        worker.start()
        assert not done.wait(1.0)
    worker.join(30)
    assert done.is_set()


def test_two_writers_number_their_changes_one_after_another(pair):
    data, first, second = pair
    for i in range(3):
        first.store(f"Peggy wrote draft {i} of the Lyra spec")
        second.store(f"Quentin reviewed draft {i} of the Lyra spec")
    second.create_relation("Peggy", "Quentin", "reviews")
    first.search("Lyra")
    second.search("Lyra")
    assert [c["seq"] for c in first.lance.changes_since(0)] == list(range(1, 8))
    assert snapshot(first) == snapshot(second) == fresh(data)


def test_lookups_by_memory_id_use_an_index_past_ann_min_rows_and_still_see_later_rows(tmp_path):
    data = tmp_path / "data"
    reader = Engine(data, config=Config(ann_min_rows=8), embedder=HashEmbedder())
    writer = Engine(data, config=Config(ann_min_rows=8), embedder=HashEmbedder())
    writer.store_many([{"content": f"Rupert fixed bug {i} in the Sirius scheduler"} for i in range(6)])
    writer.optimize()
    assert writer.lance.count("mentions") >= 8
    assert [list(ix.columns) for ix in writer.lance.table("mentions").list_indices()] == [["memory_id"]]
    ids = writer.store_many([{"content": f"Sybil closed bug {i} in the Sirius scheduler"} for i in range(3)])
    reader.search("Sirius")
    assert snapshot(reader) == fresh(data)
    assert all(reader.graph.degree(i) > 0 for i in ids)


NAMES = ["Alice", "Bob Stone", "Orion", "ledger_service", "Vega"]
OPS = st.lists(st.tuples(st.sampled_from(["store", "update", "invalidate", "delete", "relate", "unrelate",
                                          "enrich", "drop_entity", "sync"]),
                         st.integers(0, 1), st.integers(0, 4), st.integers(0, 4)), min_size=1, max_size=12)


@settings(max_examples=25, deadline=None)
@given(ops=OPS)
def test_any_interleaving_of_two_writers_leaves_every_graph_equal_to_a_fresh_load(tmp_path_factory, ops):
    data = tmp_path_factory.mktemp("interleaved") / "data"
    engines = [Engine(data, config=Config(), embedder=HashEmbedder()) for _ in range(2)]
    memories: list[str] = []
    relations: list[str] = []
    for op, who, a, b in ops:
        eng = engines[who]
        live = [m for m in memories if eng.lance.count("memories", f"id = '{m}'")]
        if op == "store" or not live and op in ("update", "invalidate", "delete"):
            memories += eng.store_many([{"content": f"{NAMES[a]} talked to {NAMES[b]} about item {len(memories)}",
                                         "tags": [f"t{b}"]}])
        elif op == "update":
            eng.update(live[a % len(live)], content=f"{NAMES[b]} now owns item {a}")
        elif op == "invalidate":
            eng.invalidate(live[a % len(live)], superseded_by=live[b % len(live)] if len(live) > 1 and
                           a % len(live) != b % len(live) else None)
        elif op == "delete":
            eng.delete([live[a % len(live)]])
        elif op == "relate" and a != b:
            relations.append(eng.create_relation(NAMES[a], NAMES[b], "knows").id)
        elif op == "unrelate" and relations:
            rel = relations.pop(a % len(relations))
            if eng.lance.count("relations", f"id = '{rel}'"):
                eng.delete_entity(rel)
        elif op == "enrich":
            eng.create_entity(NAMES[a], "concept", description=f"note {b}", aliases=[f"alias{b}"])
        elif op == "drop_entity" and eng.entity_index.find(NAMES[a]):
            eng.delete_entity(NAMES[a])
        else:
            eng.search(NAMES[a])
    for eng in engines:
        eng.search("anything")
    expected = fresh(data)
    assert [snapshot(eng) for eng in engines] == [expected, expected]
    for eng in engines:
        eng.close()


def test_a_lookup_of_no_ids_returns_an_empty_table_of_the_asked_columns_without_a_query(engine, monkeypatch):
    monkeypatch.setattr(engine.lance, "query", lambda *a, **k: pytest.fail("queried LanceDB for no ids"))
    some = engine.lance.by_ids("memories", [], ["id", "title"])
    assert (some.num_rows, some.column_names) == (0, ["id", "title"])
    assert engine.lance.by_ids("relations", []).schema == engine.lance.table("relations").schema


class SaltedEmbedder(HashEmbedder):
    """Another model: the same words land on other dimensions."""

    name = "salted-hash-embedder"

    def _one(self, text: str):
        return super()._one("salt " + text)


def test_a_reembed_makes_other_processes_reload_their_copy_of_the_vectors(pair):
    data, reader, writer = pair
    writer.store_many([{"content": f"Orion note {i} about the ledger"} for i in range(5)])
    reader.search("Orion")
    before = snapshot(reader)[3][0]
    writer.embedder = SaltedEmbedder()
    writer.reembed(tables=("memories",))
    reader.search("Orion")
    after = snapshot(reader)[3][0]
    assert after != before and set(after) == set(before)
    fresh_reader = Engine(data, config=Config(), embedder=SaltedEmbedder())
    try:
        assert after == snapshot(fresh_reader)[3][0] == snapshot(writer)[3][0]
    finally:
        fresh_reader.close()


def test_the_copy_of_the_vectors_is_dropped_past_vector_copy_max_rows_and_search_falls_back(tmp_path):
    eng = Engine(tmp_path / "data", config=Config(vector_copy_max_rows=6), embedder=HashEmbedder())
    first = eng.store_many([{"content": f"quokka photo {i}"} for i in range(5)])
    assert len(eng.memory_vectors) == 5
    more = eng.store_many([{"content": f"quokka island photo {i}"} for i in range(3)])
    assert eng.memory_vectors is None and eng.stats()["vector_index"] == "flat"
    hits = {h.id for h in eng.search("quokka photo", mode="vector", limit=20)}
    assert hits == set(first + more)
    eng.delete(more)
    eng.sync.load_memory_graph()  # a whole reload decides again
    assert len(eng.memory_vectors) == 5 and eng.stats()["vector_index"] == "in-process"
    eng.close()


def test_code_vector_search_reads_a_copy_that_follows_writes_here_and_in_another_process(pair, tmp_path):
    """Code search's vector leg and its candidates' descriptions come from an in-process copy of the chunks'
    vectors: it follows an index run in this process and, through the sync, in another, and answers as
    LanceDB's own search does (an engine holding no copy)."""
    from codebase import index_project

    data, reader, writer = pair
    src = tmp_path / "src"
    src.mkdir()
    (src / "billing.py").write_text("def charge_card(amount):\n    return gateway.charge(amount)\n")
    (src / "mail.py").write_text("def send_welcome_mail(user):\n    return smtp.send(user.email)\n")
    index_project(writer, src, project="app")
    held = len(writer.chunk_vectors)
    assert held == writer.lance.count("code_chunks") > 0

    def answers(eng):
        return [(h.id, h.record["path"], round(h.score, 6)) for h in
                eng.search_code("charge the card", mode="vector", project="app")]

    lance_only = Engine(data, config=Config(vector_copy_max_rows=0), embedder=HashEmbedder())
    try:
        assert lance_only.chunk_vectors is None
        first = answers(writer)
        assert {p for _, p, _ in first} == {"billing.py", "mail.py"}
        assert answers(reader) == first == answers(lance_only)

        (src / "mail.py").unlink()
        (src / "refund.py").write_text("def refund_card(amount):\n    return gateway.refund(amount)\n")
        index_project(writer, src, project="app")
        second = answers(writer)
        assert {p for _, p, _ in second} == {"billing.py", "refund.py"}
        assert answers(reader) == second == answers(lance_only)
        assert set(reader.chunk_vectors._ids) == set(writer.chunk_vectors._ids) == \
            set(writer.lance.query("code_chunks", None, ["id"]).column("id").to_pylist())
    finally:
        lance_only.close()


def test_whether_a_memory_says_that_something_changed_is_on_its_node_in_every_process(pair):
    """The update check asks it of the newer memory of a pair, search after search: each graph node holds it,
    from the text written, after an update and in another process's graph alike."""
    data, reader, writer = pair
    mid = writer.store("Sessions now live in PostgreSQL", project="acme")
    assert writer.graph.attrs(mid).says_change
    reader.search("sessions", limit=1)  # the reader catches up
    assert reader.graph.attrs(mid).says_change
    writer.update(mid, content="Sessions live in PostgreSQL with a TTL of 14 days")
    reader.search("sessions", limit=1)
    assert not writer.graph.attrs(mid).says_change and not reader.graph.attrs(mid).says_change
    assert reader.memory_search.says_change([mid]) == {mid: False}


def test_a_commit_that_left_no_change_marker_is_seen_once_the_check_interval_passes(tmp_path):
    """A writer killed between its commit and replacing the change marker: other processes trust the marker
    for sync_check_seconds, then look at LanceDB, and find the write."""
    import time

    data = tmp_path / "data"
    config = Config(sync_check_seconds=0.2)
    reader = Engine(data, config=config, embedder=HashEmbedder())
    writer = Engine(data, config=config, embedder=HashEmbedder())
    try:
        reader.search("anything", limit=1)
        writer.sync.mark_changed = lambda: None  # the kill: LanceDB committed, the marker stayed as it was
        mid = writer.store("Orion's billing API moved to Kafka", project="acme")
        assert mid not in reader.graph  # within the interval the marker is trusted
        time.sleep(0.3)
        assert [h.id for h in reader.search("billing API Kafka", limit=1)] == [mid]
    finally:
        reader.close()
        writer.close()


def test_past_the_check_interval_unchanged_version_folders_spare_asking_lancedb(pair, monkeypatch):
    """Once the marker's interval has passed, the version folders' times (a few stat calls) tell that nothing
    was committed, and LanceDB's versions are not asked; a commit changes them, and they are."""
    import functools
    import time

    data, reader, writer = pair
    reader.config = reader.config.with_(sync_check_seconds=0.0)
    settled = functools.partial(type(reader.lance).settled_fingerprint, reader.lance, quiet_seconds=0.0)
    monkeypatch.setattr(reader.lance, "settled_fingerprint", settled)
    writer.store("Orion's billing API moved to Kafka", project="acme")
    reader.search("billing", limit=1)  # catches up, and notes the folders' times
    versions = Counting(reader.lance, "versions")
    for _ in range(3):
        reader.search("billing", limit=1)
    assert versions.calls == 0
    time.sleep(0.01)
    writer.sync.mark_changed = lambda: None  # a commit without the marker: only the folders tell
    mid = writer.store("Vega's cache moved to Redis", project="acme")
    assert [h.id for h in reader.search("Vega cache Redis", limit=1)] == [mid] and versions.calls >= 1


def test_a_search_right_after_this_process_writes_asks_lancedb_nothing_and_still_sees_the_next_writer(pair):
    """The write stamped the versions it left, under the write lock: the marker it replaced is one this process
    has seen. Another process's write replaces the marker again, and is picked up."""
    data, reader, writer = pair
    writer.search("anything", limit=1)
    mine = writer.store("Orion's billing API moved to Kafka", project="acme")
    versions = Counting(writer.lance, "versions")
    assert [h.id for h in writer.search("billing API Kafka", limit=1)] == [mine]
    assert versions.calls == 0
    theirs = reader.store("Tern's cache keys include the tenant id", project="acme")
    assert [h.id for h in writer.search("Tern cache keys tenant", limit=1)] == [theirs]
    assert versions.calls > 0
