"""python -m benchmarks.probes.mcp_probe FOLDER [SYMBOL]: the MCP server as a client with a 60 s request timeout sees it.

Starts ``memory-graph serve`` over stdio in FOLDER (a fresh data directory under a temporary folder, holding
three memories), times ``initialize`` and the first ``search_memory`` answer from launch, lists the tools,
indexes the folder through ``index_project`` with a progress
callback, and reports the longest silence between two progress notifications (a client whose timeout resets
on progress needs it well under its timeout), then asks ``symbol_graph`` for SYMBOL's callees.

    pip download --no-binary :all: --no-deps attrs==23.2.0 -d /tmp && tar xzf /tmp/attrs-23.2.0.tar.gz -C /tmp
    python -m benchmarks.probes.mcp_probe /tmp/attrs-23.2.0 attrs.define      # from this repository's root
    python -m benchmarks.probes.mcp_probe /tmp/attrs-23.2.0 attrs.define --busy 2   # beside 2 busy processes
    python -m benchmarks.probes.mcp_probe /tmp/attrs-23.2.0 --start-only    # start-up only: no index_project
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time


async def probe(folder: str, symbol: str | None, timeout: float, index: bool = True) -> dict:
    from mcp import Client, StdioServerParameters

    home = tempfile.mkdtemp(prefix="mg-mcp-probe-")
    from memory_graph import Engine

    seeded = Engine(home)  # what a user's store holds before the client starts the server
    seeded.store_many([{"content": t} for t in ("The release build runs `make dist` and signs the wheel",
                                                "Staging deploys go out on Tuesdays after the QA sign-off",
                                                "The flaky test in test_pool.py times out on CI only")])
    seeded.close()
    env = {**os.environ, "MEMORY_GRAPH_HOME": home, "HF_HUB_OFFLINE": "1",
           "MEMORY_GRAPH_ALLOWED_ROOTS": os.path.dirname(os.path.abspath(folder))}
    params = StdioServerParameters(command="memory-graph", args=["serve"], env=env, cwd=os.path.abspath(folder))
    t0 = time.perf_counter()
    # the SDK's own timeout does not restart on progress: it is off, and `timeout` is enforced below as a client
    # whose timeout restarts on each progress notification would (the MCP TypeScript SDK's resetTimeoutOnProgress)
    async with Client(params, read_timeout_seconds=None) as c:
        out: dict = {"initialize_s": round(time.perf_counter() - t0, 2)}
        found = await c.call_tool("search_memory", {"query": "how is a release built"})
        out["first_search_s"] = round(time.perf_counter() - t0, 2)
        out["first_search_hits"] = len(json.loads(found.content[0].text).get("results", []))
        out["tools"] = len((await c.list_tools()).tools)
        if not index:
            return out
        stamps: list[float] = []

        async def on_progress(progress, total, message):
            stamps.append(time.perf_counter())

        t1 = time.perf_counter()
        call = asyncio.ensure_future(c.call_tool("index_project", {}, progress_callback=on_progress))
        while not call.done():
            await asyncio.wait([call], timeout=1.0)
            if not call.done() and time.perf_counter() - max([t1, *stamps]) > timeout:
                call.cancel()
                out["gave_up_after_silence_s"] = timeout
                break
        report = json.loads(call.result().content[0].text) if call.done() and not call.cancelled() else {}
        gaps = [b - a for a, b in zip([t1] + stamps, stamps)]
        out.update(index_s=round(time.perf_counter() - t1, 1), files=report.get("files_indexed"),
                   chunks=report.get("chunks"), notifications=len(stamps),
                   longest_silence_s=round(max(gaps, default=0.0), 1))
        if symbol:
            g = await c.call_tool("symbol_graph", {"symbol": symbol, "relation": "callees"})
            found = {} if g.is_error else json.loads(g.content[0].text)
            out["symbol"] = f"{found['symbol']['qualname']} ({found['symbol']['path']})" if found else \
                g.content[0].text
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder")
    ap.add_argument("symbol", nargs="?")
    ap.add_argument("--timeout", type=float, default=60.0, help="the client's request timeout, seconds")
    ap.add_argument("--start-only", action="store_true", help="stop after the first search (no index_project)")
    ap.add_argument("--busy", type=int, default=0, help="processes that keep a core busy meanwhile (a busy machine)")
    args = ap.parse_args()
    import subprocess
    import sys

    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)]
    try:
        print(json.dumps(asyncio.run(probe(args.folder, args.symbol, args.timeout, not args.start_only)), indent=1))
    finally:
        for h in hogs:
            h.kill()


if __name__ == "__main__":
    main()
