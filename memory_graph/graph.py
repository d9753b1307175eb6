"""The derived entity/relation graph (networkx), rebuilt from LanceDB's entities, relations and mentions."""

from __future__ import annotations

from sys import intern
from typing import Callable, Collection, Iterable, Iterator

import networkx as nx
import numpy as np

from .models import Filters
from .subgraph import PACK, SUBJECTS_KEPT, Subgraph

MEMORY, ENTITY = "memory", "entity"
CHUNK, SYMBOL = "chunk", "symbol"
#: the edge type from a code chunk to the symbol it defines
DEFINES = "defines"


class _Node:
    """A node's attributes in slots, read like networkx's attribute dict (``node["title"]``, ``node.get("kind")``).

    A networkx node is an attribute dict and three adjacency dicts: several times these slots, which is most of
    what the MCP server's RSS lost at 100,000 memories (README, "The MCP server's memory").
    """

    __slots__ = ()
    FIELDS: tuple[str, ...] = ()
    kind = ""

    def get(self, key: str, default=None):
        return getattr(self, key, default)

    def __getitem__(self, key: str):
        try:
            return getattr(self, key)
        except AttributeError:
            raise KeyError(key) from None

    def as_dict(self) -> dict:
        return {"kind": self.kind, **{k: getattr(self, k) for k in self.FIELDS}}

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self.as_dict() == other.as_dict()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.as_dict()})"


class MemoryNode(_Node):
    """A memory's node: what the filters and the late stages read."""

    FIELDS = ("memory_type", "tags", "project", "created_at", "valid_from", "valid_until", "title", "source",
              "importance", "says_change")
    __slots__ = ("memory_type", "tags", "project", "created_at", "valid_from", "valid_until", "_title", "source",
                 "importance", "says_change")
    kind = MEMORY

    def __init__(self, memory_type: str, tags: Iterable[str], project: str, created_at: float,
                 valid_from: float | None, valid_until: float | None, title: str, source: str,
                 importance: int = 5, says_change: bool = False) -> None:
        # interned: these repeat over thousands of memories, and each row read from LanceDB is a new string
        self.memory_type, self.project, self.source = intern(memory_type), intern(project), intern(source)
        self.tags = tuple(intern(t) for t in tags)
        self.created_at, self.valid_from, self.valid_until = created_at, valid_from, valid_until
        self.importance = importance
        #: whether its text says that something changed (updates.says_change), read per search of its updates
        self.says_change = says_change
        # as UTF-8: one character past U+00FF (a cut title's "…") makes a str two bytes a character
        self._title = title.encode()

    @property
    def title(self) -> str:
        return self._title.decode()


class EntityNode(_Node):
    """An entity's node: its name and type."""

    FIELDS = __slots__ = ("name", "entity_type")
    kind = ENTITY

    def __init__(self, name: str, entity_type: str) -> None:
        self.name, self.entity_type = name, intern(entity_type)


