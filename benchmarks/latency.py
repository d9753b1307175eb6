"""python -m benchmarks.latency: search latency on real corpora at several sizes, beside the peers, in one run.

Each store is built from real text: entity-rich developer notes (devnotes, padded with generated notes to 1,000,
10,000 and 100,000), long abstracts with passages (SciFact, 1,000 and all 5,183) and code chunks of the
repositories fetched with ``python -m benchmarks.repos fetch`` (one repository, then all of them in one store,
each question searching its own repository's project). Every system searches the same documents with the same
vectors, with BLAS and OpenMP on one thread. Each question is asked of every system in turn, limit 10, each
question starting with the next system, with the query's embedding included: memory-graph embeds it itself (its
model keeps no query cache here); each peer's time is the same model embedding the question and, right after, its
search with that vector, as a user of it would run them (the model's run leaves the caches to the search that
follows it, for every system alike). Five questions warm every system up first.

Reported per store: p50 and p95 milliseconds of each system; memory-graph's time over each peer's, as the
median over the questions of each question's ratio with its 95% bootstrap interval (a ratio below 1 is faster;
each question's two times are taken back to back) and as the ratio of the p50s; CPU milliseconds per search;
and the median of each stage memory-graph reports (``Engine.search``'s and ``Engine.search_code``'s
``timings``). On a shared machine absolute times move from run to run, and the ratios with them, less.
memory-graph takes its settings from ``MEMORY_GRAPH_<FIELD>`` variables, so another setting is measured without
editing code.

    python -m benchmarks.latency                      # every store (about half an hour on 2 cores)
    python -m benchmarks.latency --stores notes-1k scifact-1k cobra --queries 50
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

#: store name -> (kind, size label)
STORES = {"notes-1k": "devnotes padded to 1,000 notes", "notes-10k": "devnotes padded to 10,000 notes",
          "notes-100k": "devnotes padded to 100,000 notes", "scifact-1k": "SciFact, 1,000 abstracts",
          "scifact": "SciFact, all 5,183 abstracts", "cobra": "cobra 1.6.1 (Go), one repository",
          "repos": "the six repositories in one store"}
PEERS = ("LanceDB hybrid", "txtai hybrid", "bm25s + dense (RRF)")
#: searches timed right after a store (memory stores), each after its own write
AFTER_STORE = 20


def load(name: str, args):
    """The store's data set: documents and questions (a code store's documents come once it is indexed)."""
    from . import data
    from .devnotes import load_devnotes
    from .repos import DEFAULT_DIR, load_repo

    if name.startswith("notes-"):
        size = {"notes-1k": 1_000, "notes-10k": 10_000, "notes-100k": 100_000}[name]
        ds = load_devnotes(pad_to=size)
    elif name.startswith("scifact"):
        d = args.data / "scifact"
        ds = data.load_scifact(d / "corpus.jsonl", d / "queries.jsonl", d / "qrels/train.tsv", args.queries, None)
        if name == "scifact-1k":
            ds.docs = ds.docs[:1_000]
    elif name == "cobra":
        ds = load_repo("cobra", args.repos or DEFAULT_DIR)
    else:
        ds = None
    if ds is not None:
        ds.name = name
    return ds


def build_code(name: str, args, embedder, work: Path):
    """A code store indexed with the real model: (engine, data set of its chunks and questions), or None."""
    from codebase import index_project
    from memory_graph import Config, Engine

    from .data import Dataset, Doc, Query
    from .repos import DEFAULT_DIR, REPOS, load_repo

    root = args.repos or DEFAULT_DIR
    names = ["cobra"] if name == "cobra" else [n for n in REPOS if (root / REPOS[n][0]).is_dir()]
    if not names or not (root / REPOS[names[0]][0]).is_dir():
        return None
    eng = Engine(Path(tempfile.mkdtemp(dir=work)), config=Config.from_env(), embedder=embedder)
    queries = []
    for repo in names:
        index_project(eng, load_repo(repo, root).source, project=repo)
        queries += [Query(q.id, q.text, set(), group=repo) for q in load_repo(repo, root).queries]
    rows = eng.lance.query("code_chunks", None, ["id", "project", "path", "breadcrumb", "name", "content"]).to_pylist()
    docs = [Doc(r["id"], r["content"], title=f"{r['path']}: {r['breadcrumb'] or r['name'] or ''}".strip(),
                group=r["project"]) for r in rows]
    # spread over the repositories: the first questions of each in turn
    queries.sort(key=lambda q: (int(q.id.rsplit(":", 1)[1]), q.group))
    return eng, Dataset(name, "code", docs, queries[:args.queries], ("mrr@10",))


def chunk_vectors(eng, ds) -> np.ndarray:
    from memory_graph.store.lance import vector_matrix

    rows = eng.lance.query("code_chunks", None, ["id", "vector"])
    at = {i: n for n, i in enumerate(rows.column("id").to_pylist())}
    return vector_matrix(rows)[[at[d.id] for d in ds.docs]]


def measure(name: str, args, embedder, work: Path) -> dict | None:
    """Build memory-graph and the peers over one store and time every question on each, interleaved."""
    from memory_graph import Config, Engine

    from . import quality
    from .systems import BM25sDense, FixedEmbedder, LanceHybrid, TxtaiHybrid, txtai_available

    t_build = time.perf_counter()
    if name in ("cobra", "repos"):
        built = build_code(name, args, embedder, work)
        if built is None:
            return None
        eng, ds = built
        vectors = chunk_vectors(eng, ds)
    else:
        ds = load(name, args)
        ds.queries = ds.queries[:args.queries]
        vectors = quality.cached_vectors([d.full_text for d in ds.docs], embedder, args.cache, name)
        eng = Engine(Path(tempfile.mkdtemp(dir=work)), config=Config.from_env(), embedder=FixedEmbedder(embedder))
        items = [{"id": f"d{i}", "content": d.text, "title": d.title or None, "project": d.group,
                  "created_at": d.created_at, "memory_type": d.kind or "episodic"} for i, d in enumerate(ds.docs)]
        for start in range(0, len(items), 2_000):
            eng.store_many(items[start:start + 2_000], _vectors=vectors[start:start + 2_000])
    build_s = time.perf_counter() - t_build
    qvecs = np.stack([embedder.encode_query(q.text) for q in ds.queries]).astype(np.float32)
    peers = {"LanceDB hybrid": LanceHybrid(ds, vectors, work).ranker(qvecs)}
    if txtai_available():
        peers["txtai hybrid"] = TxtaiHybrid(ds, vectors, qvecs, embedder).ranker()
    peers["bm25s + dense (RRF)"] = BM25sDense(ds, vectors).rankers(qvecs)["bm25s + dense (RRF)"]

    def ask(q, timings=None):
        if ds.kind == "code":
            return eng.search_code(q.text, limit=10, project=q.group or None, timings=timings)
        return eng.search(q.text, limit=10, project=q.group or None, include_global=False, as_of=ds.asked_at,
                          use_decay=ds.asked_at is not None, timings=timings)

    for qi, q in enumerate(ds.queries[:5]):  # warm up: caches, the model's first runs, lazy imports
        ask(q)
        for run in peers.values():
            run(qi, 10)
    times: dict[str, list[float]] = {"memory-graph": [], **{p: [] for p in peers}}
    cpu: dict[str, float] = dict.fromkeys(times, 0.0)
    stages: dict[str, list[float]] = {}
    systems = list(times)
    for qi, q in enumerate(ds.queries):
        # each question starts with the next system: none always runs right after the same other one, whose
        # threads may still hold a core (memory-graph came after txtai and bm25s every time before)
        for system in systems[qi % len(systems):] + systems[:qi % len(systems)]:
            timings: dict[str, float] = {}
            c0, t0 = time.process_time(), time.perf_counter()
            if system == "memory-graph":
                ask(q, timings)
            else:
                # the vector the peer searches with was embedded before (the same model gives the same one)
                embedder.encode_query(q.text)
                peers[system](qi, 10)
            times[system].append(1000 * (time.perf_counter() - t0))
            cpu[system] += time.process_time() - c0
            if "legs" in timings:  # (it includes the embedding and the entity linking before the legs)
                timings["legs_wall"] = timings["legs"] - timings.get("embed", 0.0) - timings.get("link", 0.0)
            for k, v in timings.items():
                stages.setdefault(k, []).append(1000 * v)
    # an agent stores what it learned and searches again: the first search after a write, with what searches
    # keep between writes dropped and other processes' writes looked for, beside the same question asked right
    # before the write (a ratio per question, as the machine's speed moves)
    after_store, before_store = [], []
    if ds.kind != "code":
        for qi, q in enumerate(ds.queries[:AFTER_STORE]):
            t0 = time.perf_counter()
            ask(q)
            before_store.append(1000 * (time.perf_counter() - t0))
            eng.store(f"Note {qi} written between two questions: the staging deploy moved to Tuesday",
                      project=q.group or None)
            t0 = time.perf_counter()
            ask(q)
            after_store.append(1000 * (time.perf_counter() - t0))
    eng.close()
    n = len(ds.queries)
    p50 = {s: statistics.median(v) for s, v in times.items()}
    return {"store": STORES[name], "documents": len(ds.docs), "searches": n, "build_seconds": round(build_s, 1),
            "p50_ms": {s: round(v, 2) for s, v in p50.items()},
            "p95_ms": {s: round(float(np.percentile(v, 95)), 2) for s, v in times.items()},
            "ratio_to": {p: round(p50["memory-graph"] / p50[p], 2) for p in peers},
            "paired_ratio": {p: paired_ratio(times["memory-graph"], times[p]) for p in peers},
            "cpu_ms": {s: round(1000 * c / n, 2) for s, c in cpu.items()},
            "after_store_p50_ms": round(statistics.median(after_store), 2) if after_store else None,
            "after_store_ratio": paired_ratio(after_store, before_store) if after_store else None,
            "stages_ms": {k: round(statistics.median(v), 2) for k, v in
                          sorted(stages.items(), key=lambda kv: -statistics.median(kv[1]))}}


def paired_ratio(mine: list[float], theirs: list[float], resamples: int = 2_000, seed: int = 0) -> dict:
    """The median over questions of memory-graph's time over a peer's on the same question, with a 95% bootstrap
    interval over the questions (Efron & Tibshirani 1993): the two ran back to back on each question, so a
    question's ratio holds however fast the shared machine was at that moment."""
    ratio = np.asarray(mine, dtype=np.float64) / np.asarray(theirs, dtype=np.float64)
    if ratio.size == 0:
        return {"median": 0.0, "low": 0.0, "high": 0.0}
    rng = np.random.default_rng(seed)
    medians = np.median(ratio[rng.integers(0, ratio.size, size=(resamples, ratio.size))], axis=1)
    low, high = np.percentile(medians, [2.5, 97.5])
    return {"median": round(float(np.median(ratio)), 2), "low": round(float(low), 2), "high": round(float(high), 2)}


