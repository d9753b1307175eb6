"""python -m benchmarks.cli_speed: cold wall time and CPU of the commands a new user types first.

Each command runs in a fresh process (``memory-graph`` from this environment) on a data directory holding a
few memories, ``--runs`` times; the median of each is reported. ``serve`` is timed from launch to the answer to
``initialize`` over stdio. CPU is the child's user plus system time (``os.wait4``), so a busy machine inflates
wall time more than CPU.

    python -m benchmarks.cli_speed [--runs 3]
    git worktree add /tmp/old COMMIT && python -m benchmarks.cli_speed --checkout /tmp/old   # another version
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

COMMANDS = [["--help"], ["--version"], ["list"], ["stats"], ["search", "billing timeouts", "--mode", "bm25"],
            ["search", "billing timeouts"]]
NOTES = ["Orion is the codename for the billing-api rewrite",
         "billing-api times out when the cache is cold",
         "Deploys of billing-api run on Tuesdays since March"]


def _run(argv: list[str], env: dict, stdin: str | None = None, until_line: bool = False) -> tuple[float, float]:
    """Wall and CPU seconds of one process; with ``until_line``, until its first line on stdout (then closed)."""
    t = time.perf_counter()
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
                         text=True)
    if until_line:
        p.stdin.write(stdin)
        p.stdin.flush()
        p.stdout.readline()
        wall = time.perf_counter() - t
        p.stdin.close()
    else:
        p.stdin.close()
        p.stdout.read()
        wall = time.perf_counter() - t
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)  # (reaped here: Popen must not wait for it again)
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--checkout", help="time the code of this checkout (a git worktree) instead of the installed "
                                       "memory-graph, with this environment's packages")
    args = ap.parse_args()
    if args.checkout:
        exe = [sys.executable, "-c", f"import sys; sys.path.insert(0, {os.path.abspath(args.checkout)!r}); "
                                     "from server.cli import app; app()"]
    else:
        found = shutil.which("memory-graph")
        if found is None:
            raise SystemExit("memory-graph is not on PATH: pip install -e . first")
        exe = [found]
    home = tempfile.mkdtemp(prefix="mg-cli-speed-")
    env = {**os.environ, "MEMORY_GRAPH_HOME": home, "HF_HUB_OFFLINE": "1"}
    for note in NOTES:
        subprocess.run([*exe, "store", note], env=env, check=True, capture_output=True)
    init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "cli_speed", "version": "0"}}})
    rows = []
    for cmd in COMMANDS + [["serve"]]:
        runs = [_run([*exe, *cmd], env, init + "\n", until_line=True) if cmd == ["serve"] else
                _run([*exe, *cmd], env) for _ in range(args.runs)]
        label = "serve, to the answer to initialize" if cmd == ["serve"] else " ".join(cmd)
        rows.append({"command": label, "wall_s": round(statistics.median(w for w, _ in runs), 2),
                     "cpu_s": round(statistics.median(c for _, c in runs), 2)})
    shutil.rmtree(home, ignore_errors=True)
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    print("| command | wall s | CPU s |\n|---|---|---|")
    for r in rows:
        print(f"| `memory-graph {r['command']}` | {r['wall_s']:.2f} | {r['cpu_s']:.2f} |")


if __name__ == "__main__":
    main()
