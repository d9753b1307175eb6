"""Each retrieval stage alone: small inputs and hypothesis properties."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory_graph.retrieval import (convex, decay_factor, decay_factors, first_of_each_group, importance_factor,
                                    is_evergreen, min_score_filter, mmr,
                                    passage_scores, personalized_pagerank, ppr_factors, ppr_reach, rrf,
                                    similarity_matrix)
from memory_graph.config import Config
from memory_graph.retrieval.mmr import unit_rows
from memory_graph.retrieval.pipeline import Candidate, LegResult, rank

ids = st.lists(st.sampled_from([f"d{i}" for i in range(30)]), unique=True, max_size=20)
rankings = st.dictionaries(st.sampled_from(["vector", "bm25", "graph"]), ids, min_size=1)


def test_rrf_small_example():
    scores = rrf({"a": ["x", "y"], "b": ["y"]}, {"a": 1.0, "b": 1.0}, k=60)
    top = 2 / 61
    assert scores["y"] == pytest.approx((1 / 62 + 1 / 61) / top)
    assert scores["x"] == pytest.approx((1 / 61) / top)
    assert scores["y"] > scores["x"]


@given(rankings)
def test_rrf_is_independent_of_leg_order(r):
    w = {"vector": 1.0, "bm25": 0.7, "graph": 0.4}
    forward = rrf(r, w)
    backward = rrf(dict(reversed(list(r.items()))), w)
    assert forward.keys() == backward.keys()
    for d in forward:
        assert forward[d] == pytest.approx(backward[d])


@given(rankings)
def test_rrf_scores_lie_in_unit_interval(r):
    for s in rrf(r, {"vector": 1.0, "bm25": 2.0, "graph": 0.5}).values():
        assert 0 < s <= 1 + 1e-12


def test_rrf_first_everywhere_scores_one():
    assert rrf({"a": ["x"], "b": ["x", "y"]}, {"a": 1, "b": 3})["x"] == pytest.approx(1.0)


@st.composite
def scored_legs(draw):
    """Legs as (ids, scores), scores in descending order as a leg returns them."""
    legs = {}
    for leg, ranked in draw(rankings).items():
        scores = sorted(draw(st.lists(st.floats(-1, 50), min_size=len(ranked), max_size=len(ranked))), reverse=True)
        legs[leg] = (ranked, scores)
    return legs


CONVEX_W = {"vector": 1.0, "bm25": 0.7, "graph": 0.4}


def test_convex_small_example():
    scores = convex({"a": (["x", "y"], [0.8, 0.4]), "b": (["y", "z"], [10.0, 5.0])}, {"a": 1.0, "b": 1.0})
    # x: a 1.0, b absent -> b's lowest 0.5; y: a 0.5, b 1.0; z: a absent -> 0.5, b 0.5
    assert scores["x"] == pytest.approx(0.75)
    assert scores["y"] == pytest.approx(0.75)
    assert scores["z"] == pytest.approx(0.5)


def test_convex_gives_nothing_for_absence_from_a_complete_leg():
    legs = {"a": (["x", "y", "z"], [1.0, 0.9, 0.8]), "g": (["y", "x"], [1.1, 0.6])}
    truncated = convex(legs, {"a": 1.0, "g": 1.0})
    complete = convex(legs, {"a": 1.0, "g": 1.0}, complete={"g"})
    assert truncated["z"] == pytest.approx((0.8 + 0.6 / 1.1) / 2)
    assert complete["z"] == pytest.approx(0.8 / 2)
    assert complete["x"] == truncated["x"] and complete["y"] == truncated["y"]


@given(scored_legs())
def test_convex_is_independent_of_leg_order(legs):
    forward = convex(legs, CONVEX_W)
    backward = convex(dict(reversed(list(legs.items()))), CONVEX_W)
    assert forward.keys() == backward.keys()
    for d in forward:
        assert forward[d] == pytest.approx(backward[d])


@given(scored_legs())
def test_convex_scores_lie_in_unit_interval(legs):
    for s in convex(legs, CONVEX_W).values():
        assert 0.0 <= s <= 1 + 1e-12


@given(scored_legs())
def test_convex_keeps_a_single_legs_order(legs):
    leg, (ranked, scores) = next(iter(legs.items()))
    fused = convex({leg: (ranked, scores)}, CONVEX_W)
    order = sorted(fused, key=lambda d: -fused[d])
    assert [fused[d] for d in order] == pytest.approx([fused[d] for d in ranked])


@given(scored_legs(), st.floats(0.1, 10))
def test_convex_is_invariant_to_a_legs_scale(legs, factor):
    leg, (ranked, scores) = next(iter(legs.items()))
    scaled = dict(legs, **{leg: (ranked, [s * factor for s in scores])})
    a, b = convex(legs, CONVEX_W), convex(scaled, CONVEX_W)
    assert a.keys() == b.keys()
    for d in a:
        assert a[d] == pytest.approx(b[d])


def test_convex_first_everywhere_scores_one():
    assert convex({"a": (["x"], [3.0]), "b": (["x", "y"], [0.9, 0.2])}, {"a": 1, "b": 3})["x"] == pytest.approx(1.0)


def test_convex_a_flat_leg_does_not_outvote_a_clear_winner():
    """Where RRF ranks a document two legs put in the middle above one leg's clear winner, convex does not."""
    flat = (["m", "w", "a", "b"], [0.61, 0.60, 0.60, 0.59])
    sharp = (["w2", "m", "c", "d"], [20.0, 6.0, 5.0, 4.0])
    legs = {"vector": flat, "bm25": sharp}
    fused = convex(legs, {"vector": 1.0, "bm25": 1.0})
    assert max(fused, key=fused.get) == "w2"
    ranked = rrf({k: v[0] for k, v in legs.items()}, {"vector": 1.0, "bm25": 1.0})
    assert max(ranked, key=ranked.get) == "m"


