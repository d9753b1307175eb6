"""The Engine on real LanceDB, Tantivy and networkx in a temporary directory (fake embedder)."""

from __future__ import annotations

from dataclasses import replace
import time

import numpy as np
import pytest

from memory_graph import Config, Engine, NotFoundError, StoreError, ValidationError
from memory_graph.sync import WATCHED
from memory_graph.validation import check_filters
from conftest import fail_adds_to, snapshot

DAY = 86_400.0


def test_store_get_round_trip(engine):
    mid = engine.store("Use pnpm, not npm, in the web repo", memory_type="procedural", tags=["Tooling", "web"],
                       importance=8, project="web", source="notes.md", metadata={"by": "me"})
    m = engine.get([mid])[0]
    assert (m.content, m.memory_type, m.tags, m.importance, m.project, m.metadata) == (
        "Use pnpm, not npm, in the web repo", "procedural", ["tooling", "web"], 8, "web", {"by": "me"})
    assert m.title == "Use pnpm, not npm, in the web repo"
    with pytest.raises(NotFoundError, match="mem_nope"):
        engine.get([mid, "mem_nope"])
    assert [x.id for x in engine.get([mid, "mem_nope"], strict=False)] == [mid]


def test_a_search_in_a_project_without_memories_gets_a_hint_naming_the_projects(tmp_path, engine, embedder):
    engine.store("billing-api times out when the cache is cold", project="billing")
    engine.store("Always run the linter before pushing")
    assert engine.memory_projects() == ["billing"]
    assert engine.project_hint(None) is None and engine.project_hint("") is None
    assert engine.project_hint("billing") is None
    # a project is named exactly: one that differs only in case or punctuation reaches none of its memories
    assert [h.title for h in engine.search("cache cold", project="Billing", include_global=False)] == []
    assert engine.project_hint("Billing").endswith("did you mean 'billing'?")
    assert engine.project_hint("billing_").endswith("did you mean 'billing'?")
    hint = engine.project_hint("billin")
    assert "'billin'" in hint and "only global memories" in hint and hint.endswith("projects with memories: billing")
    # another process's memories count as soon as it has written them
    other = Engine(tmp_path / "data", config=Config(), embedder=embedder)
    other.store("The web app uses pnpm", project="web")
    other.close()
    assert engine.memory_projects() == ["billing", "web"] and engine.project_hint("web") is None
    other = Engine(tmp_path / "data", config=Config(), embedder=embedder)
    other.store("The docs site uses mkdocs", project="docs")
    other.close()
    engine.search("mkdocs", project="docs")  # the search catches up, and the hint after it sees the project
    assert engine.project_hint("docs") is None
    # a project whose only memory moved away no longer counts as one with memories
    moved = engine.search("pnpm", project="web", include_global=False)[0].id
    engine.update(moved, project="docs")
    assert engine.memory_projects() == ["billing", "docs"]
    assert engine.project_hint("web").endswith("projects with memories: billing, docs")


def test_update_reembeds_only_when_content_changes(engine, embedder):
    mid = engine.store("The cache TTL is 60 seconds")
    before = embedder.texts_encoded
    engine.update(mid, importance=9)
    assert embedder.texts_encoded == before
    engine.update(mid, content="The cache TTL is 300 seconds")
    assert embedder.texts_encoded == before + 1
    assert engine.get([mid])[0].content == "The cache TTL is 300 seconds"
    assert [h.id for h in engine.search("300", mode="bm25")] == [mid]
    assert engine.search("60", mode="bm25") == []


def test_delete_removes_from_every_store(engine):
    keep = engine.store("Orion ships on Friday")
    gone = engine.store("Orion needs a new logo")
    assert engine.delete(gone) == 1
    assert gone not in engine.graph
    assert [h.id for h in engine.search("logo", mode="bm25")] == []
    assert [h.id for h in engine.search("Orion", mode="graph")] == [keep]
    with pytest.raises(NotFoundError):
        engine.delete(gone)


