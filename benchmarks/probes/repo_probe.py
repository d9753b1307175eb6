"""python -m benchmarks.probes.repo_probe: code search on a real repository with hand-written questions.

CoSQA has one function per file and no tests; a real project has both, and a test names the same things as
the code it tests, and its documentation describes it in words. This probe indexes a source folder (the
whole folder: code, tests, docs) and asks the questions of a JSON file, each a list of {"query": ...,
"names": [...]}: the names (``Class.method`` or a bare name) of the definitions that answer it. A hit answers
when its breadcrumb's qualified name is one of them, or ends with ".name", and it is not in a test file.
Reported per Config.code_test_factor value (prose at --prose-factor): MRR@10, Recall@1 and how many first
hits are tests or prose; and once, the code vector leg's recall against exact search and its time. Other
Config fields come from --set, or from MEMORY_GRAPH_<FIELD> variables as in the engine (MEMORY_GRAPH_ANN_EF=75
searches the ANN index as LanceDB would by default).

The questions in benchmarks/queries were written by reading each package's API; the sources are PyPI's:

  pip download --no-binary :all: --no-deps click==8.1.7 requests==2.32.3 django==5.0.6 flask==3.0.3 rich==13.7.1
  # then unpack them
  python -m benchmarks.probes.repo_probe click-8.1.7 benchmarks/queries/click-8.1.7.json

Indexing embeds every chunk once (about 25 s for click on 2 cores, 16 minutes for Django's 69,527 chunks);
the index goes to a temporary folder, or to --data-dir, where the next run finds it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from ..report import write_json  # noqa: E402,F401  (name_probe imports it from here too)
from ..repos import answers, qualname  # noqa: E402  (after the offline switch, as every benchmark entry)


def evaluate(engine, project: str, questions: list[dict]) -> dict:
    """MRR@10, Recall@1 and the first hits in test and prose files over ``questions`` (each query's first
    answer)."""
    from memory_graph.code_search import PROSE_LANGUAGES, is_test_path

    rr, first_tests, first_prose, per_query = [], 0, 0, []
    for q in questions:
        hits = engine.search_code(q["query"], limit=10, project=project)
        rank = next((i for i, h in enumerate(hits, 1) if answers(h.title, h.record["path"], q["names"])), None)
        rr.append(1.0 / rank if rank else 0.0)
        first_tests += bool(hits) and is_test_path(hits[0].record["path"])
        first_prose += bool(hits) and hits[0].record["language"] in PROSE_LANGUAGES
        per_query.append({"query": q["query"], "rank": rank,
                          "top": [f"{h.record['path']}:{qualname(h.title)}" for h in hits[:3]]})
    n = len(questions)
    return {"mrr@10": sum(rr) / n, "recall@1": sum(r == 1.0 for r in rr) / n, "first_hit_in_tests": first_tests,
            "first_hit_in_prose": first_prose, "queries": n, "per_query": per_query}


def vector_recall(engine, project: str, questions: list[dict]) -> dict:
    """The code vector leg's LanceDB search (as ``search_code`` runs it) against exact cosine search over the
    project's stored vectors: recall@10 and recall at the leg's candidate count, median milliseconds, and how
    many indices and fragments the table's ANN index covers (``Config.ann_max_deltas``)."""
    import statistics
    import time

    import numpy as np

    from memory_graph.models import Filters
    from memory_graph.store import sql_filter
    from memory_graph.store.lance import vector_matrix
    from memory_graph.store.sql import sql_quote

    rows = engine.lance.query("code_chunks", f"project = {sql_quote(project)}", ["id", "vector"])
    ids, mat = rows.column("id").to_pylist(), vector_matrix(rows)
    mat = mat / np.linalg.norm(mat, axis=1, keepdims=True).clip(1e-12)
    c = engine.config.candidates(10)
    where = sql_filter(Filters(project=project, include_global=False), 0.0, kind="code")
    r10, rc, times = [], [], []
    for q in questions:
        vec = engine.embedder.encode_query(q["query"])
        exact = [ids[i] for i in np.argsort(-(mat @ vec))[:c]]
        start = time.perf_counter()
        found, _ = engine.lance.vector_search("code_chunks", vec, where, c, ["id"])
        times.append(1000 * (time.perf_counter() - start))
        r10.append(len(set(found[:10]) & set(exact[:10])) / 10)
        rc.append(len(set(found) & set(exact)) / c)
    stats = engine.lance.table("code_chunks").stats()["fragment_stats"]
    return {"recall@10": statistics.mean(r10), f"recall@{c}": statistics.mean(rc), "candidates": c,
            "median_ms": statistics.median(times), "ann_indices": engine.lance.ann_deltas("code_chunks"),
            "fragments": stats["num_fragments"]}


