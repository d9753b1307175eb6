"""PageRank's subgraph (``Graph.local_matrix``): the candidates' mentions read as arrays of node numbers and
weights, the nodes two candidates share found by numpy, and what it reads between writes kept on the graph.
A part of ``Graph``, which owns the state and keeps it current as it changes."""

from __future__ import annotations

import struct
from itertools import chain
from typing import Iterable

import numpy as np

#: memories whose subjects are kept (``Graph.subjects``), and nodes whose links are (``_kept_links``): a few
#: hundred bytes each; past it they are dropped and read again (a search reads 50)
SUBJECTS_KEPT = 20_000
#: a mention as PageRank's subgraph reads it: the mentioned node's number and the mention's weight (12 bytes)
MENTION = np.dtype([("node", "<i4"), ("weight", "<f8")])
PACK = struct.Struct("<id").pack


class Subgraph:
    """``Graph``'s reads for PageRank's subgraph; the state (``_numbers``, ``_rows``, ``_degrees``, ``_slot``,
    ``_links``) is made in ``Graph.__init__`` and dropped or kept current by its writes."""

    def _kept_links(self, node: str) -> list[tuple[str, float]]:
        """``linked(node)``, kept until the graph changes (read, never changed, by the caller)."""
        got = self._links.get(node)
        if got is None:
            if len(self._links) >= SUBJECTS_KEPT:
                self._links.clear()
            got = self._links[node] = self.linked(node)
        return got

    def _number(self, node: str) -> int:
        """The node's number in PageRank's subgraph (``MENTION``), given on first use."""
        found = self._numbers.get(node)
        if found is None:
            found = self._numbers[node] = len(self._numbered)
            self._numbered.append(node)
        return found

    def _row(self, mid: str) -> bytes:
        """A memory's mentions as ``MENTION`` records, in the order of its mentions."""
        return b"".join(PACK(self._number(e), self._mentioned_by[e][mid]) for e in self._mentions.get(mid, ()))

    def _mention_rows(self) -> dict[str, bytes]:
        """Every memory's ``_row``, made at once the first time (one array of records cut into rows)."""
        if self._rows is None:
            mids = list(self._mentions)
            mentioned = [self._mentions[m] for m in mids]
            for e in dict.fromkeys(chain.from_iterable(mentioned)):
                self._number(e)
            records = np.empty(sum(map(len, mentioned)), dtype=MENTION)
            records["node"] = np.fromiter(map(self._numbers.__getitem__, chain.from_iterable(mentioned)),
                                          dtype=np.int32, count=len(records))
            records["weight"] = np.fromiter(
                (by[m] for m, ents in zip(mids, mentioned) for by in map(self._mentioned_by.__getitem__, ents)),
                dtype=float, count=len(records))
            data, size, at = records.tobytes(), MENTION.itemsize, 0
            self._rows = {}
            for m, ents in zip(mids, mentioned):
                self._rows[m] = data[at:at + size * len(ents)]
                at += size * len(ents)
        return self._rows

    def _slots(self) -> np.ndarray:
        """A slot per node number, each -1 (``local_matrix`` writes into some and puts them back)."""
        if self._slot is None or len(self._slot) < len(self._numbered):
            self._slot = np.full(len(self._numbered) + 1024, -1, dtype=np.intp)
        return self._slot

    def _bridge_degrees(self, numbers: np.ndarray) -> np.ndarray:
        """The degree of each numbered node that is a bridge (an entity, a symbol), -2 for the others: looked up
        once after each change of the graph, then read from an array."""
        if self._degrees is None or len(self._degrees) < len(self._numbered):
            self._degrees = np.full(len(self._numbered) + 1024, -1, dtype=np.int64)
        got = self._degrees[numbers]
        unknown = np.flatnonzero(got == -1)
        if len(unknown):
            names = self._numbered
            found = [self.degree(v) if self.kind(v) == self.bridge else -2
                     for v in (names[e] for e in numbers[unknown].tolist())]
            got[unknown] = found
            self._degrees[numbers[unknown]] = found
        return got

    def local_matrix(self, candidates: Iterable[str], query_nodes: Iterable[str],
                     hub_degree: int) -> tuple[list[str], np.ndarray]:
        """PPR's subgraph: the candidates, then the query's nodes, and their symmetric weight matrix, with
        entities folded into links.

        Two candidates naming the same entity e are joined with weight w1 x w2 / deg(e) (hubs count little;
        entities of more than 20 x hub_degree neighbours are skipped); a candidate is joined to a query node it
        names, and to a candidate it has a relation with. Every candidate gets a self-loop of weight 1, so it
        keeps part of the mass the walk brings it instead of passing it all on. The folding is one product of
        the candidates' incidence matrix, not a loop over pairs.
        """
        cands = [c for c in dict.fromkeys(candidates) if c in self]
        held = set(cands)
        nodes = cands + [q for q in dict.fromkeys(query_nodes) if q in self and q not in held]
        at = {x: i for i, x in enumerate(nodes)}
        nc, n = len(cands), len(nodes)
        w = np.zeros((n, n))
        # a candidate with links beside its mentions (relations, or mentioned itself) is read link by link; the
        # others' mentions come as the records kept per memory (``MENTION``), so that the nodes two candidates
        # share are found by numpy, not by a Counter over tuples of ids
        others = {i: self._kept_links(c) for i, c in enumerate(cands) if c in self.g or c in self._mentioned_by}
        plain = [(i, c) for i, c in enumerate(cands) if i not in others]
        kept = self._mention_rows()
        parts = [kept.get(c, b"") for _, c in plain]
        number = self._number
        linked = [(i, number(v), weight) for i, links in others.items() for v, weight in links]
        rows = np.repeat(np.asarray([i for i, _ in plain], dtype=np.intp),
                         [len(p) // MENTION.itemsize for p in parts])
        records = np.frombuffer(b"".join(parts), dtype=MENTION)
        ends, values = records["node"].astype(np.int64), records["weight"].copy()
        if linked:
            i, e, weight = zip(*linked)
            rows, ends = np.concatenate([rows, i]), np.concatenate([ends, e])
            values = np.concatenate([values, weight])
        known = {self._numbers[v] for v in at if v in self._numbers}
        into = [(j, by) for v, j in at.items() if (by := self._mentioned_by.get(v))]  # subgraph nodes named
        inside = [(i, j, by[c]) for i, c in plain for j, by in into if c in by]
        inside += [(i, at[v], weight) for i, links in others.items() for v, weight in links if v in at]
        for i, j, weight in sorted(inside, key=lambda t: t[0]):  # (stable: one candidate's in its links' order)
            if j >= nc:  # a query node
                w[i, j] += weight
                w[j, i] += weight
            elif j != i:  # a relation between candidates, seen from both ends
                w[i, j] += weight / 2
                w[j, i] += weight / 2
        # only a node two candidates link to joins them, if it is neither in the subgraph nor a hub: its entries
        # are found through a slot per node number (``_slots``), not by sorting them
        if len(ends):
            slot, order = self._slots(), np.arange(len(ends))
            slot[ends] = order
            first = slot[ends]  # the entry that stands for each entry's node
            slot[ends] = -1
            twice = np.flatnonzero(np.bincount(first, minlength=len(ends)) > 1)
            shared = ends[twice]
            degree = self._bridge_degrees(shared)
            if known:  # (the subgraph's own nodes: in code search, chunks that other chunks link to)
                inner = np.sort(np.fromiter(known, dtype=np.int64, count=len(known)))
                degree[inner[np.searchsorted(inner, shared).clip(max=len(inner) - 1)] == shared] = -2
            fold = (degree >= 0) & (degree <= hub_degree * 20)
            usable = twice[fold]
            if len(usable):
                column = np.full(len(ends), -1, dtype=np.intp)
                column[usable] = np.arange(len(usable))
                col = column[first]
                keep = col >= 0
                # a candidate's two links to one node add up
                b = np.bincount(rows[keep] * len(usable) + col[keep], weights=values[keep],
                                minlength=nc * len(usable)).reshape(nc, len(usable))
                folded = (b / np.maximum(degree[fold], 1)) @ b.T
                np.fill_diagonal(folded, 0.0)
                w[:nc, :nc] += folded
        w[np.arange(nc), np.arange(nc)] = 1.0
        return nodes, w

