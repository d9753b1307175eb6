"""What the search's fast paths must keep: the graph leg's second hop equals a walk of one reach per step, the
update pairs equal a loop over every pair, BLAS is held to one thread during a search and given back after,
legs run in process or pooled answer the same, MMR picks what its greedy loop picks, and the vector leg answers
what reading every passage's memory answers."""

import math
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from threadpoolctl import threadpool_info

from memory_graph import Config, Engine
from memory_graph.blas import blas_threads
from memory_graph.graph import Graph, MemoryNode
from memory_graph.retrieval import Candidate, graph_leg
from memory_graph.retrieval.graph_leg import GraphHit
from memory_graph.retrieval.updates import update_pairs

NOTE = MemoryNode("note", (), "", 0.0, None, None, "", "")
OTHER = MemoryNode("other", (), "", 0.0, None, None, "", "")


def walk(graph, seeds, accept, limit, hub_degree, max_fanout):
    """The graph leg as first written: a GraphHit per step, every target sorted."""
    hits, bridges = {}, {}

    def reach(node, hop, seed, strength, path, *tail):
        pool = hits if accept(graph.attrs(node)) else bridges
        h = pool.get(node)
        if h is None or hop < h.hop:
            pool[node] = h = GraphHit(node, hop, path=[*path, *tail])
        if hop == h.hop:
            h.seeds[seed] = seeds[seed]
            h.strength += strength

    def strongest(node):
        nbrs = list(graph.neighbors(node))
        return sorted(nbrs, key=lambda x: -x[2])[:max_fanout] if len(nbrs) > max_fanout else nbrs

    related = {}
    for seed in graph.specific(seeds, hub_degree):
        damp = 1.0 / math.sqrt(max(1, graph.degree(seed)))
        for v, _t, w, _d in strongest(seed):
            if graph.kind(v) == "memory":
                reach(v, 1, seed, seeds[seed] * w * damp, [seed], v)
            elif graph.kind(v) == graph.bridge and v not in seeds:
                related.setdefault(v, (seed, seeds[seed] * w * damp, [seed, v]))
    if len(hits) < limit:
        first = sorted([*hits.values(), *bridges.values()], key=lambda h: -h.strength)[:max_fanout]
        for h in first:
            seed = next(iter(h.seeds))
            for e, _t, w, _d in strongest(h.id):
                if graph.kind(e) == "memory" and e not in seeds:
                    reach(e, 2, seed, h.strength * w, h.path, e)
                elif graph.kind(e) == graph.bridge and e not in seeds and graph.degree(e) <= hub_degree:
                    damp = 1.0 / math.sqrt(max(1, graph.degree(e)))
                    for m2, _t2, w2, _d2 in strongest(e):
                        if m2 != h.id and graph.kind(m2) == "memory":
                            reach(m2, 2, seed, h.strength * w * w2 * damp, h.path, e, m2)
        for e, (seed, strength, path) in related.items():
            if graph.degree(e) <= hub_degree:
                damp = 1.0 / math.sqrt(max(1, graph.degree(e)))
                for m2, _t, w, _d in strongest(e):
                    if graph.kind(m2) == "memory":
                        reach(m2, 2, seed, strength * w * damp, path, m2)
    return sorted(hits.values(), key=lambda h: (h.hop, -h.score, -len(h.seeds), -h.strength, h.id))[:limit]


@settings(max_examples=150, deadline=None)
@given(mentions=st.lists(st.tuples(st.integers(0, 14), st.integers(0, 7), st.sampled_from([0.5, 1.0, 2.0])),
                         min_size=10, max_size=80),
       relations=st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=6),
       seeds=st.dictionaries(st.integers(0, 7), st.sampled_from([0.6, 1.0]), min_size=1, max_size=2),
       limit=st.integers(1, 15), hub=st.integers(3, 20), fanout=st.integers(3, 30))