def test_list_filters_pagination_and_order(engine):
    t0 = time.time() - 10 * DAY
    ids = [engine.store(f"note number {i}", project="p" if i % 2 else "", memory_type="note",
                        created_at=t0 + i * DAY) for i in range(6)]
    page, total = engine.list(limit=2, offset=0)
    assert total == 6 and [m.id for m in page] == [ids[5], ids[4]]
    page, _ = engine.list(limit=2, offset=4)
    assert [m.id for m in page] == [ids[1], ids[0]]
    page, total = engine.list(project="p", descending=False)
    assert total == 3 and [m.id for m in page] == [ids[1], ids[3], ids[5]]
    _, total = engine.list(created_after=t0 + 3.5 * DAY)
    assert total == 2
    with pytest.raises(ValidationError):
        engine.list(limit=0)
    with pytest.raises(ValidationError):
        engine.list(order_by="content")


def test_timeline_gives_neighbours_in_order(engine):
    t0 = time.time() - 5 * DAY
    ids = [engine.store(f"step {i} of the migration", created_at=t0 + i * DAY) for i in range(5)]
    tl = engine.timeline(ids[2], before=1, after=2)
    assert tl["anchor"].id == ids[2]
    assert [m.id for m in tl["before"]] == [ids[1]]
    assert [m.id for m in tl["after"]] == [ids[3], ids[4]]
    by_query = engine.timeline(query="step 2 migration", before=1, after=1)
    anchor = engine.search("step 2 migration", limit=1)[0].id
    pos = ids.index(anchor)
    assert by_query["anchor"].id == anchor
    assert [m.id for m in by_query["before"] + by_query["after"]] == ids[max(0, pos - 1):pos] + ids[pos + 1:pos + 2]


def test_invalidation_hides_a_memory_except_as_of(engine):
    now = time.time()
    old = engine.store("The API key rotates monthly", created_at=now - 10 * DAY)
    new = engine.store("The API key rotates weekly", created_at=now - 2 * DAY)
    engine.invalidate(old, reason="policy changed", superseded_by=new, at=now - 2 * DAY)
    assert [h.id for h in engine.search("API key rotates")] == [new]
    # as of a time, what held then: not what was superseded since, nor what was stored later
    for mode in ("hybrid", "vector", "bm25"):
        assert [h.id for h in engine.search("API key rotates", as_of=now - 5 * DAY, mode=mode)] == [old], mode
        assert engine.search("API key rotates", as_of=now - 11 * DAY, mode=mode) == [], mode
    assert engine.list(valid_at=now - 5 * DAY)[0][0].id == old
    hits = {h.id: h for h in engine.search("API key rotates", include_invalid=True)}
    assert set(hits) == {old, new}
    # a compact hit is all an agent may read: the superseded one says so
    assert hits[old].record["ended"] and hits[old].record["superseded_by"] == new
    assert hits[old].record["invalidation_reason"] == "policy changed"
    assert "ended" not in hits[new].record and "valid_until" not in hits[new].record
    assert engine.get([old])[0].superseded_by == new
    assert any(r["id"] == old for r in engine.get_related(new, relation_types=["supersedes"]))


def test_duplicates_are_the_same_text_in_the_same_project_oldest_first(engine):
    now = time.time()
    first = engine.store("The build cache lives in /var/cache/ci", project="ci", created_at=now - DAY)
    second = engine.store("The build cache lives in /var/cache/ci", project="ci")
    engine.store("The build cache lives in /var/cache/ci", project="web")
    engine.store("The build cache lives in /var/cache/ci.", project="ci")
    assert engine.duplicates(second) == [first] and engine.duplicates(first) == [second]
    third = engine.store("The build cache lives in /var/cache/ci", project="ci")
    assert engine.duplicates(third) == [first, second] and engine.duplicates(third, limit=1) == [first]
    with pytest.raises(NotFoundError):
        engine.duplicates("mem_missing")


