"""The in-process copy of the memories' vectors: exact search that agrees with brute force and with LanceDB, and
search by partitions (an IVF index) that keeps its partitions right through any writes."""

from __future__ import annotations

import sys
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from conftest import HashEmbedder

from memory_graph import Config, Engine, Filters
from memory_graph.store.vectors import VectorCache, nearest_accepted

DIM = 8
VEC = st.lists(st.integers(-3, 3), min_size=DIM, max_size=DIM).filter(any)
OPS = st.lists(st.tuples(st.sampled_from(["put", "remove"]), st.lists(st.sampled_from("abcdefghij"), min_size=1,
                                                                      max_size=4, unique=True), VEC), max_size=30)


def brute(model: dict[str, np.ndarray], query: np.ndarray, k: int) -> list[str]:
    """Nearest by cosine, ties by id, over a plain dict."""
    q = query / np.linalg.norm(query)
    sims = {i: float(v @ q / np.linalg.norm(v)) for i, v in model.items()}
    return sorted(sims, key=lambda i: (-round(sims[i], 5), i))[:k]


def apply(cache: VectorCache, ops) -> dict[str, np.ndarray]:
    """Run puts and removes on the cache and on a plain dict; returns the dict."""
    model: dict[str, np.ndarray] = {}
    for op, ids, vec in ops:
        if op == "put":
            v = np.array(vec, dtype=np.float32)
            cache.put(ids, [v] * len(ids))
            model.update({i: v for i in ids})
        else:
            cache.remove(ids)
            for i in ids:
                model.pop(i, None)
    return model


@settings(max_examples=60, deadline=None)
@given(ops=OPS, query=VEC, k=st.integers(1, 12))
def test_nearest_equals_brute_force_after_any_puts_and_removes(ops, query, k):
    cache = VectorCache(DIM)
    model = apply(cache, ops)
    assert len(cache) == len(model) and all(i in cache for i in model)
    got, sims = cache.nearest(np.array(query, dtype=np.float32), k)
    want = brute(model, np.array(query, dtype=np.float32), k)
    # equal similarities may come in either order; the similarities themselves must match
    assert len(got) == len(want) == min(k, len(model))
    assert sims == sorted(sims, reverse=True)
    q = np.array(query, dtype=np.float32) / np.linalg.norm(query)
    assert sims == pytest.approx([float(model[i] @ q / np.linalg.norm(model[i])) for i in want], abs=1e-5)


@settings(max_examples=60, deadline=None)
@given(ops=OPS, query=VEC, k=st.integers(1, 3))
def test_the_int8_scan_equals_brute_force_after_any_puts_and_removes(ops, query, k):
    """As above, with every copy large enough to scan its int8 rows first (puts that widen a dimension's range,
    removes that move the last row)."""
    with mock.patch("memory_graph.store.vectors.SCAN_MIN_ROWS", 1):
        test_nearest_equals_brute_force_after_any_puts_and_removes.hypothesis.inner_test(ops, query, k)