def test_the_second_hop_finds_what_a_walk_of_one_reach_per_step_finds(mentions, relations, seeds, limit, hub,
                                                                         fanout):
    g = Graph()
    for e in range(8):
        g.add_entity(f"e{e}", f"e{e}", "name")
    for m in range(15):
        g.add_memory(f"m{m}", OTHER if m % 7 == 3 else NOTE)
    for m, e, w in mentions:
        g.add_mention(f"m{m}", f"e{e}", w)
    for n, (a, b) in enumerate(relations):
        if a != b:
            g.add_relation(f"r{n}", f"e{a}", f"e{b}", "uses")
    seeds = {f"e{e}": w for e, w in seeds.items()}
    accept = lambda a: a.get("memory_type") != "other"  # noqa: E731 - the filters' predicate
    fast = graph_leg(g, seeds, accept, limit, hub, fanout)
    slow = walk(g, seeds, accept, limit, hub, fanout)
    assert [(h.id, h.hop, list(h.seeds.items()), h.strength, h.path) for h in fast] == \
           [(h.id, h.hop, list(h.seeds.items()), h.strength, h.path) for h in slow]


def _blas_threads() -> list[int]:
    """numpy's BLAS threads, which the search's products use (scipy or PyTorch may load their own later)."""
    return [lib["num_threads"] for lib in threadpool_info()
            if lib["user_api"] == "blas" and "numpy" in lib["filepath"]]


def test_blas_is_held_to_the_limit_inside_and_given_back_by_the_last_block_out():
    before = _blas_threads()
    if not before or max(before) < 2:
        pytest.skip("this numpy's BLAS runs one thread already")
    with blas_threads(1):
        assert set(_blas_threads()) == {1}
        with blas_threads(1):
            pass
        assert set(_blas_threads()) == {1}  # the inner block leaves the outer one's limit
    assert _blas_threads() == before
    with blas_threads(0):
        assert _blas_threads() == before


def test_a_search_runs_with_blas_held_and_an_in_process_copy_matches_lancedb(tmp_path, embedder):
    before = _blas_threads()
    if not before or max(before) < 2:
        pytest.skip("this numpy's BLAS runs one thread already")
    eng = Engine(tmp_path / "d", embedder=embedder)
    for text in ("Orion is the billing-api rewrite", "billing-api times out on a cold cache",
                 "the deploy pipeline runs nightly"):
        eng.store(text)
    seen = []
    leg = eng.memory_search.bm25_leg

    def bm25(*args):
        seen.append((threading.current_thread().name, _blas_threads()))
        return leg(*args)

    vector_threads = []
    vector = eng.memory_search.vector_leg

    def vector_leg(*args):
        vector_threads.append(threading.current_thread().name)
        return vector(*args)

    eng.memory_search.bm25_leg, eng.memory_search.vector_leg = bm25, vector_leg
    ids = [h.id for h in eng.search("Orion billing timeouts", limit=3)]
    assert seen and set(seen[-1][1]) == {1} and _blas_threads() == before
    assert seen[-1][0] == threading.current_thread().name  # holds the GIL: on the caller's thread
    assert vector_threads[-1].startswith("mg-leg")  # its product lets the GIL go: in the pool, beside BM25
    held, eng.memory_vectors = eng.memory_vectors, None  # the vector leg reads LanceDB: pooled
    try:
        assert [h.id for h in eng.search("Orion billing timeouts", limit=3)] == ids
    finally:
        eng.memory_vectors = held
    eng.close()


def test_a_leg_that_fails_is_left_out_and_the_search_goes_on(tmp_path, embedder):
    eng = Engine(tmp_path / "d", config=Config(), embedder=embedder)
    mid = eng.store("Orion is the billing-api rewrite")

    def broken(*_args):
        raise RuntimeError("the index is gone")

    eng.memory_search.bm25_leg = broken
    hits = eng.search("Orion rewrite", limit=3)
    assert [h.id for h in hits] == [mid] and hits[0].explanation.ranks["bm25"] is None
    eng.close()


