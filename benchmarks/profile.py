"""python -m benchmarks.profile: where a search's time goes, stage by stage, beside LanceDB's hybrid search.

For each data set (the harness's: SciFact, LoCoMo, devnotes, and the repositories fetched with
python -m benchmarks.repos), memory-graph and LanceDB's hybrid search are built over the same vectors; every
question is asked of each at limit 10, interleaved, with its embedding included on both sides (a model with
no query cache), and the script prints, per data set, the median milliseconds of each stage memory-graph
reports (Engine.search's ``timings``; code search reports only its total), both totals, their ratio and the
process's CPU seconds per query. Timings on a busy machine move; the ratio in one run is what to compare.

    python -m benchmarks.profile --datasets scifact devnotes-10k cobra --queries 100
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

#: the stages that run one after another ("legs" is the legs' wall time, from linking the query's entities
#: ("link") to the last leg's end; the legs run in parallel, each leg_* and "embed", in the vector leg, a part)
SEQUENTIAL = ("legs", "fusion", "describe", "ppr_edges", "ppr", "decay", "updates", "mmr")
MEMORY_SETS = ("scifact", "locomo", "devnotes", "devnotes-1k", "devnotes-10k")


def load(name: str, args):
    from . import data
    from .devnotes import load_devnotes
    from .repos import DEFAULT_DIR, REPOS, load_repo

    d = args.data
    if name in REPOS:
        return load_repo(name, args.repos or DEFAULT_DIR)
    if name.startswith("devnotes"):
        return load_devnotes(pad_to={"devnotes": None, "devnotes-1k": 1_000, "devnotes-10k": 10_000}[name])
    if name == "locomo":
        return data.load_locomo(d / "locomo/locomo_dev.json", args.queries)
    return data.load_scifact(d / "scifact/corpus.jsonl", d / "scifact/queries.jsonl", d / "scifact/qrels/train.tsv",
                             args.queries, None)


def profile(ds, embedder, work: Path, cache: Path, n: int) -> dict:
    """Median ms per stage and in total for memory-graph, LanceDB's total, and CPU seconds per query."""
    import numpy as np

    from . import quality
    from .systems import LanceHybrid, MemoryGraphSystem, build_code_engine, doc_vectors_from_code_engine

    code_engine = None
    if ds.kind == "code":
        eng, chunk_doc, _ = build_code_engine(ds, embedder, work)
        code_engine, vectors = (eng, chunk_doc), doc_vectors_from_code_engine(eng, ds)
    else:
        vectors = quality.cached_vectors([x.full_text for x in ds.docs], embedder, cache, ds.name)
    mg = MemoryGraphSystem(ds, vectors, embedder, work, code_engine)
    lance = LanceHybrid(ds, vectors, work)
    order = list(range(min(n, len(ds.queries))))
    qmat = np.zeros((len(ds.queries), vectors.shape[1]), dtype=np.float32)
    run_lance = lance.ranker(qmat)  # reads each query's row when asked: filled just before, timed with it
    stages: dict[str, list[float]] = {}
    totals, lance_ms, cpu_mg, cpu_lance = [], [], 0.0, 0.0
    try:
        for qi in order + order[:5]:  # the first five again at the end: the first searches warm caches
            q = ds.queries[qi]
            timings: dict[str, float] = {}
            c0, t0 = time.process_time(), time.perf_counter()
            if ds.kind == "code":
                mg.engine.search_code(q.text, limit=10, project=ds.name if ds.source else None)
            else:
                at = ds.asked_at or mg.group_end.get(q.group)
                mg.engine.search(q.text, limit=10, project=q.group or None, include_global=False, as_of=at,
                                 use_decay=at is not None, timings=timings)
            t1, c1 = time.perf_counter(), time.process_time()
            qmat[qi] = embedder.encode_query(q.text)
            run_lance(qi, 10)
            t2, c2 = time.perf_counter(), time.process_time()
            totals.append(1000 * (t1 - t0))
            lance_ms.append(1000 * (t2 - t1))
            cpu_mg += c1 - c0
            cpu_lance += c2 - c1
            if timings:  # what no stage accounts for: validity, labels, the confidence, Python's own overhead
                timings["rest"] = (t1 - t0) - sum(v for k, v in timings.items() if k in SEQUENTIAL)
            for k, v in timings.items():
                stages.setdefault(k, []).append(1000 * v)
    finally:
        mg.close()
        lance.close()
    k = len(totals)
    return {"queries": k, "docs": len(ds.docs),
            "stages_ms": {s: round(statistics.median(v), 2) for s, v in stages.items()},
            "memory_graph_ms": round(statistics.median(totals), 2),
            "lancedb_hybrid_ms": round(statistics.median(lance_ms), 2),
            "ratio": round(statistics.median(totals) / statistics.median(lance_ms), 2),
            "cpu_ms": {"memory-graph": round(1000 * cpu_mg / k, 2), "lancedb hybrid": round(1000 * cpu_lance / k, 2)}}


def main(argv=None) -> int:
    from .repos import REPOS

    p = argparse.ArgumentParser(prog="python -m benchmarks.profile", description=__doc__.split("\n")[0])
    p.add_argument("--datasets", nargs="+", choices=[*MEMORY_SETS, *REPOS],
                   default=["scifact", "locomo", "devnotes", "devnotes-10k", "cobra", "mobx"])
    p.add_argument("--queries", type=int, default=100, help="questions per data set (default: 100)")
    p.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    p.add_argument("--repos", type=Path, default=None, help="the repositories' sources (python -m benchmarks.repos)")
    p.add_argument("--cache", type=Path, default=Path("results/cache"), help="embedding cache folder")
    p.add_argument("--json", type=Path, help="also write every figure here")
    args = p.parse_args(argv)

    from .repo_probe import write_json
    from .systems import engine_embedder

    # no cache: each side embeds every question itself (a cached vector would make the second side's free)
    embedder = engine_embedder("", cache_size=0, query_cache_size=0)
    out = {}
    for name in args.datasets:
        ds = load(name, args)
        if ds is None:
            print(f"{name}: not fetched (python -m benchmarks.repos fetch)")
            continue
        with tempfile.TemporaryDirectory(prefix="mg-profile-") as work:
            res = out[name] = profile(ds, embedder, Path(work), args.cache, args.queries)
        stages = ", ".join(f"{s} {v:.1f}" for s, v in sorted(res["stages_ms"].items(), key=lambda kv: -kv[1]))
        print(f"{name} ({res['docs']} docs, {res['queries']} searches): memory-graph {res['memory_graph_ms']:.1f} ms, "
              f"LanceDB hybrid {res['lancedb_hybrid_ms']:.1f} ms (x{res['ratio']}); CPU ms per query "
              f"{res['cpu_ms']['memory-graph']:.1f} / {res['cpu_ms']['lancedb hybrid']:.1f}"
              + (f"\n    stages (median ms): {stages}" if stages else ""))
    write_json(args.json, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