def test_the_int8_scan_returns_the_exact_neighbours_of_clustered_vectors_through_writes():
    """3,000 vectors around 40 centres (many near-ties), written in batches after a first search made the int8
    rows, some with a dimension far past the range seen so far, some removed: every search equals a float32
    brute force, ids and similarities, and it went through the int8 rows."""
    rng = np.random.default_rng(3)
    centres = rng.standard_normal((40, 16))
    vectors = (centres[rng.integers(0, 40, 3_000)] + 0.2 * rng.standard_normal((3_000, 16))).astype(np.float32)
    vectors[:2_500, 5] *= 0.01
    vectors[2_500:, 5] += 12.0  # the last batch widens dimension 5's range: every int8 row is written again
    ids = [f"m{i:04d}" for i in range(3_000)]
    cache = VectorCache(16)
    for start in range(0, 3_000, 500):
        cache.put(ids[start:start + 500], vectors[start:start + 500])
        if start == 2_000:  # 2,500 rows: the first search that scans makes the int8 rows, the writes keep them
            assert cache._shadow is None
            cache.nearest(centres[0], 10)
            assert cache._shadow is not None
    cache.remove(ids[100:400])
    held = {i: v / np.linalg.norm(v) for i, v in zip(ids, vectors) if i in cache}
    matrix, names = np.stack(list(held.values())), list(held)
    scans = []
    real = cache._scan
    with mock.patch.object(cache, "_scan", lambda *a: scans.append(1) or real(*a)):
        for q in centres[rng.integers(0, 40, 30)] + 0.2 * rng.standard_normal((30, 16)):
            for k in (10, 50):
                got, sims = cache.nearest(q, k)
                cos = matrix @ (q / np.linalg.norm(q)).astype(np.float32)
                want = sorted(range(len(names)), key=lambda r: (-cos[r], names[r]))[:k]
                assert got == [names[r] for r in want]
                assert sims == pytest.approx([float(cos[r]) for r in want], abs=1e-5)
    assert len(scans) == 60 and cache._shadow is not None


@settings(max_examples=80, deadline=None)
@given(ops=st.lists(st.tuples(st.sampled_from(["put", "remove"]), st.lists(st.sampled_from("abcdefghij"), min_size=1,
                                                                         max_size=4, unique=True), VEC,
                              st.sampled_from(["p", "q", "", None])), max_size=30),
       query=VEC, k=st.integers(1, 6), wanted=st.sampled_from([["p"], ["q", ""], [""], ["z"]]))
def test_a_search_limited_to_groups_finds_what_a_filter_on_them_keeps(ops, query, k, wanted):
    """Rows put with a group (a project), moved to another, put without one, removed: the nearest of some groups,
    read from their rows alone, are the nearest that a filter on the groups lets through from all rows."""
    cache, group = VectorCache(DIM), {}
    for op, ids, vec, g in ops:
        if op == "put":
            cache.put(ids, [np.array(vec, dtype=np.float32)] * len(ids), groups=None if g is None else [g] * len(ids))
            group.update(dict.fromkeys(ids, g))
        else:
            cache.remove(ids)
        cache.group_rows(wanted)  # kept between searches: each write must make it read again
    q = np.array(query, dtype=np.float32)
    accept = lambda i: group[i] in wanted  # noqa: E731
    scoped = nearest_accepted(cache, q, k, accept, 1, 1_000, wanted)
    filtered = nearest_accepted(cache, q, k, accept, 1, 1_000)
    assert scoped is not None and filtered is not None
    assert scoped[1] == pytest.approx(filtered[1], abs=1e-6) and len(scoped[0]) == len(filtered[0])
    # rows as near as the last one found are interchangeable (a search picks any of them at the boundary)
    cos = {i: float(cache.get(i) @ q / np.linalg.norm(q)) for i in cache._row}
    tied = {i for i in cos if filtered[0] and abs(cos[i] - filtered[1][-1]) < 1e-6}
    assert set(scoped[0]) - tied == set(filtered[0]) - tied
    # what a limited search reads: the groups' rows and those put without a group, never another group's
    read = {cache._ids[r] for r in cache.group_rows(wanted)}
    assert read == {i for i in cache._row if group[i] in wanted or group[i] is None}


def test_nearest_of_an_empty_copy_or_for_k_zero_is_empty():
    cache = VectorCache(DIM)
    assert cache.nearest(np.ones(DIM), 5) == ([], [])
    cache.put(["a"], [np.ones(DIM)])
    assert cache.nearest(np.ones(DIM), 0) == ([], [])


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 60), allowed=st.sets(st.integers(0, 59)), k=st.integers(1, 8),
       first=st.integers(1, 3), widest=st.integers(3, 10))
