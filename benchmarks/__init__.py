"""The benchmark harness (quality, latency, throughput). See README."""

from __future__ import annotations

import atexit
import shutil
import tempfile


def scratch_dir() -> str:
    """A temporary folder, removed when the process exits (a probe's LanceDB tables: never read again)."""
    path = tempfile.mkdtemp(prefix="mg-probe-")
    atexit.register(shutil.rmtree, path, True)
    return path
