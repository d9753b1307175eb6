"""A search scoped to one project in a partitioned copy of the vectors: its rows alone, exactly, against the
partitions nearest the question filtered for the project (the copy's search before ``VectorCache.scoped``).

    python -m benchmarks.probes.scoped_probe [--projects 5 10 50] [--cache results/cache]

The devnotes padded to 100,000 notes (their vectors from the quality harness's cache, embedded once if absent)
are split round-robin into P projects; each devnotes question is asked of one project, both ways
in turn, for the vector leg's 50 candidates, as ``MemorySearch.nearest_memories`` asks: the window of
``postfilter_factor`` x 50 widening to ``copy_filter_window`` x 50, then every row of the project
(``_nearest_in_project``) when even that holds fewer than 50. Prints, for each P, the median milliseconds of
each way, the median of each question's ratio, and the recall of each way's first 10 against the exact first 10
of the project in float32.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

CANDIDATES = 50


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.probes.scoped_probe", description=__doc__.split("\n")[0])
    ap.add_argument("--projects", type=int, nargs="+", default=[5, 10, 50], help="project counts (default 5 10 50)")
    ap.add_argument("--cache", type=Path, default=Path("results/cache"), help="embedding cache folder")
    args = ap.parse_args(argv)

    from threadpoolctl import threadpool_limits

    from memory_graph import Config
    from memory_graph.store.vectors import VectorCache, nearest_accepted

    from ..devnotes import load_devnotes
    from ..quality import cached_vectors
    from ..systems import engine_embedder

    ds = load_devnotes(pad_to=100_000)
    embedder = engine_embedder("", cache_size=0, query_cache_size=0)
    vectors = cached_vectors([d.full_text for d in ds.docs], embedder, args.cache, "notes-100k")
    vectors = vectors / np.linalg.norm(vectors, axis=1, keepdims=True).clip(1e-12)
    ids = [f"d{i}" for i in range(len(vectors))]
    questions = [embedder.encode_query(q.text) for q in ds.queries]
    c = Config()
    for projects in args.projects:
        project = np.arange(len(ids)) % projects
        cache = VectorCache(vectors.shape[1], c.partition_min_rows, c.partition_rows, c.partition_probes,
                            c.partition_retrain_growth)
        cache.put(ids, vectors, groups=[f"p{p}" for p in project])
        times: dict[str, list[float]] = {"partitions": [], "rows": []}
        recall: dict[str, list[float]] = {"partitions": [], "rows": []}
        with threadpool_limits(1):
            for n, q in enumerate(questions):
                p = n % projects
                rows = np.flatnonzero(project == p)
                exact = {ids[r] for r in rows[np.argsort(-(vectors[rows] @ (q / np.linalg.norm(q))))[:10]]}
                ways = ("partitions", "rows") if n % 2 else ("rows", "partitions")
                for way in ways:
                    start = time.perf_counter()
                    found = _search(cache, q, p, project, ids, c, way, nearest_accepted)
                    times[way].append(time.perf_counter() - start)
                    recall[way].append(len(set(found[:10]) & exact) / 10)
        ratio = statistics.median(r / p for r, p in zip(times["rows"], times["partitions"]))
        print(f"{projects} projects of {len(ids) // projects:,} notes: partitions then filter "
              f"{1000 * statistics.median(times['partitions']):.2f} ms (recall@10 {np.mean(recall['partitions']):.3f}), "
              f"the project's rows {1000 * statistics.median(times['rows']):.2f} ms "
              f"(recall@10 {np.mean(recall['rows']):.3f}); median ratio {ratio:.3f}")
    return 0


def _search(cache, q, p: int, project: np.ndarray, ids: list[str], c, way: str, nearest_accepted) -> list[str]:
    """The vector leg's candidates of project ``p``, read one way or the other."""
    group = f"p{p}"
    accept = (lambda i: project[int(i[1:])] == p)
    found = nearest_accepted(cache, q, CANDIDATES, accept, c.postfilter_factor, c.copy_filter_window,
                             [group] if way == "rows" else None)
    if found is None:  # as MemorySearch._nearest_in_project: every row of the project
        sims = cache.similarities([ids[r] for r in np.flatnonzero(project == p)], q)
        return sorted(sims, key=lambda i: (-sims[i], i))[:CANDIDATES]
    return found[0]


if __name__ == "__main__":
    raise SystemExit(main())
