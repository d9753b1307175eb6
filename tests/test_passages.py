"""Passage vectors: a long memory is found by words past what one vector of it reads."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from memory_graph import Config, Engine
from memory_graph.embedding import window_starts
from memory_graph.errors import StoreError
from memory_graph.validation import check_filters

from conftest import WindowEmbedder

FILLER = " ".join(f"routine{i} note{i} about the weekly sync" for i in range(12))  # 72 words
LONG = f"{FILLER} zebra password rotates quarterly in vault"
PASSAGE_CONFIG = dict(passage_tokens=20, passage_stride=15)


@given(st.integers(0, 2_000), st.integers(1, 300), st.integers(1, 100), st.integers(0, 40))
def test_window_starts_cover_the_text_past_what_the_model_reads(n, seen, stride, limit):
    size = stride + 10
    starts = window_starts(n, seen, size, stride, limit)
    if n <= seen or limit == 0:
        assert starts == []
        return
    assert starts[0] == min(stride, seen)  # nothing between what the model reads and the first window
    assert all(b - a == stride for a, b in zip(starts, starts[1:]))  # stride < size: windows overlap
    assert len(starts) <= limit and all(s < n for s in starts)
    if len(starts) < limit:
        assert starts[-1] + size >= n  # the last window reaches the end


@pytest.fixture(params=[50_000, 0], ids=["in-process", "lancedb"])
def eng(tmp_path, request):
    """With the in-process copies of the vectors, and without them (LanceDB's searches)."""
    e = Engine(tmp_path / "data", Config(**PASSAGE_CONFIG, vector_copy_max_rows=request.param), WindowEmbedder())
    yield e
    e.close()


class Vectors(dict):
    """{id: unit vector}, equal to another when the ids match and the vectors agree to float32 precision."""

    def __eq__(self, other) -> bool:
        return isinstance(other, dict) and self.keys() == other.keys() and all(
            np.allclose(self[k], other[k], atol=1e-6) for k in self)


def held_passages(e: Engine) -> Vectors | None:
    """The in-process copy of the passage vectors, or None without one."""
    copy = e.passage_vectors
    return None if copy is None else Vectors({i: copy.get(i) for i in copy._ids})


def lance_passages(e: Engine) -> Vectors:
    rows = e.lance.query("passages", None, ["id", "vector"]).to_pylist()
    return Vectors({r["id"]: np.asarray(r["vector"]) / np.linalg.norm(r["vector"]) for r in rows})


def _vector_ids(e: Engine, query: str, **kw) -> list[str]:
    return [h.id for h in e.search(query, mode="vector", limit=3, **kw)]


def test_words_past_the_model_input_are_found_by_the_vector_leg(eng, tmp_path):
    long_id = eng.store(LONG)
    others = [eng.store(t) for t in ("vault password policy for laptops", "zebra crossing near the office",
                                      "quarterly planning in the big room")]
    assert eng.lance.count("passages") == len(eng.embedder.passages(LONG, 20, 15, 32)) > 0
    assert _vector_ids(eng, "zebra password rotates quarterly in vault")[0] == long_id

    plain = Engine(tmp_path / "plain", Config(max_passages=0), WindowEmbedder())
    plain_long = plain.store(LONG)
    for t in ("vault password policy for laptops", "zebra crossing near the office",
              "quarterly planning in the big room"):
        plain.store(t)
    assert plain.lance.count("passages") == 0
    assert _vector_ids(plain, "zebra password rotates quarterly in vault")[0] != plain_long
    plain.close()
    assert others


def test_passages_respect_the_search_filters(eng):
    long_id = eng.store(LONG, project="a")
    short = eng.store("zebra vault", project="b")
    assert long_id in _vector_ids(eng, "zebra password rotates quarterly in vault", project="a")
    found = _vector_ids(eng, "zebra password rotates quarterly in vault", project="b", include_global=False)
    assert found == [short]


def test_update_and_delete_keep_passages_in_step(eng):
    copied = eng.passage_vectors is not None
    long_id = eng.store(LONG)
    n = eng.lance.count("passages")
    eng.update(long_id, tags=["kept"])  # no new text: the passages stay
    assert eng.lance.count("passages") == n
    assert held_passages(eng) == (lance_passages(eng) if copied else None)
    eng.update(long_id, content="short now")
    assert eng.lance.count("passages") == 0
    assert held_passages(eng) == ({} if copied else None)
    eng.update(long_id, content=LONG + " and more")
    assert eng.lance.count("passages") >= n
    assert held_passages(eng) == (lance_passages(eng) if copied else None)
    eng.delete(long_id)
    assert eng.lance.count("passages") == 0
    assert held_passages(eng) == ({} if copied else None)


def test_another_process_passages_reach_the_copy_by_id(tmp_path):
    config = Config(**PASSAGE_CONFIG)
    reader = Engine(tmp_path / "data", config, WindowEmbedder())
    writer = Engine(tmp_path / "data", config, WindowEmbedder())
    long_id = writer.store(LONG)
    lookups = []
    by_ids = reader.lance.by_ids
    reader.lance.by_ids = lambda table, *a, **k: (lookups.append(table), by_ids(table, *a, **k))[1]
    # (step, whether it writes passages): a step that writes none leaves the copy as it is, without a lookup
    steps = [(lambda: None, True), (lambda: writer.store(LONG.replace("zebra", "okapi")), True),
             (lambda: writer.store("a short note on the zebra"), False),
             (lambda: writer.update(long_id, tags=["vault"]), False),
             (lambda: writer.update(long_id, content="short"), True),
             (lambda: writer.update(long_id, content=LONG + " twice"), True), (lambda: writer.delete(long_id), True)]
    for n, (step, writes_passages) in enumerate(steps):
        step()
        lookups.clear()
        reader.search("zebra password")
        assert held_passages(reader) == lance_passages(reader), f"after step {n}"
        assert len(reader.passage_vectors) == reader.lance.count("passages")
        if n:  # (the first search reads no change)
            assert ("passages" in lookups) == writes_passages, f"after step {n}"
    assert [h.id for h in reader.search("okapi password rotates quarterly", mode="vector", limit=1)] == \
        [h.id for h in writer.search("okapi password rotates quarterly", mode="vector", limit=1)]
    reader.close()
    writer.close()


def test_a_failed_store_leaves_no_passages(eng, monkeypatch):
    eng.store(LONG)
    before = eng.lance.count("passages"), eng.lance.count("memories")
    monkeypatch.setattr(eng.text, "write", lambda *a, **k: (_ for _ in ()).throw(OSError("disk full")))
    with pytest.raises(StoreError):
        eng.store(LONG + " again")
    monkeypatch.undo()
    assert (eng.lance.count("passages"), eng.lance.count("memories")) == before


def test_opening_older_data_embeds_its_passages(tmp_path):
    path = tmp_path / "data"
    e = Engine(path, Config(**PASSAGE_CONFIG), WindowEmbedder())
    long_id = e.store(LONG)
    n = e.lance.count("passages")
    e.lance.delete("passages", "true")
    e.lance.set_meta({"passages": "0"})  # as written before passage vectors existed
    e.close()
    again = Engine(path, Config(**PASSAGE_CONFIG), WindowEmbedder())
    assert again.lance.count("passages") == n
    assert again.lance.get_meta()["passages"] == "1"
    assert _vector_ids(again, "zebra password rotates quarterly in vault")[0] == long_id
    again.close()


def test_export_and_import_carry_long_memories_searchable(eng, tmp_path):
    long_id = eng.store(LONG)
    out = tmp_path / "dump.jsonl"
    eng.export(out)
    other = Engine(tmp_path / "other", Config(**PASSAGE_CONFIG), WindowEmbedder())
    other.import_(out)
    assert other.lance.count("passages") == eng.lance.count("passages")
    assert _vector_ids(other, "zebra password rotates quarterly in vault")[0] == long_id
    other.close()


def test_another_process_sees_new_passages(tmp_path):
    a = Engine(tmp_path / "data", Config(**PASSAGE_CONFIG), WindowEmbedder())
    b = Engine(tmp_path / "data", Config(**PASSAGE_CONFIG), WindowEmbedder())
    b.store("vault password policy for laptops")
    assert _vector_ids(b, "zebra password rotates quarterly in vault")  # b has counted no passages yet
    long_id = a.store(LONG)
    assert _vector_ids(b, "zebra password rotates quarterly in vault")[0] == long_id
    a.close()
    b.close()


@pytest.mark.parametrize("gain", [0.0, 0.5, 1.0])
@pytest.mark.parametrize("found_by_own_vector", [True, False])
def test_the_vector_leg_adds_passage_gain_times_what_the_best_passage_adds(tmp_path, gain, found_by_own_vector):
    # with C = 1 the memories' own search returns only the closest short one, so the long memory comes in
    # through its passages alone and its own vector is read back
    cand = {} if found_by_own_vector else {"candidates_min": 1, "candidates_factor": 1}
    emb = WindowEmbedder()
    e = Engine(tmp_path / "data", Config(**PASSAGE_CONFIG, passage_gain=gain, **cand), emb)
    long_id = e.store(LONG)
    short = "vault password policy for laptops"
    short_id = e.store(short)
    query = "zebra password rotates quarterly in vault"
    q = emb.encode_query(query)
    own = float(emb.encode([LONG])[0] @ q)
    best = max(float(v @ q) for v in emb.encode(emb.passages(LONG, 20, 15, 32)))
    assert best > own  # the query's words lie past what the long memory's own vector reads
    expected = {long_id: own + gain * (best - own), short_id: float(emb.encode([short])[0] @ q)}
    ranked = sorted(expected, key=lambda m: -expected[m])[:e.config.candidates(1)]
    filters = check_filters(e.config, None, None, None, None, None, None, False)
    legs = e.memory_search.run_legs(query, filters, e._now(), 1, "vector")
    assert legs["vector"].ids == ranked
    assert legs["vector"].scores == pytest.approx([expected[m] for m in ranked], abs=1e-5)
    e.close()
