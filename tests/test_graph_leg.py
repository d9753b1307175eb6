"""The graph leg and PPR's local subgraph on a hand-built graph."""

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memory_graph.graph import CHUNK, DEFINES, SYMBOL, Graph, MemoryNode
from memory_graph.retrieval import graph_leg


NOTE = MemoryNode("note", (), "", 0.0, None, None, "", "")


def build(hub_size: int = 0) -> Graph:
    g = Graph()
    for e in ("orion", "billing", "hub"):
        g.add_entity(e, e, "name")
    for m in ("m1", "m2", "m3", "m4"):
        g.add_memory(m, NOTE)
    g.add_mention("m1", "orion")
    g.add_mention("m1", "billing")
    g.add_mention("m2", "billing")
    g.add_mention("m3", "orion")
    g.add_mention("m3", "hub")
    for i in range(hub_size):
        g.add_memory(f"h{i}", NOTE)
        g.add_mention(f"h{i}", "hub")
    return g


def accept_all(_):
    return True


def test_hop_one_before_hop_two_and_paths():
    hits = graph_leg(build(), {"orion": 1.0}, accept_all, limit=10, hub_degree=50, max_fanout=100)
    assert [(h.id, h.hop) for h in hits][:2] in ([("m1", 1), ("m3", 1)], [("m3", 1), ("m1", 1)])
    m2 = next(h for h in hits if h.id == "m2")
    assert m2.hop == 2 and m2.path == ["orion", "m1", "billing", "m2"]
    assert "m4" not in [h.id for h in hits]


def test_more_query_entities_rank_first():
    hits = graph_leg(build(), {"orion": 1.0, "billing": 1.0}, accept_all, limit=10, hub_degree=50, max_fanout=100)
    assert hits[0].id == "m1" and set(hits[0].seeds) == {"orion", "billing"}


def test_hubs_are_not_expanded():
    hits = graph_leg(build(hub_size=60), {"orion": 1.0}, accept_all, limit=100, hub_degree=50, max_fanout=100)
    assert not any(h.id.startswith("h") for h in hits)
    hits = graph_leg(build(hub_size=10), {"orion": 1.0}, accept_all, limit=100, hub_degree=50, max_fanout=100)
    assert sum(h.id.startswith("h") for h in hits) == 10


def test_a_hub_symbol_reaches_only_the_chunk_that_defines_it():
    """A method called from everywhere ranks none of its callers, but a query naming it finds its definition."""
    g = Graph(bridge=SYMBOL)
    for sym, chunk in [("get", "c_get")] + [(f"caller{i}", f"c{i}") for i in range(60)]:
        g.add_node(sym, SYMBOL, name=sym)
        g.add_node(chunk, CHUNK)
        g.add_edge(chunk, sym, DEFINES, 1.0, key=DEFINES)
        if sym != "get":
            g.add_edge(sym, "get", "calls", 1.0, key="calls")
    hits = graph_leg(g, {"get": 1.0}, accept_all, limit=100, hub_degree=50, max_fanout=100, target=CHUNK)
    assert [(h.id, h.hop, h.path) for h in hits] == [("c_get", 1, ["get", "c_get"])]
    wide = graph_leg(g, {"get": 1.0}, accept_all, limit=100, hub_degree=100, max_fanout=100, target=CHUNK)
    assert wide[0].id == "c_get" and len(wide) == 61


def test_filtered_memories_bridge_but_are_not_returned():
    hits = graph_leg(build(), {"orion": 1.0}, lambda a: a.get("memory_type") != "note" or False, limit=10,
                     hub_degree=50, max_fanout=100)
    assert hits == []
    g = build()
    g.add_memory("m1", MemoryNode("hidden", (), "", 0.0, None, None, "", ""))
    hits = graph_leg(g, {"orion": 1.0}, lambda a: a["memory_type"] != "hidden", 10, 50, 100)
    assert "m1" not in [h.id for h in hits] and "m2" in [h.id for h in hits]


def test_local_matrix_folds_entities_into_weighted_links():
    nodes, w = build().local_matrix(["m1", "m2", "m4", "gone"], ["orion", "nowhere"], hub_degree=50)
    assert nodes == ["m1", "m2", "m4", "orion"]  # candidates, then the query's nodes; what the graph lacks is left out
    assert (w == w.T).all() and list(np.diagonal(w)) == [1.0, 1.0, 1.0, 0.0]
    assert w[0, 1] == 1.0 / 2  # shared entity "billing" of degree 2
    assert w[0, 3] == 1.0  # m1 names the query's orion
    assert w[1, 2] == w[2, 3] == 0.0


