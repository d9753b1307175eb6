"""What small fragments cost a store's reads, and what compacting them costs.

    python -m benchmarks.probes.fragments_probe [--notes 1000] [--writes 300]

Builds a store of ``--notes`` generated developer notes in one batch (one fragment a table), then stores
``--writes`` notes one at a time with automatic compaction off, as months of short sessions (an MCP server, a
hook, a CLI command) each writing fewer rows than ``optimize_every_rows`` left a store before
``store_compact_fragments``. Measures, before and after compacting every table: the memories table's fragments,
opening the store, reading three memories by id, and a search right after another engine on the same directory
(as another process would) stored a note (median of 10). Prints the seconds the compaction took. The packaged
model embeds everything.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from .. import scratch_dir

TABLES = ("memories", "entities", "relations", "mentions", "passages", "changes")
SERVICES = ("Falcon", "Tern", "Kestrel", "Osprey", "Heron", "Plover", "Egret")


def _note(i: int) -> str:
    service = SERVICES[i % len(SERVICES)]
    return (f"Note {i}: {service}'s deploy window moved to {('Monday', 'Tuesday', 'Friday')[i % 3]}; its cache "
            f"keeps {100 + i % 50} entries and the on-call rota is team {i % 11}.")


def _measure(data: Path, config, label: str) -> None:
    from memory_graph import Engine

    t = time.perf_counter()
    reader = Engine(data, config=config)
    opened = time.perf_counter() - t
    writer = Engine(data, config=config)
    questions = [f"When is {s}'s deploy window?" for s in SERVICES] + ["Which team is on call?"] * 3
    for q in questions:
        reader.search(q, limit=10)
    ids = [h.id for h in reader.search(questions[0], limit=3)]
    t = time.perf_counter()
    for _ in range(10):
        reader.lance.by_ids("memories", ids, ["id", "title", "vector"])
    by_ids = (time.perf_counter() - t) / 10
    after = []
    for i, q in enumerate(questions):
        writer.store(f"Probe {label} {i}: the staging cache of {SERVICES[i % len(SERVICES)]} was resized")
        t = time.perf_counter()
        reader.search(q, limit=10)
        after.append(time.perf_counter() - t)
    fragments = reader.lance.table("memories").stats()["fragment_stats"]["num_fragments"]
    print(f"{label}: {fragments} fragments of memories; open {opened:.2f} s; three memories by id "
          f"{1e3 * by_ids:.1f} ms; a search right after another engine's write {1e3 * statistics.median(after):.1f}"
          f" ms (median of {len(after)})", flush=True)
    reader.close()
    writer.close()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.probes.fragments_probe", description=__doc__.split("\n")[0])
    p.add_argument("--notes", type=int, default=1_000, help="notes stored in one batch first (default: 1000)")
    p.add_argument("--writes", type=int, default=300, help="notes then stored one at a time (default: 300)")
    args = p.parse_args(argv)
    from memory_graph import Config, Engine

    config = Config.from_env(optimize_every_rows=10 ** 9, store_compact_fragments=10 ** 9)
    data = Path(scratch_dir()) / "data"
    eng = Engine(data, config=config)
    eng.store_many([{"content": _note(i)} for i in range(args.notes)])
    t = time.perf_counter()
    for i in range(args.notes, args.notes + args.writes):
        eng.store(_note(i))
    print(f"{args.notes} notes in one batch, then {args.writes} one at a time: {time.perf_counter() - t:.1f} s")
    eng.close()
    _measure(data, config, "before compaction")
    eng = Engine(data, config=config)
    t = time.perf_counter()
    eng.lance.optimize(TABLES, force=True)
    print(f"compacting every table: {time.perf_counter() - t:.2f} s")
    eng.close()
    _measure(data, config, "after compaction")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
