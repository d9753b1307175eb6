"""`memory-graph hook EVENT`: what each hook runs. Reads the agent's payload on stdin, hands it to the daemon
(starting it when it is not running) and prints the answer the agent expects.

Light and harmless by design: it imports no Engine, and on any error it prints nothing on stdout, notes the
error in ``DATA_DIR/hooks/hook.log`` and exits 0, so a broken memory never blocks a session.
``MEMORY_GRAPH_HOOKS=off`` turns every hook into a no-op.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from . import claude
from .events import Event

MAX_PAYLOAD_BYTES = 8_000_000
#: the events that need no answer: spooled, applied by the daemon when it gets to them
SPOOLED = ("tool", "session_stop", "session_end")


def main(event_name: str, data_dir: Path | None = None, stdin=None, stdout=None) -> int:
    """Run one hook; always returns 0."""
    stdin = stdin if stdin is not None else sys.stdin.buffer
    stdout = stdout if stdout is not None else sys.stdout
    folder = None
    try:
        if os.environ.get("MEMORY_GRAPH_HOOKS", "").strip().lower() in ("off", "0", "false", "no"):
            return 0
        from ..config import Config, default_data_dir

        data_dir = Path(data_dir).expanduser() if data_dir else default_data_dir()
        folder = data_dir / "hooks"
        payload = json.loads(stdin.read(MAX_PAYLOAD_BYTES) or b"{}")
        ev = claude.parse(event_name, payload)
        config = Config.from_env()
        context = None
        if ev.kind == "tool" and ev.tool not in claude.CAPTURED_TOOLS:
            return 0  # a read or a search: nothing to keep (the installed matcher does not even send these)
        if ev.kind in SPOOLED:
            spool(folder, ev)
            request(data_dir, {"op": "drain"}, wait=0.0)
        elif ev.kind == "session_start":
            context = request(data_dir, {"op": "event", "event": _safe(ev)}, config.hooks_start_wait_seconds)
        else:
            reply = request(data_dir, {"op": "event", "event": _safe(ev)}, config.hooks_prompt_wait_seconds)
            if reply is None and not _running(folder):
                spool(folder, ev)  # the daemon starts now; the prompt still counts for the session's summary
            context = reply
        out = claude.answer(event_name, context)
        if out:
            stdout.write(out + "\n")
            stdout.flush()
    except Exception as exc:  # noqa: BLE001 - a hook must never fail the agent's session
        _note(folder, f"{event_name}: {type(exc).__name__}: {exc}")
    return 0


#: a string of a payload longer than this keeps its head and its tail: a command's error and a test run's
#: counts are at its end, and scrubbing secrets takes time in proportion to the text, in the process the agent
#: waits for
MAX_FIELD_CHARS = 16_000


def _bounded(value):
    """A JSON value with each long string cut to its first quarter and last three quarters of MAX_FIELD_CHARS."""
    if isinstance(value, str) and len(value) > MAX_FIELD_CHARS:
        head = MAX_FIELD_CHARS // 4
        return value[:head] + "\n…\n" + value[-(MAX_FIELD_CHARS - head):]
    if isinstance(value, dict):
        return {k: _bounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_bounded(v) for v in value]
    return value


def _safe(ev: Event) -> dict:
    """The event as it may be written or sent: long strings cut (a written file's text replaced by its number of
    lines, all capture keeps of it), private spans and secrets out of every string in it."""
    if ev.tool == "Write" and isinstance(ev.tool_input.get("content"), str):
        content = ev.tool_input["content"]
        ev.tool_input = {**ev.tool_input, "content": "", "content_lines": content.count("\n") + 1 if content else 0}
        ev.tool_output = None
    from ..secrets import mask_secrets
    from ..validation import strip_private

    def scrub(v):
        if isinstance(v, str):
            return mask_secrets(strip_private(v))[0]
        if isinstance(v, dict):
            return {k: scrub(x) for k, x in v.items()}
        if isinstance(v, list):
            return [scrub(x) for x in v]
        return v

    return scrub(_bounded(ev.to_dict()))


def spool(folder: Path, ev: Event) -> Path:
    """Write the event to the daemon's spool (whole or not at all: written aside, then renamed)."""
    target = folder / "spool"
    target.mkdir(parents=True, exist_ok=True)
    name = f"{time.time_ns():020d}-{os.getpid()}"
    tmp = target / f".{name}.tmp"
    tmp.write_text(json.dumps(_safe(ev)), encoding="utf-8")
    path = target / f"{name}.json"
    os.replace(tmp, path)
    return path


def _running(folder: Path) -> dict | None:
    """The running daemon's port, token and pid, or None."""
    try:
        info = json.loads((folder / "daemon.json").read_text(encoding="utf-8"))
        if os.name != "nt":  # on Windows signal 0 is CTRL_C_EVENT: a refused connection tells instead
            os.kill(int(info["pid"]), 0)
        return info
    except (OSError, ValueError, KeyError, TypeError):
        return None


def start_daemon(data_dir: Path) -> None:
    """Start the daemon detached from this process (it exits at once if another one serves ``data_dir``)."""
    folder = data_dir / "hooks"
    folder.mkdir(parents=True, exist_ok=True)
    kw: dict = {"start_new_session": True} if os.name != "nt" else {
        "creationflags": getattr(subprocess, "DETACHED_PROCESS", 0) | getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}
    with open(folder / "daemon.log", "ab") as errors:
        subprocess.Popen([sys.executable, "-m", "memory_graph.hooks.daemon", str(data_dir)], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=errors, close_fds=True, **kw)


def request(data_dir: Path, req: dict, wait: float):
    """Send ``req`` to the daemon and return its context; starts the daemon if it is not running. Waits at most
    ``wait`` seconds for the answer (0: send, do not wait); None when there is none in time."""
    folder = data_dir / "hooks"
    deadline = time.monotonic() + wait
    info = _running(folder)
    if info is None:
        start_daemon(data_dir)
        while info is None and time.monotonic() < deadline:
            time.sleep(0.05)
            info = _running(folder)
        if info is None:
            return None
    try:
        with socket.create_connection(("127.0.0.1", int(info["port"])), timeout=max(0.2, min(wait, 1.0))) as s:
            s.sendall(json.dumps({**req, "token": info["token"]}).encode() + b"\n")
            if wait <= 0:
                return None
            s.settimeout(max(0.05, deadline - time.monotonic()))
            buf = b""
            while not buf.endswith(b"\n"):
                part = s.recv(65_536)
                if not part:
                    break
                buf += part
    except ConnectionRefusedError:  # daemon.json outlived its daemon (a kill -9), and its pid is someone else's now
        start_daemon(data_dir)
        return None
    except OSError:
        return None
    reply = json.loads(buf or b"{}")
    if not reply.get("ok"):
        _note(folder, f"daemon: {reply.get('error')}")
        return None
    return reply.get("context")


def _note(folder: Path | None, line: str) -> None:
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / "hook.log", "a", encoding="utf-8") as f:
            f.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {line}\n")
    except OSError:
        pass
