"""BLAS held to a few threads while a search runs.

numpy's OpenBLAS spreads even a 50 x 384 product (MMR's similarities, PageRank's solve) over its threads, and a
woken worker then spins for a while, on a small machine taking the core the model needs
(``python -m benchmarks.latency`` reports the CPU per search).
"""

from __future__ import annotations

import functools
import logging
import threading
from contextlib import contextmanager
from typing import Callable, Iterator, TypeVar

_T = TypeVar("_T")
log = logging.getLogger("memory_graph")

_lock = threading.Lock()
_active = 0
_limiter = None
_controller = None
_held_to = 0  # the limit while a block runs


def one_thread() -> bool:
    """Whether BLAS is held to one thread now (a search is running), so a product is one core's work."""
    return _active > 0 and _held_to == 1


@contextmanager
def blas_threads(n: int) -> Iterator[None]:
    """Hold the process's BLAS libraries to ``n`` threads while the block runs (0: leave them alone).

    The limit is the process's: concurrent and nested blocks share it, and the last one out restores what was
    there before. It holds the BLAS libraries loaded when the first block ran (numpy's, which the searches use).
    """
    global _active, _limiter, _controller, _held_to
    if n <= 0:
        yield
        return
    with _lock:
        if _active == 0:
            try:
                if _controller is None:
                    from threadpoolctl import ThreadpoolController

                    _controller = ThreadpoolController()
                _limiter = _controller.limit(limits=n, user_api="blas")
                _held_to = n
            except Exception as exc:  # a search must not fail for want of a speed-up
                log.warning("could not hold BLAS to %d thread(s): %s", n, exc)
                _limiter, _held_to = None, 0
        _active += 1
    try:
        yield
    finally:
        with _lock:
            _active -= 1
            if _active == 0 and _limiter is not None:
                _limiter.restore_original_limits()
                _limiter, _held_to = None, 0


def holding_blas(method: Callable[..., _T]) -> Callable[..., _T]:
    """A search method of a component with a ``config``, run under ``blas_threads(config.search_blas_threads)``."""

    @functools.wraps(method)
    def run(self, *args, **kwargs):
        with blas_threads(self.config.search_blas_threads):
            return method(self, *args, **kwargs)

    return run
