"""An in-process copy of vectors (the memories', and their passages'), for cosine search without a LanceDB
query.

LanceDB stays the source of truth: the engine fills the copy when it loads its graph and changes it where it
changes the graph's memory nodes, so both follow the same writes, its own and (through the change log) other
processes'. On 2 cores, LanceDB's flat search took 4.1 ms a query over 1,000 vectors, 13.4 ms over 10,000 and
43.2 ms over 50,000; an exact search of this copy 0.07, 0.67 and 6.1 ms (``python -m benchmarks.probes.ann_threshold``).
From ``partition_min_rows`` rows the copy is also split into partitions by spherical k-means, and a search
reads only the rows of the partitions whose centroids are nearest the query: an inverted file index (IVF;
Jégou, Douze and Schmid, "Product quantization for nearest neighbor search", 2011, section 4), here with
its rows held as int8 (scalar quantization) rather than product codes.
"""

from __future__ import annotations

from itertools import islice
from sys import intern
from typing import Callable, Iterable, Sequence

import numpy as np

from ..blas import one_thread
from .int8 import from_offset, int8_products, to_offset

_SLICE = 2_048  # rows a conversion handles at a time
# rows a search converts and multiplies at a time: 1,024 int8 rows as float32 (1.5 MB) stay in the cache between
# the conversion and the product, which 2,048 do not
_SEARCH_SLICE = 1_024
# a scoped search reads runs of consecutive rows in place from this many rows a run on average, else gathers its
# rows: a run costs a slice and a product call (a few microseconds), a gathered row its copy (1.5 KB)
_RUN_MIN_ROWS = 16
# from this many rows an exact search first scans int8 copies of the float32 rows: when the rows have left the
# caches (the model's run, idle time between a user's searches), a quarter of the bytes comes back from memory
# sooner, rescoring included (rows still cached, in searches back to back, read as fast or faster as float32).
# Below it the float32 rows are few enough to read as they are
SCAN_MIN_ROWS = 2_048
# how far a float32 product of 384 terms can be from the exact one, as the window of rows multiplied again counts it
_ROUNDING = 1e-5


def _einsum_rows(rows: np.ndarray, q: np.ndarray) -> np.ndarray:
    return np.einsum("ij,j->i", rows, q)


