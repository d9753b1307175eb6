"""Hubness reduction for the code vector leg: each chunk's neighbourhood density and localized centering.

In a high-dimensional embedding space a few points (hubs) sit close to very many others, so they turn up
near many queries they do not answer (Radovanovic, Nanopoulos & Ivanovic 2010, "Hubs in space", JMLR).
Localized centering (Hara, Suzuki, Kobayashi, Fukumizu & Radovanovic 2015, "Localized centering: reducing
hubness in large-sample data", AAAI) subtracts from each cosine the density of the document's neighbourhood,
the mean cosine to its k nearest neighbours. Pure functions over ids, vectors and scores; no I/O.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

#: neighbour lists by id: (the k nearest other ids, best first, and their cosines)
Neighbours = dict[str, tuple[list[str], list[float]]]


def nearest_neighbours(matrix: np.ndarray, rows: Sequence[int], k: int,
                       block_cells: int = 1 << 22) -> tuple[np.ndarray, np.ndarray]:
    """For each of ``rows``, the positions and cosines of its ``k`` nearest other rows of ``matrix`` (unit
    vectors), best first; fewer columns when the matrix has fewer than k + 1 rows. Exact, in blocks of
    ``block_cells`` similarities (16 MB; the selection's temporaries take three times that) at a time:
    larger blocks are no faster, only heavier."""
    n, k = len(matrix), min(k, len(matrix) - 1)
    block = max(1, block_cells // max(n, 1))
    rows = np.asarray(rows, dtype=np.int64)
    if k <= 0 or not len(rows):
        return np.zeros((len(rows), 0), np.int64), np.zeros((len(rows), 0), np.float32)
    pos, sims = np.empty((len(rows), k), np.int64), np.empty((len(rows), k), np.float32)
    for start in range(0, len(rows), block):
        part = rows[start:start + block]
        s = matrix[part] @ matrix.T
        s[np.arange(len(part)), part] = -np.inf  # a chunk is not its own neighbour
        top = np.argpartition(-s, k - 1, axis=1)[:, :k] if k < n - 1 else np.argsort(-s, axis=1)[:, :k]
        order = np.argsort(-np.take_along_axis(s, top, axis=1), axis=1, kind="stable")
        pos[start:start + len(part)] = np.take_along_axis(top, order, axis=1)
        sims[start:start + len(part)] = np.take_along_axis(s, pos[start:start + len(part)], axis=1)
    return pos, sims


def current_lists(ids: Sequence[str], previous: Mapping[str, tuple[list[str], list[float]]], k: int) -> set[str]:
    """The ids of ``ids`` whose list in ``previous`` can stay: it holds min(k, len(ids) - 1) neighbours, and
    each of them still has a list of its own (ids are content hashes, so a changed chunk is a removed one plus
    a new one)."""
    present, want = set(ids), min(k, len(ids) - 1)
    return {i for i, (nbrs, _) in previous.items()
            if i in present and len(nbrs) == want and all(j in present and j in previous for j in nbrs)}


def update_neighbours(ids: Sequence[str], matrix: np.ndarray, previous: Mapping[str, tuple[list[str], list[float]]],
                      k: int, block_cells: int = 1 << 22) -> Neighbours:
    """The k-nearest-neighbour lists of ``ids`` (rows of ``matrix``, unit vectors) that differ from
    ``previous``, computed exactly without redoing the unchanged ones.

    A list is recomputed when its id is new or ``current_lists`` does not keep it; every kept list only
    merges in the new ids that come nearer than its last neighbour. Returns the lists to write. At most
    ``block_cells`` similarities (16 MB) are held at a time.
    """
    row = {i: r for r, i in enumerate(ids)}
    want = min(k, len(ids) - 1)
    kept = current_lists(ids, previous, k)
    redo = [row[i] for i in ids if i not in kept]
    out: Neighbours = {}
    if not redo:
        return out
    pos, sims = nearest_neighbours(matrix, redo, want, block_cells)
    for r, p, s in zip(redo, pos, sims):
        out[ids[r]] = ([ids[j] for j in p], s.tolist())
    # the old lists that stayed exact only miss the ids that had no list before
    new_rows = np.array([r for r in redo if ids[r] not in previous], dtype=np.int64)
    if len(new_rows) and kept and want > 0:
        old = [i for i in ids if i in kept]
        # in blocks: 60,000 kept lists against 5,000 new chunks would be 1.2 GB of similarities at once
        step = max(1, block_cells // len(new_rows))
        for start in range(0, len(old), step):
            part = old[start:start + step]
            s = matrix[[row[i] for i in part]] @ matrix[new_rows].T
            for i, cand in zip(part, s):
                nbrs, nsims = previous[i]
                closer = np.nonzero(cand > nsims[-1])[0]
                if len(closer):
                    merged = sorted([*zip(nsims, nbrs), *((float(cand[c]), ids[new_rows[c]]) for c in closer)],
                                    key=lambda t: (-t[0], t[1]))[:want]
                    out[i] = ([j for _, j in merged], [float(v) for v, _ in merged])
    return out


def density(sims: Sequence[float]) -> float:
    """A chunk's neighbourhood density: the mean cosine to its nearest neighbours (0 without any)."""
    return float(np.mean(sims)) if len(sims) else 0.0


def localized_centering(ids: Sequence[str], scores: Sequence[float], densities: Mapping[str, float],
                        weight: float) -> tuple[list[str], list[float]]:
    """Re-rank a vector leg: s'(d) = cos(q, d) - weight x (density(d) - mean density of the candidates).

    Hara et al. 2015 subtract the density itself; subtracting its deviation from the candidates' mean ranks
    them the same and keeps the scores on the cosine's scale, which the fusion normalises by its top score.
    A candidate without a density (indexed before densities were stored) counts as of mean density.
    """
    known = [densities[i] for i in ids if i in densities]
    if weight <= 0 or not known:
        return list(ids), list(scores)
    mean = float(np.mean(known))
    adjusted = [(float(s) - weight * (densities.get(i, mean) - mean), i) for i, s in zip(ids, scores)]
    adjusted.sort(key=lambda t: (-t[0], t[1]))
    return [i for _, i in adjusted], [s for s, _ in adjusted]
