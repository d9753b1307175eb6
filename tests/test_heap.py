"""glibc heap settings a long-lived server uses: measured in a child process, since they hold for a process."""

from __future__ import annotations

import subprocess
import sys

import pytest

from memory_graph import heap

pytestmark = pytest.mark.skipif(heap._LIBC is None or not hasattr(heap._LIBC, "malloc_info"),
                                reason="needs glibc")

CHILD = """
import ctypes, sys, tempfile, threading
from memory_graph.heap import limit_malloc_arenas
limit = int(sys.argv[1])
if limit:
    assert limit_malloc_arenas(limit)
held, ready = [], threading.Barrier(7)
def work():
    held.append([bytearray(50_000) for _ in range(20)])  # malloc'd, below the mmap threshold
    ready.wait()  # all alive at once, so none hands its arena to the next
threads = [threading.Thread(target=work) for _ in range(6)]
for t in threads: t.start()
ready.wait()
for t in threads: t.join()
libc = ctypes.CDLL("libc.so.6")
libc.fopen.restype = ctypes.c_void_p
libc.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
libc.fclose.argtypes = [ctypes.c_void_p]
with tempfile.NamedTemporaryFile("r") as out:
    f = libc.fopen(out.name.encode(), b"w")
    libc.malloc_info(0, f)
    libc.fclose(f)
    print(out.read().count("<heap nr="))
"""


def arenas_used(limit: int) -> int:
    done = subprocess.run([sys.executable, "-c", CHILD, str(limit)], capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": ":".join(sys.path)})
    assert done.returncode == 0, done.stderr
    return int(done.stdout)


def test_limiting_malloc_arenas_makes_threads_share_them():
    assert arenas_used(0) > 2  # six threads at once: glibc gives them arenas of their own
    assert arenas_used(2) == 2
    assert heap.limit_malloc_arenas(0) is False  # no such limit: nothing set