@given(st.floats(0, 3650), st.floats(0, 3650), st.floats(1, 365))
def test_decay_is_monotonic_in_age(a, b, half_life):
    younger, older = sorted([a, b])
    assert decay_factor(younger, half_life) >= decay_factor(older, half_life)


@given(st.floats(0, 3650), st.floats(1, 365), st.floats(0, 1))
def test_decay_takes_at_most_its_weight(age, half_life, weight):
    f = decay_factor(age, half_life, weight)
    assert 1.0 - weight - 1e-12 <= f <= 1.0
    assert decay_factor(age, half_life, 1.0) == pytest.approx(0.5 ** (age / half_life))
    assert decay_factor(age, half_life, 0.0) == 1.0


@given(st.integers(1, 10), st.integers(1, 10), st.floats(0, 1))
def test_importance_is_monotonic_neutral_at_five_and_bounded(a, b, weight):
    low, high = sorted([a, b])
    assert importance_factor(low, weight) <= importance_factor(high, weight)
    assert importance_factor(5, weight) == 1.0
    assert 1.0 - 0.8 * weight - 1e-12 <= importance_factor(a, weight) <= 1.0 + weight + 1e-12
    assert importance_factor(10, weight) == pytest.approx(1.0 + weight)


def test_decay_half_life_and_evergreen():
    assert decay_factor(30, 30) == pytest.approx(0.5)
    assert decay_factor(-5, 30) == 1.0
    f = decay_factors({"old": 0.0, "keep": 0.0}, now=60 * 86400.0, half_life_days=30, evergreen=["keep"])
    assert f["old"] == pytest.approx(0.25) and f["keep"] == 1.0
    assert is_evergreen("episodic", [], "notes/MEMORY.md", (), (), ("*MEMORY.md",))
    assert is_evergreen("semantic", [], "", ("semantic",), (), ())
    assert not is_evergreen("episodic", ["x"], "a.txt", ("semantic",), ("pinned",), ("*MEMORY.md",))


@settings(max_examples=50)
@given(st.lists(st.floats(0.01, 1.0), min_size=1, max_size=12), st.integers(1, 12))
def test_mmr_with_lambda_one_keeps_relevance_order(scores, limit):
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    names = [f"d{i}" for i in order]
    ranked = [scores[i] for i in order]
    sim = np.random.default_rng(0).random((len(scores), len(scores)))
    assert mmr(names, ranked, sim, lam=1.0, limit=limit) == names[:limit]


def test_mmr_demotes_a_near_duplicate():
    a = np.array([1.0, 0.0, 0.0])
    sim = similarity_matrix([a, a * 0.999 + 0.001, np.array([0.0, 1.0, 0.0])], [set(), set(), set()])
    out = mmr(["a", "a_copy", "b"], [1.0, 0.95, 0.6], sim, lam=0.7, limit=2)
    assert out == ["a", "b"]