def pairs_by_loop(info, marked, subjects):
    """update_pairs as first written: a Python loop over every pair."""
    ids = sorted((d for d, c in info.items() if subjects[d] and c.vector is not None),
                 key=lambda d: (info[d].created_at, d))
    if len(ids) < 2:
        return []
    mat = np.stack([np.asarray(info[d].vector, dtype=np.float32) for d in ids])
    mat /= np.maximum(np.linalg.norm(mat, axis=1, keepdims=True), 1e-12)
    cos = mat @ mat.T
    return [(old, ids[j], float(cos[i, j])) for i, old in enumerate(ids) if info[old].evergreen
            for j in range(i + 1, len(ids))
            if cos[i, j] >= marked and info[ids[j]].created_at > info[old].created_at
            and subjects[old] & subjects[ids[j]]]


@settings(max_examples=80, deadline=None)
@given(pool=st.lists(st.tuples(st.integers(0, 4), st.booleans(), st.integers(0, 3),
                               st.frozensets(st.sampled_from("abcd"), max_size=2)), max_size=30),
       seed=st.integers(0, 10_000))
def test_update_pairs_are_those_a_loop_over_every_pair_finds(pool, seed):
    rng = np.random.default_rng(seed)
    topics = rng.normal(size=(4, 8))
    info = {f"m{i}": Candidate(created_at=float(t), evergreen=ev, vector=topics[k] + 0.3 * rng.normal(size=8),
                               words=set()) for i, (t, ev, k, _) in enumerate(pool)}
    subjects = {f"m{i}": subj for i, (_, _, _, subj) in enumerate(pool)}
    got = update_pairs(info, 0.6, lambda ids: {i: subjects[i] for i in ids})
    want = pairs_by_loop(info, 0.6, subjects)
    assert [(a, b) for a, b, _ in got] == [(a, b) for a, b, _ in want]
    assert [c for _, _, c in got] == pytest.approx([c for _, _, c in want], abs=1e-6)
    # with the pool's similarities from the caller: in the pool's order, and in another (read through the rows)
    from memory_graph.retrieval.mmr import similarity_matrix

    for order in (list(info), list(info)[::-1]):
        sim = similarity_matrix([info[d].vector for d in order], [set() for _ in order])
        given = update_pairs(info, 0.6, lambda ids: {i: subjects[i] for i in ids},
                             ({d: k for k, d in enumerate(order)}, sim))
        assert [(a, b) for a, b, _ in given] == [(a, b) for a, b, _ in want]
        assert [c for _, _, c in given] == pytest.approx([c for _, _, c in want], abs=1e-6)


def test_a_search_goes_on_when_blas_cannot_be_held(tmp_path, embedder, monkeypatch, caplog):
    import memory_graph.blas as blas

    class Broken:
        def limit(self, **_kwargs):
            raise OSError("no BLAS library found")

    monkeypatch.setattr(blas, "_controller", Broken())
    eng = Engine(tmp_path / "d", embedder=embedder)
    mid = eng.store("Orion is the billing-api rewrite")
    assert [h.id for h in eng.search("Orion rewrite", limit=3)] == [mid]
    assert "could not hold BLAS" in caplog.text and not blas.one_thread()
    eng.close()


@settings(max_examples=60, deadline=None)
@given(mentions=st.lists(st.tuples(st.integers(0, 9), st.integers(0, 5)), max_size=40),
       relations=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), max_size=6))
def test_a_nodes_degree_counts_its_distinct_neighbours_each_way(mentions, relations):
    g = Graph()
    for e in range(6):
        g.add_entity(f"e{e}", f"e{e}", "name")
    for m in range(10):
        g.add_memory(f"m{m}", NOTE)
    for m, e in mentions:
        g.add_mention(f"m{m}", f"e{e}")
    for n, (a, b) in enumerate(relations):
        g.add_relation(f"r{n}", f"e{a}", f"e{b}", "uses")
    for node in [*(f"e{e}" for e in range(6)), *(f"m{m}" for m in range(10)), "nowhere"]:
        out = {v for v, _t, _w, d in g.neighbors(node) if d == "out"}
        into = {v for v, _t, _w, d in g.neighbors(node) if d == "in"}
        assert g.degree(node) == len(out) + len(into)


