"""A new memory's look-alikes: the current memories of its project it may update (Engine.similar)."""

from __future__ import annotations

import pytest

from memory_graph import Config, Engine, NotFoundError

OLD = "the test database listens on port 5433 in docker compose"
NEW = "the test database listens on port 5434 in docker compose"


def test_a_restated_fact_finds_the_one_it_updates_and_nothing_else(engine):
    old = engine.store(OLD, project="shop", memory_type="semantic")
    engine.store("deploys go through Argo CD after a manual approval", project="shop")
    elsewhere = engine.store(NEW, project="other")
    new = engine.store(NEW, project="shop", memory_type="semantic")
    found = engine.similar(new)
    assert [i for i, _ in found] == [old] and found[0][1] >= Config().similar_min_cosine
    assert engine.similar(elsewhere) == []  # its project holds nothing like it
    assert [i for i, _ in engine.similar(old)] == [new]


@pytest.mark.parametrize("copy_rows", [0, 1000])
def test_copies_retired_memories_and_the_limit_are_left_out(tmp_path, embedder, copy_rows):
    """Whether the engine holds the vectors in process (and reads the memory from its graph) or reads LanceDB."""
    cfg = Config(similar_limit=1, vector_copy_max_rows=copy_rows)
    with Engine(tmp_path / "d", config=cfg, embedder=embedder) as eng:
        first = eng.store(OLD)
        copy = eng.store(OLD)
        second = eng.store(OLD.replace("docker compose", "the compose file"))
        new = eng.store(NEW)
        assert eng.duplicates(copy) == [first]
        found = [i for i, _ in eng.similar(copy)]
        assert len(found) == 1 and found[0] in (second, new)  # never the copy; one, the limit
        eng.invalidate(first, superseded_by=new)
        eng.invalidate(copy, superseded_by=new)
        eng.invalidate(second, superseded_by=new)
        assert eng.similar(new) == []
        for missing in ("mem_missing", eng.create_entity("Argo CD", "tool").id):  # an entity's id is no memory's
            with pytest.raises(NotFoundError):
                eng.similar(missing)
    with Engine(tmp_path / "e", config=Config(similar_limit=0), embedder=embedder) as eng:
        eng.store(OLD)
        assert eng.similar(eng.store(NEW)) == []


def test_another_process_s_new_memory_is_seen(tmp_path):
    from conftest import HashEmbedder

    with Engine(tmp_path / "d", config=Config(), embedder=HashEmbedder()) as mine, \
            Engine(tmp_path / "d", config=Config(), embedder=HashEmbedder()) as theirs:
        old = mine.store(OLD, project="shop")
        new = theirs.store(NEW, project="shop")
        assert [i for i, _ in mine.similar(old)] == [new]