def test_local_matrix_weighs_a_relation_between_candidates_once_and_skips_hubs():
    g = build(hub_size=3)
    g.add_relation("r1", "m1", "m2", "supersedes", 0.8)
    nodes, w = g.local_matrix(["m1", "m2"], [], hub_degree=50)
    assert w[0, 1] == pytest.approx(0.8 + 1.0 / 2)  # the relation, seen from both ends, and billing
    _, strict = g.local_matrix(["m1", "m2"], [], hub_degree=0)  # billing's 2 mentions > 20 x 0: a hub
    assert strict[0, 1] == pytest.approx(0.8)


def test_a_limit_filled_at_hop_one_returns_the_same_hits_as_a_deeper_search():
    g = build()
    deep = graph_leg(g, {"orion": 1.0}, accept_all, limit=10, hub_degree=50, max_fanout=100)
    two = graph_leg(g, {"orion": 1.0}, accept_all, limit=2, hub_degree=50, max_fanout=100)
    assert [h.id for h in two] == [h.id for h in deep[:2]] and all(h.hop == 1 for h in two)


def test_degree_counts_distinct_neighbours_in_and_out():
    g = build(hub_size=3)
    assert g.degree("hub") == 4 and g.degree("m1") == 2 and g.degree("nowhere") == 0
    g.add_relation("r1", "orion", "billing", "part_of")
    g.add_relation("r2", "orion", "billing", "depends_on")
    assert g.degree("orion") == 3  # m1, m3 and billing, however many relations join it to billing


def test_edges_hold_the_node_id_objects_not_copies_of_them():
    """Ids read from LanceDB are new strings each time; the graph keeps one object per id (its memory cost)."""
    def fresh(s: str) -> str:
        return "".join(list(s))  # an equal string that is not the same object

    g = Graph()
    g.add_memory(fresh("mem-1"), NOTE)
    g.add_entity(fresh("ent-1"), "Orion", "project")
    g.add_entity(fresh("ent-2"), "Vega", "project")
    g.add_mention(fresh("mem-1"), fresh("ent-1"), 1.0)
    g.add_relation("rel-1", fresh("ent-1"), fresh("ent-2"), "depends_on")
    g.add_node(fresh("sym-1"), "symbol")
    g.add_edge(fresh("sym-1"), fresh("ent-2"), "calls")
    nodes = {n: n for n, _ in g.nodes()}
    ends = [x for u, nbrs in g.g.adj.items() for v in nbrs for x in (u, v)]
    ends += [x for v, nbrs in g.g.pred.items() for u in nbrs for x in (u, v)]
    ends += [x for u, ents in g._mentions.items() for v in ents for x in (u, v)]
    ends += [x for v, mems in g._mentioned_by.items() for u in mems for x in (u, v)]
    assert len(ends) == 12 and all(x is nodes[x] for x in ends)


MEMS, ENTS = [f"m{i}" for i in range(5)], [f"e{i}" for i in range(4)]
ops = st.lists(st.one_of(
    st.tuples(st.just("mention"), st.sampled_from(MEMS), st.sampled_from(ENTS), st.sampled_from([1.0, 0.5, 2.0])),
    st.tuples(st.just("relation"), st.sampled_from(MEMS + ENTS), st.sampled_from(MEMS + ENTS), st.integers(0, 3)),
    st.tuples(st.just("unmention"), st.sampled_from(MEMS)),
    st.tuples(st.just("remove"), st.sampled_from(MEMS + ENTS)),
    st.tuples(st.just("readd"), st.sampled_from(MEMS + ENTS)),
), max_size=40)


