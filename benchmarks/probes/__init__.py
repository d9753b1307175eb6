"""One-off measurements, each answering one question its docstring states (``python -m benchmarks.probes.NAME
--help``). The harness (``python -m benchmarks``, ``benchmarks.latency``, ``benchmarks.hooks_replay``, ...) does
not depend on them; several constants of ``memory_graph.config`` cite the probe that chose them."""
