"""Write the results: one JSON file of every figure, a Markdown report, and PNG charts."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def _num(value, spec: str) -> str:
    """A figure, or "-" where the run could not take it."""
    return "-" if value is None else format(value, spec)


def markdown(results: dict) -> str:
    lines = [f"# memory-graph benchmarks ({results['mode']} run)", "",
             f"Command: `{results['command']}`  ", f"Model: {results['model']}"
             + (f" on {results['runtime']}" if results.get("runtime") else "")
             + f"; machine: {results['machine']}", ""]
    for name, ds in results.get("quality", {}).items():
        systems = ds["systems"]
        metrics = list(next(iter(systems.values()))["overall"])
        lines += [f"## {name}: {ds['docs']} documents, {ds['queries']} queries", ""]
        lines += [f"- {n}" for n in ds.get("notes", [])] + ([""] if ds.get("notes") else [])
        main = ds.get("main_metric", metrics[0])
        lines += ["| system | " + " | ".join(metrics) + f" | {main}: full pipeline minus system [95% CI] | ms/query |",
                  "|---" * (len(metrics) + 3) + "|"]
        best = {m: max(s["overall"][m] for s in systems.values()) for m in metrics}
        for sys_name, s in systems.items():
            cells = [(f"**{s['overall'][m]:.4f}**" if s["overall"][m] == best[m] else f"{s['overall'][m]:.4f}")
                     for m in metrics]
            v = s.get("vs_full")
            delta = "" if not v or sys_name == "memory-graph" else \
                f"{v['mean']:+.4f} [{v['low']:+.4f}, {v['high']:+.4f}]"
            lines.append(f"| {sys_name} | " + " | ".join(cells) + f" | {delta} | {s['ms_per_query']:.1f} |")
        cats = systems["memory-graph"]["by_category"]
        if cats:
            m = metrics[-1] if "ndcg@10" not in metrics else "ndcg@10"
            lines += ["", f"{m} per category:", "", "| system | " + " | ".join(f"{c} (n={v['n']})" for c, v in
                                                                             cats.items()) + " |",
                      "|---" * (len(cats) + 1) + "|"]
            for sys_name, s in systems.items():
                lines.append(f"| {sys_name} | " + " | ".join(f"{s['by_category'][c][m]:.4f}" for c in cats) + " |")
            if m == main and any("vs_full_by_category" in s for s in systems.values()):
                lines += ["", f"{m} per category, full pipeline minus system [95% CI]:", "",
                          "| system | " + " | ".join(cats) + " |", "|---" * (len(cats) + 1) + "|"]
                for sys_name, s in systems.items():
                    if sys_name == "memory-graph" or "vs_full_by_category" not in s:
                        continue
                    d = s["vs_full_by_category"]
                    lines.append(f"| {sys_name} | " + " | ".join(
                        f"{d[c]['mean']:+.3f} [{d[c]['low']:+.3f}, {d[c]['high']:+.3f}]" for c in cats) + " |")
        nm = ds.get("nothing_matches")
        if nm:
            lines += ["", f"memory-graph says that nothing matches well for {nm['unanswered']:.0%} of the "
                          f"{nm['unanswered_n']} questions nothing answers, and for {nm['answered']:.0%} of the "
                          f"{nm['answered_n']} answered ones."]
        lines.append("")
    if results.get("latency"):
        lines += ["## Search latency (warm, query embedding included, limit 10)", "",
                  "| memories | p50 ms | p95 ms | p99 ms | vector index | recall@10 of the vector search | load /s "
                  "| RSS MB | disk MB | without old versions MB |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        for n, r in results["latency"].items():
            s = r["search_ms"]
            lines.append(f"| {int(n):,} | {s['p50']:.1f} | {s['p95']:.1f} | {s['p99']:.1f} | {r['vector_index']} | "
                         f"{r.get('vector_recall_at_10', float('nan')):.3f} | {r['load_per_s']:.0f} | "
                         f"{r['rss_mb']:.0f} | {r['disk_mb']:.1f} | "
                         f"{_num(r.get('disk_mb_without_old_versions'), '.1f')} |")
        stages = sorted({k for r in results["latency"].values() for k in r["stages_ms_p50"]})
        lines += ["", "Per stage, p50 ms (legs run in parallel; `legs` is their wall time):", "",
                  "| memories | " + " | ".join(stages) + " |", "|---" * (len(stages) + 1) + "|"]
        for n, r in results["latency"].items():
            lines.append(f"| {int(n):,} | " + " | ".join(f"{r['stages_ms_p50'].get(k, 0):.2f}" for k in stages) + " |")
        if any("search_after_foreign_write_ms" in r for r in results["latency"].values()):
            lines += ["", "After another process stores a memory, the next search catches up through the change "
                      "log; a whole reload of the memory graph is what that would cost without it:", "",
                      "| memories | search after another process's write, p50 ms | max ms | whole graph reload ms |",
                      "|---|---|---|---|"]
            for n, r in results["latency"].items():
                if "search_after_foreign_write_ms" in r:
                    f = r["search_after_foreign_write_ms"]
                    lines.append(f"| {int(n):,} | {f['p50']:.1f} | {f['max']:.1f} | {r['graph_reload_ms']:.0f} |")
        if any("server" in r for r in results["latency"].values()):
            lines += ["", "The MCP server (`python -m server`, stdio) started on the same data, after 50 "
                      "`search_memory` calls through the SDK's client (RSS from /proc; the design's budget is "
                      "600 MB at 100,000), then 20 `store_memory` calls into the same data:", "",
                      "| memories | server RSS MB | its peak MB | RSS before the first call MB | first call ms "
                      "| search round trip p50 ms | store_memory round trip p50 ms |",
                      "|---|---|---|---|---|---|---|"]
            for n, r in results["latency"].items():
                if "server" in r:
                    v = r["server"]
                    store = v.get("store_round_trip_ms_p50")
                    lines.append(f"| {int(n):,} | {v['rss_mb']:.0f} | {v['peak_rss_mb']:.0f} | "
                                 f"{v['rss_at_start_mb']:.0f} | {v['first_search_ms']:.0f} | "
                                 f"{v['round_trip_ms_p50']:.1f} | {'' if store is None else f'{store:.1f}'} |")
        lines.append("")
    if results.get("store"):
        s = results["store"]
        lines += ["## Store throughput (model included)", "",
                  f"- one `store` at a time: {s['single_per_s']} memories/s ({s['single_n']} stores)",
                  *([f"- one `store` and its `similar` at a time (the MCP tool store_memory): "
                     f"{s['with_similar_per_s']} memories/s ({s['single_n']} stores)"]
                    if "with_similar_per_s" in s else []),
                  f"- one `store_many` batch: {s['batched_per_s']} memories/s ({s['batch_n']} memories)", ""]
    for r in results.get("indexing", []):
        lines += [f"## Code indexing: {r['repo']}", "",
                  f"- {r['files']} files, {r['chunks']} chunks, {r['symbols']} symbols, {r['edges']} edges in "
                  f"{r['seconds']} s ({r['files_per_s']} files/s, {r['chunks_per_s']} chunks/s)",
                  f"- the model alone on the same chunks: {r['model_alone_seconds']} s; indexing / model = "
                  f"{r['index_to_model_ratio']}; time inside the model during indexing: {r['embedding_share']:.1%}",
                  f"- re-index of the unchanged repository: {r['reindex_unchanged_seconds']} s "
                  f"({r['reindex_files_indexed']} files re-embedded)", ""]
    return "\n".join(lines)


def charts(results: dict, out: Path) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    files = []
    quality = results.get("quality", {})
    if quality:
        fig, axes = plt.subplots(1, len(quality), figsize=(5.5 * len(quality), 4.5), squeeze=False)
        for ax, (name, ds) in zip(axes[0], quality.items()):
            metric = ds["main_metric"]
            names = list(ds["systems"])
            vals = [ds["systems"][n]["overall"][metric] for n in names]
            colors = ["#1f77b4" if n == "memory-graph" else "#9ecae1" if n.startswith("mg:") else "#bbbbbb"
                      for n in names]
            ax.barh(names[::-1], vals[::-1], color=colors[::-1])
            ax.set_title(f"{name}: {metric}")
            ax.set_xlim(0, max(vals) * 1.15 if max(vals) > 0 else 1)
            for y, v in enumerate(vals[::-1]):
                ax.text(v, y, f" {v:.3f}", va="center", fontsize=8)
        fig.tight_layout()
        fig.savefig(out / "quality.png", dpi=110)
        plt.close(fig)
        files.append("quality.png")
    lat = results.get("latency", {})
    if lat:
        sizes = list(lat)
        fig, ax = plt.subplots(figsize=(6, 4))
        for p in ("p50", "p95", "p99"):
            ax.plot([int(s) for s in sizes], [lat[s]["search_ms"][p] for s in sizes], marker="o", label=p)
        ax.set_xscale("log")
        ax.set_xlabel("memories")
        ax.set_ylabel("search latency (ms)")
        ax.legend()
        ax.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(out / "latency.png", dpi=110)
        plt.close(fig)
        files.append("latency.png")
    return files


def write(results: dict, out: Path) -> dict[str, Path]:
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=1, default=str))
    (out / "results.md").write_text(markdown(results))
    pngs = charts(results, out)
    return {"json": out / "results.json", "markdown": out / "results.md", **{p: out / p for p in pngs}}


def write_json(path: Path | None, out: dict) -> None:
    """Every figure of a probe to ``path``, if given."""
    if path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(out, indent=1))
        print(f"wrote {path}", file=sys.stderr)
