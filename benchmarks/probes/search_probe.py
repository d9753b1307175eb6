"""Four effects behind the engine's search latency, each measured on its own.

    python -m benchmarks.probes.search_probe [--rows 100000] [--queries 100] [--model PATH] [--only churn]

1. Embedding a query through the engine's one model thread (``memory_graph.embedding.on_model_thread``),
   against calling the model from rotating threads (PyTorch keeps an OpenMP team per calling thread), on the
   runtime MEMORY_GRAPH_EMBEDDING_BACKEND picks (auto: ONNX Runtime for the packaged model).
2. LanceDB vector search over random unit vectors with an IVF_HNSW_SQ index built at a tenth of the rows,
   the rest added 5,000 at a time and merged by ``optimize`` (the engine before ``ann_rebuild_growth``),
   against the index rebuilt on every row.
3. The engine's default validity filter applied before the search, against after it on twice the rows.
4. Rows replaced rather than added (700 at a time, like the batches of a re-indexed repository), each write
   followed by ``optimize``: the indices and fragments a search visits pile up without the table growing
   (``Config.ann_max_deltas``).

Prints median milliseconds; about six minutes at the defaults on 2 cores.
"""

from __future__ import annotations

import argparse
import statistics
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyarrow as pa

from .. import scratch_dir

VALID = "(valid_until IS NULL OR valid_until > 1.0e10) AND (valid_from IS NULL OR valid_from <= 1.0e10)"



def median_ms(fn, items) -> float:
    times = []
    for item in items:
        start = time.perf_counter()
        fn(item)
        times.append(1000 * (time.perf_counter() - start))
    return round(statistics.median(times), 2)


def embedding(model_path: str, n: int) -> None:
    from memory_graph.embedding import on_model_thread

    from ..systems import engine_embedder

    emb = engine_embedder(model_path, cache_size=0, query_cache_size=0)
    model = emb.model
    queries = [f"what did the team decide about release {i} of the billing service" for i in range(n)]

    def direct(q):
        return model.encode([q])

    on_model_thread(lambda: direct("warm up"))
    pool = ThreadPoolExecutor(3)
    through_engine = median_ms(lambda q: pool.submit(emb.encode_query, q).result(), queries)
    rotating = median_ms(lambda q: pool.submit(direct, q).result(), queries)
    pool.shutdown()
    print("query embedding, median ms")
    print(f"  the engine's model thread, asked from 3 threads: {through_engine}")
    print(f"  3 rotating threads: {rotating}")