def local_matrix_by_loop(graph: Graph, candidates, query_nodes, hub_degree):
    """Graph.local_matrix as first written: every link of every candidate read in one Python loop."""
    cands = [c for c in dict.fromkeys(candidates) if c in graph]
    held = set(cands)
    nodes = cands + [q for q in dict.fromkeys(query_nodes) if q in graph and q not in held]
    at = {x: i for i, x in enumerate(nodes)}
    nc, n = len(cands), len(nodes)
    w = np.zeros((n, n))
    linked = {}
    for i, c in enumerate(cands):
        for v, weight in graph.linked(c):
            j = at.get(v)
            if j is None:
                linked.setdefault(v, []).append((i, weight))
            elif j >= nc:
                w[i, j] += weight
                w[j, i] += weight
            elif j != i:
                w[i, j] += weight / 2
                w[j, i] += weight / 2
    shared = [(v, links) for v, links in linked.items() if len(links) > 1 and graph.kind(v) == graph.bridge]
    shared = [(links, d) for (_, links), d in zip(shared, [graph.degree(v) for v, _ in shared]) if d <= hub_degree * 20]
    if shared:
        b = np.zeros((nc, len(shared)))
        np.add.at(b, ([i for links, _ in shared for i, _ in links],
                      [col for col, (links, _) in enumerate(shared) for _ in links]),
                  [weight for links, _ in shared for _, weight in links])
        folded = (b / np.asarray([max(1, d) for _, d in shared], dtype=float)) @ b.T
        np.fill_diagonal(folded, 0.0)
        w[:nc, :nc] += folded
    w[np.arange(nc), np.arange(nc)] = 1.0
    return nodes, w


@settings(max_examples=150, deadline=None)
@given(mentions=st.lists(st.tuples(st.integers(0, 11), st.integers(0, 7), st.sampled_from([1.0, 0.5, 0.8])),
                         max_size=60),
       relations=st.lists(st.tuples(st.sampled_from(["m", "e"]), st.integers(0, 11), st.sampled_from(["m", "e"]),
                                    st.integers(0, 11), st.sampled_from([1.0, 0.3])), max_size=8),
       candidates=st.lists(st.integers(0, 13), max_size=12), query=st.lists(st.integers(0, 9), max_size=4),
       hub=st.integers(0, 2))
def test_local_matrix_equals_a_loop_over_every_link(mentions, relations, candidates, query, hub):
    """The same nodes and the same weights, to the last bit: memories with mentions only, memories with
    relations too (read link by link), relations between candidates, query nodes and hubs."""
    g = Graph()
    for e in range(8):
        g.add_entity(f"e{e}", f"entity {e}", "name")
    for m in range(12):
        g.add_memory(f"m{m}", NOTE)
    for m, e, weight in mentions:
        g.add_mention(f"m{m}", f"e{e}", weight)
    for k, (a, i, b, j, weight) in enumerate(relations):
        g.add_relation(f"r{k}", f"{a}{i % 8 if a == 'e' else i}", f"{b}{j % 8 if b == 'e' else j}", "rel", weight)
    cands, q = [f"m{c}" for c in candidates], [f"e{e}" for e in query]
    nodes, w = g.local_matrix(cands, q, hub)
    want_nodes, want = local_matrix_by_loop(g, cands, q, hub)
    assert nodes == want_nodes and np.array_equal(w, want)
    # what it keeps between searches (each memory's mentions as arrays, the degrees) follows the graph's changes
    g.add_relation("r-late", "m0", "e7", "rel", 0.7)
    nodes, w = g.local_matrix(cands, q, hub)
    for m, e, weight in mentions[:3]:
        g.add_mention(f"m{(m + 1) % 12}", f"e{(e + 1) % 8}", weight / 2)
    if mentions:
        g.remove_mentions_of(f"m{mentions[-1][0]}")
        g.remove_node(f"e{mentions[0][1]}")
    # the rows made at once by the first search, then kept with each write, are each memory's rows made anew
    assert g._mention_rows() == {m: g._row(m) for m in g._mentions}
    nodes, w = g.local_matrix(cands, q, hub)
    want_nodes, want = local_matrix_by_loop(g, cands, q, hub)
    assert nodes == want_nodes and np.array_equal(w, want)
    # linked, which both read, is neighbors without its edge types, in its order (parallel relations included)
    for node in [*(f"m{m}" for m in range(12)), *(f"e{e}" for e in range(8))]:
        assert g.linked(node) == [(v, weight) for v, _t, weight, _d in g.neighbors(node)]