def test_filters_reach_every_leg(engine):
    a = engine.store("Orion uses Postgres", project="orion", tags=["db"])
    b = engine.store("Orion uses Redis for caching", project="other")
    g = engine.store("Orion is our codename", memory_type="semantic")
    for mode in ("vector", "bm25", "graph", "hybrid"):
        got = {h.id for h in engine.search("Orion", mode=mode, project="orion")}
        assert b not in got and a in got, mode
        assert g in got, mode
        assert {h.id for h in engine.search("Orion", mode=mode, project="orion", include_global=False)} == {a}
        assert {h.id for h in engine.search("Orion", mode=mode, tags=["db"])} == {a}
        assert {h.id for h in engine.search("Orion", mode=mode, types=["semantic"])} == {g}


BAD_STORES = [
    dict(content=""), dict(content="   \n\t"), dict(content="x" * 100_001), dict(content=42),
    dict(content="ok", created_at="yesterday-ish"), dict(content="ok", importance=11),
    dict(content="ok", importance=-1), dict(content="ok", memory_type="Not A Type!"),
    dict(content="ok", valid_from="2024-05-02", valid_until="2024-05-01"), dict(content="ok", tags=[1, 2]),
    dict(content="ok", metadata=[1]), dict(content="ok", entities=[""]), dict(content="ok", bogus=1),
]


@pytest.mark.parametrize("item", BAD_STORES, ids=lambda i: repr(i)[:40])
def test_bad_store_input_is_rejected_and_changes_nothing(engine, item):
    engine.store("a memory that exists", entities=["Orion"])
    before = snapshot(engine)
    with pytest.raises(ValidationError):
        engine.store_many([item])
    assert snapshot(engine) == before


@pytest.mark.parametrize("kwargs", [dict(limit=0), dict(limit=-3), dict(limit=10**9), dict(mode="fuzzy"),
                                    dict(min_score=2), dict(created_after="not a date"), dict(types=["A B"])])
def test_bad_search_arguments_are_rejected(engine, kwargs):
    engine.store("something")
    with pytest.raises(ValidationError):
        engine.search("something", **kwargs)


def test_bad_references_are_rejected(engine):
    mid = engine.store("something")
    before = snapshot(engine)
    for call in (lambda: engine.update("mem_missing", content="x"), lambda: engine.invalidate("mem_missing"),
                 lambda: engine.invalidate(mid, superseded_by="mem_missing"), lambda: engine.delete([]),
                 lambda: engine.update(mid, content=""), lambda: engine.invalidate(mid, at="someday"),
                 lambda: engine.create_relation("mem_missing", "Orion"), lambda: engine.search("   "),
                 lambda: engine.create_relation("Orion", "mem_missing"),  # no "Orion" entity left behind
                 lambda: engine.create_relation("Brand New", "brand new")):
        with pytest.raises((ValidationError, NotFoundError)):
            call()
    assert snapshot(engine) == before


@pytest.mark.parametrize("query", ['"unbalanced', "(a OR b", "AND", "NOT", "OR OR", "title:secret", "field:",
                                   "wild*card?", "*", "a~2", "+-!", "[1 TO 5]", "{}", "^boost", "😀🔥", "\\", "'",
                                   "x" * 100_000, "é" * 30_000 + " orion", "\x00\x01"])
def test_search_syntax_is_never_parsed(engine, query):
    engine.store("Orion ships the card feature")
    before = snapshot(engine)
    try:
        hits = engine.search(query)
    except ValidationError:
        hits = []
    assert all(0 <= h.score <= 1 for h in hits)
    assert snapshot(engine) == before


def test_failed_text_index_write_rolls_back_everything(engine, monkeypatch):
    engine.store("first memory about Orion")
    before = snapshot(engine)

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(engine.text, "write", boom)
    with pytest.raises(StoreError, match="rolled back"):
        engine.store("second memory about Vega and `vega_core`", tags=["new"])
    monkeypatch.undo()
    assert snapshot(engine) == before
    assert engine.search("Vega") == [] or all("Vega" not in h.title for h in engine.search("Vega"))


