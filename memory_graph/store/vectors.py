"""An in-process copy of vectors (the memories', and their passages'), for exact cosine search without a
LanceDB query.

LanceDB stays the source of truth: the engine fills the copy when it loads its graph and changes it where it
changes the graph's memory nodes, so both follow the same writes, its own and (through the change log) other
processes'. On 2 cores, LanceDB's flat search took 4.1 ms a query over 1,000 vectors, 13.4 ms over 10,000 and
43.2 ms over 50,000; this copy took 0.07, 0.67 and 6.1 ms (``python -m benchmarks.ann_threshold``).
"""

from __future__ import annotations

from typing import Callable, Iterable, Sequence

import numpy as np


class VectorCache:
    """Unit vectors by id in one growing matrix; ``nearest`` is an exact cosine search over all of them."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self._matrix = np.zeros((0, dim), dtype=np.float32)
        self._ids: list[str] = []
        self._row: dict[str, int] = {}
        self._owned: dict[str, set[str]] = {}  # passages: the memory id -> its passages' ids
        self._owner: dict[str, str] = {}

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, item: str) -> bool:
        return item in self._row

    def put(self, ids: Sequence[str], vectors, owners: Sequence[str] | None = None) -> None:
        """Add vectors, or replace those of ids already held; ``owners`` (one per id) lets
        ``remove_owned`` drop them together."""
        mat = np.asarray(vectors, dtype=np.float32).reshape(len(ids), self.dim)
        mat = mat / np.linalg.norm(mat, axis=1, keepdims=True).clip(1e-12)
        fresh = [i for i in dict.fromkeys(ids) if i not in self._row]
        need = len(self._ids) + len(fresh)
        if need > len(self._matrix):  # doubling keeps a run of single stores from copying every time
            grown = np.zeros((max(need, 2 * len(self._matrix), 64), self.dim), dtype=np.float32)
            grown[:len(self._ids)] = self._matrix[:len(self._ids)]
            self._matrix = grown
        for i in fresh:
            self._row[i] = len(self._ids)
            self._ids.append(i)
        for i, v in zip(ids, mat):
            self._matrix[self._row[i]] = v
        for i, owner in zip(ids, owners or ()):
            self._disown(i)
            self._owner[i] = owner
            self._owned.setdefault(owner, set()).add(i)

    def remove(self, ids: Iterable[str]) -> None:
        """Drop these ids (unknown ones are ignored); the last row moves into each freed one."""
        for i in ids:
            row = self._row.pop(i, None)
            if row is None:
                continue
            self._disown(i)
            last = len(self._ids) - 1
            if row != last:
                moved = self._ids[last]
                self._matrix[row] = self._matrix[last]
                self._ids[row] = moved
                self._row[moved] = row
            self._ids.pop()

    def _disown(self, i: str) -> None:
        owner = self._owner.pop(i, None)
        if owner is not None:
            self._owned[owner].discard(i)
            if not self._owned[owner]:
                del self._owned[owner]

    def remove_owned(self, owners: Iterable[str]) -> None:
        """Drop every id put with one of these owners."""
        self.remove([i for owner in owners for i in list(self._owned.get(owner, ()))])

    def get(self, item: str) -> np.ndarray | None:
        row = self._row.get(item)
        return None if row is None else self._matrix[row].copy()

    def nearest(self, query: np.ndarray, k: int) -> tuple[list[str], list[float]]:
        """The ``k`` ids most similar to ``query`` by cosine, best first (ties by id), with their similarities."""
        n = len(self._ids)
        k = min(k, n)
        if k <= 0:
            return [], []
        q = np.asarray(query, dtype=np.float32)
        # einsum, not the @ operator: OpenBLAS spreads a product this size over its threads, which then spin
        # and starve the model's threads embedding the next query (embedding + search took 16-50 ms against
        # 7 ms this way, at 10,000 rows; einsum computes it in one thread)
        sims = np.einsum("ij,j->i", self._matrix[:n], q / max(float(np.linalg.norm(q)), 1e-12))
        top = np.argpartition(-sims, k - 1)[:k] if k < n else np.arange(n)
        order = sorted(top.tolist(), key=lambda r: (-float(sims[r]), self._ids[r]))
        return [self._ids[r] for r in order], [float(sims[r]) for r in order]


def nearest_accepted(cache: VectorCache, query: np.ndarray, k: int, accept: Callable[[str], bool],
                     first_window: int, max_window: int) -> tuple[list[str], list[float]] | None:
    """The ``k`` nearest ids that ``accept`` lets through, from windows of the nearest ``first_window`` x k
    widening to ``max_window`` x k; None if even the widest window holds fewer than k and more rows remain
    (the caller then filters first, which a selective filter needs)."""
    window = max(1, first_window) * k
    while True:
        ids, sims = cache.nearest(query, window)
        kept = [(i, s) for i, s in zip(ids, sims) if accept(i)]
        if len(kept) >= k or len(ids) == len(cache):  # enough, or every row seen
            kept = kept[:k]
            return [i for i, _ in kept], [s for _, s in kept]
        if window >= max_window * k:
            return None
        window = min(4 * window, max_window * k)
