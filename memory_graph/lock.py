"""The data directory's write lock: one writer at a time among this machine's processes."""

from __future__ import annotations

import logging
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from filelock import Timeout

from .errors import BusyError, ReadOnlyError

log = logging.getLogger("memory_graph")


@contextmanager
def write_lock(lock, data_dir: Path, notice_seconds: float, timeout_seconds: float) -> Iterator[None]:
    """Hold the data directory's write lock. Past ``notice_seconds`` of waiting, say so on the log (stderr for the
    CLI and the server); past ``timeout_seconds``, raise BusyError: a writer suspended with Ctrl-Z keeps the lock
    until it is resumed, and a command waiting for it in silence looked hung."""
    try:
        try:
            lock.acquire(timeout=notice_seconds)
        except Timeout:  # (an OSError too, as TimeoutError is)
            raise
        except OSError as exc:
            raise ReadOnlyError(f"{data_dir} cannot be written: {exc.strerror or exc}",
                                hint="reads work; to change the data, make the directory writable or set "
                                     "MEMORY_GRAPH_HOME (--data-dir) to a writable copy of it") from None
    except Timeout:
        log.warning("waiting for the write lock of %s: another process holds it", data_dir)
        try:
            lock.acquire(timeout=max(0.0, timeout_seconds - notice_seconds))
        except Timeout:
            raise BusyError(f"another process has held the write lock of {data_dir} for over {timeout_seconds:g} s",
                            hint="let it finish, or resume or stop it (a writer suspended with Ctrl-Z holds the "
                                 "lock); MEMORY_GRAPH_LOCK_TIMEOUT_SECONDS sets how long to wait") from None
    try:
        yield
    finally:
        lock.release()
