"""Speed and scale: search latency per stage at several sizes, store throughput, memory, disk; code indexing.

Engines here take their settings from ``MEMORY_GRAPH_<FIELD>`` variables (``Config.from_env``), as the server does,
so another setting can be measured without editing code."""

from __future__ import annotations

import logging
import resource
import re
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from memory_graph import Config, Engine, Filters

from .server_rss import server_rss
from .systems import FixedEmbedder

log = logging.getLogger("benchmarks")


def rss_mb() -> float:
    """Resident memory of this process now (MB)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def disk_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def pct(values: list[float], p: float) -> float:
    return float(np.percentile(values, p)) if values else float("nan")


def corpus_texts(locomo_docs, scifact_docs) -> list[str]:
    """Realistic memory-sized texts: LoCoMo turns and SciFact abstract sentences."""
    texts = [d.text for d in locomo_docs]
    for d in scifact_docs:
        texts += [s.strip() for s in re.split(r"(?<=[.!?])\s+", d.text) if len(s.strip()) > 30]
    return texts


def latency(texts: list[str], vectors: np.ndarray, queries: list[str], sizes: list[int], embedder,
            workdir: Path, n_queries: int, model: str = "", server: bool = True) -> dict:
    """For each size: load that many memories (texts and vectors reused cyclically, with a little noise on
    reused vectors), then time searches with the query embedding included (the query cache is cleared); with
    ``server``, also the resident memory of the MCP server started on that data (``server_rss``)."""
    out: dict = {}
    rng = np.random.default_rng(0)
    embedder.encode_query("load the model before the first size is timed")
    for n in sizes:
        d = Path(tempfile.mkdtemp(dir=workdir))
        eng = Engine(d, config=Config.from_env(), embedder=FixedEmbedder(embedder))
        t = time.perf_counter()
        for start in range(0, n, 5000):
            idx = [i % len(texts) for i in range(start, min(n, start + 5000))]
            vecs = vectors[idx].copy()
            reused = np.array([i >= len(texts) for i in range(start, start + len(idx))])
            if reused.any():
                vecs[reused] += rng.normal(0, 0.02, size=(int(reused.sum()), vecs.shape[1])).astype(np.float32)
                vecs[reused] /= np.linalg.norm(vecs[reused], axis=1, keepdims=True)
            items = [{"content": texts[i] if j < len(texts) else f"{texts[i]} (#{j})", "memory_type": "episodic"}
                     for i, j in zip(idx, range(start, start + len(idx)))]
            eng.store_many(items, _vectors=vecs)
        load_s = time.perf_counter() - t
        t = time.perf_counter()
        eng.optimize()
        optimize_s = time.perf_counter() - t
        qs = (queries * (n_queries // max(1, len(queries)) + 1))[:n_queries]
        for q in qs[:20]:  # warm up: page cache, JIT paths, graph structures
            eng.search(q, limit=10)
        stages: dict[str, list[float]] = {}
        totals = []
        for q in qs:
            forget_queries(embedder)
            timings: dict[str, float] = {}
            t = time.perf_counter()
            eng.search(q, limit=10, timings=timings)
            totals.append(1000 * (time.perf_counter() - t))
            for k, v in timings.items():
                stages.setdefault(k, []).append(1000 * v)
        recall = vector_recall(eng, embedder, qs[:100])
        foreign = after_foreign_writes(eng, d, texts, vectors, embedder, qs)
        disk = disk_bytes(d)
        # optimize keeps a minute of LanceDB versions for readers in other processes, and with them the
        # fragments compaction replaced; with every version but the latest gone: the size the data settles at
        eng.optimize(keep_versions_seconds=0)
        pruned = disk_bytes(d)
        out[str(n)] = {
            "memories": n, "load_seconds": round(load_s, 2), "load_per_s": round(n / load_s, 1),
            "optimize_seconds": round(optimize_s, 2),
            "search_ms": {"p50": pct(totals, 50), "p95": pct(totals, 95), "p99": pct(totals, 99)},
            "stages_ms_p50": {k: round(pct(v, 50), 3) for k, v in sorted(stages.items())},
            "stages_ms_p95": {k: round(pct(v, 95), 3) for k, v in sorted(stages.items())},
            "vector_index": eng.stats()["vector_index"], "vector_recall_at_10": recall, **foreign,
            "rss_mb": round(rss_mb(), 1),
            "peak_rss_mb": round(peak_rss_mb(), 1), "disk_mb": round(disk / 2**20, 1),
            "disk_mb_without_old_versions": round(pruned / 2**20, 1),
        }
        log.info("%d memories: search p50 %.1f ms, p95 %.1f ms", n, out[str(n)]["search_ms"]["p50"],
                 out[str(n)]["search_ms"]["p95"])
        eng.close()
        if server:
            out[str(n)]["server"] = server_rss(d, qs, model)
            log.info("%d memories: the MCP server's RSS %.0f MB (peak %.0f MB)", n, out[str(n)]["server"]["rss_mb"],
                     out[str(n)]["server"]["peak_rss_mb"])
        shutil.rmtree(d, ignore_errors=True)
    return out


def forget_queries(embedder) -> None:
    """Empty the embedder's caches, so that the next search embeds its query anew and pays for it."""
    for cache in (getattr(embedder, "_queries", None), getattr(embedder, "_cache", None)):
        if cache is not None:
            cache.clear()


