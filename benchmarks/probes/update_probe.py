"""python -m benchmarks.probes.update_probe: how well the search's update rule (retrieval/updates.py) finds the
hand-labelled updates of benchmarks/devnotes/updates.txt among every pair of notes of one project, by cosine
threshold: precision and recall of "new updates old", and how many same-subject pairs a threshold lets through."""

from __future__ import annotations

import argparse
import itertools
import os


os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.probes.update_probe", description=__doc__)
    p.add_argument("--thresholds", type=float, nargs="+", default=[0.4, 0.5, 0.6, 0.65, 0.7, 0.75, 0.8],
                   help="cosines from which a pair counts, with and without a change marker in the newer note")
    args = p.parse_args(argv)
    from memory_graph import Config, Engine
    from memory_graph.retrieval.updates import says_change, update_pairs

    from ..devnotes import FOLDER, load_notes
    from ..systems import engine_embedder
    import tempfile

    docs = load_notes()
    truth = {tuple(ln.split()) for ln in (FOLDER / "updates.txt").read_text().splitlines()
             if ln.strip() and not ln.startswith("#")}
    with tempfile.TemporaryDirectory() as tmp:
        eng = Engine(tmp, config=Config(), embedder=engine_embedder())
        ids = eng.store_many([{"id": f"mem_{d.id}", "content": d.text, "project": d.group or None,
                               "created_at": d.created_at, "memory_type": d.kind} for d in docs])
        cands = eng.memory_search.describe(ids)
        named = eng.memory_search.subjects(ids)
        eng.close()
    by_project: dict[str, list[str]] = {}
    for d in docs:
        by_project.setdefault(d.group, []).append(f"mem_{d.id}")
    pairs = [(a, b) for members in by_project.values() for a, b in itertools.combinations(members, 2)]
    labelled = {(f"mem_{a}", f"mem_{b}") for a, b in truth}
    print(f"{len(docs)} notes, {len(pairs)} same-project pairs, {len(labelled)} labelled updates")
    texts = {f"mem_{d.id}": d.text for d in docs}
    scored = [(a, b, cos) for members in by_project.values()
              for a, b, cos in update_pairs({m: cands[m] for m in members}, -1.0, lambda _ids: named)]
    print("cosine from   any pair: found precision recall   marked: found precision recall")
    for t in args.thresholds:
        plain = {(a, b) for a, b, cos in scored if cos >= t}
        marked = {(a, b) for a, b, cos in scored if cos >= t and says_change(texts[b])}
        row = []
        for found in (plain, marked):
            hit = len(found & labelled)
            row.append(f"{len(found):5d} {hit / max(len(found), 1):9.3f} {hit / len(labelled):6.3f}")
        print(f"{t:11.2f}   " + "      ".join(row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
