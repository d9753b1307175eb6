"""Where flat vector search gets slow: LanceDB flat vs ANN (IVF_HNSW_SQ) vs an in-process copy, by table size.

    python -m benchmarks.probes.ann_threshold [--sizes 1000,5000,10000,20000,50000] [--dim 384] [--ann]

Random unit vectors (latency does not depend on the values); prints milliseconds per query (mean of 20) of
LanceDB's flat search, of the engine's ``VectorCache`` searched exactly (a copy of the vectors in process
memory) and of the same copy split into partitions as ``Config`` sets them (from ``partition_min_rows``
rows; "-" below). ``Config.ann_min_rows``, ``Config.vector_copy_max_rows`` and ``Config.partition_min_rows``
are chosen from this table. Random vectors have no clusters, so the partitioned search's recall here says
nothing; ``python -m benchmarks`` measures it on real text.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pyarrow as pa

from .. import scratch_dir


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000,5000,10000,20000,50000", help="comma-separated table sizes")
    ap.add_argument("--dim", type=int, default=384, help="vector dimension")
    ap.add_argument("--ann", action="store_true", help="also build an IVF_HNSW_SQ index at the largest size")
    args = ap.parse_args()
    import lancedb

    from memory_graph import Config
    from memory_graph.store.vectors import VectorCache

    rng = np.random.default_rng(0)
    db = lancedb.connect(scratch_dir())
    schema = pa.schema([("id", pa.string()), ("vector", pa.list_(pa.float32(), args.dim))])
    table = db.create_table("t", schema=schema)
    query = rng.standard_normal(args.dim).astype(np.float32)
    cache, c = VectorCache(args.dim), Config()
    parts = VectorCache(args.dim, c.partition_min_rows, c.partition_rows, c.partition_probes,
                        c.partition_retrain_growth)

    def timed(search=lambda: table.search(query).metric("cosine").limit(50).select(["id", "_distance"]).to_arrow()
              ) -> float:
        search()
        start = time.perf_counter()
        for _ in range(20):
            search()
        return (time.perf_counter() - start) / 20 * 1000

    print(f"{'rows':>8} {'flat ms':>9} {'in-process ms':>14} {'partitioned ms':>15}")
    for size in sorted(int(s) for s in args.sizes.split(",")):
        n = size - table.count_rows()
        v = rng.standard_normal((n, args.dim)).astype(np.float32)
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        table.add(pa.table({"id": [str(i) for i in range(n)],
                            "vector": pa.FixedSizeListArray.from_arrays(pa.array(v.ravel()), args.dim)},
                           schema=schema))
        table.optimize()
        new_ids = [f"v{len(cache) + i}" for i in range(n)]
        cache.put(new_ids, v)
        parts.put(new_ids, v)
        split = f"{timed(lambda: parts.nearest(query, 50)):.2f}" if parts.partitions else "-"
        print(f"{size:>8} {timed():>9.1f} {timed(lambda: cache.nearest(query, 50)):>14.2f} {split:>15}")
    if args.ann:
        start = time.perf_counter()
        table.create_index(metric="cosine", index_type="IVF_HNSW_SQ", vector_column_name="vector")
        print(f"index build {time.perf_counter() - start:.1f} s; ann query {timed():.1f} ms")


if __name__ == "__main__":
    main()
