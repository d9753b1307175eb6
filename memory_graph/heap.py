"""Handing freed heap memory back to the system (glibc's ``malloc_trim``; elsewhere nothing)."""

from __future__ import annotations

import ctypes
import ctypes.util


def _load_libc():
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
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