class Graph(Subgraph):
    """A directed multigraph: memory -mentions-> entity, and typed relations between entities or memories.

    The code graph uses the same class: chunk -defines-> symbol, and symbol edges (calls, contains, imports,
    extends, implements). ``bridge`` is the kind of node that links records (entities, or symbols).

    Mentions (memory -> entity) are kept out of networkx: a MultiDiGraph edge is a key dict and an attribute
    dict in two adjacency dicts, and mentions are most of the edges. Each entity has a dict of its memories'
    weights, and each memory a tuple of its entities (a dict of a memory's few would cost twice the bytes).
    ``g`` holds every other edge; ``neighbors``, ``degree``, ``edges`` and ``number_of_edges`` see both.

    Memory and entity nodes are kept out of networkx too, as ``MemoryNode`` and ``EntityNode`` slots by id:
    networkx holds three dicts for each node, and an attribute dict. One joins ``g`` (bare) only as the end
    of a relation. ``g`` holds the code graph's nodes as networkx does (``add_node``).

    Node ids are interned: networkx keys each edge by the id objects it is given, and ids read from LanceDB
    are new strings every time, so without it each edge held two more copies of its ends' ids. The MCP
    server's RSS at 100,000 memories went from 1,620 to 1,472 MB (``python -m benchmarks --full``).
    """

    def __init__(self, bridge: str = ENTITY) -> None:
        self.g = nx.MultiDiGraph()
        self.bridge = bridge
        self._relation_ends: dict[str, tuple[str, str]] = {}  # so removing a relation is not a scan of edges
        self._mentions: dict[str, tuple[str, ...]] = {}  # memory -> its entities
        self._mentioned_by: dict[str, dict[str, float]] = {}  # entity -> {memory: weight}
        self._n_mentions = 0
        self._nodes: dict[str, MemoryNode | EntityNode] = {}
        self._projects: dict[str, set[str]] = {}  # project -> its memories, for a search scoped to a small one
        # the memories with a valid_from or valid_until, and the latest created_at ever added (never lowered):
        # while none is bounded, every memory is valid now and as of any time since the latest (always_valid)
        self._bounded: set[str] = set()
        self._newest = float("-inf")
        # PageRank's subgraph reads mentions as arrays: a number for each node a memory mentions (never reused),
        # and each memory's mentions as (number, weight) records in bytes (``MENTION``): a search reads one
        # contiguous object a candidate, not its entities' ids and dicts. Made for every memory by the first
        # search that reads them (``_mention_rows``), not while a load adds mentions one by one; kept with each
        # write from then on
        self._numbers: dict[str, int] = {}
        self._numbered: list[str] = []
        self._rows: dict[str, bytes] | None = None
        # by node number: its degree if it is a bridge, -2 if not, -1 not looked up since the last change
        self._degrees: np.ndarray | None = None
        self._slot: np.ndarray | None = None
        self._subjects: dict[tuple[str, int, tuple[str, ...]], frozenset] = {}  # (``subjects``), until a change
        # the links of the nodes PageRank's subgraph reads link by link (``linked``), until a change: a code
        # chunk's calls and definitions, read from networkx's dicts, took most of a code search's subgraph
        self._links: dict[str, list[tuple[str, float]]] = {}

    def _changed(self) -> None:
        """Drop what reads keep that any change may alter (degrees, subjects, links)."""
        self._degrees = None
        if self._subjects:
            self._subjects.clear()
        if self._links:
            self._links.clear()

    def add_node(self, node: str, kind: str, **attrs) -> None:
        self._changed()
        self.g.add_node(intern(node), kind=kind, **attrs)

    def add_edge(self, u: str, v: str, etype: str, weight: float = 1.0, key: str | None = None) -> None:
        self._changed()
        if u in self and v in self:
            self.g.add_edge(*self._in_g(u, v), key=key or etype, type=etype, weight=float(weight))

    def _in_g(self, *nodes: str) -> list[str]:
        """The nodes' interned ids, each added to ``g`` (bare) if it is not there yet (a memory or an entity)."""
        out = [intern(n) for n in nodes]
        for n in out:
            if n not in self.g:
                self.g.add_node(n)
        return out

    # ---- building -------------------------------------------------------
    def add_memory(self, mid: str, node: MemoryNode) -> None:
        """Add a memory node, or replace the one there."""
        mid = intern(mid)
        old = self._nodes.get(mid)
        if isinstance(old, MemoryNode) and old.project != node.project:
            self._projects[old.project].discard(mid)
        self._nodes[mid] = node
        self._projects.setdefault(node.project, set()).add(mid)
        if node.valid_from is not None or node.valid_until is not None:
            self._bounded.add(mid)
        else:
            self._bounded.discard(mid)
        self._newest = max(self._newest, node.created_at or 0.0)

    def always_valid(self, as_of: float | None) -> bool:
        """Whether every memory passes the validity filter now (``as_of`` None) or as of ``as_of``: none has a
        valid_from or valid_until, and none was created after ``as_of``. A search then needs no validity filter."""
        return not self._bounded and (as_of is None or as_of >= self._newest)

    def project_members(self, project: str) -> set[str]:
        """The memories of a project ("" for global ones)."""
        return self._projects.get(project, set())

    def add_entity(self, eid: str, name: str, entity_type: str) -> None:
        """Add an entity node, or replace the one there."""
        self._changed()
        self._nodes[intern(eid)] = EntityNode(name, entity_type)

    def add_mention(self, mid: str, eid: str, weight: float = 1.0) -> None:
        self._changed()
        if mid in self and eid in self:
            mid, eid = intern(mid), intern(eid)
            weight = 1.0 if weight == 1.0 else float(weight)  # one float object for the common weight
            out = self._mentions.get(mid, ())
            self._mentioned_by.setdefault(eid, {})[mid] = weight
            if eid not in out:
                self._mentions[mid] = out + (eid,)
                self._n_mentions += 1
                if self._rows is not None:
                    self._rows[mid] = self._rows.get(mid, b"") + PACK(self._number(eid), weight)
            elif self._rows is not None:  # a new weight
                self._rows[mid] = self._row(mid)

    def add_relation(self, rid: str, source: str, target: str, relation_type: str, weight: float = 1.0) -> None:
        self._changed()
        if source in self and target in self:
            source, target = self._in_g(source, target)
            self.g.add_edge(source, target, key=rid, type=relation_type, weight=float(weight), id=rid)
            self._relation_ends[rid] = (source, target)

    def remove_relation(self, rid: str) -> None:
        self._changed()
        ends = self._relation_ends.pop(rid, None)
        if ends and self.g.has_edge(*ends, key=rid):
            self.g.remove_edge(*ends, key=rid)

    def remove_node(self, node: str) -> None:
        self._changed()
        if node in self:
            old = self._nodes.get(node)
            if isinstance(old, MemoryNode):
                self._projects[old.project].discard(node)
                self._bounded.discard(node)
            self.remove_mentions_of(node)
            for mid in self._mentioned_by.pop(node, {}):
                rest = tuple(e for e in self._mentions.pop(mid) if e != node)
                if rest:
                    self._mentions[mid] = rest
                    if self._rows is not None:
                        self._rows[mid] = self._row(mid)
                elif self._rows is not None:
                    self._rows.pop(mid, None)
                self._n_mentions -= 1
            self._nodes.pop(node, None)
            if node in self.g:
                for rid in [k for *_, k in self.g.in_edges(node, keys=True)] + \
                        [k for *_, k in self.g.out_edges(node, keys=True)]:
                    self._relation_ends.pop(rid, None)
                self.g.remove_node(node)

    def remove_mentions_of(self, mid: str) -> None:
        self._changed()
        if self._rows is not None:
            self._rows.pop(mid, None)
        for eid in self._mentions.pop(mid, ()):
            _drop(self._mentioned_by, eid, mid)
            self._n_mentions -= 1

    # ---- reading --------------------------------------------------------
    def __contains__(self, node: str) -> bool:
        return node in self._nodes or node in self.g

    def kind(self, node: str) -> str | None:
        found = self._nodes.get(node)
        if found is not None:
            return found.kind
        return self.g.nodes[node].get("kind") if node in self.g else None

    def attrs(self, node: str) -> dict | MemoryNode | EntityNode:
        """A node's attributes: its ``MemoryNode`` or ``EntityNode``, else (the code graph's) networkx dict."""
        found = self._nodes.get(node)
        return self.g.nodes[node] if found is None else found

    def nodes(self) -> Iterator[tuple[str, dict]]:
        """Every node with a dict of its attributes, memories and entities first (for tests and stats)."""
        for n, node in self._nodes.items():
            yield n, node.as_dict()
        for n, data in self.g.nodes(data=True):
            if n not in self._nodes:
                yield n, data

    def size(self) -> int:
        """About how many nodes it holds (those in networkx and the slots counted once each), in O(1)."""
        return len(self._nodes) + len(self.g)

    def number_of_nodes(self) -> int:
        return len(self._nodes) + sum(1 for n in self.g if n not in self._nodes)

    def specific(self, nodes: Iterable[str], hub_degree: int) -> list[str]:
        """The nodes in the graph that are not hubs (at most ``hub_degree`` neighbours), in their given order."""
        return [n for n in nodes if n in self and self.degree(n) <= hub_degree]

    def subjects(self, mid: str, hub_degree: int, skip_types: tuple[str, ...] = ("project", "tag")) -> frozenset:
        """The entities a memory mentions that can be what it is about: neither hubs (more than ``hub_degree``
        memories name them) nor its project or tags; kept until the graph changes."""
        key = (mid, hub_degree, skip_types)
        found = self._subjects.get(key)
        if found is None:
            if len(self._subjects) >= SUBJECTS_KEPT:
                self._subjects.clear()
            out = []
            for eid in self._mentions.get(mid, ()):
                node = self._nodes.get(eid)
                if (node is not None and node.entity_type not in skip_types
                        and len(self._mentioned_by.get(eid, ())) <= hub_degree):
                    out.append(eid)
            found = self._subjects[key] = frozenset(out)
        return found

    def mention_count(self, eid: str) -> int:
        """How many memories mention this entity."""
        return len(self._mentioned_by.get(eid, ()))

    def degree(self, node: str) -> int:
        """Distinct neighbours in each direction, summed: O(1) for a node without relations, where networkx
        counts a multigraph's edges one by one."""
        if node not in self.g:  # no relations: its mentions alone (what the union below comes to)
            return len(self._mentions.get(node, ())) + len(self._mentioned_by.get(node, ())) if node in self else 0
        return _union_size(self.g.succ[node], self._mentions.get(node)) + \
            _union_size(self.g.pred[node], self._mentioned_by.get(node))

    def neighbors(self, node: str, direction: str = "both",
                  types: Iterable[str] | None = None) -> Iterator[tuple[str, str, float, str]]:
        """(neighbour, edge type, weight, direction) for each edge at a node: mentions first, then the rest."""
        types = set(types) if types else None
        if node not in self:
            return
        in_g = node in self.g
        with_mentions = types is None or "mentions" in types
        if direction in ("out", "both"):
            if with_mentions:
                for v in self._mentions.get(node, ()):
                    yield v, "mentions", self._mentioned_by[v][node], "out"
            for _, v, data in self.g.out_edges(node, data=True) if in_g else ():
                if types is None or data["type"] in types:
                    yield v, data["type"], data["weight"], "out"
        if direction in ("in", "both"):
            if with_mentions:
                for u, w in self._mentioned_by.get(node, {}).items():
                    yield u, "mentions", w, "in"
            for u, _, data in self.g.in_edges(node, data=True) if in_g else ():
                if types is None or data["type"] in types:
                    yield u, data["type"], data["weight"], "in"

    def linked(self, node: str) -> list[tuple[str, float]]:
        """(neighbour, weight) of each edge at a node, in ``neighbors``' order: without its generator and edge
        types, for the graph leg and PPR's subgraph, which read thousands of them per search on entity-rich text."""
        out = [(v, self._mentioned_by[v][node]) for v in self._mentions.get(node, ())]
        # the multigraph's adjacency dicts, in the order of out_edges and in_edges, without their edge views
        succ = self.g._succ.get(node)
        if succ:
            out += [(v, d["weight"]) for v, keyed in succ.items() for d in keyed.values()]
        by = self._mentioned_by.get(node)
        if by:
            out += by.items()
        if succ is not None:
            out += [(u, d["weight"]) for u, keyed in self.g._pred[node].items() for d in keyed.values()]
        return out

    def number_of_edges(self) -> int:
        return self.g.number_of_edges() + self._n_mentions

    def edges(self) -> list[tuple[str, str, str, dict]]:
        """Every edge as (source, target, key, attributes), mentions included (for tests and stats)."""
        out = [(mid, eid, "mentions", {"type": "mentions", "weight": self._mentioned_by[eid][mid]})
               for mid, ents in self._mentions.items() for eid in ents]
        return out + list(self.g.edges(keys=True, data=True))

    def related(self, node: str | list[str], depth: int = 1, direction: str = "both",
                types: Iterable[str] | None = None, limit: int = 200) -> list[dict]:
        """Breadth-first neighbours of a node (or of several, as one) up to ``depth`` hops: node, distance,
        the edge that reached it."""
        frontier = [node] if isinstance(node, str) else list(node)
        seen = set(frontier)
        out: list[dict] = []
        for dist in range(1, depth + 1):
            nxt = []
            for u in frontier:
                for v, etype, w, d in self.neighbors(u, direction, types):
                    if v in seen:
                        continue
                    seen.add(v)
                    nxt.append(v)
                    row = {"id": v, "kind": self.kind(v), "distance": dist, "via": u, "edge_type": etype,
                           "direction": d, "weight": w}
                    rid = self._relation_id(u, v, etype, d)
                    if rid is not None:  # what delete_entity takes to remove this one relation
                        row["relation_id"] = rid
                    out.append(row)
                    if len(out) >= limit:
                        return out
            frontier = nxt
        return out

    def _relation_id(self, u: str, v: str, relation_type: str, direction: str) -> str | None:
        """The id of a relation of this type between two nodes (None for a mention, which has none)."""
        if relation_type == "mentions":
            return None
        a, b = (u, v) if direction == "out" else (v, u)
        if a not in self.g or b not in self.g[a]:
            return None
        return next((data.get("id", key) for key, data in self.g[a][b].items() if data["type"] == relation_type),
                    None)

    def entity_projection(self, max_per_memory: int = 20) -> nx.Graph:
        """Entities linked by relations and by co-mention in one memory (weights summed)."""
        h = nx.Graph()
        for n, node in self._nodes.items():
            if node.kind == ENTITY:
                h.add_node(n)
        for u, v, data in self.g.edges(data=True):
            if self.kind(u) == ENTITY and self.kind(v) == ENTITY:
                _bump(h, u, v, data["weight"])
        for n in (n for n, node in self._nodes.items() if node.kind == MEMORY):
            ents = [v for v, *_ in self.neighbors(n, "out", ["mentions"])][:max_per_memory]
            for i, a in enumerate(ents):
                for b in ents[i + 1:]:
                    _bump(h, a, b, 1.0)
        return h

    def communities(self, min_size: int = 2, top: int = 5, seed: int = 0) -> list[dict]:
        """Louvain communities of the entity graph, largest first, each with its best-connected members."""
        h = self.entity_projection()
        h.remove_nodes_from([n for n in list(h) if h.degree(n) == 0])
        if h.number_of_edges() == 0:
            return []
        parts = nx.community.louvain_communities(h, weight="weight", seed=seed)
        out = []
        for part in sorted(parts, key=len, reverse=True):
            if len(part) < min_size:
                continue
            members = sorted(part, key=lambda n: (-h.degree(n, weight="weight"), n))
            out.append({"size": len(part), "members": members[:top]})
        return out