def test_failure_between_lance_tables_rolls_back(engine, monkeypatch):
    engine.store("first memory about Orion")
    before = snapshot(engine)
    fail_adds_to(engine, monkeypatch, "mentions")  # after the memories were written
    with pytest.raises(StoreError):
        engine.store("Vega is new")
    monkeypatch.undo()
    assert snapshot(engine) == before
    mid = engine.store("Vega is new")
    assert [h.id for h in engine.search("Vega", mode="bm25")] == [mid]


def test_reopen_reconciles_a_lost_text_index(tmp_path, embedder):
    eng = Engine(tmp_path, Config(), embedder)
    mid = eng.store("the flaky test is test_checkout_flow")
    eng.close()
    import shutil

    shutil.rmtree(tmp_path / "bm25")
    eng = Engine(tmp_path, Config(), embedder)
    assert [h.id for h in eng.search("test_checkout_flow", mode="bm25")] == [mid]
    assert eng.stats()["healthy"]


def test_reopen_reconciles_writes_the_index_missed(tmp_path, embedder):
    eng = Engine(tmp_path, Config(), embedder)
    eng.store("kept")
    row = eng.lance.query("memories").to_pylist()[0]
    row.update(id="mem_written_by_a_crashed_process", content="crashed zebra", content_hash="zz")
    eng.lance.add("memories", [row])  # LanceDB only, as if the process died before indexing
    eng.close()
    eng = Engine(tmp_path, Config(), embedder)
    assert [h.id for h in eng.search("zebra", mode="bm25")] == ["mem_written_by_a_crashed_process"]
    assert "mem_written_by_a_crashed_process" in eng.graph


def test_export_import_round_trip(tmp_path, embedder, engine):
    engine.store("Orion is the codename for the billing-api rewrite", tags=["x"], project="acme")
    engine.store("billing-api times out when the cache is cold", created_at="2024-01-02T03:04:05Z")
    engine.create_relation("Orion", "Vega", "precedes")
    mid = engine.store("old fact")
    engine.invalidate(mid, reason="stale")
    counts = engine.export(tmp_path / "dump.jsonl")
    assert counts["memories"] == 3 and counts["relations"] == 1
    other = Engine(tmp_path / "other", Config(), embedder)
    assert other.import_(tmp_path / "dump.jsonl")["memories"] == 3
    for q in ("What problems does Orion have?", "cache", "old fact"):
        for mode in ("hybrid", "vector", "bm25", "graph"):
            a = [(h.id, round(h.score, 5)) for h in engine.search(q, mode=mode, include_invalid=True)]
            b = [(h.id, round(h.score, 5)) for h in other.search(q, mode=mode, include_invalid=True)]
            assert a == b, (q, mode)
    assert [m.to_dict() for m in engine.get([mid])] == [m.to_dict() for m in other.get([mid])]
    assert other.import_(tmp_path / "dump.jsonl")["memories"] == 0  # idempotent
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    with pytest.raises(ValidationError):
        other.import_(bad)


def test_rebuild_restores_derived_indexes(engine):
    mid = engine.store("the retry budget is 3 attempts for `sync_orders`")
    engine.text.clear()
    assert engine.search("retry budget", mode="bm25") == []
    result = engine.rebuild()
    assert result["memories"] == 1
    assert [h.id for h in engine.search("retry budget", mode="bm25")] == [mid]
    assert [h.id for h in engine.search("sync_orders", mode="graph")] == [mid]


def test_ann_index_switches_on_and_stays_fresh(tmp_path, embedder):
    eng = Engine(tmp_path, Config(ann_min_rows=40, optimize_every_rows=1_000_000, vector_copy_max_rows=0),
                 embedder)
    eng.store_many([{"content": f"filler memory number {i} about topic {i % 7}"} for i in range(60)])
    assert not eng.lance.has_vector_index("memories")
    eng.optimize()
    assert eng.lance.has_vector_index("memories") and eng.stats()["vector_index"] == "ann"
    late = eng.store("a quokka photographed at Rottnest island")
    assert [h.id for h in eng.search("quokka photographed Rottnest", mode="vector", limit=1)] == [late]