def test_nearest_accepted_is_the_filtered_ranking_or_none_when_too_few_pass(n, allowed, k, first, widest):
    rng = np.random.default_rng(n)
    vecs = rng.standard_normal((n, DIM)).astype(np.float32)
    ids = [f"m{i:02d}" for i in range(n)]
    cache = VectorCache(DIM)
    if n:
        cache.put(ids, vecs)
    query = rng.standard_normal(DIM).astype(np.float32)
    ranked = cache.nearest(query, n)[0]
    keep = {f"m{i:02d}" for i in allowed}
    found = nearest_accepted(cache, query, k, keep.__contains__, first, widest)
    want = [i for i in ranked if i in keep][:k]
    if found is None:
        # only when the widest window was not all of the rows and held fewer than k
        assert widest * k < n and len([i for i in ranked[:widest * k] if i in keep]) < k
    else:
        assert found[0] == want


def test_the_vector_leg_finds_the_same_memories_in_its_copy_as_in_lancedb(tmp_path):
    """Same data directory, one engine with the copy and one without: every filter gives the same leg."""
    data = tmp_path / "data"
    exact = Engine(data, config=Config(), embedder=HashEmbedder())
    day, start = 86_400.0, exact._now() - 100 * 86_400.0
    # stored one a day; every fifth also says since when it held, some before, some after it was stored
    items = [{"content": f"{'Orion' if i % 3 else 'Vega'} release note {i} on topic {i % 7}",
              "project": ["alpha", "beta", ""][i % 3], "tags": [f"t{i % 4}"],
              "memory_type": ["note", "decision"][i % 2], "created_at": start + i * day,
              **({"valid_from": start + (i + (-20 if i % 2 else 5)) * day} if i % 5 == 0 else {})}
             for i in range(90)]
    ids = exact.store_many(items)
    for mid in ids[::10]:
        exact.invalidate(mid)
    lance = Engine(data, config=Config(vector_copy_max_rows=0), embedder=HashEmbedder())
    # a window of 2 x 20 candidates: selective filters fall back to LanceDB filtering first
    narrow = Engine(data, config=Config(copy_filter_window=2), embedder=HashEmbedder())
    # partitions of ~8 rows, every one of them probed: the rows of the exact search, found through them
    parts = Engine(data, config=Config(partition_min_rows=30, partition_rows=8, partition_probes=1_000),
                   embedder=HashEmbedder())
    assert exact.memory_vectors is not None and lance.memory_vectors is None
    assert parts.memory_vectors.partitions == 90 // 8 and exact.memory_vectors.partitions == 0
    assert (parts.stats()["vector_index"], exact.stats()["vector_index"]) == ("in-process, partitioned", "in-process")
    fallbacks = []
    real = narrow.lance.vector_search
    narrow.lance.vector_search = lambda *a, **kw: fallbacks.append(a[2]) or real(*a, **kw)
    now = exact._now()
    cases = [Filters(), Filters(include_invalid=True), Filters(project="alpha"),
             Filters(project="beta", include_global=False), Filters(tags=("t1",)), Filters(types=("decision",)),
             Filters(project="alpha", tags=("t2",), types=("note",)), Filters(project="nowhere"),
             Filters(as_of=start + 40.5 * day), Filters(as_of=start + 10.5 * day, project="alpha")]
    for filters in cases:
        for query in ("Orion release", "topic 3", "Vega note 12"):
            b = lance.memory_search.vector_leg(query, filters, now, 20)
            assert len(b.ids) == min(20, sum(1 for i in ids if _passes(exact, i, filters, now)))
            # the int8 rows of the partitioned copy give similarities about 0.001 off
            for a, tol in ((exact.memory_search.vector_leg(query, filters, now, 20), 1e-5),
                           (narrow.memory_search.vector_leg(query, filters, now, 20), 1e-5),
                           (parts.memory_search.vector_leg(query, filters, now, 20), 5e-3)):
                # the same similarities in the same order (memories of equal similarity may swap places)
                assert a.scores == pytest.approx(b.scores, abs=tol), (filters, query)
                tied = {i for leg in (a, b) for i, s in zip(leg.ids, leg.scores) if abs(s - b.scores[-1]) < tol}
                assert set(a.ids) - tied == set(b.ids) - tied
    # only the selective filters (a project, tags, types, a time long past) needed LanceDB; validity now never does
    selective = ("project", "tags", "memory_type", repr(start + 40.5 * day))
    assert fallbacks and all(any(c in w for c in selective) for w in fallbacks)
    for eng in (exact, lance, narrow, parts):
        eng.close()