def _drop(side: dict[str, dict[str, float]], node: str, other: str) -> None:
    """Remove one mention from the entities' dict of dicts, and the node's entry once it has none left."""
    weights = side[node]
    del weights[other]
    if not weights:
        del side[node]


def _union_size(a: Collection[str], b: Collection[str] | None) -> int:
    if not b:
        return len(a)
    if not a:
        return len(b)
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    return len(a) + len(b) - sum(1 for x in small if x in large)


def _bump(h: nx.Graph, a: str, b: str, w: float) -> None:
    if a == b:
        return
    if h.has_edge(a, b):
        h[a][b]["weight"] += w
    else:
        h.add_edge(a, b, weight=w)


def accept_any(attrs: dict) -> bool:
    """The node filter of a search that filters nothing."""
    return True


def node_filter(filters: Filters, now: float) -> Callable[[dict], bool]:
    """The graph leg's pushed-down filter: a predicate over a memory node's attributes."""
    at = filters.as_of if filters.as_of is not None else now
    project, include_global, as_of = filters.project, filters.include_global, filters.as_of
    types, tags = set(filters.types), set(filters.tags)
    after, before, check_validity = filters.created_after, filters.created_before, not filters.include_invalid
    # the filters read once here, not at each of the hundreds of nodes a search asks about
    if project is None and not types and not tags and after is None and before is None and not check_validity:
        return accept_any

    def accept(a: dict) -> bool:
        if project is not None and a.get("project") != project and not (include_global and a.get("project") == ""):
            return False
        if types and a.get("memory_type") not in types:
            return False
        if tags and not tags.intersection(a.get("tags", ())):
            return False
        created = a.get("created_at", 0.0)
        if after is not None and created < after:
            return False
        if before is not None and created >= before:
            return False
        if check_validity:
            vf, vu = a.get("valid_from"), a.get("valid_until")
            if vf is None and as_of is not None:
                vf = created  # as in sql_filter: as of a past time, what was not yet stored did not hold
            if (vf is not None and vf > at) or (vu is not None and vu <= at):
                return False
        return True

    return accept
