"""python -m benchmarks.hooks_replay: replays scripted Claude Code sessions through real hook processes.

Question: once `memory-graph hooks install` is in place, do later prompts get the facts earlier sessions left,
without the agent calling a tool, in how many tokens, and how long does each hook keep the agent waiting?

The six sessions of ``benchmarks/hook_sessions.py`` (a small invoicing service; prompts, reads, failing
commands, edits that fix them, decisions) run in a fresh git repository and data directory: each step becomes
the payload Claude Code sends (SessionStart, UserPromptSubmit, PostToolUse or PostToolUseFailure, Stop,
SessionEnd), piped into ``python -m memory_graph hook EVENT`` as a new process, as Claude Code runs it; the
daemon it starts keeps the store and the packaged model warm. Probes are prompts asked at the start of a later
session: one counts as recalled when the agent's context holds the fact by then, from the session's digest or
what this prompt or an earlier one of the session injected (a memory is injected once per session, until the
context is cleared or compacted). Reported: probes recalled (so, by this prompt's own context alone, and by the
digest alone), prompts nothing answers that got context anyway, tokens injected (four characters each), and each hook's wall time p50 and p95 (a new process each,
Python's start included).

    python -m benchmarks.hooks_replay [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .hook_sessions import PROBES, SESSIONS, UNANSWERED


def _payload(event: str, session: str, cwd: Path, transcript: Path, **fields) -> dict:
    return {"session_id": session, "transcript_path": str(transcript), "cwd": str(cwd), "permission_mode": "default",
            "hook_event_name": event, **fields}


class Replay:
    def __init__(self, home: Path, cwd: Path) -> None:
        self.home, self.cwd = home, cwd
        self.env = {**os.environ, "MEMORY_GRAPH_HOME": str(home)}
        self.times: dict[str, list[float]] = {}

    def hook(self, event: str, payload: dict) -> str:
        t = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "memory_graph", "hook", event], input=json.dumps(payload).encode(),
                              capture_output=True, env=self.env, timeout=120)
        self.times.setdefault(event, []).append(time.perf_counter() - t)
        if done.returncode != 0:
            raise RuntimeError(done.stderr.decode())
        out = done.stdout.decode().strip()
        return json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else ""

    def step(self, session: str, transcript: Path, step: tuple) -> None:
        kind = step[0]
        tool = {"read": "Read", "grep": "Grep", "bash": "Bash", "edit": "Edit", "write": "Write"}.get(kind)
        if kind == "say":
            _append(transcript, "assistant", step[1])
            return
        if kind == "read":
            inp, out = {"file_path": str(self.cwd / step[1])}, {"type": "text", "file": {"content": "..."}}
        elif kind == "grep":
            inp, out = {"pattern": step[1]}, {"numFiles": 2, "filenames": ["ledger/db.py"]}
        elif kind == "edit":
            inp = {"file_path": str(self.cwd / step[1]), "old_string": step[2], "new_string": step[3]}
            out = {"filePath": inp["file_path"], "oldString": step[2], "newString": step[3]}
        elif kind == "write":
            inp, out = {"file_path": str(self.cwd / step[1]), "content": step[2]}, {"type": "create"}
        else:
            inp = {"command": step[1]}
            if step[3]:
                self.hook("PostToolUseFailure", _payload("PostToolUseFailure", session, self.cwd, transcript,
                                                         tool_name=tool, tool_input=inp,
                                                         error=f"Exit code {step[3]}\n{step[2]}"))
                return
            out = {"stdout": step[2], "stderr": "", "interrupted": False, "isImage": False}
        self.hook("PostToolUse", _payload("PostToolUse", session, self.cwd, transcript, tool_name=tool,
                                          tool_input=inp, tool_response=out))


def _append(transcript: Path, role: str, text: str) -> None:
    entry = {"type": role, "message": {"role": role, "content": text if role == "user" else
                                       [{"type": "text", "text": text}]}, "isSidechain": False}
    with open(transcript, "a", encoding="utf-8") as f:
        f.write(json.dumps(entry) + "\n")


def run(work: Path) -> dict:
    cwd, home = work / "ledger", work / "home"
    cwd.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(cwd)], check=True)
    r = Replay(home, cwd)
    recalled, in_prompt, in_digest, injected, false_hits, tool_calls = [], [], [], [], 0, 0
    missed: dict[str, str] = {}
    try:
        for i, steps in enumerate(SESSIONS):
            session, transcript = f"replay-session-{i}", work / f"session-{i}.jsonl"
            transcript.touch()
            digest = r.hook("SessionStart", _payload("SessionStart", session, cwd, transcript, source="startup"))
            seen = digest  # what the agent has in its context this session: a memory is injected once
            for at, prompt, fact in PROBES:
                if at == i:
                    context = r.hook("UserPromptSubmit", _payload("UserPromptSubmit", session, cwd, transcript,
                                                                  prompt=prompt))
                    seen += "\n" + context
                    recalled.append(fact in seen)
                    in_prompt.append(fact in context)
                    if fact not in seen:
                        missed[prompt] = context
                    in_digest.append(fact in digest)
                    injected += [len(context)] if context else []
            for at, prompt in UNANSWERED:
                if at == i:
                    context = r.hook("UserPromptSubmit", _payload("UserPromptSubmit", session, cwd, transcript,
                                                                  prompt=prompt))
                    false_hits += bool(context)
                    injected += [len(context)] if context else []
            for step in steps:
                if step[0] == "prompt":
                    _append(transcript, "user", step[1])
                    context = r.hook("UserPromptSubmit", _payload("UserPromptSubmit", session, cwd, transcript,
                                                                  prompt=step[1]))
                    injected += [len(context)] if context else []
                else:
                    tool_calls += step[0] != "say"
                    r.step(session, transcript, step)
            r.hook("Stop", _payload("Stop", session, cwd, transcript, stop_hook_active=False))
            r.hook("SessionEnd", _payload("SessionEnd", session, cwd, transcript, reason="prompt_input_exit"))
    finally:
        from memory_graph.hooks.client import request

        request(home, {"op": "stop"}, wait=10.0)
    every = [t for ts in r.times.values() for t in ts]
    ms = lambda xs, q: round(1000 * float(__import__("numpy").percentile(xs, q)), 1)  # noqa: E731
    return {
        "sessions": len(SESSIONS), "tool_calls": tool_calls, "hook_calls": len(every),
        "probes": len(PROBES), "recalled_in_context": sum(recalled), "recalled_in_this_prompts_context": sum(in_prompt),
        "recalled_in_digest": sum(in_digest),
        "missed": missed,
        "unanswered_prompts": len(UNANSWERED), "unanswered_with_context": false_hits,
        "tokens_per_injected_prompt": {"mean": round(statistics.mean(injected) / 4) if injected else 0,
                                       "max": round(max(injected) / 4) if injected else 0},
        "latency_ms": {e: {"p50": ms(ts, 50), "p95": ms(ts, 95), "n": len(ts)} for e, ts in r.times.items()},
        "latency_ms_all": {"p50": ms(every, 50), "p95": ms(every, 95)},
    }


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.hooks_replay", description=__doc__.split("\n")[0])
    p.add_argument("--json", type=Path, help="also write the figures here")
    p.add_argument("--keep", type=Path, help="replay in this (new) folder and keep it: its home/ is the data directory")
    args = p.parse_args(argv)
    if args.keep:
        res = run(args.keep)
    else:
        with tempfile.TemporaryDirectory(prefix="mg-hooks-replay-") as work:
            res = run(Path(work))
    print(json.dumps(res, indent=2))
    if args.json:
        args.json.write_text(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