def test_similarities_through_the_ann_index_are_the_exact_cosines(tmp_path, embedder):
    # IVF_HNSW_SQ's own distances are squared L2 (twice the cosine distance): unrefined, a search's
    # similarities sank toward 0 and the fusion kept only its top result
    eng = Engine(tmp_path, Config(ann_min_rows=40, optimize_every_rows=1_000_000, vector_copy_max_rows=0),
                 embedder)
    eng.store_many([{"content": f"filler memory number {i} about topic {i % 7}"} for i in range(60)])
    eng.optimize()
    assert eng.lance.has_vector_index("memories")
    q = embedder.encode_query("memory about topic 3")
    ids, sims = eng.lance.vector_search("memories", q, None, 10, ["id"])
    stored = {r["id"]: np.asarray(r["vector"]) for r in eng.lance.by_ids("memories", ids, ["id", "vector"]).to_pylist()}
    assert len(ids) == 10 and sims == pytest.approx([float(stored[i] @ q) for i in ids], abs=1e-4)
    assert sims == sorted(sims, reverse=True)


def test_no_ann_index_is_built_for_memories_the_in_process_copy_serves(tmp_path, embedder):
    eng = Engine(tmp_path, Config(ann_min_rows=40, optimize_every_rows=1_000_000, vector_copy_max_rows=100),
                 embedder)
    ids = eng.store_many([{"content": f"filler memory number {i} about topic {i % 7}"} for i in range(60)])
    eng.optimize()
    assert not eng.lance.has_vector_index("memories") and eng.lance._has_index("memories", "id")
    assert eng.stats()["vector_index"] == "in-process"
    eng.store_many([{"content": f"more filler number {i} on subject {i % 5}"} for i in range(50)])
    eng.optimize()  # 110 memories: past the copy's limit, so LanceDB's index serves and is built
    assert eng.lance.has_vector_index("memories")
    assert [m.id for m in eng.get(ids[:2])] == ids[:2]


def test_compacting_an_indexed_table_prints_no_lance_warning(tmp_path, embedder, capfd):
    # LanceDB's Rust logger writes to file descriptor 2 itself, so capfd, not caplog
    eng = Engine(tmp_path, Config(ann_min_rows=40, optimize_every_rows=1_000_000, vector_copy_max_rows=0),
                 embedder)
    eng.store_many([{"content": f"filler memory number {i} about topic {i % 7}"} for i in range(60)])
    eng.optimize()
    assert eng.lance.has_vector_index("memories")
    eng.store("one more memory after the index")
    eng.optimize()
    assert "centroids" not in capfd.readouterr().err


def test_ann_index_is_rebuilt_once_its_table_has_grown_twofold(tmp_path, embedder):
    eng = Engine(tmp_path, Config(ann_min_rows=40, optimize_every_rows=1_000_000, vector_copy_max_rows=0), embedder)

    def index_uuid():
        return next(ix.index_uuid for ix in eng.lance.table("memories").list_indices() if "vector" in ix.columns)

    def add(n, start):
        eng.store_many([{"content": f"filler memory number {i} about topic {i % 7}"} for i in range(start, start + n)])
        eng.optimize()

    add(50, 0)
    first = index_uuid()
    assert eng.lance.get_meta()["ann_rows:memories"] == "50"
    add(49, 50)
    assert index_uuid() == first  # 99 rows: grown less than twofold, the index is only refreshed
    add(1, 99)
    assert index_uuid() != first and eng.lance.get_meta()["ann_rows:memories"] == "100"
    late = eng.store("a quokka photographed at Rottnest island")
    assert [h.id for h in eng.search("quokka photographed Rottnest", mode="vector", limit=1)] == [late]


