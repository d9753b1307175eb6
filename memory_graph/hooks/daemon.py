"""The hooks' daemon: one process per data directory that keeps the Engine and its model warm between hook calls.

It listens on 127.0.0.1 on a port of its own choosing and writes the port, a random token and its pid to
``DATA_DIR/hooks/daemon.json`` (readable by its user only); a request must carry the token. Events that need
no answer wait in ``DATA_DIR/hooks/spool`` until it applies them, so none is lost when it is not running. It
exits after ``Config.hooks_idle_seconds`` without a request.

    python -m memory_graph.hooks.daemon DATA_DIR
"""

from __future__ import annotations

import hmac
import json
import logging
import os
import secrets
import socket
import sys
import time
from pathlib import Path

from .events import Event

log = logging.getLogger(__name__)

MAX_REQUEST_BYTES = 8_000_000


def _read_line(conn: socket.socket) -> bytes:
    buf = b""
    while not buf.endswith(b"\n") and len(buf) < MAX_REQUEST_BYTES:
        part = conn.recv(65_536)
        if not part:
            break
        buf += part
    return buf


def drain(service, spool: Path) -> int:
    """Apply the spooled events in the order they came; returns how many."""
    done = 0
    for path in sorted(spool.glob("*.json")):
        try:
            ev = Event.from_dict(json.loads(path.read_text(encoding="utf-8")))
            service.handle(ev)
        except Exception:  # a bad event is dropped, never retried forever
            log.exception("hook daemon: dropping the spooled event %s", path.name)
        path.unlink(missing_ok=True)
        done += 1
    return done


def serve(data_dir: Path, idle_seconds: float | None = None) -> int:
    """Serve hook requests for ``data_dir`` until idle; returns at once if another daemon already serves it."""
    from filelock import FileLock, Timeout

    folder = data_dir / "hooks"
    spool = folder / "spool"
    spool.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(folder / "daemon.lock"))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        return 0
    info = folder / "daemon.json"
    token = secrets.token_hex(16)
    server = socket.create_server(("127.0.0.1", 0))
    engine = None
    try:
        tmp = info.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump({"port": server.getsockname()[1], "token": token, "pid": os.getpid()}, f)
        os.replace(tmp, info)
        from ..engine import Engine
        from .service import HookService

        engine = Engine(data_dir, load_model_in_background=True)
        service = HookService(engine)
        idle = engine.config.hooks_idle_seconds if idle_seconds is None else idle_seconds
        drain(service, spool)
        server.settimeout(1.0)
        last = time.monotonic()
        while time.monotonic() - last < idle:
            try:
                conn, _ = server.accept()
            except socket.timeout:
                drain(service, spool)
                continue
            last = time.monotonic()
            with conn:
                op = _answer(conn, token, service, spool)
            if op == "stop":
                break
            drain(service, spool)
    finally:
        server.close()
        try:
            if json.loads(info.read_text(encoding="utf-8")).get("pid") == os.getpid():
                info.unlink()
        except (OSError, ValueError):
            pass
        if engine is not None:
            engine.close()
        lock.release()
    return 0


def _answer(conn: socket.socket, token: str, service, spool: Path) -> str:
    conn.settimeout(10.0)
    reply: dict = {"ok": True}
    op = ""
    try:
        req = json.loads(_read_line(conn) or b"{}")
        if not hmac.compare_digest(str(req.get("token", "")), token):
            reply = {"ok": False, "error": "bad token"}
        else:
            op = req.get("op", "")
            ev = Event.from_dict(req["event"]) if op == "event" else None
            # a prompt is answered first: its recall leaves out its own session's memories, which is all that the
            # spooled tool calls before it can add, and the agent waits for it
            if ev is None or ev.kind != "prompt":
                drain(service, spool)
            if ev is not None:
                reply["context"] = service.handle(ev)
    except Exception as exc:
        log.exception("hook daemon: request failed")
        reply = {"ok": False, "error": str(exc)[:500]}
    try:
        conn.sendall(json.dumps(reply).encode() + b"\n")
    except OSError:  # the hook gave up waiting; the event was applied all the same
        pass
    return op


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    logging.basicConfig(level=os.environ.get("MEMORY_GRAPH_LOG_LEVEL", "WARNING").upper(), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if not args:
        print("usage: python -m memory_graph.hooks.daemon DATA_DIR", file=sys.stderr)
        return 2
    import signal

    # a plain kill ends the loop through its `finally`: daemon.json removed, the store closed, the lock freed
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    return serve(Path(args[0]).expanduser())


if __name__ == "__main__":
    sys.exit(main())