def test_the_subgraph_reads_degrees_and_mentions_again_after_each_change():
    g = Graph()
    g.add_entity("e0", "entity 0", "name")
    for m in range(4):
        g.add_memory(f"m{m}", NOTE)
    g.add_mention("m0", "e0")
    g.add_mention("m1", "e0")
    _, w = g.local_matrix(["m0", "m1"], [], 2)
    assert w[0, 1] == 0.5  # one shared entity of degree 2
    g.add_mention("m2", "e0")
    _, w = g.local_matrix(["m0", "m1"], [], 2)
    assert w[0, 1] == 1 / 3
    g.add_mention("m0", "e0", 0.5)  # the same mention, lighter
    _, w = g.local_matrix(["m0", "m1"], [], 2)
    assert w[0, 1] == 0.5 / 3
    g.remove_mentions_of("m2")
    _, w = g.local_matrix(["m0", "m1"], [], 2)
    assert w[0, 1] == 0.25


def test_subjects_follow_the_graphs_changes():
    g = Graph()
    g.add_entity("e0", "entity 0", "name")
    g.add_entity("e1", "entity 1", "name")
    for m in range(3):
        g.add_memory(f"m{m}", NOTE)
    g.add_mention("m0", "e0")
    g.add_mention("m0", "e1")
    assert g.subjects("m0", 1) == {"e0", "e1"}
    g.add_mention("m1", "e1")  # e1 becomes a hub at hub_degree 1
    assert g.subjects("m0", 1) == {"e0"} and g.subjects("m0", 2) == {"e0", "e1"}
    g.add_entity("e0", "entity 0", "project")
    assert g.subjects("m0", 1) == set()
    g.remove_mentions_of("m1")
    assert g.subjects("m0", 1) == {"e1"}
    g.remove_node("e1")
    assert g.subjects("m0", 1) == set() and g.subjects("m0", 1, skip_types=()) == {"e0"}


def mmr_by_loop(ids, scores, sim, lam, limit, duplicate, floor):
    """Greedy MMR as first written: every pick weighs every remaining item against those picked."""
    chosen: list[int] = []
    while len(chosen) < min(limit, len(ids)):
        best, best_value = None, -math.inf
        for i in range(len(ids)):
            if i in chosen:
                continue
            red = max((max(sim[i][j] - floor, 0.0) / (1 - floor) for j in chosen), default=0.0)
            value = lam * scores[i] - (1 - lam) * red if chosen else lam * scores[i]
            if duplicate is not None and any(sim[i][j] >= duplicate for j in chosen):
                value -= 1e9
            if value > best_value:
                best, best_value = i, value
        chosen.append(best)
    return [ids[i] for i in chosen]


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 14), seed=st.integers(0, 10_000), lam=st.sampled_from([0.0, 0.5, 0.7, 1.0]),
       limit=st.integers(1, 10), duplicate=st.sampled_from([None, 0.5, 0.9, 0.95]),
       floor=st.sampled_from([0.0, 0.85, 0.97]), spread=st.sampled_from([0.05, 0.5, 1.0]), tied=st.booleans(),
       ordered=st.booleans())