def _passes(eng: Engine, mid: str, filters: Filters, now: float) -> bool:
    from memory_graph.graph import node_filter

    return node_filter(filters, now)(eng.graph.attrs(mid))


def test_remove_owned_drops_every_id_put_with_those_owners_and_only_them():
    cache = VectorCache(DIM)
    rng = np.random.default_rng(1)
    cache.put(["a#1", "a#2", "b#1", "c#1"], rng.standard_normal((4, DIM)), ["a", "a", "b", "c"])
    cache.remove(["b#1"])
    cache.remove_owned(["a", "b", "unknown"])
    assert len(cache) == 1 and "c#1" in cache and cache.nearest(np.ones(DIM), 5)[0] == ["c#1"]
    cache.put(["a#1"], rng.standard_normal((1, DIM)), ["a"])  # put again after its owner was dropped
    cache.remove_owned(["c"])
    assert cache.nearest(np.ones(DIM), 5)[0] == ["a#1"]


def test_an_id_put_again_under_another_owner_leaves_the_first_owner():
    cache = VectorCache(DIM)
    rng = np.random.default_rng(2)
    cache.put(["p"], rng.standard_normal((1, DIM)), ["a"])
    cache.put(["p"], rng.standard_normal((1, DIM)), ["b"])
    cache.remove_owned(["a"])
    assert "p" in cache
    cache.remove_owned(["b"])
    assert "p" not in cache and len(cache) == 0


@settings(max_examples=80, deadline=None)
@given(ops=OPS, query=VEC, k=st.integers(1, 3))
def test_a_partitioned_copy_keeps_each_row_in_its_nearest_partition_through_any_puts_and_removes(ops, query, k):
    """Partitions from 3 rows, of ~2 rows each: after any writes every row sits in the partition of its nearest
    centroid, the counts agree, the partitions were trained at a row count within the growth factor, and a
    one-partition search returns true cosines, best first, missing none nearer in the partition nearest the
    query."""
    cache = VectorCache(DIM, partition_min_rows=3, partition_rows=2, probes=1, retrain_growth=2.0)
    model = apply(cache, ops)
    n = len(cache)
    assert n == len(model) and cache.partitions == (0 if n < 3 else cache.partitions)
    q = np.array(query, dtype=np.float32) / np.linalg.norm(query)
    got, sims = cache.nearest(q, k)
    assert sims == sorted(sims, reverse=True)
    # int8 rows: a step is 1/127 of a dimension's largest magnitude; a copy that shrank below partition_min_rows
    # is exact again, from its int8 rows (LanceDB's float32 ones come back at the next load)
    tol = 0.02 if cache.partitions or cache._trained_rows else 1e-5
    assert sims == pytest.approx([float(model[i] @ q / np.linalg.norm(model[i])) for i in got], abs=tol)
    if not cache.partitions:
        assert cache._matrix.dtype == np.float32
        return
    assert cache._matrix.dtype == np.uint8  # int8 values + int8.OFFSET (ONNX Runtime's integer product reads them)
    assert cache._trained_rows / 2.0 < n < cache._trained_rows * 2.0 or cache._trained_rows == n
    centroids, part, rows = cache._centroids, cache._part[:n], cache._decode(cache._matrix[:n])
    own = rows @ centroids.T
    assert np.allclose(own[np.arange(n), part], own.max(axis=1), atol=1e-5)
    assert (np.bincount(part, minlength=cache.partitions) == cache._sizes).all()
    # the partition whose centroid is nearest the query is always searched: none of its rows that is nearer
    # than the last one returned can be missing (unless two centroids tie for nearest)
    near = centroids @ q
    first, second = np.sort(near)[::-1][:2] if len(near) > 1 else (near[0], -np.inf)
    if first - second > 1e-4 and len(got) == k:
        for r in np.flatnonzero(part == int(np.argmax(near))):
            if float(rows[r] @ q) > sims[-1] + 1e-4:
                assert cache._ids[r] in got