@given(ops)
@example([("mention", "m0", "e0", 1.0), ("relation", "m0", "e0", 0), ("relation", "e0", "m0", 1)])
def test_mentions_outside_networkx_read_as_multigraph_edges(sequence):
    """Graph keeps mentions in dicts of its own; every read equals a plain MultiDiGraph holding them as edges."""
    import networkx as nx

    g, ref = Graph(), nx.MultiDiGraph()

    def add(n):
        if n.startswith("m"):
            g.add_memory(n, NOTE)
        else:
            g.add_entity(n, n, "name")
        ref.add_node(n)

    for n in MEMS + ENTS:
        add(n)
    for i, op in enumerate(sequence):
        if op[0] == "mention" and op[1] in ref and op[2] in ref:
            g.add_mention(op[1], op[2], op[3])
            ref.add_edge(op[1], op[2], key="mentions", type="mentions", weight=op[3])
        elif op[0] == "relation" and op[1] in ref and op[2] in ref:
            g.add_relation(f"r{i}", op[1], op[2], "depends_on", 1.0 + op[3])
            ref.add_edge(op[1], op[2], key=f"r{i}", type="depends_on", weight=1.0 + op[3])
        elif op[0] == "unmention" and op[1] in ref:
            g.remove_mentions_of(op[1])
            ref.remove_edges_from([e for e in ref.out_edges(op[1], keys=True) if e[2] == "mentions"])
        elif op[0] == "remove":
            g.remove_node(op[1])
            if op[1] in ref:
                ref.remove_node(op[1])
        elif op[0] == "readd" and op[1] not in ref:
            add(op[1])
    assert g.number_of_edges() == ref.number_of_edges()
    assert g.number_of_nodes() == ref.number_of_nodes() and {n for n, _ in g.nodes()} == set(ref)
    assert all((n in g) == (n in ref) and g.kind(n) == (None if n not in ref else "memory" if n[0] == "m"
                                                         else "entity") for n in MEMS + ENTS)
    # a memory or an entity joins networkx only as a relation's end
    ends = {n for op in sequence if op[0] == "relation" for n in op[1:3]}
    assert not {n for n in MEMS + ENTS if n in g.g} - ends
    assert sorted((u, v, k, d["weight"]) for u, v, k, d in g.edges() if k == "mentions") == \
        sorted((u, v, k, d["weight"]) for u, v, k, d in ref.edges(keys=True, data=True) if k == "mentions")
    for n in MEMS + ENTS:
        assert g.degree(n) == (len(set(ref.succ[n])) + len(set(ref.pred[n])) if n in ref else 0)
        for direction in ("out", "in", "both"):
            for types in (None, ["mentions"], ["depends_on"]):
                ours = sorted((v, t, w, d) for v, t, w, d in g.neighbors(n, direction, types))
                want = []
                if n in ref and direction in ("out", "both"):
                    want += [(v, d["type"], d["weight"], "out") for _, v, d in ref.out_edges(n, data=True)]
                if n in ref and direction in ("in", "both"):
                    want += [(u, d["type"], d["weight"], "in") for u, _, d in ref.in_edges(n, data=True)]
                assert ours == sorted(x for x in want if types is None or x[1] in types)


def test_a_memory_node_reads_like_an_attribute_dict_and_keeps_its_title_whole():
    """MemoryNode stands for a memory's attribute dict: the filters' ``get``, the late stages' ``[]``."""
    node = MemoryNode("note", ["ops", "db"], "orion", 5.0, None, 9.0, "Café tasks for the launch…", "slack", 7)
    assert node["title"] == "Café tasks for the launch…" and node.get("kind") == "memory"
    assert node.get("name") is None and node.get("name", "") == "" and node.tags == ("ops", "db")
    assert node.as_dict() == {"kind": "memory", "memory_type": "note", "tags": ("ops", "db"), "project": "orion",
                              "created_at": 5.0, "valid_from": None, "valid_until": 9.0,
                              "title": "Café tasks for the launch…", "source": "slack", "importance": 7,
                              "says_change": False}
    with pytest.raises(KeyError):
        node["content"]
    assert node == MemoryNode("note", ("ops", "db"), "orion", 5.0, None, 9.0, "Café tasks for the launch…", "slack",
                              7)
    assert node != MemoryNode("note", ("ops",), "orion", 5.0, None, 9.0, "Café tasks for the launch…", "slack", 7)
    assert node != MemoryNode("note", ("ops", "db"), "orion", 5.0, None, 9.0, "Café tasks for the launch…", "slack")
    assert node != MemoryNode("note", ("ops", "db"), "orion", 5.0, None, 9.0, "Café tasks for the launch…", "slack",
                              7, says_change=True)
