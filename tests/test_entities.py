"""Entities and the graph: extraction, create_entity, relations, communities, pruning, and the graph's effect
on search (real LanceDB, Tantivy and networkx in a temporary directory; fake embedder)."""

from __future__ import annotations

import pytest

from memory_graph import Config, Engine, NotFoundError, StoreError, ValidationError
from conftest import HashEmbedder, fail_adds_to, snapshot


def test_graph_leg_reaches_a_memory_sharing_no_words(engine):
    engine.store("Orion will replace billing-api next quarter", memory_type="semantic")
    target = engine.store("billing-api times out when the cache is cold")
    for i in range(5):
        engine.store(f"Unrelated note {i} about lunch and coffee")
    hits = engine.search("What problems does Orion have?", mode="graph")
    hit = next(h for h in hits if h.id == target)
    assert hit.explanation.ranks == {"graph": 2}
    assert hit.explanation.graph_path == ["Orion", hits[0].id, "billing-api", target]
    hybrid = engine.search("What problems does Orion have?", limit=3)
    assert target in [h.id for h in hybrid]
    assert [h.id for h in engine.search("What problems does Orion have?", mode="bm25")] != [target]


def test_a_definition_makes_the_alias_a_name_of_the_entity_it_names(engine):
    # "Falcon" opens the sentence and is an English word: without the definition it would be no entity
    engine.store("Falcon is the internal name of the search-indexer service.", memory_type="semantic")
    target = engine.store("search-indexer drops documents larger than 10 MB without logging anything.")
    engine.store("The falcon is a bird of prey seen near the office.")
    ent = engine.get_entity("Falcon")
    assert ent.name == "search-indexer" and "Falcon" in ent.aliases
    bird = engine.search("bird of prey", limit=1)[0].id
    graph = {h.id: h.explanation.ranks["graph"] for h in engine.search("Any known issues with Falcon?", mode="graph")}
    assert graph.get(target) in (1, 2) and bird not in graph  # one hop, beside the definition
    # BM25 alone cannot reach it (no shared word); hybrid reads the query with the name the alias stands for
    assert target not in [h.id for h in engine.search("Any known issues with Falcon?", mode="bm25")]
    assert target in [h.id for h in engine.search("Any known issues with Falcon?", limit=2)]


def test_an_alias_defined_later_in_one_batch_links_the_memories_after_it(engine):
    ids = engine.store_many([{"content": "ledger-svc, aka Abacus, books every money movement."},
                             {"content": "Abacus rejected refunds for orders older than 180 days."}])
    related = {r["id"] for r in engine.get_related("ledger-svc")}
    assert set(ids) <= related
    assert len([e for e in engine.list_entities(limit=1000) if e.name in ("Abacus", "ledger-svc")]) == 1


def test_a_hub_in_the_query_does_not_personalise_ppr(tmp_path, embedder):
    # Zelda is named by five memories (a hub at graph_hub_degree=3, like a chat's speaker); Kestrel by two
    eng = Engine(tmp_path / "hub", config=Config(graph_hub_degree=3), embedder=embedder)
    try:
        for text in ("Zelda fixed the deploy script", "Zelda reviewed the deploy logs", "Zelda paused the deploy",
                     "Zelda and Kestrel planned the deploy", "Zelda wrote the Kestrel deploy notes"):
            eng.store(text)
        eng.store("the deploy failed twice today")
        eng.store("a deploy checklist for Fridays")
        hub = eng.search("deploy Zelda", limit=10)
        assert len(hub) >= 5
        assert {h.explanation.ppr_factor for h in hub} == {1.0}
        specific = eng.search("deploy Kestrel", limit=10)
        assert min(h.explanation.ppr_factor for h in specific) < 1.0
    finally:
        eng.close()