def test_searching_a_few_partitions_finds_most_of_the_exact_neighbours_of_clustered_vectors():
    """3,000 vectors around 40 centres, partitions of ~50, 4 of 60 probed: recall@10 against the exact search."""
    rng = np.random.default_rng(7)
    centres = rng.standard_normal((40, 16))
    vectors = centres[rng.integers(0, 40, 3_000)] + 0.4 * rng.standard_normal((3_000, 16))
    ids = [f"m{i}" for i in range(3_000)]
    exact, parts = VectorCache(16), VectorCache(16, partition_min_rows=1_000, partition_rows=50, probes=4)
    for start in range(0, 3_000, 250):  # grown in batches: trained at 1,000 rows, again at 2,000
        exact.put(ids[start:start + 250], vectors[start:start + 250])
        parts.put(ids[start:start + 250], vectors[start:start + 250])
    assert parts.partitions == 2_000 // 50 and parts._trained_rows == 2_000
    # the rows of the last training lie in partition order (each partition one run), the later ones after them
    assert (np.diff(parts._part[:2_000]) >= 0).all() and not (np.diff(parts._part[:3_000]) >= 0).all()
    queries = centres[rng.integers(0, 40, 50)] + 0.4 * rng.standard_normal((50, 16))
    recall = np.mean([len(set(parts.nearest(q, 10)[0]) & set(exact.nearest(q, 10)[0])) / 10 for q in queries])
    assert recall >= 0.9
    everything = VectorCache(16, partition_min_rows=1_000, partition_rows=50, probes=1_000)
    everything.put(ids, vectors)
    for q in queries[:10]:  # every partition probed: the exact neighbours, but for int8's ~0.001
        (a, sa), (b, sb) = everything.nearest(q, 10), exact.nearest(q, 10)
        assert sa == pytest.approx(sb, abs=5e-3)
        tied = {i for ids_, s_ in ((a, sa), (b, sb)) for i, s in zip(ids_, s_) if abs(s - sb[-1]) < 5e-3}
        assert set(a) - tied == set(b) - tied
        assert np.abs(everything.get(a[0]) - exact.get(a[0])).max() < 0.01
    parts.remove(ids[:2_200])  # 800 rows left: below partition_min_rows, exact (and float32) again
    got, sims = parts.nearest(queries[0], 10)
    want = [i for i in exact.nearest(queries[0], 3_000)[0] if int(i[1:]) >= 2_200][:10]
    assert parts.partitions == 0 and parts._matrix.dtype == np.float32
    assert len(set(got) & set(want)) >= 9