@pytest.mark.parametrize("exact", [True, False])  # the in-process copy of the vectors, or LanceDB
@pytest.mark.parametrize("invalid", [3, 150])  # few: filtered after the search; most: filtered before it
def test_the_vector_leg_returns_the_nearest_valid_memories(tmp_path, embedder, invalid, exact):
    engine = Engine(tmp_path / "data", config=Config(vector_copy_max_rows=1_000 if exact else 0),
                    embedder=embedder)
    texts = [f"quokka {'island ' * (i % 5)}photo number {i} of topic {i % 9}" for i in range(240)]
    ids = engine.store_many([{"content": t} for t in texts])
    query = "quokka island photo"
    qv = embedder.encode_query(query)
    sims = {i: float(embedder.encode([t])[0] @ qv) for i, t in zip(ids, texts)}
    by_sim = sorted(ids, key=lambda i: -sims[i])
    for mid in by_sim[:invalid]:
        engine.invalidate(mid)
    searches = []
    real = engine.lance.vector_search
    engine.lance.vector_search = lambda *a, **kw: searches.append(kw.get("prefilter", True)) or real(*a, **kw)
    c = engine.config.candidates(10)
    filters = check_filters(engine.config, None, None, None, None, None, None, False, True)
    leg = engine.memory_search.vector_leg(query, filters, engine._now(), c)
    valid = by_sim[invalid:]
    assert len(leg.ids) == c
    assert set(leg.ids).isdisjoint(by_sim[:invalid])
    assert sorted(sims[i] for i in leg.ids) == pytest.approx(sorted(sims[i] for i in valid[:c]), abs=1e-5)
    # the copy widens its window past the invalid ones and needs LanceDB for nothing
    assert searches == ([] if exact else [False] if invalid < c else [False, True])
    engine.close()


def test_mmr_removes_a_near_duplicate(engine):
    a = engine.store("the staging database password rotates every Monday")
    dup = engine.store("The staging database password rotates every Monday!")
    c = engine.store("staging database backups run nightly")
    plain = [h.id for h in engine.search("staging database password", limit=2, use_mmr=False)]
    assert set(plain) == {a, dup}
    diverse = engine.search("staging database password", limit=2)
    assert c in [h.id for h in diverse] and len({a, dup} & {h.id for h in diverse}) == 1
    assert next(h for h in diverse if h.id == c).explanation.mmr_moved > 0


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

SYNTAX = st.sampled_from(['"', "(", ")", "AND", "OR", "NOT", ":", "*", "?", "~", "^", "[", "]", "{", "}", "+", "-",
                          "\\", "/", "title:", "id:x", "😀", "\x00", "\n", "  ", "orion", "billing-api"])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(st.text(max_size=200), st.lists(SYNTAX, max_size=12).map(" ".join),
                 st.lists(SYNTAX, max_size=12).map("".join)))
def test_any_query_gets_an_answer_or_a_clear_error(engine, query):
    if engine.lance.count("memories") == 0:
        engine.store("Orion uses the billing-api")
    before = snapshot(engine)
    try:
        hits = engine.search(query)
    except ValidationError as exc:
        assert "query" in str(exc)
    else:
        assert all(0 <= h.score <= 1 for h in hits)
    assert snapshot(engine) == before


def test_two_engines_on_one_directory_see_each_other(tmp_path, embedder):
    a = Engine(tmp_path, Config(), embedder)
    b = Engine(tmp_path, Config(), embedder)
    first = a.store("Orion is the codename for the billing-api rewrite")
    assert [h.id for h in b.search("Orion", mode="graph")] == [first]
    second = b.store("billing-api times out when Orion is under load")
    assert {h.id for h in a.search("Orion", mode="graph")} == {first, second}
    assert [h.id for h in a.search("load", mode="bm25")] == [second]
    # b linked to a's entity, which the definition made Orion a second name of
    assert [e.name for e in a.list_entities() if "Orion" in (e.name, *e.aliases)] == ["billing-api"]
    a.delete(first)
    assert [h.id for h in b.search("Orion", mode="graph")] == [second]


