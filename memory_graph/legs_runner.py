"""Runs a search's legs: those that hold the GIL one after another on the caller's thread, the vector leg (whose
product, ONNX Runtime's or LanceDB's, lets it go) in a small pool beside them, within the search's time budget.
A leg that fails or runs out of time is logged and left out; it never fails the search."""

from __future__ import annotations

import logging
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, Callable, Iterable

from .retrieval import LegResult

log = logging.getLogger("memory_graph")


def timed(fn, timings: dict[str, float] | None, name: str, *args):
    """Run one leg, recording its seconds in ``timings`` (when given) as ``leg_<name>``."""
    t = time.perf_counter()
    try:
        return fn(*args)
    finally:
        if timings is not None:
            timings[f"leg_{name}"] = time.perf_counter() - t


class LegRunner:
    """The pool the vector legs run in (``timeout_seconds``: the search's time budget for them)."""

    def __init__(self, timeout_seconds: float) -> None:
        self.timeout_seconds = timeout_seconds
        self._pool = ThreadPoolExecutor(max_workers=3, thread_name_prefix="mg-leg")

    def close(self) -> None:
        self._pool.shutdown(wait=False)

    def collect(self, jobs: dict[str, Callable[[], Any]], pooled: Iterable[str] = ()) -> dict[str, LegResult]:
        """Each leg's result, by name, in the order of ``jobs`` (a leg may return a LegResult or (ids, scores)).

        The legs named in ``pooled`` (those that spend most of their time in native code without the GIL: the
        vector leg's product) run in the pool, beside the others, and are left out when still running once the
        time budget is spent. The others run one after another on this thread: they hold the GIL for most of
        their work, and beside a busy thread a leg that lets it go (Tantivy's search) waits up to the
        interpreter's switch interval (5 ms) each time to take it back.
        """
        futures = {name: self._pool.submit(jobs[name]) for name in pooled if name in jobs}
        done: dict[str, Any] = {}
        for name, job in jobs.items():
            if name not in futures:
                try:
                    done[name] = job()
                except Exception:
                    log.exception("the %s leg failed; searching without it", name)
                    done[name] = LegResult()
        deadline = time.monotonic() + self.timeout_seconds
        for name, fut in futures.items():
            try:
                done[name] = fut.result(timeout=max(0.0, deadline - time.monotonic()))
            except FutureTimeout:
                log.warning("the %s leg ran past the search time budget; searching without it", name)
                fut.cancel()
                done[name] = LegResult()
            except Exception:
                log.exception("the %s leg failed; searching without it", name)
                done[name] = LegResult()
        return {name: res if isinstance(res, LegResult) else LegResult(list(res[0]), list(res[1]))
                for name, res in ((n, done[n]) for n in jobs)}