def test_a_small_project_of_a_partitioned_copy_is_searched_exactly_over_its_own_rows():
    """A project of 30 rows strewn over 3,000 in 60 partitions, 2 of them probed: the partitions nearest a question
    hold few of its rows, so its rows alone are searched, exactly, in one search; a project larger than
    partition_min_rows is searched through its partitions."""
    rng = np.random.default_rng(11)
    centres = rng.standard_normal((40, 16))
    vectors = (centres[rng.integers(0, 40, 3_000)] + 0.4 * rng.standard_normal((3_000, 16))).astype(np.float32)
    ids = [f"m{i}" for i in range(3_000)]
    tiny = set(rng.choice(3_000, 30, replace=False).tolist())
    group = {i: ("tiny" if r in tiny else "big") for r, i in enumerate(ids)}
    cache = VectorCache(16, partition_min_rows=1_000, partition_rows=50, probes=2)
    cache.put(ids, vectors, groups=[group[i] for i in ids])
    assert cache.partitions == 60 and cache.scoped(["tiny"]) and not cache.scoped(["big"])
    calls = []
    search = cache.nearest
    cache.nearest = lambda *a: calls.append(a) or search(*a)
    for q in rng.standard_normal((20, 16)).astype(np.float32):
        want = brute({i: vectors[int(i[1:])] for i in ids if group[i] == "tiny"}, q, 10)
        calls.clear()
        found = nearest_accepted(cache, q, 10, lambda i: group[i] == "tiny", 1, 1_000, ["tiny"])
        assert found is not None and len(calls) == 1
        # int8 rows: cosines within about 0.01 may trade places
        cos = {i: float(vectors[int(i[1:])] @ q / np.linalg.norm(vectors[int(i[1:])]) / np.linalg.norm(q))
               for i in want + found[0]}
        near = {i for i in cos if abs(cos[i] - cos[want[-1]]) < 0.01}
        assert set(found[0]) - near == set(want) - near


def test_a_load_that_reserves_its_rows_holds_no_spare_room_and_shares_the_ids_strings():
    """A whole load reserves its row count first: the matrix is sized once, where doubling from batches of
    8,192 would leave 131,072 rows of room for 100,000; ids are interned, so the copy and the graph hold one
    string per memory (ids read from LanceDB are new strings on every read)."""
    vectors = np.random.default_rng(1).standard_normal((1_000, 16))
    ids = [f"mem_{i:04d}" for i in range(1_000)]
    grown, reserved = VectorCache(16, partition_min_rows=500, partition_rows=50), VectorCache(16, 500, 50)
    reserved.reserve(1_000)
    for start in range(0, 1_000, 300):
        for copy in (grown, reserved):
            copy.put(ids[start:start + 300], vectors[start:start + 300], partition=False)
    for copy in (grown, reserved):
        copy.refresh_partitions()
    assert len(grown._matrix) > 1_000 and len(reserved._matrix) == 1_000 and reserved._matrix.dtype == np.uint8
    assert reserved.nearest(vectors[3], 5) == grown.nearest(vectors[3], 5)
    held = reserved._ids[reserved._row["mem_0003"]]  # (training ordered the rows by partition)
    assert held == "mem_0003" and held is sys.intern("".join(["mem_", "0003"]))  # an equal string, another object
    reserved.reserve(10)  # never shrinks
    assert len(reserved._matrix) == 1_000 and reserved.get("mem_0999") is not None


@settings(max_examples=40, deadline=None)
@given(OPS, VEC, st.booleans())
def test_similarities_are_the_cosines_of_the_ids_held(ops, query, quantized):
    """``similarities`` agrees with brute force (to int8's step when the copy is quantized) and leaves out
    ids the copy does not hold."""
    cache = VectorCache(DIM)
    model = apply(cache, ops)
    if quantized and len(cache):
        cache._requantize(np.abs(cache._matrix[:len(cache)]).max(axis=0).clip(1e-6) / 127)
    q = np.array(query, dtype=np.float32)
    got = cache.similarities([*model, "not-held"], q)
    assert set(got) == set(model)
    for i, v in model.items():
        want = float(v @ q / (np.linalg.norm(v) * np.linalg.norm(q)))
        assert got[i] == pytest.approx(want, abs=0.02 if quantized else 1e-5)


