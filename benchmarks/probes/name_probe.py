"""python -m benchmarks.probes.name_probe: code search by name on a real repository.

An agent often searches for a name it has read: ``Request``, ``Context.invoke``, ``_split_cells``, ``get``.
This probe indexes a source folder, draws definitions (functions, methods and classes outside tests, docs and
examples; a fixed seed), and asks for each by its bare name and, for a member, by its qualified name
(``Class.method``), each name once. A query is answered at the first hit that defines a symbol of exactly that name (that qualified name for the
qualified form): for a bare name any of its definitions counts. Reports MRR@10 and Recall@1 per form, for the
defaults and for each --variant (Config overrides, weights as [vector, bm25, graph]), with the defaults'
lead over each variant and its 95% paired bootstrap interval. The questions need no writing, so any project
can be measured:

  pip download --no-binary :all: --no-deps click==8.1.7   # then unpack it
  python -m benchmarks.probes.name_probe click-8.1.7 --variant 'graph off={"code_weights": [1, 0, 0],
      "code_identifier_weights": [0.5, 1, 0]}' --variant 'PPR off={"ppr_beta": 0}'
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from pathlib import Path

from .repo_probe import indexed, source_arguments, write_json

os.environ.setdefault("HF_HUB_OFFLINE", "1")

FORMS = ("qualname", "name")
_SKIP_FOLDERS = {"tests", "test", "testing", "docs", "doc", "examples", "example"}


def draw(symbols: list[dict], n: int, seed: int = 0) -> list[dict]:
    """``n`` definitions outside tests, docs and examples, in a fixed random order; no overload copies (a
    qualified name with a prime marks a second definition of the same name)."""
    from memory_graph.paths import is_test_path

    def skip(path: str) -> bool:
        return is_test_path(path) or any(part in _SKIP_FOLDERS for part in path.split("/")[:-1])

    pool = sorted((s for s in symbols if s["kind"] in ("function", "method", "class") and not skip(s["path"])
                   and "'" not in s["qualname"]), key=lambda s: s["id"])
    random.Random(seed).shuffle(pool)
    return pool[:n]


def questions(drawn: list[dict]) -> dict[str, list[str]]:
    """Each form's queries, each name once, in the drawn order; a qualified name only where it is not the bare
    name too (a module's own function is asked by its name, where any definition of that name answers)."""
    return {form: list(dict.fromkeys(s[form] for s in drawn if form == "name" or s["qualname"] != s["name"]))
            for form in FORMS}


def evaluate(engine, project: str, asked: dict[str, list[str]], defined: dict[str, tuple[str, str]]) -> dict:
    """Per form: reciprocal rank of each query (0 past 10) and its top 3, with MRR@10 and Recall@1."""
    out = {}
    for i, form in enumerate(FORMS):
        rr, top = [], []
        for q in asked[form]:
            hits = engine.search_code(q, limit=10, project=project)
            rank = next((k for k, h in enumerate(hits, 1)
                         if defined.get(h.record.get("symbol_id") or "", ("", ""))[i].replace("'", "") == q), None)
            rr.append(1.0 / rank if rank else 0.0)
            top.append({"query": q, "rank": rank, "top": [h.title for h in hits[:3]]})
        out[form] = {"mrr@10": sum(rr) / max(1, len(rr)), "recall@1": sum(r == 1.0 for r in rr) / max(1, len(rr)),
                     "queries": len(rr), "rr": rr, "per_query": top}
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.probes.name_probe", description=__doc__.split("\n")[0])
    source_arguments(p)
    p.add_argument("--definitions", type=int, default=300, help="definitions drawn (default: 300)")
    p.add_argument("--seed", type=int, default=0, help="seed of the draw (default: 0)")
    p.add_argument("--variant", action="append", default=[], metavar="NAME=JSON",
                   help="Config overrides compared with the defaults, e.g. 'PPR off={\"ppr_beta\": 0}'; repeatable")
    p.add_argument("--json", type=Path, help="also write every figure and each query's rank and top 3 here")
    p.add_argument("-v", "--verbose", action="store_true", help="print each default query that misses first place")
    args = p.parse_args(argv)
    if not args.source.is_dir():
        p.error(f"{args.source} is not a folder")
    variants = {"defaults": "{}"}
    for v in args.variant:
        name, sep, changes = v.partition("=")
        if not sep or not name.strip():
            p.error(f"--variant {v!r} is not NAME=JSON")
        variants[name.strip()] = changes

    from memory_graph import Config, Engine

    from ..quality import paired_difference
    from ..systems import config_changes

    out: dict = {"source": str(args.source.resolve()), "variants": {}}
    with indexed(args, "mg-name-probe-") as (home, engine):
        symbols, _ = engine.code_symbols_and_refs(args.project)
        engine.close()
        defined = {s["id"]: (s["qualname"], s["name"]) for s in symbols}
        asked = questions(draw(symbols, args.definitions, args.seed))
        print(f"{args.definitions} definitions drawn: {len(asked['qualname'])} qualified names, "
              f"{len(asked['name'])} bare names")
        print("| variant | form | queries | MRR@10 | Recall@1 | defaults minus it, MRR@10 [95% CI] |\n|---|---|---|---|---|---|")
        for name, changes in variants.items():
            engine = Engine(home, config=Config.from_env(**config_changes(changes)))
            res = out["variants"][name] = evaluate(engine, args.project, asked, defined)
            engine.close()
            for form in FORMS:
                r, lead = res[form], ""
                if name != "defaults":
                    d = paired_difference(out["variants"]["defaults"][form]["rr"], r["rr"])
                    r["defaults_minus_it"] = d
                    lead = f"{d['mean']:+.3f} [{d['low']:+.3f}, {d['high']:+.3f}]"
                print(f"| {name} | {form} | {r['queries']} | {r['mrr@10']:.3f} | {r['recall@1']:.3f} | {lead} |")
        if args.verbose:
            for form in FORMS:
                for q in out["variants"]["defaults"][form]["per_query"]:
                    if q["rank"] != 1:
                        print(f"    {form} {q['query']!r}: rank {q['rank']}, top {q['top']}")
    write_json(args.json, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
