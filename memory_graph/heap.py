"""Keeping a long-lived process's heap small on glibc (``malloc_trim``, ``mallopt``), and its large, lasting
structures out of the cyclic garbage collector's walks."""

from __future__ import annotations

import ctypes
import ctypes.util
import gc


def _load_libc():
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
        libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
        return libc
    except (OSError, AttributeError):
        return None


_LIBC = _load_libc()


def release_freed_memory() -> None:
    """Give the freed heap back to the system after a large, passing allocation.

    glibc keeps freed memory mapped for reuse: a server that once loaded 100,000 rows through temporary lists,
    or embedded a batch of long texts, would otherwise keep that high-water mark as its RSS from then on.
    """
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


_M_ARENA_MAX = -8  # glibc's malloc.h


def limit_malloc_arenas(count: int) -> bool:
    """Let threads share at most ``count`` malloc arenas (as ``MALLOC_ARENA_MAX`` would); whether it was set.

    glibc gives threads arenas of their own, up to 8 per core, and each keeps the high-water mark of what its
    threads freed: the search legs' threads, LanceDB's and ONNX Runtime's. Call it before those threads start.
    """
    if _LIBC is None or count < 1:
        return False
    return bool(_LIBC.mallopt(_M_ARENA_MAX, count))


def settle_heap() -> None:
    """Collect the young generations' garbage, then move every object still alive out of the cyclic
    collector's reach (``gc.freeze``): the graphs a search reads hold millions of objects, and a full collection
    walks them all, a pause in whichever search allocated last (``Config.gc_freeze``). Objects frozen are
    still freed by reference counting; ``thaw_heap`` hands them back to the collector. Not a full collection:
    one walks the whole process (a test run opening hundreds of engines spent minutes in them)."""
    gc.unfreeze()
    gc.collect(1)
    gc.freeze()


def thaw_heap() -> None:
    """Give frozen objects back to the cyclic collector (an engine closed: its cycles may now be garbage)."""
    gc.unfreeze()