@pytest.mark.parametrize("boost", [0.0, 1.5])
def test_bm25_reads_a_given_title_as_part_of_the_text(tmp_path, embedder, boost):
    eng = Engine(tmp_path, Config(bm25_title_boost=boost), embedder)
    titled = eng.store("We retry three times, with exponential backoff.", title="Upload retry policy")
    plain = eng.store("The upload page shows a progress bar.")
    assert [h.id for h in eng.search("policy", mode="bm25")] == [titled]
    assert {h.id for h in eng.search("upload", mode="bm25")} == {titled, plain}


def test_a_text_index_of_an_older_layout_is_rewritten_on_open(tmp_path, embedder, monkeypatch, caplog):
    from memory_graph import sync
    from memory_graph.store import text_index

    with monkeypatch.context() as old:
        old.setattr(text_index, "TEXT_LAYOUT", 1)
        old.setattr(sync, "TEXT_LAYOUT", 1)
        eng = Engine(tmp_path, Config(), embedder)
        ids = [eng.store(f"note {i} about the deploy", title=f"deploy note {i}") for i in range(3)]
        stale = eng.text.revisions("memory")
        eng.close()
    eng = Engine(tmp_path, Config(), embedder)
    truth = {r["id"]: text_index.rev_of(r) for r in eng.lance.query(sync.TEXT_KINDS["memory"]).to_pylist()}
    assert set(truth) == set(ids) and all(stale[i] != truth[i] for i in ids)
    assert eng.text.revisions("memory") == truth
    assert "3 added or updated" in caplog.text
    eng.close()