def test_a_search_scoped_to_a_small_project_reads_its_rows_of_the_copy_not_lancedb(tmp_path):
    """When the nearest rows of the whole copy hold too few of a project's memories, the project's own rows
    are searched exactly: the same answer as LanceDB filtering first (an engine holding no copy), without it."""
    data = tmp_path / "data"
    config = Config(copy_filter_window=2, postfilter_factor=1)
    eng = Engine(data, config=config, embedder=HashEmbedder())
    try:
        eng.store_many([{"content": f"note {i} about the billing queue and its retries", "project": "big"}
                        for i in range(120)])
        small = [eng.store(f"tiny project note {i}: the billing queue retries {i} times", project="tiny")
                 for i in range(3)]
        eng.store("a global note on billing queue retries")
        calls = []
        inner = eng.lance.vector_search
        eng.lance.vector_search = lambda *a, **k: calls.append(a) or inner(*a, **k)
        got = [h.id for h in eng.search("billing queue retries", mode="vector", project="tiny",
                                        include_global=False)]
        with_global = [h.id for h in eng.search("billing queue retries", mode="vector", project="tiny")]
        assert calls == [] and sorted(got) == sorted(small) and len(with_global) == 4
        lance_only = Engine(data, config=config.with_(vector_copy_max_rows=0), embedder=HashEmbedder())
        try:
            assert [h.id for h in lance_only.search("billing queue retries", mode="vector", project="tiny",
                                                    include_global=False)] == got
            assert [h.id for h in lance_only.search("billing queue retries", mode="vector",
                                                    project="tiny")] == with_global
        finally:
            lance_only.close()
    finally:
        eng.close()


@settings(max_examples=80, deadline=None)
@given(ops=OPS, query=VEC, probes=st.integers(1, 3))
def test_the_probed_runs_are_those_of_the_probed_partitions_when_searches_come_between_writes(ops, query, probes):
    """A search reads its partitions' rows from an index of rows by partition, kept from the last search: after
    every write it holds exactly the rows whose partition is probed, as a scan of every row's would find."""
    cache = VectorCache(DIM, partition_min_rows=3, partition_rows=2, probes=probes, retrain_growth=2.0)
    q = np.array(query, dtype=np.float32) / np.linalg.norm(query)
    for op in ops:
        apply(cache, [op])
        n = len(cache)
        if not cache.partitions:
            continue
        runs = cache._probed_runs(q, 1)
        order = np.argsort(-(cache._centroids @ q), kind="stable")
        m = max(min(probes, len(order)), int(np.searchsorted(np.cumsum(cache._sizes[order]), 4)) + 1)
        # one run per probed partition, nearest first, each its rows in row order
        assert [r.tolist() for r in runs] == [np.flatnonzero(cache._part[:n] == p).tolist() for p in order[:m]]
        got, sims = cache.nearest(q, 1)  # read in place where a run is contiguous, gathered where not
        rows = np.concatenate(runs)
        best = max(rows.tolist(), key=lambda r: (float(cache._decode(cache._matrix[r:r + 1])[0] @ q), -r))
        assert sims == pytest.approx([float(cache._decode(cache._matrix[best:best + 1])[0] @ q)], abs=1e-5)


def test_probing_every_partition_after_later_writes_finds_what_a_scan_of_the_int8_rows_finds():
    """Rows put after the training sit apart from their partitions' runs, and removals move rows: a search that
    probes every partition still reads each row once, its own (read in place or gathered)."""
    rng = np.random.default_rng(5)
    vectors = rng.standard_normal((700, 16)).astype(np.float32)
    ids = [f"m{i:03d}" for i in range(700)]
    cache = VectorCache(16, partition_min_rows=400, partition_rows=20, probes=10_000, retrain_growth=2.0)
    cache.put(ids[:500], vectors[:500])  # trained: each partition one run
    cache.put(ids[500:700], vectors[500:700])  # later rows: after the runs, in no partition's
    cache.remove(ids[10:40])  # the last rows move into the freed ones
    assert cache.partitions and cache._trained_rows == 500
    n = len(cache)
    decoded = cache._decode(cache._matrix[:n]).astype(np.float32)
    for q in rng.standard_normal((20, 16)).astype(np.float32):
        q = q / np.linalg.norm(q)
        got, sims = cache.nearest(q, 20)
        cos = decoded @ q
        want = sorted(range(n), key=lambda r: (-cos[r], cache._ids[r]))[:20]
        assert got == [cache._ids[r] for r in want]
        assert sims == pytest.approx([float(cos[r]) for r in want], abs=1e-5)


