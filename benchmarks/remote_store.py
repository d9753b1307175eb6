"""python -m benchmarks.remote_store: the store on object storage beside the local disk, in one run.

Starts moto's S3 server (``pip install 'moto[server]'``) on 127.0.0.1 and, for each size, builds one store of
the devnotes padded with generated notes in the bucket and one in a local data directory, the same way:

- bulk: ``store_many`` in batches of 100, optimizing neither (many small appends: one fragment per batch);
- single: 50 ``store`` calls, one memory each (an agent's writes), timed;
- search from a second engine (on the bucket, with a data directory of its own, as another machine), 100 questions of the devnotes, before and after
  ``optimize`` (compaction and version pruning): p50 and p95 ms, and HTTP requests per search (the server's
  request log).

Vectors come from a hashing embedder (384 dimensions), so the figures are the store's, not the model's; the
engine's own settings otherwise (store_refresh_seconds, sync_check_seconds). The machine is shared: compare
the two columns of one run, not runs.

    python -m benchmarks.remote_store --sizes 1000 10000 --json benchmarks/figures/remote_store.json
    python -m benchmarks.remote_store --table benchmarks/figures/remote_store.json   # the table of a run
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import numpy as np

BUCKET = "bench"
REQUEST = re.compile(r'"(GET|PUT|HEAD|POST|DELETE) ')


class HashingEmbedder:
    """Deterministic 384-dimension vectors of hashed words: the store's cost without the model's."""

    name = "hashing-384"
    dimension = 384
    loaded = True

    def _one(self, text: str) -> np.ndarray:
        v = np.zeros(self.dimension, dtype=np.float32)
        for w in re.findall(r"\w+", text.lower()) or ["<empty>"]:
            h = int.from_bytes(hashlib.blake2b(w.encode(), digest_size=8).digest(), "little")
            v[h % self.dimension] += 1.0 if (h >> 40) & 1 else -1.0
        n = np.linalg.norm(v)
        return v / n if n else v

    def encode(self, texts, **_):
        return np.stack([self._one(t) for t in texts]) if len(texts) else np.zeros((0, self.dimension), np.float32)

    def encode_query(self, text: str) -> np.ndarray:
        return self._one(text)


class S3Server:
    """moto's S3 server on a free port of 127.0.0.1, its request log counted."""

    def __init__(self, work: Path) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.log = work / "moto.log"
        self.proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
                                     stdout=subprocess.DEVNULL, stderr=self.log.open("w"))
        self.url = f"http://127.0.0.1:{self.port}"
        deadline = time.time() + 30
        while True:
            try:
                urllib.request.urlopen(self.url, timeout=1).close()
                break
            except OSError:
                if self.proc.poll() is not None or time.time() > deadline:
                    raise SystemExit(f"moto's S3 server did not start (pip install 'moto[server]'); see {self.log}")
                time.sleep(0.2)
        os.environ.update(AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench", AWS_REGION="us-east-1",
                          AWS_ENDPOINT_URL=self.url, AWS_ALLOW_HTTP="true")
        urllib.request.urlopen(urllib.request.Request(f"{self.url}/{BUCKET}", method="PUT")).close()

    def requests(self) -> int:
        with self.log.open() as f:
            return sum(1 for line in f if REQUEST.search(line))

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)


def _pct(values: list[float], p: float) -> float:
    return round(float(np.percentile(values, p)), 2)


def _searches(eng, queries: list[str], server: S3Server | None, spaced: int) -> dict:
    """Warm searches back to back (p50, p95, requests each), then ``spaced`` searches each past
    ``sync_check_seconds`` (every one then asks the store whether it moved: the requests of an agent's
    occasional search)."""
    for q in queries[:5]:  # warm
        eng.search(q, limit=10)
    before = server.requests() if server else 0
    times = []
    for q in queries:
        t = time.perf_counter()
        eng.search(q, limit=10)
        times.append((time.perf_counter() - t) * 1000)
    out = {"p50_ms": _pct(times, 50), "p95_ms": _pct(times, 95)}
    if server:
        time.sleep(0.3)  # the log is written after the answer
        out["requests_per_search"] = round((server.requests() - before) / len(queries), 2)
        before, times = server.requests(), []
        for q in queries[:spaced]:
            time.sleep(eng.config.sync_check_seconds + 0.1)
            t = time.perf_counter()
            eng.search(q, limit=10)
            times.append((time.perf_counter() - t) * 1000)
        time.sleep(0.3)
        out["spaced_p50_ms"] = _pct(times, 50)
        out["requests_per_spaced_search"] = round((server.requests() - before) / spaced, 2)
    return out