def test_mmr_picks_what_the_greedy_loop_picks(n, seed, lam, limit, duplicate, floor, spread, tied, ordered):
    """With and without redundant pairs (the no-penalty shortcuts), ties in score, scores out of order,
    near-duplicates that are no redundancy yet (a duplicate threshold below the floor)."""
    from memory_graph.retrieval.mmr import mmr

    rng = np.random.default_rng(seed)
    vecs = rng.normal(size=(n, 4)) * spread + np.array([1.0, 0, 0, 0])
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    sim = vecs @ vecs.T
    scores = [rng.integers(1, 4) / 4 if tied else rng.random() for _ in range(n)]
    scores = sorted(scores, reverse=True) if ordered else scores
    ids = [f"d{i}" for i in range(n)]
    assert mmr(ids, scores, sim, lam, limit, duplicate, floor) == \
        mmr_by_loop(ids, scores, sim.tolist(), lam, limit, duplicate, floor)


def vector_leg_by_every_passage(search, vec, filters, now, c):
    """The memory vector leg as first written: every memory its passages found has its own vector read."""
    from memory_graph.retrieval import passage_scores

    ids, sims = search.nearest_memories(vec, filters, None, now, c)
    first, best = dict(zip(ids, sims)), {}
    for pid, sim in zip(*search._nearest_passages(vec, c * search.config.passage_candidates_factor)):
        best[pid.rsplit("#", 1)[0]] = max(sim, best.get(pid.rsplit("#", 1)[0], -1.0))
    first.update(search._own_similarities(vec, [m for m in best if m not in first], filters, None, now))
    scored = passage_scores(first, {m: s for m, s in best.items() if m in first}, search.config.passage_gain)
    ranked = sorted(scored.items(), key=lambda kv: (-kv[1], kv[0]))[:c]
    return [m for m, _ in ranked], [s for _, s in ranked]


@pytest.mark.parametrize("gain", [0.3, 1.0])
def test_the_vector_leg_reads_own_vectors_only_of_memories_a_passage_can_lift(tmp_path, gain):
    """Memories past the first C whose best passage does not beat the C-th memory are left unread, and the leg
    answers what reading every one answers."""
    from conftest import WindowEmbedder
    from memory_graph.validation import check_filters

    words = [f"w{i}" for i in range(40)]
    rng = np.random.default_rng(7)
    emb = WindowEmbedder()
    eng = Engine(tmp_path / "d", Config(passage_tokens=20, passage_stride=15, passage_gain=gain, candidates_min=3,
                                        candidates_factor=1), emb)
    eng.store_many([{"content": " ".join(rng.choice(words, size=int(rng.integers(8, 120))))} for _ in range(60)])
    search, now = eng.memory_search, eng._now()
    filters = check_filters(eng.config, None, None, None, None, None, None, False)
    read = []
    own = search._own_similarities
    search._own_similarities = lambda vec, ids, *a: read.append(len(ids)) or own(vec, ids, *a)
    skipped = 0
    for q in range(25):
        query = " ".join(rng.choice(words, size=6))
        vec = emb.encode_query(query)
        for c in (3, 10):
            before = len(read)
            leg = search.vector_leg(query, filters, now, c, vec)
            mine = read[before:]
            search._own_similarities = own
            want = vector_leg_by_every_passage(search, vec, filters, now, c)
            search._own_similarities = lambda vec, ids, *a: read.append(len(ids)) or own(vec, ids, *a)
            assert leg.ids == want[0] and leg.scores == pytest.approx(want[1], abs=1e-7)
            passages_found = len({p.rsplit("#", 1)[0] for p in search._nearest_passages(vec, c * 4)[0]}
                                 - set(search.nearest_memories(vec, filters, None, now, c)[0]))
            skipped += passages_found - (mine[0] if mine else 0)
    assert skipped > 0  # the bound left some memories unread
    eng.close()