def test_mmr_puts_a_near_duplicate_after_everything_else():
    sim = np.array([[1.0, 0.97, 0.2, 0.1], [0.97, 1.0, 0.2, 0.1], [0.2, 0.2, 1.0, 0.1], [0.1, 0.1, 0.1, 1.0]])
    ids, scores = ["a", "a_copy", "b", "c"], [1.0, 0.99, 0.3, 0.2]
    assert mmr(ids, scores, sim, lam=0.9, limit=4) == ["a", "a_copy", "b", "c"]
    assert mmr(ids, scores, sim, lam=0.9, limit=4, duplicate=0.95) == ["a", "b", "c", "a_copy"]
    assert mmr(ids, scores, sim, lam=1.0, limit=2, duplicate=0.98) == ["a", "a_copy"]


@settings(max_examples=50)
@given(st.lists(st.floats(0.01, 1.0), min_size=1, max_size=12), st.integers(1, 12), st.floats(0.0, 1.0))
def test_mmr_ignores_similarity_below_the_floor(scores, limit, lam):
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    names = [f"d{i}" for i in order]
    sim = 0.8 * np.random.default_rng(1).random((len(scores), len(scores)))  # every pair below 0.8
    assert mmr(names, [scores[i] for i in order], sim, lam=lam, limit=limit, floor=0.8) == names[:limit]


def test_mmr_floor_still_demotes_a_paraphrase_but_not_a_topic_neighbour():
    # b is a paraphrase of a (0.9), c shares a's topic (0.6); both trail a by the same margin
    sim = np.array([[1.0, 0.9, 0.6, 0.1], [0.9, 1.0, 0.6, 0.1], [0.6, 0.6, 1.0, 0.1], [0.1, 0.1, 0.1, 1.0]])
    ids, scores = ["a", "b", "c", "d"], [1.0, 0.9, 0.88, 0.7]
    assert mmr(ids, scores, sim, lam=0.7, limit=4) == ["a", "d", "c", "b"]
    assert mmr(ids, scores, sim, lam=0.7, limit=4, floor=0.8) == ["a", "c", "d", "b"]
    with pytest.raises(ValueError):
        mmr(ids, scores, sim, lam=0.7, limit=4, floor=1.0)


def test_the_similarity_of_unit_rows_made_in_any_batches_is_that_of_the_vectors():
    """A search keeps each candidate's unit row from the batch that first made it: whichever batches the rows came
    from, the pool's similarities are the ones its vectors give, to the last bit (so the ranking is too)."""
    rng = np.random.default_rng(3)
    vectors = [rng.standard_normal(384).astype(np.float32) for _ in range(40)]
    vectors[7] = None
    words = [set() if v is not None else {"w"} for v in vectors]
    have = [i for i, v in enumerate(vectors) if v is not None]
    units: list = [None] * len(vectors)
    for batch in (have[::3], have[1::3], have[2::3]):
        for i, row in zip(batch, unit_rows([vectors[i] for i in batch])):
            units[i] = row
    assert np.array_equal(similarity_matrix(vectors, words, units), similarity_matrix(vectors, words))


def test_a_search_keeps_the_candidates_unit_rows_and_ranks_the_same_with_them():
    rng = np.random.default_rng(4)
    info = {f"m{i}": Candidate(created_at=1000.0 * i, evergreen=i % 2 == 0, vector=rng.standard_normal(8), words=set())
            for i in range(12)}
    legs = {"vector": LegResult(list(info), [1.0 - 0.05 * i for i in range(12)])}
    kw = dict(config=Config(), weights=Config().memory_weights, limit=5, now=20_000.0,
              describe=lambda ids: {i: info[i] for i in ids if i in info}, subjects=lambda ids: {})
    first = rank(legs, **kw)
    kept = {i: c.unit for i, c in info.items()}
    assert all(u is not None for u in kept.values())
    second = rank(legs, **kw)
    assert all(info[i].unit is kept[i] for i in info)  # read again, not made again
    assert [(h.id, h.score) for h in first] == [(h.id, h.score) for h in second]