def test_describing_an_extracted_name_makes_it_that_entity_in_every_process(tmp_path, engine):
    mid = engine.store("billing-api times out when the cache is cold", project="acme")
    guessed = engine.get_entity("billing-api")
    assert guessed.entity_type == "identifier"
    other = Engine(tmp_path / "data", config=Config(), embedder=HashEmbedder())
    try:
        service = engine.create_entity("billing-api", "service", "the payments HTTP API", aliases=["billing"])
        assert service.id == guessed.id and service.entity_type == "service"
        assert [e.id for e in engine.list_entities() if e.name == "billing-api"] == [service.id]
        assert engine.create_entity("billing-api", "service").id == service.id  # idempotent from now on
        assert any(r["id"] == mid for r in engine.get_related("billing", depth=1))  # its mentions came along
        assert engine.graph.attrs(service.id)["entity_type"] == "service"
        other.search("billing-api", limit=1)  # the other process catches up
        assert other.entity_index.find("billing-api", "service") == service.id
        assert other.graph.attrs(service.id)["entity_type"] == "service"
    finally:
        other.close()
    # a described entity, or one typed on purpose (a project), is not taken over: another type is another entity
    assert engine.create_entity("billing-api", "team").id != service.id
    project = engine.entity_index.find("acme", "project")
    assert project and engine.create_entity("acme", "service").id != project
    assert engine.graph.attrs(project)["entity_type"] == "project"


def test_a_named_entity_left_a_concept_is_typed_by_create_entity(engine):
    # a memory's entities and a relation's new end are "concept"s until someone says what they are
    mid = engine.store("Postgres 16 is the database for billing-api", entities=["Postgres", "billing-api"])
    engine.create_relation("Ledger", "Postgres", "reads_from")
    named = engine.get_entity("Postgres")
    assert named.entity_type == "concept"
    db = engine.create_entity("Postgres", "database", "the main SQL store")
    assert db.id == named.id and [e.id for e in engine.list_entities() if e.name == "Postgres"] == [db.id]
    related = {r["id"] for r in engine.get_related("postgres")}
    assert mid in related and engine.get_entity("Ledger").id in related
    # a described one stays itself: another type is another entity, and a name then means the connected one
    cache = engine.create_entity("Postgres", "cache")
    assert cache.id != db.id
    for ref in ("Postgres", "postgres", "POSTGRES"):
        assert mid in {r["id"] for r in engine.get_related(ref)}, ref
    engine.create_relation("Ledger", cache.id, "warms")
    engine.create_relation("Reports", cache.id, "warms")
    engine.create_relation("Jobs", cache.id, "warms")
    assert mid not in {r["id"] for r in engine.get_related("postgres")}  # now the more connected one
    assert engine.get_entity("Postgres").id == cache.id


def test_entities_relations_and_communities(engine):
    e1 = engine.create_entity("Payments", "service", "handles money", aliases=["pay-svc"])
    assert engine.create_entity("payments", "service").id == e1.id
    assert engine.create_entity("Payments", "service", aliases=["billing"]).aliases == ["pay-svc", "billing"]
    rel = engine.create_relation("Payments", "Ledger", "depends_on", weight=2.0)
    mid = engine.store("pay-svc crashed at noon")
    related = engine.get_related("Payments", depth=1)
    assert {r["name"] for r in related} >= {"Ledger", "pay-svc crashed at noon"}
    assert [r["name"] for r in engine.get_related("Payments", direction="out", relation_types=["depends_on"])] == [
        "Ledger"]
    assert any(r["id"] == mid for r in engine.get_related("Ledger", depth=2))
    engine.store("Payments and Ledger share a database")
    assert any({m["name"] for m in c["members"]} >= {"Payments", "Ledger"} for c in engine.communities())
    assert engine.delete_entity(rel.id)["kind"] == "relation"
    assert engine.get_related("Payments", direction="out", relation_types=["depends_on"]) == []
    engine.delete_entity(e1.id)
    with pytest.raises(NotFoundError):
        engine.get_entity(e1.id)
    assert engine.lance.count("mentions", f"entity_id = '{e1.id}'") == 0
    with pytest.raises(ValidationError):
        engine.get_related("Ledger", depth=9)


def test_words_that_only_open_sentences_do_not_become_entities(engine):
    engine.store("Decided to move billing to Postgres. Friends at Acme said it scales.")
    engine.store("Recently the cache went cold. Switched it to Redis.")
    assert {e.name for e in engine.list_entities()} == {"Postgres", "Acme", "Redis"}
    # once a name is known (here from mid-sentence), it links wherever it stands, first in a sentence too
    engine.store("We call the alerting service Beacon.")
    first = engine.store("Beacon pages the on-call engineer.")
    beacon = next(e for e in engine.list_entities() if e.name == "Beacon")
    assert first in {r["id"] for r in engine.get_related(beacon.id, depth=1)}


