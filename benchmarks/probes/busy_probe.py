"""Search latency while the server indexes a project: the real server over stdio, driven by the SDK's client.

    python -m benchmarks.probes.busy_probe FOLDER [--searches 20]

Stores 20 memories, times ``search_memory`` round trips while idle, then starts ``index_project`` on FOLDER
(a first run: every file embedded) and times the same searches while it runs, one every 0.3 s. The index
run embeds on the process's model thread (``memory_graph.embedding.on_model_thread``); on ONNX Runtime a query
is embedded on its own thread beside it (a PyTorch model's waits for the batch the model is on). Prints the median, 90th percentile and largest milliseconds of each.
FOLDER must hold enough code to keep the run embedding for the searches' duration (rich 13.7.1's 80 files
take about 20 s here).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

from .. import scratch_dir


def _summary(ms: list[float]) -> str:
    ordered = sorted(ms)
    return (f"p50 {statistics.median(ms):.0f} ms, p90 {ordered[int(0.9 * (len(ms) - 1))]:.0f} ms, "
            f"max {ordered[-1]:.0f} ms ({len(ms)} searches)")


async def _probe(folder: Path, data_dir: Path, searches: int) -> dict[str, list[float]]:
    from mcp import Client, StdioServerParameters

    env = {**os.environ, "MEMORY_GRAPH_HOME": str(data_dir), "MEMORY_GRAPH_ALLOWED_ROOTS": str(folder),
           "HF_HUB_OFFLINE": "1"}
    params = StdioServerParameters(command=sys.executable, args=["-m", "server"], env=env, cwd=str(folder))
    async with Client(params, read_timeout_seconds=3600) as c:
        for i in range(20):
            await c.call_tool("store_memory", {"content": f"decision {i}: the renderer cache uses approach {i} "
                                                          f"because of memory limit {i * 7}"})

        async def timed(n: int, tag: str, until: asyncio.Task | None = None) -> list[float]:
            out = []
            for i in range(n):
                if until is not None and until.done():
                    break
                t = time.perf_counter()
                r = await c.call_tool("search_memory", {"query": f"renderer cache decision {i} {tag}"})
                out.append(1000 * (time.perf_counter() - t))
                if r.is_error:
                    raise RuntimeError(r.content[0].text)
                await asyncio.sleep(0.3)
            return out

        idle = await timed(searches, "idle")
        run = asyncio.create_task(c.call_tool("index_project", {"path": str(folder)}))
        await asyncio.sleep(3)  # past the scan: the run is embedding
        busy = await timed(searches, "busy", until=run)
        report = await run
        if report.is_error:
            raise RuntimeError(report.content[0].text)
        if not run.done() or len(busy) < searches:
            print(f"note: the index run ended after {len(busy)} of the searches", file=sys.stderr)
    return {"idle": idle, "while indexing": busy}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path, help="A code folder to index (a first run).")
    ap.add_argument("--searches", type=int, default=20, help="Searches timed in each state.")
    args = ap.parse_args(argv)
    results = asyncio.run(_probe(args.folder.resolve(), Path(scratch_dir()) / "data", args.searches))
    for name, ms in results.items():
        print(f"search_memory {name}: {_summary(ms)}")


if __name__ == "__main__":
    main()
