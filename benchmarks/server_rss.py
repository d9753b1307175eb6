"""The MCP server's resident memory: the real server, started over stdio on a data directory, searched by the SDK's
client; its RSS is read from /proc after the searches (the design's budget: 600 MB with the model and 100k
memories)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path

import numpy as np


def _memory_kb(pid: int) -> dict[str, int]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0])
    return fields


def _server_pid(marker: str) -> int:
    """The child process whose environment carries ``marker`` (the stdio client does not expose its pid)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) != os.getpid():
                continue
            if marker.encode() in (entry / "environ").read_bytes():
                return int(entry.name)
        except (OSError, ValueError, IndexError):
            continue
    raise RuntimeError("the server process was not found among this process's children")


def server_rss(data_dir: Path, queries: list[str], model: str = "", searches: int = 50,
               extra_env: dict[str, str] | None = None, stores: int = 20) -> dict:
    """Start ``python -m server`` on ``data_dir``, run ``searches`` search_memory calls over stdio, and report the
    server's RSS then and its peak (VmHWM), with the calls' round-trip times; then time ``stores`` store_memory
    calls into the project the data is in (each embeds, writes every store, and looks for similar memories)."""
    from mcp import Client, StdioServerParameters

    probe = str(time.time_ns())  # marks the server's environment, so that its pid can be found
    env = {"MEMORY_GRAPH_HOME": str(data_dir), "HF_HUB_OFFLINE": "1", "MEMORY_GRAPH_RSS_PROBE": probe,
           "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    # the settings the harness's own engines read (Config.from_env), except where the data is
    env.update({k: v for k, v in os.environ.items() if k.startswith("MEMORY_GRAPH_") and k != "MEMORY_GRAPH_HOME"})
    if model:
        env["MEMORY_GRAPH_MODEL"] = model
    env.update(extra_env or {})
    params = StdioServerParameters(command=sys.executable, args=["-m", "server"], env=env, cwd=str(data_dir))

    async def go() -> dict:
        async with Client(params, read_timeout_seconds=600) as client:
            pid = _server_pid(f"MEMORY_GRAPH_RSS_PROBE={probe}")
            idle = _memory_kb(pid)["VmRSS"]  # before the first call: the engine may still be loading
            times, found = [], 0
            for i in range(searches):
                t = time.perf_counter()
                result = await client.call_tool("search_memory", {"query": queries[i % len(queries)], "scope": "all"})
                times.append(1000 * (time.perf_counter() - t))
                if result.is_error:
                    raise RuntimeError(result.content[0].text)
                found += len(json.loads(result.content[0].text)["results"])
            mem = _memory_kb(pid)
            stored = []
            for i in range(stores):
                t = time.perf_counter()
                result = await client.call_tool("store_memory", {
                    "content": f"{queries[i % len(queries)]} (stored over MCP, {i})", "project": ""})
                stored.append(1000 * (time.perf_counter() - t))
                if result.is_error:
                    raise RuntimeError(result.content[0].text)
            return {"rss_mb": round(mem["VmRSS"] / 1024, 1), "peak_rss_mb": round(mem["VmHWM"] / 1024, 1),
                    "rss_at_start_mb": round(idle / 1024, 1), "searches": searches,
                    "results_per_search": round(found / searches, 2),
                    "first_search_ms": round(times[0], 1),  # includes loading the model and the graph
                    "round_trip_ms_p50": round(float(np.percentile(times[1:], 50)), 2) if searches > 1 else None,
                    "store_round_trip_ms_p50": round(float(np.percentile(stored, 50)), 2) if stores else None}

    return asyncio.run(go())
