"""python -m benchmarks.probes.similar_probe: where store_memory's `similar` hint should start (Config.similar_min_cosine).

A new memory is shown the current memories of its project whose cosine to it reaches the threshold, as ones it
may update. The probe reads, for thresholds from 0.60 to 0.95:
  updates caught   of the hand-written pairs in benchmarks/queries/updates.json (a note, then the note that
                   updates it), the share whose cosine reaches the threshold: the hint a user wants
  LoCoMo turns     of the turns of each conversation, stored in order, the share with an earlier turn of the
                   same conversation at the threshold or above: how often a chat's memories would get a hint
  SciFact          of the abstracts of the whole corpus as one project, the share with another abstract at the
                   threshold or above
The model is the packaged one (or --model); the data sets' vectors are read from the cache a benchmark run
fills (--cache, default results/cache): under 2 s here with them (1.3 and 1.6 s); without them it embeds
LoCoMo's 4,124 turns and SciFact's 5,183 abstracts first.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

THRESHOLDS = (0.60, 0.65, 0.70, 0.75, 0.80, 0.85, 0.90, 0.95)


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)


def pair_cosines(old: np.ndarray, new: np.ndarray) -> np.ndarray:
    """Cosine of each (old, new) row pair."""
    return np.sum(_unit(old) * _unit(new), axis=1)


def max_earlier(vectors: np.ndarray) -> np.ndarray:
    """For each row, its largest cosine to a row before it (-1 for the first): what a store in that order sees."""
    u = _unit(vectors)
    sims = u @ u.T
    out = np.full(len(u), -1.0)
    for i in range(1, len(u)):
        out[i] = sims[i, :i].max()
    return out


def max_other(vectors: np.ndarray, block: int = 1024) -> np.ndarray:
    """For each row, its largest cosine to any other row."""
    u = _unit(vectors)
    out = np.empty(len(u))
    for s in range(0, len(u), block):
        sims = u[s:s + block] @ u.T
        sims[np.arange(len(sims)), np.arange(s, s + len(sims))] = -1.0
        out[s:s + block] = sims.max(axis=1)
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.probes.similar_probe", description=__doc__.split("\n")[0])
    p.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[3] / "shared" / "data",
                   help="folder holding scifact/ and locomo/ (default: ../shared/data)")
    p.add_argument("--pairs", type=Path, default=Path(__file__).parents[1] / "queries" / "updates.json",
                   help="JSON with a 'pairs' list of [old, new] notes (default: benchmarks/queries/updates.json)")
    p.add_argument("--model", default="", help="sentence-transformers model path or name (default: packaged)")
    p.add_argument("--cache", type=Path, default=Path("results/cache"), help="embedding cache folder")
    args = p.parse_args(argv)

    from .. import data, quality
    from ..systems import engine_embedder

    emb = engine_embedder(args.model)
    pairs = json.loads(args.pairs.read_text())["pairs"]
    updates = pair_cosines(np.asarray(emb.encode([o for o, _ in pairs])), np.asarray(emb.encode([n for _, n in pairs])))
    locomo = data.load_locomo(args.data / "locomo/locomo_dev.json")
    lv = quality.cached_vectors([d.full_text for d in locomo.docs], emb, args.cache, locomo.name)
    groups: dict[str, list[int]] = {}
    for i, d in enumerate(locomo.docs):  # stored in session order, as the benchmark stores them
        groups.setdefault(d.group, []).append(i)
    turns = np.concatenate([max_earlier(lv[idx]) for idx in groups.values()])
    scifact = data.load_scifact(args.data / "scifact/corpus.jsonl", args.data / "scifact/queries.jsonl",
                                args.data / "scifact/qrels/train.tsv", None, None)
    sv = quality.cached_vectors([d.full_text for d in scifact.docs], emb, args.cache, scifact.name)
    abstracts = max_other(sv)

    print(f"updates: {len(pairs)} pairs, cosine median {np.median(updates):.3f}, min {updates.min():.3f}; "
          f"LoCoMo: {len(turns)} turns in {len(groups)} conversations; SciFact: {len(abstracts)} abstracts")
    print("| threshold | updates caught | LoCoMo turns with a hint | SciFact abstracts with a hint |")
    print("|---|---|---|---|")
    for t in THRESHOLDS:
        print(f"| {t:.2f} | {np.mean(updates >= t):.2f} | {np.mean(turns >= t):.3f} | {np.mean(abstracts >= t):.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