def test_candidates_of_equal_score_rank_by_id_whatever_order_the_legs_give():
    info = {d: Candidate(created_at=0.0, evergreen=False, vector=np.eye(4)[k], words=set())
            for k, d in enumerate(["c", "a", "d", "b"])}
    legs = {"vector": LegResult(["c", "a", "d", "b"], [0.5] * 4), "bm25": LegResult(["d", "b", "c", "a"], [2.0] * 4)}
    hits = rank(legs, config=Config(), weights=Config().memory_weights, limit=4, now=0.0, use_decay=False,
                describe=lambda ids: {i: info[i] for i in ids})
    assert [h.id for h in hits] == ["a", "b", "c", "d"] and len({h.score for h in hits}) == 1


def test_similarity_uses_jaccard_without_vectors():
    sim = similarity_matrix([None, None], [{"x", "y"}, {"y", "z"}])
    assert sim[0, 1] == pytest.approx(1 / 3)


sims = st.floats(-1.0, 1.0, allow_nan=False)
first_and_passages = st.dictionaries(st.sampled_from([f"m{i}" for i in range(20)]), st.tuples(sims, sims),
                                     min_size=1)


@given(first_and_passages, st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_passage_scores_lie_between_first_and_best_and_grow_with_gain(pairs, g1, g2):
    first = {m: f for m, (f, _) in pairs.items()}
    best = {m: p for m, (_, p) in list(pairs.items())[::2]}  # some memories have no passage hit
    lo, hi = sorted((g1, g2))
    low, high = passage_scores(first, best, lo), passage_scores(first, best, hi)
    assert passage_scores(first, best, 0.0) == first
    assert passage_scores(first, best, 1.0) == pytest.approx({m: max(f, best.get(m, f)) for m, f in first.items()},
                                                             abs=1e-12)
    for m, f in first.items():
        assert f <= low[m] <= high[m] + 1e-12 and high[m] <= max(f, best.get(m, f)) + 1e-12


def test_passage_gain_ranks_a_match_in_the_beginning_above_an_equal_one_deep_inside():
    first = {"short": 0.8, "long": 0.2, "other": 0.5}
    scores = passage_scores(first, {"long": 0.8}, 0.5)
    assert scores["long"] == pytest.approx(0.5)
    assert sorted(scores, key=lambda m: -scores[m]) == ["short", "long", "other"]
    assert scores["short"] > scores["long"] > passage_scores(first, {"long": 0.7}, 0.5)["long"]


def test_min_score_relative_and_absolute():
    s = {"a": 1.0, "b": 0.5, "c": 0.05}
    assert set(min_score_filter(s, 0.1, 0.0)) == {"a", "b"}
    assert set(min_score_filter(s, 0.1, 0.6)) == {"a"}
    assert min_score_filter({}, 0.1, 0.0) == {}


@given(ids, st.dictionaries(st.sampled_from([f"d{i}" for i in range(30)]), st.sampled_from(["a", "b", "c", None])))
def test_one_per_group_keeps_each_groups_first_in_order_and_every_ungrouped_id(ordered, groups):
    kept = first_of_each_group(ordered, groups)
    assert kept == [d for d in ordered if d in kept]  # a subsequence: order is never changed
    named = [groups[d] for d in kept if groups.get(d) is not None]
    assert len(named) == len(set(named))
    assert all(d in kept for d in ordered if groups.get(d) is None)
    for g in {groups.get(d) for d in ordered} - {None}:
        assert next(d for d in ordered if groups.get(d) == g) in kept


def test_the_preferred_window_stands_for_its_group_in_its_own_place():
    # w1 outscores w2, but w2 holds the line the query names (a prior of 1 against 0.3)
    ordered = ["w1", "other", "w2", "w3"]
    groups = {"w1": "f", "w2": "f", "w3": "f", "other": None}
    assert first_of_each_group(ordered, groups) == ["w1", "other"]
    assert first_of_each_group(ordered, groups, {"w1": 0.3, "w2": 1.0, "w3": 1.0, "other": 1.0}) == ["other", "w2"]


edge_lists = st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7), st.floats(0.1, 5)), min_size=1, max_size=20)