def vector_search(rows: int, n: int, dim: int = 384) -> None:
    import lancedb

    rng = np.random.default_rng(0)

    def batch(start: int, size: int) -> pa.Table:
        vecs = rng.standard_normal((size, dim)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        return pa.table({"id": [f"m{i}" for i in range(start, start + size)],
                         "vector": pa.FixedSizeListArray.from_arrays(pa.array(vecs.ravel()), dim),
                         "valid_from": pa.nulls(size, pa.float64()), "valid_until": pa.nulls(size, pa.float64())})

    db = lancedb.connect(scratch_dir())
    first = max(1_000, rows // 10)
    table = db.create_table("t", batch(0, first))
    table.create_index(metric="cosine", index_type="IVF_HNSW_SQ", vector_column_name="vector")
    for start in range(first, rows, 5_000):
        table.add(batch(start, min(5_000, rows - start)))
        table.optimize()
    queries = rng.standard_normal((n, dim)).astype(np.float32)

    def search(where=None, prefilter=True, limit=50):
        def run(q):
            s = table.search(q).metric("cosine")
            if where:
                s = s.where(where, prefilter=prefilter)
            return s.limit(limit).select(["id", "_distance"]).to_arrow()
        return run

    def report(label: str) -> None:
        segments = next((getattr(ix, "num_segments", "?") for ix in table.list_indices()
                         if "vector" in ix.columns), "?")
        print(f"  {label} ({segments} index segments):")
        print(f"    no filter {median_ms(search(), queries)}; validity filter first "
              f"{median_ms(search(VALID), queries)}; after, on 100 rows "
              f"{median_ms(search(VALID, prefilter=False, limit=100), queries)}")

    print(f"vector search, {rows:,} rows, limit 50, median ms")
    report(f"index built at {first:,} rows, the rest merged by optimize")
    start = time.perf_counter()
    table.create_index(metric="cosine", index_type="IVF_HNSW_SQ", vector_column_name="vector", replace=True)
    rebuild = time.perf_counter() - start
    report(f"index rebuilt on all rows in {rebuild:.1f} s")


def churn(rows: int, n: int, rounds: int, size: int, dim: int = 384) -> None:
    """Effect 4: rows replaced rather than added (a re-indexed repository, a watcher's edits), ``size`` at a
    time, each write followed by ``optimize`` as the engine does; search time as the deltas accumulate, then
    after a rebuild (random vectors: the time is the point, their recall says nothing of real text)."""
    import memory_graph.store.lance  # noqa: F401  (its LanceDB settings: index statistics without centroids)
    import lancedb

    rng = np.random.default_rng(1)
    vecs = rng.standard_normal((rows, dim)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)

    def table_of(idx: np.ndarray) -> pa.Table:
        return pa.table({"id": [f"m{i}" for i in idx],
                         "vector": pa.FixedSizeListArray.from_arrays(pa.array(vecs[idx].ravel()), dim)})

    db = lancedb.connect(scratch_dir())
    table = db.create_table("t", table_of(np.arange(rows)))
    table.create_index(metric="cosine", index_type="IVF_HNSW_SQ", vector_column_name="vector")
    queries = rng.standard_normal((n, dim)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)

    def report(label: str) -> None:
        ms = median_ms(lambda q: table.search(q).metric("cosine").refine_factor(1).limit(50)
                       .select(["id", "_distance"]).to_arrow(), queries)
        stats = table.stats()["fragment_stats"]
        print(f"  {label}: {table.index_stats('vector_idx').num_indices} indices, {stats['num_fragments']} "
              f"fragments; {ms} ms")

    print(f"vector search while rows are replaced, {rows:,} rows, {size} at a time, limit 50, median ms")
    report("index built on all rows")
    checkpoints = {16, rounds // 2, rounds}
    for r in range(1, rounds + 1):
        idx = rng.choice(rows, size, replace=False)
        vecs[idx] = rng.standard_normal((size, dim)).astype(np.float32)
        vecs[idx] /= np.linalg.norm(vecs[idx], axis=1, keepdims=True)
        table.delete(f"id IN ({', '.join(repr(f'm{i}') for i in idx)})")
        table.add(table_of(idx))
        table.optimize()
        if r in checkpoints:
            report(f"after {r} replacing writes")
    start = time.perf_counter()
    table.create_index(metric="cosine", index_type="IVF_HNSW_SQ", vector_column_name="vector", replace=True)
    rebuild = time.perf_counter() - start
    table.optimize()
    report(f"index rebuilt in {rebuild:.1f} s and the table compacted")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=100_000, help="rows of the vector table")
    ap.add_argument("--queries", type=int, default=100, help="queries per measurement")
    ap.add_argument("--only", choices=("embedding", "vector", "churn"),
                    help="run one effect: embedding (1), vector (2 and 3) or churn (4)")
    ap.add_argument("--churn-rows", type=int, default=70_000, help="rows of the table of effect 4")
    ap.add_argument("--churn-writes", type=int, default=100, help="replacing writes of 700 rows in effect 4")
    ap.add_argument("--model", default="", help="sentence-transformers model path (default: the packaged one)")
    args = ap.parse_args()
    if args.only in (None, "embedding"):
        embedding(args.model, args.queries)
    if args.only in (None, "vector"):
        vector_search(args.rows, args.queries)
    if args.only in (None, "churn"):
        churn(args.churn_rows, args.queries, args.churn_writes, 700)


if __name__ == "__main__":
    main()