def _open(path: Path, cfg, server: S3Server | None):
    """A new engine on ``path`` (for the bucket, a machine that has never opened it): it, its seconds and
    requests."""
    from memory_graph import Engine

    before, t = server.requests() if server else 0, time.perf_counter()
    eng = Engine(path, config=cfg, embedder=HashingEmbedder())
    seconds = round(time.perf_counter() - t, 2)
    time.sleep(0.3 if server else 0)
    return eng, {"open_s": seconds, **({"open_requests": server.requests() - before} if server else {})}


def run_size(size: int, where: str, server: S3Server | None, work: Path, n_queries: int, spaced: int) -> dict:
    from memory_graph import Config, Engine

    from .devnotes import load_devnotes

    ds = load_devnotes(pad_to=size)
    texts = [d.text for d in ds.docs][:size]
    queries = [q.text for q in ds.queries][:n_queries]
    uri = f"s3://{BUCKET}/{where}-{size}-{time.time_ns()}" if server else ""
    cfg = Config.from_env(store_uri=uri, store_conditional_writes="yes", optimize_every_rows=10 ** 9)
    writer = Engine(work / f"{where}-{size}-writer", config=cfg, embedder=HashingEmbedder())
    t = time.perf_counter()
    for start in range(0, len(texts) - 50, 100):
        writer.store_many([{"content": c} for c in texts[start:min(start + 100, len(texts) - 50)]])
    bulk_s = time.perf_counter() - t
    t = time.perf_counter()
    for c in texts[-50:]:
        writer.store(c)
    single_s = time.perf_counter() - t
    out = {"bulk_memories_per_s": round((len(texts) - 50) / bulk_s, 1),
           "single_store_ms": round(single_s / 50 * 1000, 1)}
    for phase in ("before_optimize", "after_optimize"):
        if phase == "after_optimize":
            writer.optimize(keep_versions_seconds=0)
        # another machine (its own data directory) on the bucket; another process on the local store's folder
        reader, opened = _open(work / f"{where}-{size}-{'reader-' + phase if server else 'writer'}", cfg, server)
        assert reader.lance.count("memories") == len(texts)
        out[phase] = {**opened, **_searches(reader, queries, server, spaced)}
        reader.close()
    writer.close()
    return out


def table(results: dict) -> str:
    lines = ["| memories | store | bulk, memories/s | one store, ms | optimized | open s (requests) | "
             "search p50 / p95 ms | spaced search p50 ms | requests per search, back to back / spaced |",
             "|---|---|---|---|---|---|---|---|---|"]
    for size, by_where in results["sizes"].items():
        for where, r in by_where.items():
            for phase, said in (("before_optimize", "no"), ("after_optimize", "yes")):
                p = r[phase]
                opened = f"{p['open_s']}" + (f" ({p['open_requests']})" if "open_requests" in p else "")
                reqs = (f"{p['requests_per_search']} / {p['requests_per_spaced_search']}"
                        if "requests_per_search" in p else "-")
                lines.append(f"| {int(size):,} | {where} | {r['bulk_memories_per_s']:,} | {r['single_store_ms']} | "
                             f"{said} | {opened} | {p['p50_ms']} / {p['p95_ms']} | {p.get('spaced_p50_ms', '-')} | "
                             f"{reqs} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--spaced", type=int, default=10, help="searches each after sync_check_seconds of quiet")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--table", type=Path, default=None, help="print the table of a run's JSON, and stop")
    args = ap.parse_args(argv)
    if args.table:
        import json

        print(table(json.loads(args.table.read_text())))
        return 0
    work = Path(tempfile.mkdtemp(prefix="mg-remote-bench-"))
    server = S3Server(work)
    results: dict = {"command": "python -m benchmarks.remote_store " + " ".join(argv or sys.argv[1:]),
                     "sizes": {}}
    try:
        for size in args.sizes:
            results["sizes"][str(size)] = {
                "local disk": run_size(size, "local", None, work, args.queries, args.spaced),
                "S3 (moto on 127.0.0.1)": run_size(size, "s3", server, work, args.queries, args.spaced)}
            print(table(results), file=sys.stderr)
    finally:
        server.stop()
    print(table(results))
    from .report import write_json

    write_json(args.json, results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
