"""python -m benchmarks: retrieval quality on public data, latency at scale, store and indexing throughput."""

from __future__ import annotations

import argparse
import logging
import os
import platform
import shlex
import shutil
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")


from .repos import REPOS  # noqa: E402  (light: names and how to fetch them)

DATASETS = ("scifact", "locomo", "cosqa", "devnotes", "devnotes-1k", "devnotes-10k", *REPOS)


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="Measure memory-graph against the alternatives on the same embedding model, and time it. "
                    "The quick run (default) takes minutes; --full runs every query, the whole corpora and "
                    "100k memories. Writes results.json, results.md and PNG charts to --out. The latency, store and "
                    "indexing engines read MEMORY_GRAPH_<FIELD> variables as the server does (for example "
                    "MEMORY_GRAPH_VECTOR_COPY_MAX_ROWS=0 times LanceDB's vector search instead of the in-process "
                    "copy), and every part runs the model on MEMORY_GRAPH_EMBEDDING_BACKEND (auto, onnx or "
                    "sentence-transformers).")
    p.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data",
                   help="folder holding scifact/, locomo/ and cosqa/ (default: ../shared/data next to the repo)")
    p.add_argument("--scifact-corpus", type=Path, help="SciFact corpus.jsonl (default: DATA/scifact/corpus.jsonl)")
    p.add_argument("--scifact-queries", type=Path, help="SciFact queries.jsonl")
    p.add_argument("--scifact-qrels", type=Path, help="SciFact qrels TSV (default: DATA/scifact/qrels/train.tsv)")
    p.add_argument("--locomo", type=Path, help="LoCoMo JSON (default: DATA/locomo/locomo_dev.json)")
    p.add_argument("--cosqa-corpus", type=Path, help="CoSQA code map (default: DATA/cosqa/code_idx_map.txt)")
    p.add_argument("--cosqa-queries", type=Path,
                   help="CoSQA retrieval split (default: DATA/cosqa/cosqa-retrieval-dev-500.json)")
    p.add_argument("--out", type=Path, default=Path("results"), help="results folder (default: ./results)")
    p.add_argument("--full", action="store_true", help="the full run: all queries, whole corpora, up to 100k")
    p.add_argument("--only", nargs="+", choices=["quality", "latency", "store", "indexing"],
                   default=["quality", "latency", "store", "indexing"], help="parts to run (default: all)")
    p.add_argument("--datasets", nargs="+", choices=list(DATASETS), default=list(DATASETS),
                   help="quality data sets to run (default: all). devnotes are hand-written developer notes "
                        "(benchmarks/devnotes/), alone and padded with generated notes to 1k and 10k; "
                        f"{', '.join(REPOS)} are hand-written questions about real packages (benchmarks/queries/), run when "
                        "--repos holds their sources")
    p.add_argument("--repos", type=Path, default=None,
                   help="folder of the repositories' sources, fetched once with python -m benchmarks.repos fetch "
                        "(default: ~/.cache/memory-graph/bench-repos)")
    p.add_argument("--sizes", nargs="+", type=int,
                   help="memory counts for latency (default: 1000 10000; --full adds 100000)")
    p.add_argument("--queries", type=int, help="queries per data set (default: 200 quick, all when --full)")
    p.add_argument("--latency-queries", type=int, default=200, help="searches timed per size (default: 200)")
    p.add_argument("--repo", type=Path, action="append", default=[],
                   help="a repository to index for throughput (repeatable; this project is always indexed)")
    p.add_argument("--model", default="", help="sentence-transformers model path or name (default: packaged)")
    p.add_argument("--no-server", action="store_true",
                   help="latency: skip starting the MCP server on each size's data to read its resident memory")
    p.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, stream=sys.stderr,
                        format="%(asctime)s %(message)s")
    for noisy in ("memory_graph", "memory_graph.codebase", "bm25s"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    from memory_graph.embedding import choose_backend

    from . import data, report, speed
    from .systems import engine_embedder

    d = args.data
    embedder = engine_embedder(args.model, cache_size=200_000, query_cache_size=4_096)
    n_q = None if args.full else (args.queries or 200)
    if args.full and args.queries:
        n_q = args.queries
    work = Path(tempfile.mkdtemp(prefix="mg-bench-"))
    cache = args.out / "cache"
    results: dict = {"mode": "full" if args.full else "quick", "model": embedder.name,
                     "command": "python -m benchmarks " + " ".join(map(shlex.quote, sys.argv[1:] if argv is None
                                                                       else argv)),
                     "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
                     "started": time.strftime("%Y-%m-%d %H:%M:%S")}
    t0 = time.perf_counter()
    loaded = {}

    def scifact():
        if "scifact" not in loaded:
            loaded["scifact"] = data.load_scifact(
                args.scifact_corpus or d / "scifact/corpus.jsonl", args.scifact_queries or d / "scifact/queries.jsonl",
                args.scifact_qrels or d / "scifact/qrels/train.tsv", n_q, None if args.full else 1500)
        return loaded["scifact"]

    def locomo():
        if "locomo" not in loaded:
            loaded["locomo"] = data.load_locomo(args.locomo or d / "locomo/locomo_dev.json", n_q)
        return loaded["locomo"]

    try:
        _run(args, results, embedder, d, n_q, work, cache, scifact, locomo)
    finally:  # whatever was measured is written, even if a later part fails
        shutil.rmtree(work, ignore_errors=True)  # the engines' data: hundreds of MB, never read again
        results["seconds"] = round(time.perf_counter() - t0, 1)
        results["runtime"] = choose_backend(embedder.path, embedder.backend)
        results["peak_rss_mb"] = round(speed.peak_rss_mb(), 1)
        files = report.write(results, args.out)
        print(_summary(results))
        print("results written to:")
        for kind, path in files.items():
            print(f"  {kind}: {path.resolve()}")
    return 0


def _run(args, results, embedder, d, n_q, work, cache, scifact, locomo) -> None:
    from . import data, quality, speed
    from .devnotes import load_devnotes
    from .repos import DEFAULT_DIR, REPOS, load_repo
    from .systems import engine_embedder

    if "quality" in args.only:
        results["quality"] = {}
        for name in args.datasets:
            if name in REPOS:
                ds = load_repo(name, args.repos or DEFAULT_DIR)
                if ds is None:
                    print(f"quality: {name} skipped: no {REPOS[name][0]} in {args.repos or DEFAULT_DIR} (python -m "
                          f"benchmarks.repos fetch fetches it)", file=sys.stderr)
                    continue
                print(f"quality: {name} ({len(ds.queries)} questions about {ds.source})...", file=sys.stderr)
                results["quality"][name] = quality.run_dataset(ds, embedder, work, cache)
                continue
            ds = {"scifact": scifact, "locomo": locomo,
                  "cosqa": lambda: data.load_cosqa(args.cosqa_corpus or d / "cosqa/code_idx_map.txt",
                                                   args.cosqa_queries or d / "cosqa/cosqa-retrieval-dev-500.json",
                                                   n_q),
                  "devnotes": lambda: load_devnotes(),
                  "devnotes-1k": lambda: load_devnotes(pad_to=1_000),
                  "devnotes-10k": lambda: load_devnotes(pad_to=10_000)}[name]()
            print(f"quality: {name} ({len(ds.docs)} docs, {len(ds.queries)} queries)...", file=sys.stderr)
            results["quality"][name] = quality.run_dataset(ds, embedder, work, cache)
        repos = {n: r for n, r in results["quality"].items() if n in REPOS}
        if len(repos) > 1:
            results["quality"]["repositories"] = quality.pool(repos, "mrr@10")
    if "latency" in args.only or "store" in args.only:
        texts = speed.corpus_texts(locomo().docs, scifact().docs)
        if "latency" in args.only:
            sizes = args.sizes or ([1_000, 10_000, 100_000] if args.full else [1_000, 10_000])
            base = texts[: max(sizes)] if args.full else texts[:10_000]
            print(f"latency: embedding {len(base)} texts, then {sizes} memories...", file=sys.stderr)
            vecs = quality.cached_vectors(base, embedder, cache, "latency-texts")
            qs = [q.text for q in locomo().queries] + [q.text for q in scifact().queries]
            results["latency"] = speed.latency(base, vecs, qs, sizes, embedder, work, args.latency_queries,
                                                 args.model, not args.no_server)
        if "store" in args.only:
            print("store throughput...", file=sys.stderr)
            results["store"] = speed.store_throughput(texts, engine_embedder(args.model), work,
                                                      100 if not args.full else 500, 1000 if not args.full else 5000)
    if "indexing" in args.only:
        results["indexing"] = []
        for repo in [Path(__file__).resolve().parents[1], *args.repo]:
            print(f"indexing {repo}...", file=sys.stderr)
            results["indexing"].append(speed.indexing(repo, lambda: engine_embedder(args.model), work))


def _summary(results: dict) -> str:
    lines = [f"memory-graph benchmarks, {results['mode']} run, {results['seconds']} s"]
    for name, ds in results.get("quality", {}).items():
        metric = ds["main_metric"]
        ranked = sorted(ds["systems"].items(), key=lambda kv: -kv[1]["overall"][metric])
        lines.append(f"  {name} {metric}: " + ", ".join(f"{n} {s['overall'][metric]:.3f}" for n, s in ranked[:5]))
    for n, r in results.get("latency", {}).items():
        lines.append(f"  search at {int(n):,} memories: p50 {r['search_ms']['p50']:.1f} ms, "
                     f"p95 {r['search_ms']['p95']:.1f} ms; after another process's write "
                     f"{r['search_after_foreign_write_ms']['p50']:.1f} ms"
                     + (f"; MCP server RSS {r['server']['rss_mb']:.0f} MB" if "server" in r else ""))
    for r in results.get("indexing", []):
        lines.append(f"  indexed {r['files']} files / {r['chunks']} chunks in {r['seconds']} s "
                     f"({r['embedding_share']:.0%} in the model); "
                     f"unchanged re-index {r['reindex_unchanged_seconds']} s")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