@pytest.mark.parametrize("op", ["update", "invalidate", "delete", "relation", "entity_delete"])
def test_every_write_rolls_back_on_failure(engine, monkeypatch, op):
    a = engine.store("Orion is the codename for the billing-api rewrite", tags=["x"])
    b = engine.store("billing-api times out")
    before = snapshot(engine)
    graph_before = sorted(e[:3] for e in engine.graph.edges())
    calls = {
        "update": lambda: engine.update(a, content="Orion is now called Vega", tags=["y"]),
        "invalidate": lambda: engine.invalidate(a, reason="renamed", superseded_by=b),
        "delete": lambda: engine.delete([a, b]),
        "relation": lambda: engine.create_relation(a, b, "explains"),
        "entity_delete": lambda: engine.delete_entity("Orion"),
    }
    real_delete, real_add = engine.lance.delete, engine.lance.add

    def fail_late(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(engine.text, "write", fail_late)
    if op in ("relation", "entity_delete"):  # these do not touch the text index: fail after a first table write
        state = {"n": 0}

        def flaky(real):
            def inner(*args, **kwargs):
                state["n"] += 1
                if state["n"] > 1 or op == "relation":
                    real(*args, **kwargs)
                    raise OSError("disk full")
                return real(*args, **kwargs)
            return inner

        monkeypatch.setattr(engine.lance, "delete", flaky(real_delete))
        monkeypatch.setattr(engine.lance, "add", flaky(real_add))
    with pytest.raises(StoreError):
        calls[op]()
    monkeypatch.undo()
    assert snapshot(engine) == before
    assert sorted(e[:3] for e in engine.graph.edges()) == graph_before
    assert engine.get([a])[0].content == "Orion is the codename for the billing-api rewrite"


def test_ann_index_is_rebuilt_once_replacing_writes_leave_it_many_deltas(tmp_path, embedder):
    # each optimize indexes rewritten rows in a delta of their own and the fragments of different deltas never
    # compact, so without the rule a search visits ever more of them while the table does not grow
    eng = Engine(tmp_path, Config(ann_min_rows=40, optimize_every_rows=1_000_000, vector_copy_max_rows=0,
                                  ann_max_deltas=3), embedder)
    ids = eng.store_many([{"content": f"filler memory number {i} about topic {i % 7}"} for i in range(50)])
    eng.optimize()
    assert eng.lance.ann_deltas("memories") == 1
    deltas = []
    for i in range(6):
        eng.update(ids[i], content=f"rewritten note {i} on the quokkas of Rottnest island")
        eng.optimize()
        deltas.append(eng.lance.ann_deltas("memories"))
    assert eng.lance.count("memories") == 50 and eng.lance.get_meta()["ann_rows:memories"] == "50"
    assert max(deltas) <= 4 and min(deltas) == 1
    assert eng.lance.table("memories").stats()["fragment_stats"]["num_fragments"] <= 4
    hits = eng.search("rewritten note 5 quokkas Rottnest", mode="vector", limit=1)
    assert [h.id for h in hits] == [ids[5]]
    # an index run's batches defer the rebuild to the end of the run
    start = eng.lance.ann_deltas("memories")
    with eng.deferred_index_rebuilds():
        for i in range(6, 12):
            eng.update(ids[i], content=f"rewritten note {i} on the wombats of Maria island")
            eng.optimize()
        assert eng.lance.ann_deltas("memories") == start + 6 > 4
    assert eng.lance.ann_deltas("memories") == 1
    assert eng.sync.known_versions == eng.lance.versions(WATCHED)  # its own rebuild is no other process's write
    assert [h.id for h in eng.search("rewritten note 11 wombats Maria", mode="vector", limit=1)] == [ids[11]]


def test_an_index_run_that_changes_nothing_mends_an_index_of_many_deltas(tmp_path, embedder, repo):
    # a data directory from before ann_max_deltas can hold an index of many deltas; re-running the index
    # command on its unchanged project is what a user does, and that alone must rebuild it
    from codebase import index_project

    loose = Config(ann_min_rows=10, optimize_every_rows=1, ann_max_deltas=1_000)
    eng = Engine(tmp_path / "d", loose, embedder)
    index_project(eng, repo, project="p")
    # each run moves one more file's chunks down a line: LanceDB indexes the replaced rows in a delta of their own
    for src in sorted(p for p in repo.rglob("*") if p.suffix in (".py", ".c", ".cs", ".cpp", ".go", ".rs")):
        src.write_text("\n" + src.read_text())
        index_project(eng, repo, project="p")
    before, count = eng.lance.ann_deltas("code_chunks"), eng.lance.count("code_chunks")
    eng.lance.table("meta").delete("key = 'ann_rows:code_chunks'")  # and older than the growth rule too
    eng.close()
    eng = Engine(tmp_path / "d", replace(loose, ann_max_deltas=3), embedder)
    report = index_project(eng, repo, project="p")
    assert before > 3 and report.files_indexed == 0
    assert eng.lance.ann_deltas("code_chunks") == 1
    assert eng.lance.count("code_chunks") == count
    assert eng.lance.get_meta()["ann_rows:code_chunks"] == str(count)
    eng.close()


def test_an_open_engine_keeps_its_graphs_out_of_the_cyclic_collectors_walks(tmp_path, embedder):
    """gc_freeze: the objects alive once the graphs are loaded are frozen (gc.freeze), and handed back to the
    collector when the engine closes; off, the engine leaves the collector alone."""
    import gc

    gc.unfreeze()
    eng = Engine(tmp_path / "on", config=Config(), embedder=embedder)
    try:
        eng.store("Orion ships the billing API on Fridays", project="acme")
        frozen = gc.get_freeze_count()
        assert frozen > 0
        # a write that doubles the graph freezes what it added too
        eng.store_many([{"content": f"Orion{i} now calls Vega{i} through Kafka"} for i in range(700)])
        assert eng.graph.size() >= 2_000 and gc.get_freeze_count() > frozen
    finally:
        eng.close()
    assert gc.get_freeze_count() == 0
    off = Engine(tmp_path / "off", config=Config(gc_freeze=False), embedder=embedder)
    try:
        assert gc.get_freeze_count() == 0
    finally:
        off.close()