def test_prune_entities_removes_days_a_store_written_before_made_entities(engine, monkeypatch):
    from memory_graph import linking

    with monkeypatch.context() as m:  # a store written before days and months stopped being names
        m.setattr(linking, "_is_date", lambda words: False)
        keep = engine.store("Orion ships on Friday, Last Friday it slipped")
    assert {"Friday", "Last Friday", "Orion"} <= {e.name for e in engine.list_entities()}
    assert sorted(e.name for e in engine.prune_entities(apply=True)) == ["Friday", "Last Friday"]
    assert {e.name for e in engine.list_entities()} >= {"Orion"}
    assert not {"Friday", "Last Friday"} & {e.name for e in engine.list_entities()}
    assert [h.id for h in engine.search("Orion", mode="graph")] == [keep]


def test_prune_entities_removes_names_extraction_no_longer_makes(engine, monkeypatch, tmp_path):
    from memory_graph import linking

    with monkeypatch.context() as m:  # a store written before sentence openers were checked
        m.setattr(linking, "common_words", lambda: frozenset())
        engine.store("Friends are the best! We met Melanie.")
        engine.store("Recently the cache went cold.")
        engine.store("Decided on Postgres.")
        engine.store("Switched to Redis.")
    engine.store("my friends visited")  # linked to "Friends" by name, as any later memory would be
    engine.store("the build is green", entities=["Decided"])
    engine.create_relation("Switched", "Redis", "uses")
    engine.create_entity("Recently", "name", description="a band")
    assert {"Friends", "Recently", "Decided", "Switched", "Melanie"} <= {e.name for e in engine.list_entities()}

    before = snapshot(engine)
    assert engine.get_entity("Decided").entity_type == "name"
    assert [e.name for e in engine.prune_entities()] == ["Friends"]
    assert snapshot(engine) == before
    friends = engine.get_entity("Friends").id
    assert [e.id for e in engine.prune_entities(apply=True)] == [friends]
    # kept: a description (Recently), an explicit mention (Decided), a relation (Switched), a real name
    assert {"Recently", "Decided", "Switched", "Melanie", "Redis"} <= {e.name for e in engine.list_entities()}
    assert "Friends" not in {e.name for e in engine.list_entities()}
    assert engine.lance.count("mentions", f"entity_id = '{friends}'") == 0
    assert friends not in engine.graph
    assert engine.prune_entities(apply=True) == []
    other = Engine(engine.data_dir, config=engine.config, embedder=engine.embedder)
    try:
        assert friends not in other.graph and other.entity_index.find("Friends") is None
    finally:
        other.close()


def test_a_relation_write_that_fails_leaves_no_entity_its_names_made(engine, monkeypatch):
    engine.store("first memory about Orion")
    before = snapshot(engine)
    fail_adds_to(engine, monkeypatch, "relations")  # after the new entities were written
    with pytest.raises(StoreError):
        engine.create_relation("Vega", "Lyra", "orbits")
    monkeypatch.undo()
    assert snapshot(engine) == before
    assert engine.entity_index.find("Vega") is None and engine.entity_index.find("Lyra") is None
    rel = engine.create_relation("Vega", "Lyra", "orbits")
    assert engine.get_entity("Vega").id == rel.source and engine.get_entity("Lyra").id == rel.target
    assert [r["name"] for r in engine.get_related("Vega")] == ["Lyra"]


def test_entities_sharing_a_name_are_told_apart_and_relations_come_with_their_ids(engine):
    """A project, a tag and a concept all named "orion" were three identical rows of get_related and
    communities; and no answer gave the relation id that delete_entity takes."""
    mid = engine.store("Orion ships next week", project="orion", tags=["orion"])
    engine.create_entity("orion", "concept")
    rel = engine.create_relation("orion", "billing-api", "depends_on")
    rows = engine.get_related(mid)
    assert sorted(r["entity_type"] for r in rows if r["name"] == "orion") == ["concept", "project", "tag"]
    (back,) = engine.get_related("billing-api")
    assert back["relation_id"] == rel.id and back["edge_type"] == "depends_on"
    assert all("relation_id" not in r for r in rows)  # a mention is no relation
    members = [m for c in engine.communities() for m in c["members"] if m["name"] == "orion"]
    assert len({m["type"] for m in members}) == len(members)
    engine.delete_entity(back["relation_id"])
    assert engine.get_related("billing-api") == []