def after_foreign_writes(eng, data_dir: Path, texts: list[str], vectors: np.ndarray, embedder, queries: list[str],
                         rounds: int = 10) -> dict:
    """A second engine on the same directory (another process, as far as the engine can tell) stores one
    memory, then ``eng`` searches: the search includes catching up with that write. Also the time a whole
    reload of the memory graph takes, which is what a catch-up would cost without the change log."""
    t = time.perf_counter()
    eng.sync.load_memory_graph()
    reload_ms = 1000 * (time.perf_counter() - t)
    other = Engine(data_dir, config=Config.from_env(), embedder=FixedEmbedder(embedder))
    times = []
    for i in range(rounds):
        other.store_many([{"content": f"{texts[i % len(texts)]} (written elsewhere {i})"}],
                         _vectors=vectors[i % len(texts)][None, :])
        forget_queries(embedder)  # as for the plain searches: the query's embedding is part of the time
        t = time.perf_counter()
        eng.search(queries[i % len(queries)], limit=10)
        times.append(1000 * (time.perf_counter() - t))
    other.close()
    return {"search_after_foreign_write_ms": {"p50": pct(times, 50), "max": max(times)},
            "graph_reload_ms": round(reload_ms, 1)}


def vector_recall(eng, embedder, queries: list[str], k: int = 10) -> float:
    """Mean share of the exact top ``k`` (LanceDB's flat search) that the engine's vector search returns:
    1.0 for its in-process copy and for flat search, the ANN index's recall with one."""
    table = eng.lance.table("memories")
    found = []
    for q in queries:
        vec = embedder.encode_query(q)
        got = set(eng.memory_search.nearest_memories(vec, Filters(include_invalid=True), None, time.time(), k)[0])
        exact = table.search(vec).metric("cosine").bypass_vector_index().limit(k).select(["id", "_distance"]).to_arrow()
        truth = set(exact.column("id").to_pylist())
        found.append(len(got & truth) / max(1, len(truth)))
    return round(float(np.mean(found)), 4) if found else 1.0


def store_throughput(texts: list[str], embedder, workdir: Path, single: int, batch: int) -> dict:
    """Memories per second, the model included: one store() at a time, one store() and its similar() (what the
    MCP tool store_memory does), and store_many in one batch."""
    d = Path(tempfile.mkdtemp(dir=workdir))
    eng = Engine(d, config=Config.from_env(), embedder=embedder)
    eng.store("warm up the model")
    t = time.perf_counter()
    for i in range(single):
        eng.store(f"{texts[i % len(texts)]} [single {i}]")
    single_s = time.perf_counter() - t
    t = time.perf_counter()
    for i in range(single):
        eng.similar(eng.store(f"{texts[i % len(texts)]} [similar {i}]"))
    similar_s = time.perf_counter() - t
    t = time.perf_counter()
    eng.store_many([{"content": f"{texts[i % len(texts)]} [batch {i}]"} for i in range(batch)])
    batch_s = time.perf_counter() - t
    eng.close()
    shutil.rmtree(d, ignore_errors=True)
    return {"single_per_s": round(single / single_s, 1), "with_similar_per_s": round(single / similar_s, 1),
            "batched_per_s": round(batch / batch_s, 1),
            "single_n": single, "batch_n": batch}


def indexing(repo: Path, embedder_factory, workdir: Path) -> dict:
    """Index a repository with the real model: files/s, chunks/s, time versus the model alone, re-index."""
    from codebase import index_project
    from memory_graph.code import chunk_embed_text

    d = Path(tempfile.mkdtemp(dir=workdir))
    eng = Engine(d, config=Config.from_env(), embedder=embedder_factory())
    first = index_project(eng, repo, project="bench")
    t = time.perf_counter()
    second = index_project(eng, repo, project="bench")
    reindex_s = time.perf_counter() - t
    rows = eng.lance.query("code_chunks", None, ["path", "breadcrumb", "signature", "content"]).to_pylist()
    texts = [chunk_embed_text(r["path"], r["breadcrumb"], r["signature"], r["content"]) for r in rows]
    fresh = embedder_factory()  # an empty cache: the model alone on the same chunks
    fresh.encode(["warm up"])
    t = time.perf_counter()
    for start in range(0, len(texts), 256):
        fresh.encode(texts[start:start + 256])
    model_s = time.perf_counter() - t
    eng.close()
    shutil.rmtree(d, ignore_errors=True)
    return {"repo": str(repo), "files": first.files_indexed, "chunks": first.chunks, "symbols": first.symbols,
            "edges": first.edges, "seconds": first.seconds, "embed_seconds": first.embed_seconds,
            "files_per_s": round(first.files_indexed / first.seconds, 1),
            "chunks_per_s": round(first.chunks / first.seconds, 1),
            "model_alone_seconds": round(model_s, 2),
            "index_to_model_ratio": round(first.seconds / model_s, 3) if model_s else None,
            "embedding_share": round(first.embed_seconds / first.seconds, 3) if first.seconds else None,
            "reindex_unchanged_seconds": round(reindex_s, 3), "reindex_files_indexed": second.files_indexed,
            "skipped": first.skipped}