def source_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of a probe that indexes a source folder: the folder, where the index goes, its project."""
    p.add_argument("source", type=Path, help="the repository or unpacked package to index")
    p.add_argument("--data-dir", type=Path,
                   help="keep the index in this folder; a second run re-indexes only what changed (default: a "
                        "temporary folder)")
    p.add_argument("--project", default="probe", help="project name of the index (default: probe)")


@contextlib.contextmanager
def indexed(args: argparse.Namespace, prefix: str):
    """``args.source`` indexed as ``args.project`` in ``args.data_dir`` (else a temporary folder, removed
    after): yields the folder and the engine that indexed it, which the caller closes."""
    from codebase import index_project
    from memory_graph import Engine

    with contextlib.ExitStack() as stack:
        home = args.data_dir or stack.enter_context(tempfile.TemporaryDirectory(prefix=prefix))
        engine = Engine(home)
        report = index_project(engine, args.source, project=args.project)
        print(f"indexed {report.files_indexed} files, {report.chunks} chunks in {report.seconds:.1f} s",
              file=sys.stderr)
        yield home, engine


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.probes.repo_probe", description=__doc__.split("\n")[0])
    source_arguments(p)
    p.add_argument("questions", type=Path, help='JSON list of {"query": ..., "names": [...]}')
    p.add_argument("--factors", default="1.0,0.9,0.8,0.7",
                   help="comma-separated Config.code_test_factor values to compare (default: 1.0,0.9,0.8,0.7)")
    p.add_argument("--prose-factor", type=float, default=None,
                   help="Config.code_prose_factor for every run (default: the Config default; 1 turns it off)")
    p.add_argument("--set", dest="changes", default="{}", metavar="JSON",
                   help='other Config fields for every run, weights as [vector, bm25, graph]: '
                        '\'{"code_weights": [1, 0.5, 0.3]}\' (default: none)')
    p.add_argument("--json", type=Path, help="also write every figure and each query's top 3 here")
    p.add_argument("-v", "--verbose", action="store_true", help="print each query's rank and top 3 hits")
    args = p.parse_args(argv)
    if not args.source.is_dir():
        p.error(f"{args.source} is not a folder")
    # a question with no names is one the repository does not answer (the harness's "nothing matches" share)
    questions = [q for q in json.loads(args.questions.read_text(encoding="utf-8")) if q["names"]]

    from memory_graph import Config, Engine

    from ..systems import config_changes

    changes = config_changes(args.changes)

    factors = [float(f) for f in args.factors.split(",")]
    out = {"source": str(args.source.resolve()), "questions": str(args.questions), "by_factor": {}}
    with indexed(args, "mg-repo-probe-") as (home, engine):
        vec = out["vector_leg"] = vector_recall(engine, args.project, questions)
        c = vec["candidates"]
        print(f"vector leg against exact search: recall@10 {vec['recall@10']:.3f}, recall@{c} "
              f"{vec['recall@' + str(c)]:.3f}, median {vec['median_ms']:.1f} ms; ANN index of "
              f"{vec['ann_indices']} indices (0: none, flat search) over {vec['fragments']} fragments")
        engine.close()
        overrides = {**changes, **({} if args.prose_factor is None else {"code_prose_factor": args.prose_factor})}
        out["code_prose_factor"], out["set"] = Config.from_env(**overrides).code_prose_factor, json.loads(args.changes)
        print(f"code_prose_factor {out['code_prose_factor']}")
        print("| code_test_factor | MRR@10 | Recall@1 | first hit in tests | first hit in prose |\n"
              "|---|---|---|---|---|")
        for f in factors:
            engine = Engine(home, config=Config.from_env(code_test_factor=f, **overrides))
            res = evaluate(engine, args.project, questions)
            engine.close()
            out["by_factor"][str(f)] = res
            print(f"| {f} | {res['mrr@10']:.3f} | {res['recall@1']:.3f} | "
                  f"{res['first_hit_in_tests']}/{res['queries']} | {res['first_hit_in_prose']}/{res['queries']} |")
            if args.verbose:
                for r in res["per_query"]:
                    print(f"    {r['rank']} {r['query']}: {', '.join(r['top'])}")
    write_json(args.json, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
