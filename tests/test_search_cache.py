"""What searches keep in memory between writes: read once, dropped by every write of this or another engine.

Up to ``vector_copy_max_rows`` memories the graph and the in-process copy of the vectors already hold what
the late stages read, so most tests here turn the copy off to test the LanceDB reads and their cache.
"""

from __future__ import annotations

import pytest

from memory_graph import Config, Engine

CORPUS = ["Orion is the codename for the billing-api rewrite", "billing-api times out when the cache is cold",
          "Lunch on Fridays is pizza", "The billing dashboard loads slowly"]


def memory_reads(engine):
    """Count the engine's row lookups in the memories table."""
    calls = []
    real = engine.lance.by_ids

    def counting(name, ids, *args, **kwargs):
        if name == "memories":
            calls.append(list(ids))
        return real(name, ids, *args, **kwargs)

    engine.lance.by_ids = counting
    return calls


@pytest.fixture
def engine(tmp_path, embedder):
    eng = Engine(tmp_path / "data", config=Config(vector_copy_max_rows=0), embedder=embedder)
    yield eng
    eng.close()


def test_with_the_copy_of_the_vectors_a_search_reads_no_rows_and_sees_every_write(tmp_path, embedder):
    eng = Engine(tmp_path / "data", config=Config(), embedder=embedder)
    ids = eng.store_many([{"content": c} for c in CORPUS])
    reads = memory_reads(eng)
    eng.update(ids[1], title="Cold cache timeouts")
    reads.clear()
    titles = {h.id: h.title for h in eng.search("billing-api")}
    assert reads == [] and titles[ids[1]] == "Cold cache timeouts"
    eng.close()


def test_a_repeated_search_reads_no_rows_until_a_write(engine):
    ids = engine.store_many([{"content": c} for c in CORPUS])
    reads = memory_reads(engine)
    first = engine.search("billing-api")
    assert reads and first
    reads.clear()
    assert [(h.id, h.title) for h in engine.search("billing-api")] == [(h.id, h.title) for h in first]
    assert reads == []
    engine.update(ids[1], title="Cold cache timeouts")
    titles = {h.id: h.title for h in engine.search("billing-api")}
    assert reads and titles[ids[1]] == "Cold cache timeouts"


@pytest.mark.parametrize("copy", [50_000, 0])
def test_a_write_by_another_engine_reaches_the_next_search(tmp_path, embedder, copy):
    a = Engine(tmp_path, Config(vector_copy_max_rows=copy), embedder)
    b = Engine(tmp_path, Config(vector_copy_max_rows=copy), embedder)
    ids = a.store_many([{"content": c} for c in CORPUS])
    assert {h.id: h.title for h in a.search("billing-api")}[ids[0]] != "Project Orion"
    b.update(ids[0], title="Project Orion")
    b.invalidate(ids[1])
    after = {h.id: h.title for h in a.search("billing-api")}
    assert after[ids[0]] == "Project Orion" and ids[1] not in after


def test_a_search_hit_says_when_its_memory_was_made_as_the_memory_does(engine):
    mid = engine.store("Release trains leave on Thursdays", project="web")
    engine.store("Hotfixes skip the release train", project="web")
    made = engine.get([mid])[0].to_dict()["created_at"]
    for _ in range(2):  # the second search reads the candidates kept by the first
        hit = next(h for h in engine.search("release train Thursdays", project="web") if h.id == mid)
        assert hit.to_dict()["created_at"] == made and made.startswith("20")


def test_rows_read_while_a_write_began_are_not_kept(engine):
    engine.store_many([{"content": c} for c in CORPUS])
    reads = memory_reads(engine)
    counting = engine.lance.by_ids

    def racing(name, ids, *args, **kwargs):
        out = counting(name, ids, *args, **kwargs)
        engine._forget_reads()  # as a write starting in another thread does
        return out

    engine.lance.by_ids = racing
    engine.search("billing-api")
    engine.lance.by_ids = counting
    reads.clear()
    engine.search("billing-api")
    assert reads


def test_a_cache_size_of_zero_reads_every_time(tmp_path, embedder):
    eng = Engine(tmp_path, Config(describe_cache_size=0, vector_copy_max_rows=0), embedder)
    eng.store_many([{"content": c} for c in CORPUS])
    reads = memory_reads(eng)
    eng.search("billing-api")
    eng.search("billing-api")
    assert len(reads) == 2


def test_a_store_looks_up_only_the_ids_its_caller_gave(engine):
    from memory_graph.errors import ValidationError

    reads = memory_reads(engine)
    first = engine.store_many([{"content": c} for c in CORPUS])
    assert reads == []  # generated ids are fresh: nothing to look up
    try:
        engine.store_many([{"content": "a copy", "id": first[0]}, {"content": "new"}])
    except ValidationError as exc:
        assert first[0] in str(exc)
    else:
        raise AssertionError("a memory id given twice was stored")
    assert reads == [[first[0]]] and engine.lance.count("memories") == len(CORPUS)


CODE = '''def parse_retry_header(value):
    """Seconds to wait from a Retry-After header."""
    return int(value)


def open_session(url):
    """A session with the connection pool for this url."""
    return url
'''


def test_code_search_keeps_its_chunks_between_writes_and_sees_every_write(tmp_path, embedder, monkeypatch):
    """A repeated code search reads no chunk again; an edit that moves a chunk's lines (its id may stay) and a
    write by another engine reach the next search."""
    import memory_graph.code_search as code_search
    from codebase import index_project

    src = tmp_path / "src"
    src.mkdir()
    (src / "net.py").write_text(CODE)
    built = []
    real = code_search.chunk_candidate
    monkeypatch.setattr(code_search, "chunk_candidate", lambda r, v: built.append(r["path"]) or real(r, v))
    eng = Engine(tmp_path / "data", config=Config(), embedder=embedder)
    index_project(eng, src, project="p")
    built.clear()

    def lines() -> dict[str, int]:
        return {h.title: h.record["start_line"] for h in eng.search_code("retry after header seconds", project="p")}

    first = lines()
    assert built and first["def parse_retry_header"] == 1
    built.clear()
    assert lines() == first and built == []
    (src / "net.py").write_text("import os\n\n\n" + CODE)
    index_project(eng, src, project="p")
    assert lines()["def parse_retry_header"] == 4 and built
    other = Engine(tmp_path / "data", config=Config(), embedder=embedder)
    (src / "net.py").write_text("import os\nimport sys\n\n\n" + CODE)
    index_project(other, src, project="p")
    other.close()
    assert lines()["def parse_retry_header"] == 5
    eng.close()


def test_a_new_config_drops_what_searches_kept(tmp_path, embedder):
    """What a search keeps was read under the settings it ran with (a memory's prior: its importance weight)."""
    eng = Engine(tmp_path / "data", config=Config(), embedder=embedder)
    ids = eng.store_many([{"content": c, "importance": 9} for c in CORPUS])
    eng.search("billing-api")
    kept = [i for i in ids if eng.memory_search._described.get(i) is not None]
    assert kept
    before = eng.memory_search._described.get(kept[0]).prior
    eng.config = eng.config.with_(importance_weight=0.0)
    assert all(eng.memory_search._described.get(i) is None for i in ids)
    eng.search("billing-api")
    assert eng.memory_search._described.get(kept[0]).prior == 1.0 != before
    eng.close()