def test_get_many_reads_the_held_vectors_in_one_gather_as_get_reads_each():
    rng = np.random.default_rng(3)
    for cache in (VectorCache(DIM), VectorCache(DIM, partition_min_rows=3, partition_rows=2)):  # float32, int8
        cache.put([f"m{i}" for i in range(6)], rng.standard_normal((6, DIM)))
        got = cache.get_many(["m4", "unknown", "m1"])
        assert list(got) == ["m4", "m1"] and all(v.dtype == np.float32 for v in got.values())
        assert all(np.array_equal(got[i], cache.get(i)) for i in got)
        assert cache.get_many(["unknown"]) == {}


@pytest.mark.parametrize("rows, partition_min_rows", [(500, 0), (3_000, 0), (3_000, 1_000)])
def test_rows_tied_at_the_kth_place_are_taken_by_id(rows, partition_min_rows):
    """Copies of one vector among others (a memory stored many times): whichever rows a search reads (float32
    rows, the int8 scan, partitions), the nearest k hold the copies with the smallest ids, so a leg asked for
    more rows returns the same first ones."""
    rng = np.random.default_rng(11)
    vectors = rng.standard_normal((rows, 16)).astype(np.float32)
    copies = rng.choice(rows, 40, replace=False)
    vectors[copies] = vectors[copies[0]]
    ids = [f"m{i:05d}" for i in rng.permutation(rows)]
    cache = VectorCache(16, partition_min_rows=partition_min_rows, partition_rows=100, probes=10_000)
    cache.put(ids, vectors)
    assert bool(cache.partitions) == bool(partition_min_rows)
    q = vectors[copies[0]] + 0.3 * rng.standard_normal(16).astype(np.float32)
    got, _ = cache.nearest(q, 80)
    held = [i for i in got if i in {ids[c] for c in copies}]
    assert len(held) == 40
    for k in (5, 17, 23, 38):
        first, _ = cache.nearest(q, got.index(held[0]) + k)  # the tie at the k-th place: k copies of 40
        tied = [i for i in first if i in set(held)]
        assert tied == sorted(held)[:k] and first == got[:len(first)]


@pytest.mark.parametrize("layout", ["runs", "strewn"])
def test_a_search_limited_to_groups_reads_long_runs_of_their_rows_in_place_and_ranks_as_brute_force(layout):
    """A project's rows in long runs (the longest past a search's slice of rows) are read where they lie, rows
    strewn one by one are gathered; either way the nearest are those of a product over the project's rows and
    the rows put without a project."""
    rng = np.random.default_rng(7)
    runs = ([("p", 1500), ("q", 40), ("p", 300), (None, 20), ("p", 17), ("q", 700), ("p", 64)] if layout == "runs"
            else [("p", 1), ("q", 1)] * 300)
    cache, group, n = VectorCache(16), {}, 0
    for g, size in runs:
        ids = [f"r{n + i:05d}" for i in range(size)]
        cache.put(ids, rng.normal(size=(size, 16)).astype(np.float32), groups=None if g is None else [g] * size)
        group.update(dict.fromkeys(ids, g))
        n += size
    rows = cache.group_rows(["p"])
    parts = list(cache._pieces(rows))
    assert sum(len(p) for p in parts) == len(rows)
    in_place = [np.shares_memory(p, cache._matrix) for p in parts]
    assert all(in_place) if layout == "runs" else not any(in_place)
    mine = [i for i in cache._row if group[i] in ("p", None)]
    mat = np.stack([cache.get(i) for i in mine])
    for _ in range(10):
        q = rng.normal(size=16).astype(np.float32)
        cos = mat @ (q / np.linalg.norm(q)) / np.linalg.norm(mat, axis=1)
        best = np.argsort(-cos)[:25]
        ids, sims = cache.nearest(q, 25, ["p"])
        assert ids == [mine[b] for b in best] and sims == pytest.approx(cos[best].tolist(), abs=1e-5)