@settings(max_examples=60, deadline=None)
@given(edge_lists, st.dictionaries(st.integers(0, 7), st.floats(0.1, 1), min_size=1))
def test_ppr_agrees_with_networkx(edges, restart):
    edges = [(f"n{u}", f"n{v}", w) for u, v, w in edges if u != v]
    if not edges:
        return
    g = nx.Graph()
    for u, v, w in edges:
        g.add_edge(u, v, weight=g[u][v]["weight"] + w if g.has_edge(u, v) else w)
    restart = {f"n{k}": v for k, v in restart.items()}
    g.add_nodes_from(restart)
    merged = [(u, v, d["weight"]) for u, v, d in g.edges(data=True)]
    ours = personalized_pagerank(merged, restart, alpha=0.85, max_iter=500, tol=1e-13)
    theirs = nx.pagerank(g, alpha=0.85, personalization=restart, weight="weight", tol=1e-13, max_iter=500)
    for node in g:
        assert ours[node] == pytest.approx(theirs[node], abs=1e-6)


def subgraph(edges):
    """(nodes, symmetric weights) of an undirected edge list, as Graph.local_matrix returns them."""
    nodes = list(dict.fromkeys(x for u, v, _ in edges for x in (u, v)))
    at = {x: i for i, x in enumerate(nodes)}
    w = np.zeros((len(nodes), len(nodes)))
    for u, v, weight in edges:
        w[at[u], at[v]] += weight
        if u != v:
            w[at[v], at[u]] += weight
    return nodes, w


def test_ppr_without_edges_changes_nothing():
    f = ppr_factors({"a": 0.9, "b": 0.2}, {"a": 0.8, "b": 0.2}, beta=0.5, has_edges=False)
    assert f == {"a": 1.0, "b": 1.0}


def test_ppr_factor_formula():
    f = ppr_factors({"a": 0.9, "b": 0.2}, {"a": 0.4, "b": 0.1}, beta=0.5, has_edges=True)
    assert f["a"] == pytest.approx(1.0) and f["b"] == pytest.approx(0.5 + 0.5 * 0.25)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.01, 1.0), min_size=2, max_size=8))
def test_ppr_never_reorders_candidates_the_graph_joins_alike(fused):
    # each candidate names the query's entity once, as the answer and its look-alikes do: the graph tells them
    # apart in nothing, so the dampened scores keep the fused order (p / restart inverted it)
    scores = {f"d{i}": f for i, f in enumerate(fused)}
    edges = [(d, d, 1.0) for d in scores] + [(d, "q", 1.0) for d in scores]
    reach = ppr_reach(*subgraph(edges), scores, {"q": 1.0}, alpha=0.85, max_iter=200, tol=1e-12)
    factors = ppr_factors(scores, reach, beta=0.1, has_edges=True)
    damped = {d: scores[d] * factors[d] for d in scores}
    assert sorted(scores, key=lambda d: (-scores[d], d)) == sorted(damped, key=lambda d: (-damped[d], d))


def test_ppr_reach_rewards_what_names_more_of_the_query():
    edges = [("both", "both", 1.0), ("one", "one", 1.0), ("none", "none", 1.0), ("hop", "hop", 1.0),
             ("both", "q1", 1.0), ("both", "q2", 1.0), ("one", "q1", 1.0), ("hop", "one", 0.5)]
    reach = ppr_reach(*subgraph(edges), ["both", "one", "none", "hop"], {"q1": 1.0, "q2": 1.0}, alpha=0.85, max_iter=200,
                      tol=1e-12)
    assert reach["both"] > reach["one"] > reach["hop"] > reach["none"] == 0.0
    factors = ppr_factors({d: 0.5 for d in reach}, reach, beta=0.1, has_edges=True)
    assert factors["both"] == 1.0 and factors["none"] == pytest.approx(0.9)


def test_ppr_favours_nodes_near_the_restart():
    edges = [("q", "a", 1.0), ("a", "b", 1.0), ("c", "d", 1.0)]
    p = personalized_pagerank(edges, {"q": 1.0, "c": 0.01})
    assert p["a"] > p["d"] and math.isclose(sum(p.values()), 1.0, rel_tol=1e-6)


def test_vector_matrix_reads_a_vector_column_and_refuses_missing_vectors():
    import pyarrow as pa

    from memory_graph.errors import StoreError
    from memory_graph.store import vector_matrix

    vecs = pa.array([[1.0, 2.0], [3.0, 4.0]], type=pa.list_(pa.float32(), 2))
    mat = vector_matrix(pa.table({"vector": vecs}))
    assert mat.dtype == np.float32 and mat.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    with pytest.raises(StoreError, match="no vector"):
        vector_matrix(pa.table({"vector": pa.array([[1.0, 2.0], None], type=pa.list_(pa.float32(), 2))}))