def table(results: dict) -> str:
    """The README's table: p50 ms of each system per store, and the median of memory-graph's time over the
    peer's on each question, with its 95% interval (``paired_ratio``)."""
    peers = [p for p in PEERS if any(p in r["p50_ms"] for r in results.values())]
    head = ["store", "docs", "memory-graph", *peers]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in results.values():
        cells = [r["store"], f"{r['documents']:,}", f"{r['p50_ms']['memory-graph']:.1f}"]
        for p in peers:
            pr = r.get("paired_ratio", {}).get(p)
            cells.append("-" if p not in r["p50_ms"] else
                         f"{r['p50_ms'][p]:.1f} (x{pr['median']:.2f}, {pr['low']:.2f}-{pr['high']:.2f})" if pr else
                         f"{r['p50_ms'][p]:.1f} (x{r['ratio_to'][p]:.2f})")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


#: the profile's columns: (heading, stage) in the order a search runs them
PROFILE = (("embed", "embed"), ("legs", "legs_wall"), ("vector search", "leg_vector"), ("BM25", "leg_bm25"),
           ("graph leg", "leg_graph"),
           ("entity linking", "link"), ("fusion", "fusion"), ("describe", "describe"), ("PPR subgraph", "ppr_edges"),
           ("PPR", "ppr"), ("decay", "decay"), ("updates", "updates"), ("MMR", "mmr"))


