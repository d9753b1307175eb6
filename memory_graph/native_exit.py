"""Calls into ONNX Runtime that the interpreter's exit must not cut short: a daemon thread still in one when the
interpreter ends aborts the whole process ("terminate called without an active exception", exit 134). At exit,
the calls under way end first and none starts after."""

from __future__ import annotations

import atexit
import os
import threading
from typing import Callable, TypeVar

_T = TypeVar("_T")
#: calls under way (``run_here``), and whether the interpreter is exiting
_HERE = threading.Condition()
_running = 0
_exiting = False
#: locks taken for good at exit (a model's load: ``embedding._MODELS_LOCK``), after the calls under way end
_HELD_AT_EXIT: list[threading.Lock] = []


def run_here(fn: Callable[[], _T]) -> _T:
    """Run ``fn`` on this thread, unless the interpreter is exiting: then this thread (a daemon: the others are
    joined before) waits here for the end rather than start a call the exit would cut short."""
    global _running
    with _HERE:
        while _exiting:
            _HERE.wait()
        _running += 1
    try:
        return fn()
    finally:
        with _HERE:
            _running -= 1
            _HERE.notify_all()


def hold_at_exit(lock: threading.Lock) -> None:
    """Take ``lock`` for good at exit, once the calls under way end (what it guards then ends first)."""
    _HELD_AT_EXIT.append(lock)


def _at_exit() -> None:
    global _exiting
    with _HERE:
        _exiting = True
        _HERE.wait_for(lambda: _running == 0, timeout=120)
    for lock in _HELD_AT_EXIT:
        lock.acquire(timeout=120)


def _in_child() -> None:
    """A forked child runs none of its parent's calls: they stayed in the parent's threads."""
    global _HERE, _running, _exiting
    _HERE, _running, _exiting = threading.Condition(), 0, False


atexit.register(_at_exit)
os.register_at_fork(after_in_child=_in_child)