class VectorCache:
    """Unit vectors by id in one growing matrix; ``nearest`` is a cosine search over them.

    partition_min_rows: from this many rows (0: never), ``nearest`` searches only the ``probes`` partitions
    nearest the query, of about ``partition_rows`` rows each; the partitions are trained again whenever the
    row count has grown or shrunk ``retrain_growth`` times since they were last trained. A partitioned copy
    also holds its vectors as int8 (scalar quantization, one step per dimension: its largest magnitude over
    127), a quarter of the memory, so its similarities are off by about 0.001.

    Each row may belong to a group (``put``'s ``groups``: a memory's or a chunk's project): a search of an
    exact copy asked for some groups reads their rows alone, and those put without one.

    An exact copy of ``SCAN_MIN_ROWS`` rows or more keeps int8 rows beside its float32 ones (a quarter more
    memory), made by its first search and kept up to date from then on: a search scans those, then rescores in
    float32 every row the int8 error could have put out of its first ``k``, so its answer is the exact one,
    read from a quarter of the memory.
    """

    def __init__(self, dim: int, partition_min_rows: int = 0, partition_rows: int = 400, probes: int = 16,
                 retrain_growth: float = 2.0) -> None:
        self.dim = dim
        self._matrix = np.zeros((0, dim), dtype=np.float32)
        self._ids: list[str] = []
        self._row: dict[str, int] = {}
        self._owned: dict[str, set[str]] = {}  # passages: the memory id -> its passages' ids
        self._owner: dict[str, str] = {}
        self.partition_min_rows, self.partition_rows, self.probes = partition_min_rows, partition_rows, probes
        self.retrain_growth = retrain_growth
        self._centroids: np.ndarray | None = None  # (partitions, dim) unit vectors, or None: exact search
        self._part = np.zeros(0, dtype=np.int32)  # each row's partition, beside _matrix
        self._sizes = np.zeros(0, dtype=np.int64)  # rows in each partition
        # rows grouped by partition (each group in row order), and where each group starts; built by the first
        # search after _part changes, so that a search reads its partitions' rows without scanning every row's
        self._grouped: tuple[np.ndarray, np.ndarray] | None = None
        self._trained_rows = 0
        self._step: np.ndarray | None = None  # int8 rows: value = int8 x step, per dimension; None: float32
        # an exact copy's int8 rows beside its float32 ones, and their step per dimension (scan); made by the
        # first search that scans, so that a load (or a copy about to be partitioned) does not make them
        self._shadow: np.ndarray | None = None
        self._shadow_step: np.ndarray | None = None
        self._group = np.zeros(0, dtype=np.int32)  # each row's group, beside _matrix (0: none)
        self._group_code: dict[str, int] = {}  # a group's name -> its number (from 1)
        self._changes = 0  # counts the puts and removes, which any rows kept for a group predate
        self._group_rows_kept: dict[tuple, tuple[int, np.ndarray]] = {}

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, item: str) -> bool:
        return item in self._row

    @property
    def partitions(self) -> int:
        """How many partitions a search chooses from; 0 while it is exact."""
        return 0 if self._centroids is None else len(self._centroids)

    def put(self, ids: Sequence[str], vectors, owners: Sequence[str] | None = None, partition: bool = True,
            groups: Sequence[str] | None = None) -> None:
        """Add vectors, or replace those of ids already held; ``owners`` (one per id) lets
        ``remove_owned`` drop them together; ``groups`` (one per id) is what ``nearest`` may be limited to.
        partition=False leaves the partitions as they are (a load in batches), until ``refresh_partitions``."""
        self._changes += 1
        mat = np.asarray(vectors, dtype=np.float32).reshape(len(ids), self.dim)
        mat = mat / np.linalg.norm(mat, axis=1, keepdims=True).clip(1e-12)
        last = {i: j for j, i in enumerate(ids)}
        if len(last) < len(ids):  # an id given twice keeps its last vector
            keep = sorted(last.values())
            ids, mat = [ids[j] for j in keep], mat[keep]
            owners = [owners[j] for j in keep] if owners else owners
            groups = [groups[j] for j in keep] if groups else groups
        fresh = [intern(i) for i in dict.fromkeys(ids) if i not in self._row]  # the graph holds the same ids
        need = len(self._ids) + len(fresh)
        if need > len(self._matrix):  # doubling keeps a run of single stores from copying every time
            self.reserve(max(need, 2 * len(self._matrix), 64))
        if self._centroids is not None:  # rows replaced leave their partitions
            np.subtract.at(self._sizes, self._part[[self._row[i] for i in ids if i in self._row]], 1)
            self._grouped = None
        for i in fresh:
            self._row[i] = len(self._ids)
            self._ids.append(i)
        rows = np.fromiter((self._row[i] for i in ids), dtype=np.int64, count=len(ids))
        if self._step is not None and (np.abs(mat).max(axis=0) > 127 * self._step).any():
            # a value past the int8 range of its dimension: widen that range for all rows, with room to spare
            self._requantize(np.maximum(self._step, np.abs(mat).max(axis=0) * 1.25 / 127))
        self._matrix[rows] = self._encode(mat)
        self._group[rows] = [self._group_code.setdefault(g, len(self._group_code) + 1) for g in groups] \
            if groups else 0
        if self._shadow is not None:
            self._shadow_put(rows, mat)
        trained = partition and self.refresh_partitions()  # (a new training places every row)
        if not trained and self._centroids is not None:
            self._assign(rows)
        for i, owner in zip(ids, owners or ()):
            self._disown(i)
            self._owner[i] = owner
            self._owned.setdefault(owner, set()).add(i)

    def reserve(self, rows: int) -> None:
        """Make room for ``rows`` rows in all: a load that knows its row count grows the matrix once, where
        doubling as it goes would leave up to twice the room (and copy every row several times)."""
        if rows > len(self._matrix):
            grown = np.zeros((rows, self.dim), dtype=self._matrix.dtype)
            grown[:len(self._ids)] = self._matrix[:len(self._ids)]
            self._matrix = grown
            self._part = np.resize(self._part, rows)
            self._group = np.resize(self._group, rows)
            if self._shadow is not None:
                shadow = np.zeros((rows, self.dim), dtype=np.uint8)
                shadow[:len(self._shadow)] = self._shadow[:rows]
                self._shadow = shadow

    def remove(self, ids: Iterable[str]) -> None:
        """Drop these ids (unknown ones are ignored); the last row moves into each freed one."""
        self._changes += 1
        for i in ids:
            row = self._row.pop(i, None)
            if row is None:
                continue
            self._disown(i)
            last = len(self._ids) - 1
            if self._centroids is not None:
                self._sizes[self._part[row]] -= 1
                self._grouped = None
            if row != last:
                moved = self._ids[last]
                self._matrix[row] = self._matrix[last]
                self._part[row] = self._part[last]
                self._group[row] = self._group[last]
                if self._shadow is not None:
                    self._shadow[row] = self._shadow[last]
                self._ids[row] = moved
                self._row[moved] = row
            self._ids.pop()
        self.refresh_partitions()

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
        return None if row is None else self._decode(self._matrix[row:row + 1])[0].copy()

    def get_many(self, ids: Iterable[str]) -> dict[str, np.ndarray]:
        """The vectors of the ids held (others left out), read and decoded in one gather."""
        held = [i for i in ids if i in self._row]
        if not held:
            return {}
        rows = self._decode(np.take(self._matrix, [self._row[i] for i in held], axis=0))
        return dict(zip(held, rows.astype(np.float32, copy=False)))

    def similarities(self, ids: Iterable[str], query: np.ndarray) -> dict[str, float]:
        """Cosine of each held id's vector to ``query``, in one product (ids not held are left out)."""
        held = [i for i in ids if i in self._row]
        if not held:
            return {}
        q = np.asarray(query, dtype=np.float32)
        q = q / max(float(np.linalg.norm(q)), 1e-12)
        rows = self._decode(self._matrix[[self._row[i] for i in held]]).astype(np.float32, copy=False)
        return dict(zip(held, np.einsum("ij,j->i", rows, q).tolist()))

    def nearest(self, query: np.ndarray, k: int, groups: Iterable[str] | None = None) -> tuple[list[str], list[float]]:
        """The ``k`` ids most similar to ``query`` by cosine, best first (ties by id), with their similarities.

        Exact while the copy is not partitioned, when ``k`` asks for a quarter of its rows or more, or when the
        search reads the rows of ``groups`` alone (``scoped``; else a partitioned copy reads its partitions
        whatever the groups).
        """
        n = len(self._ids)
        k = min(k, n)
        if k <= 0:
            return [], []
        q = np.asarray(query, dtype=np.float32)
        q = q / max(float(np.linalg.norm(q)), 1e-12)
        rows, runs = None, None
        groups = None if groups is None else tuple(groups)  # read twice
        if groups is not None and self.scoped(groups):
            rows = self.group_rows(groups)
        elif self._centroids is not None and 4 * k < n:
            runs = self._probed_runs(q, k)
            rows = np.concatenate(runs)
        # einsum unless BLAS is held to one thread (in a search): OpenBLAS spreads a product this size over its
        # threads, which then spin and starve the model's threads embedding the next query (embedding + search
        # took 16-50 ms against 7 ms with einsum, at 10,000 rows); on one thread, BLAS is the faster
        # a slice at a time: one large temporary a search would stay in its thread's heap
        product = np.matmul if one_thread() else _einsum_rows
        if rows is None and self._step is None and n >= SCAN_MIN_ROWS and 4 * k < n:
            if self._shadow is None:
                self._make_shadow()
            return self._scan(q, k, product)
        if rows is None:
            rows = np.arange(n)
            parts = (self._matrix[s:min(s + _SEARCH_SLICE, n)] for s in range(0, n, _SEARCH_SLICE))
        elif runs is not None:  # a partition's rows lie in one run of the matrix, read in place, unless put later
            parts = (self._matrix[r[0]:r[-1] + 1] if r[-1] - r[0] + 1 == len(r) else np.take(self._matrix, r, axis=0)
                     for r in runs if len(r))
        else:
            parts = self._pieces(rows)
        k = min(k, len(rows))
        if k <= 0:
            return [], []
        if self._step is not None:
            return self._int8_nearest(q, list(parts), rows, k, product)
        sims = np.concatenate([product(p, q) for p in parts] or [np.zeros(0, dtype=np.float32)])
        return self._best_first(sims, rows, k)

    def _pieces(self, rows: np.ndarray):
        """The matrix's ``rows`` (ascending) a slice at a time: runs of consecutive rows read in place (a project's
        rows mostly are one run, its chunks or memories put together), unless the runs are short."""
        starts = np.flatnonzero(np.diff(rows) != 1) + 1
        if len(starts) * _RUN_MIN_ROWS > len(rows):  # strewn: gathered, a slice at a time
            return (np.take(self._matrix, rows[s:s + _SEARCH_SLICE], axis=0)
                    for s in range(0, len(rows), _SEARCH_SLICE))
        bounds = zip([0, *starts.tolist()], [*starts.tolist(), len(rows)])
        return (self._matrix[rows[a] + s:rows[a] + min(s + _SEARCH_SLICE, b - a)]
                for a, b in bounds for s in range(0, b - a, _SEARCH_SLICE))

    def _int8_nearest(self, q: np.ndarray, parts: list[np.ndarray], rows: np.ndarray, k: int,
                      product) -> tuple[list[str], list[float]]:
        """``nearest`` over int8 rows (``parts``: those of ``rows``, in order), read by the integer product; every
        row that its error could have put out of the first ``k`` is multiplied again in float32 as its int8
        values, so the answer is the one a float32 product of them all gives."""
        scaled = q * self._step
        approx, error = int8_products(parts, scaled)
        kth = np.partition(approx, len(approx) - k)[len(approx) - k]
        near = rows[approx >= kth - 2 * (error + _ROUNDING)]
        return self._best_first(product(from_offset(np.take(self._matrix, near, axis=0)), scaled), near, k)

    def _best_first(self, sims: np.ndarray, rows: np.ndarray, k: int) -> tuple[list[str], list[float]]:
        """The ``k`` best of ``sims`` (the similarities of ``rows``) as ids and floats, best first, ties by id."""
        if k < len(rows):
            # every row as near as the k-th too, so that ties at the k-th place go by id, as they do above it
            top = np.flatnonzero(sims >= sims[np.argpartition(-sims, k - 1)[k - 1]])
        else:
            top = np.arange(len(rows))
        ids = self._ids
        order = top[np.argsort(-sims[top], kind="stable")]
        best = sims[order]
        if (best[1:] < best[:-1]).all():  # no two alike: numpy's order is the one sorting by id as well gives
            return [ids[r] for r in rows[order[:k]].tolist()], best[:k].tolist()
        ranked = sorted(zip((-sims[top]).tolist(), [ids[r] for r in rows[top].tolist()]))[:k]
        return [i for _, i in ranked], [-v for v, _ in ranked]

    def scoped(self, groups: Iterable[str]) -> bool:
        """Whether ``nearest`` asked for these groups reads their rows alone, exactly: always in an exact copy; in
        a partitioned one when they hold at most ``partition_min_rows`` rows, as a copy of that size is searched
        (the partitions nearest a question hold few rows of a small project, and a caller that filters for it
        would widen its window again and again)."""
        return self._centroids is None or len(self.group_rows(groups)) <= self.partition_min_rows

    def group_rows(self, groups: Iterable[str]) -> np.ndarray:
        """The rows of these groups, and those put without a group (which any group may hold), in row order;
        kept until the rows change (a search asks twice: for its rows and for how many there are)."""
        key = tuple(groups)
        kept = self._group_rows_kept.get(key)
        if kept is not None and kept[0] == self._changes:
            return kept[1]
        held = self._group[:len(self._ids)]
        mask = held == 0
        for g in key:
            if g in self._group_code:
                mask |= held == self._group_code[g]
        rows = np.flatnonzero(mask)
        if len(self._group_rows_kept) > 64:
            self._group_rows_kept.clear()
        self._group_rows_kept[key] = (self._changes, rows)
        return rows

    def _scan(self, q: np.ndarray, k: int, product) -> tuple[list[str], list[float]]:
        """``nearest`` over the int8 rows, exact: a row's int8 cosine is off from its float32 one by at most
        half a step per dimension times the query's magnitude there (``bound``), so every row of the exact
        first ``k`` scores within 2 x bound of the k-th int8 cosine; those rows are rescored in float32."""
        n = len(self._ids)
        approx, error = int8_products([self._shadow[:n]], q * self._shadow_step)
        bound = 0.5 * float(np.abs(q) @ self._shadow_step) + error + _ROUNDING
        kth = np.partition(approx, n - k)[n - k]
        rows = np.flatnonzero(approx >= kth - 2 * bound)
        sims = product(np.take(self._matrix, rows, axis=0), q)
        return self._best_first(sims, rows, k)

    def _largest(self) -> np.ndarray:
        """Each dimension's largest magnitude over the rows held, read a slice at a time."""
        n, largest = len(self._ids), np.zeros(self.dim, dtype=np.float32)
        for s in range(0, n, _SLICE):
            largest = np.maximum(largest, np.abs(self._decode(self._matrix[s:min(s + _SLICE, n)])).max(axis=0))
        return largest

    def _make_shadow(self) -> None:
        """The int8 rows of every float32 row, each dimension's step its largest magnitude over 127, with room
        to spare (so that rows put later seldom widen it)."""
        n = len(self._ids)
        self._shadow_step = (self._largest() * 1.25 / 127).clip(1e-12).astype(np.float32)
        self._shadow = np.zeros((len(self._matrix), self.dim), dtype=np.uint8)
        for s in range(0, n, _SLICE):
            self._shadow[s:min(s + _SLICE, n)] = quantize(self._matrix[s:min(s + _SLICE, n)], self._shadow_step)

    def _shadow_put(self, rows: np.ndarray, mat: np.ndarray) -> None:
        """Write float32 rows' int8 copies (their float32 rows already written); a value past the int8 range of
        its dimension makes every int8 row again, so that no value is clipped and the scan's bound holds."""
        if len(mat) and (np.abs(mat).max(axis=0) > 127 * self._shadow_step).any():
            self._make_shadow()
        else:
            self._shadow[rows] = quantize(mat, self._shadow_step)

    # ---- partitions -------------------------------------------------------
    def _probed_runs(self, q: np.ndarray, k: int) -> list[np.ndarray]:
        """The rows of each of the ``probes`` partitions nearest ``q``, and of as many more as it takes to hold
        4 x k, nearest first (each partition's in row order)."""
        order = np.argsort(-(self._centroids @ q), kind="stable")
        held = np.cumsum(self._sizes[order])
        m = max(min(self.probes, len(order)), int(np.searchsorted(held, 4 * k)) + 1)
        if self._grouped is None:
            by_part = np.argsort(self._part[:len(self._ids)], kind="stable")
            self._grouped = by_part, np.concatenate([[0], np.cumsum(self._sizes)])
        by_part, starts = self._grouped
        return [by_part[starts[p]:starts[p + 1]] for p in order[:m].tolist()]

    def refresh_partitions(self) -> bool:
        """Train the partitions anew, or drop them, where the row count calls for it; whether it did either."""
        n = len(self._ids)
        if not self.partition_min_rows or n < self.partition_min_rows:
            dropped = self._centroids is not None
            self._centroids = None
            self._requantize(None)
            return dropped
        if self._centroids is not None and \
                self._trained_rows / self.retrain_growth < n < self._trained_rows * self.retrain_growth:
            return False
        self._requantize((self._largest() / 127).clip(1e-12))
        self._centroids = spherical_kmeans(self._decode, self._matrix[:n], max(1, n // self.partition_rows))
        self._trained_rows = n
        self._sizes = np.zeros(len(self._centroids), dtype=np.int64)
        self._assign(np.arange(n))
        self._group_rows()
        return True

    def _group_rows(self) -> None:
        """Order the rows by partition (in their order within one), so that a search reads each partition it
        probes as one run of memory rather than rows strewn over the matrix; rows put later go after them."""
        n = len(self._ids)
        self._changes += 1
        order = np.argsort(self._part[:n], kind="stable")
        self._matrix[:n] = self._matrix[order]
        self._part[:n] = self._part[order]
        self._group[:n] = self._group[order]
        self._ids = [self._ids[r] for r in order.tolist()]
        self._row = {i: r for r, i in enumerate(self._ids)}
        self._grouped = None

    def _assign(self, rows: np.ndarray) -> None:
        for s in range(0, len(rows), _SLICE):  # decoded a slice at a time: all 100,000 would be 154 MB
            part = nearest_centroid(self._decode(self._matrix[rows[s:s + _SLICE]]), self._centroids)
            self._part[rows[s:s + _SLICE]] = part
            np.add.at(self._sizes, part, 1)
        self._grouped = None

    # ---- int8 rows -----------------------------------------------------
    def _encode(self, vectors: np.ndarray) -> np.ndarray:
        return vectors if self._step is None else quantize(vectors, self._step)

    def _decode(self, rows: np.ndarray) -> np.ndarray:
        return rows if self._step is None else dequantize(rows, self._step)

    def _requantize(self, step: np.ndarray | None) -> None:
        """Hold the rows as int8 with these steps, or as float32 (None), converted a slice at a time."""
        if step is None and self._step is None:
            return
        n, old, old_step = len(self._ids), self._matrix, self._step
        self._matrix = np.zeros(old.shape, dtype=np.float32 if step is None else np.uint8)
        for s in range(0, n, _SLICE):
            e = min(s + _SLICE, n)
            decoded = old[s:e] if old_step is None else dequantize(old[s:e], old_step)
            self._matrix[s:e] = decoded if step is None else quantize(decoded, step)
        self._step = step
        self._shadow = self._shadow_step = None  # the int8 rows are the matrix now, or made again by a search


def quantize(vectors: np.ndarray, step: np.ndarray) -> np.ndarray:
    """int8 rows of float vectors, ``step`` apart in each dimension (clipped at +-127 steps), held as uint8 (the
    int8 value + ``int8.OFFSET``, which ONNX Runtime's integer product reads)."""
    return to_offset(np.clip(np.rint(vectors / step), -127, 127))


def dequantize(rows: np.ndarray, step: np.ndarray) -> np.ndarray:
    return from_offset(rows) * step


def nearest_centroid(vectors: np.ndarray, centroids: np.ndarray, batch: int = 8_192) -> np.ndarray:
    """The index of the centroid most similar to each (unit) vector, in batches that bound the memory."""
    return np.concatenate([np.argmax(vectors[s:s + batch] @ centroids.T, axis=1)
                           for s in range(0, len(vectors), batch)] or [np.zeros(0, dtype=np.int64)])


def spherical_kmeans(decode: Callable[[np.ndarray], np.ndarray], vectors: np.ndarray, clusters: int,
                     iterations: int = 10, sample: int = 32, seed: int = 0) -> np.ndarray:
    """Unit centroids of ``clusters`` partitions of unit ``vectors`` (as ``decode`` turns their rows into
    float32) by cosine (Dhillon and Modha, "Concept decompositions for large sparse text data using
    clustering", 2001), trained on ``sample`` x clusters rows drawn with a fixed seed, so the same rows give
    the same partitions."""
    rng = np.random.default_rng(seed)
    n = len(vectors)
    clusters = min(clusters, n)
    train = decode(vectors[np.sort(rng.choice(n, min(n, sample * clusters), replace=False))])
    centroids = train[rng.choice(len(train), clusters, replace=False)].copy()
    for _ in range(iterations):
        members = np.zeros((clusters, len(train)), dtype=np.float32)
        members[nearest_centroid(train, centroids), np.arange(len(train))] = 1.0
        sums = members @ train
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        filled = norms[:, 0] > 1e-12  # an empty partition keeps its centroid
        centroids[filled] = sums[filled] / norms[filled]
    return centroids


def nearest_accepted(cache: VectorCache, query: np.ndarray, k: int, accept: Callable[[str], bool],
                     first_window: int, max_window: int, groups: Iterable[str] | None = None
                     ) -> tuple[list[str], list[float]] | None:
    """The ``k`` nearest ids that ``accept`` lets through, from windows of the nearest ``first_window`` x k
    widening to ``max_window`` x k; None if even the widest window holds fewer than k and more rows remain
    (the caller then filters first, which a selective filter needs). ``groups``: the only groups ``accept``
    lets through (a project), whose rows alone the copy then reads when it can (``VectorCache.scoped``)."""
    window = max(1, first_window) * k
    groups = None if groups is None or not cache.scoped(groups := list(groups)) else groups
    total = len(cache) if groups is None else len(cache.group_rows(groups))
    while True:
        ids, sims = cache.nearest(query, window, groups)
        kept = list(islice(((i, s) for i, s in zip(ids, sims) if accept(i)), k))  # the rest are not asked
        if len(kept) >= k or len(ids) == total:  # enough, or every row seen
            return [i for i, _ in kept], [s for _, s in kept]
        if window >= max_window * k:
            return None
        window = min(4 * window, max_window * k)
