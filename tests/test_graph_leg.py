"""The graph leg and PPR's local subgraph on a hand-built graph."""

from memory_graph.graph import Graph
from memory_graph.retrieval import graph_leg


def build(hub_size: int = 0) -> Graph:
    g = Graph()
    for e in ("orion", "billing", "hub"):
        g.add_entity(e, e, "name")
    for m in ("m1", "m2", "m3", "m4"):
        g.add_memory(m, {"project": "", "memory_type": "note", "tags": (), "created_at": 0.0,
                         "valid_from": None, "valid_until": None})
    g.add_mention("m1", "orion")
    g.add_mention("m1", "billing")
    g.add_mention("m2", "billing")
    g.add_mention("m3", "orion")
    g.add_mention("m3", "hub")
    for i in range(hub_size):
        g.add_memory(f"h{i}", {"project": "", "memory_type": "note", "tags": (), "created_at": 0.0,
                               "valid_from": None, "valid_until": None})
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
    assert hits[0].id == "m1" and hits[0].seeds == {"orion", "billing"}


def test_hubs_are_not_expanded():
    hits = graph_leg(build(hub_size=60), {"orion": 1.0}, accept_all, limit=100, hub_degree=50, max_fanout=100)
    assert not any(h.id.startswith("h") for h in hits)
    hits = graph_leg(build(hub_size=10), {"orion": 1.0}, accept_all, limit=100, hub_degree=50, max_fanout=100)
    assert sum(h.id.startswith("h") for h in hits) == 10


def test_filtered_memories_bridge_but_are_not_returned():
    hits = graph_leg(build(), {"orion": 1.0}, lambda a: a.get("memory_type") != "note" or False, limit=10,
                     hub_degree=50, max_fanout=100)
    assert hits == []
    g = build()
    g.attrs("m1")["memory_type"] = "hidden"
    hits = graph_leg(g, {"orion": 1.0}, lambda a: a["memory_type"] != "hidden", 10, 50, 100)
    assert "m1" not in [h.id for h in hits] and "m2" in [h.id for h in hits]


def test_local_edges_fold_entities_into_weighted_links():
    edges = {(a, b): w for a, b, w in build().local_edges(["m1", "m2", "m4"], ["orion"], hub_degree=50)}
    assert edges[("m4", "m4")] == 1.0
    assert edges[("m1", "m2")] == 1.0 / 2  # shared entity "billing" of degree 2
    assert edges[("m1", "orion")] == 1.0
    assert ("m2", "m4") not in edges


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
    g.add_memory(fresh("mem-1"), {"memory_type": "episodic", "tags": (), "project": None})
    g.add_entity(fresh("ent-1"), "Orion", "project")
    g.add_entity(fresh("ent-2"), "Vega", "project")
    g.add_mention(fresh("mem-1"), fresh("ent-1"), 1.0)
    g.add_relation("rel-1", fresh("ent-1"), fresh("ent-2"), "depends_on")
    g.add_node(fresh("sym-1"), "symbol")
    g.add_edge(fresh("sym-1"), fresh("ent-2"), "calls")
    nodes = {n: n for n in g.g.nodes}
    ends = [x for u, nbrs in g.g.adj.items() for v in nbrs for x in (u, v)]
    ends += [x for v, nbrs in g.g.pred.items() for u in nbrs for x in (u, v)]
    assert len(ends) == 12 and all(x is nodes[x] for x in ends)
