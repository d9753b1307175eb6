"""python -m benchmarks.probes.ppr_solve: from how many nodes does PageRank's direct solve stop beating 50 power
iterations (Config.ppr_direct_max_nodes)? Times both on random sparse symmetric graphs of each size, the restart
on two nodes, as a search's subgraph (its pool of candidates and the query's entities) has it.

    python -m benchmarks.probes.ppr_solve [--sizes 30 60 100 120 250]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[30, 60, 100, 120, 250])
    ap.add_argument("--repeat", type=int, default=300)
    args = ap.parse_args(argv)
    from memory_graph.retrieval.ppr import pagerank

    rng = np.random.default_rng(0)
    print("| nodes | direct solve, us | 50 power iterations, us |\n|---|---|---|")
    for n in args.sizes:
        w = rng.random((n, n)) * (rng.random((n, n)) < 0.1)
        w = w + w.T
        r = np.zeros(n)
        r[1], r[2] = 0.7, 0.3
        med = {}
        for name, direct in (("direct", n + 1), ("iterate", 0)):
            times = []
            for _ in range(args.repeat):
                t = time.perf_counter()
                pagerank(w, r, 0.85, 50, 1e-8, direct_max_nodes=direct)
                times.append(time.perf_counter() - t)
            med[name] = 1e6 * statistics.median(times)
        print(f"| {n} | {med['direct']:.0f} | {med['iterate']:.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