def profile(results: dict) -> str:
    """Where memory-graph's time goes: the median ms of each stage per store (the vector search is the vector
    leg, after the question's embedding, which runs beside BM25 and the graph leg: "legs" is the three together),
    and the p50 of a search right after a store, with the median ratio to the same question asked just before."""
    head = ["store", "p50", *(h for h, _ in PROFILE), "after a store"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in results.values():
        st = r["stages_ms"]
        cells = [r["store"], f"{r['p50_ms']['memory-graph']:.1f}"]
        cells += [f"{st[k]:.2f}" if k in st else "-" for _, k in PROFILE]
        after, ratio = r.get("after_store_p50_ms"), r.get("after_store_ratio")
        cells.append(f"{after:.1f} (x{ratio['median']:.2f})" if after else "-")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.latency", description=__doc__.split("\n")[0])
    p.add_argument("--stores", nargs="+", choices=list(STORES), default=list(STORES))
    p.add_argument("--queries", type=int, default=100, help="questions per store (default: 100)")
    p.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    p.add_argument("--repos", type=Path, default=None, help="the repositories' sources (python -m benchmarks.repos)")
    p.add_argument("--cache", type=Path, default=Path("results/cache"), help="embedding cache folder")
    p.add_argument("--json", type=Path, help="also write every figure here")
    args = p.parse_args(argv)

    from threadpoolctl import threadpool_limits

    from .report import write_json
    from .systems import engine_embedder

    # no query cache: every search embeds its question (a cached vector would make the second system's free)
    embedder = engine_embedder("", cache_size=0, query_cache_size=0)
    out = {}
    for name in args.stores:
        # BLAS and OpenMP on one thread for every system: their idle workers spin on after a product and take a
        # core from whichever system runs next; memory-graph holds BLAS so during its own searches anyway
        # (Config.search_blas_threads)
        with tempfile.TemporaryDirectory(prefix="mg-latency-") as work, threadpool_limits(1):
            res = measure(name, args, embedder, Path(work))
        if res is None:
            print(f"{name}: not fetched (python -m benchmarks.repos fetch)", file=sys.stderr)
            continue
        out[name] = res
        ratios = ", ".join(f"x{v['median']:.2f} {p}" for p, v in res["paired_ratio"].items())
        print(f"{name} ({res['documents']:,} docs, {res['searches']} searches): memory-graph p50 "
              f"{res['p50_ms']['memory-graph']:.1f} ms ({ratios}); stages: "
              + ", ".join(f"{k} {v:.1f}" for k, v in res["stages_ms"].items()), file=sys.stderr)
        write_json(args.json, out)  # after each store: a long run keeps what it measured
    print(table(out))
    print()
    print(profile(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
