"""Code commands of the memory-graph CLI: index, watch, search-code, symbols, callers, callees, symbol-graph,
projects."""

from __future__ import annotations

import time
from pathlib import Path
from typing import List, Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from memory_graph.cli import JsonOpt, _json, app, engine, mode_check
from memory_graph.show import err, explanation, labelled, out, progress_bar
from memory_graph.runs import status
from memory_graph.symbols import KINDS_HELP, SYMBOL_HELP, SYMBOL_RELATIONS

from .indexer import IndexReport, index_project
from .scanner import check_root

PathOpt = typer.Option(None, "--path", help=(
    "Only files under this path: relative to the project's root (src/api/) or absolute under it."))


def _print_report(r: IndexReport) -> None:
    t = Table(title=f"indexed {r.project} ({r.root})", show_header=False)
    skipped = ", ".join(f"{k} {v}" for k, v in sorted(r.skipped.items())) or "none"
    decoded = "; ".join(f"{p} as {enc}" for p, enc in sorted(r.decoded_as.items())[:5])
    decoded = f"{r.decode_errors} ({decoded}{'; ...' if len(r.decoded_as) > 5 else ''})" if decoded else "0"
    for k, v in [("files scanned", r.files_scanned), ("files indexed", r.files_indexed),
                 ("files unchanged", r.files_unchanged), ("files removed", r.files_removed),
                 ("skipped", skipped), ("chunks", r.chunks), ("chunks embedded", r.chunks_embedded),
                 ("symbols", r.symbols), ("edges", f"{r.edges} ({r.unresolved_edges} unresolved)"),
                 ("parse errors", r.parse_errors), ("not UTF-8", decoded),
                 ("seconds", f"{r.seconds} (embedding {r.embed_seconds})")]:
        t.add_row(k, str(v))
    out.print(t)
    if r.too_large:
        shown = ", ".join(r.too_large[:5]) + (", ..." if len(r.too_large) > 5 else "")
        err.print(labelled("note:", "yellow", f"skipped as too large: {shown}; to index them, set "
                           "MEMORY_GRAPH_INDEX_MAX_FILE_BYTES above their size"))
    for e in r.errors[:20]:
        err.print(labelled("warning:", "yellow", str(e)))


@app.command()
def index(path: Path = typer.Argument(Path("."), help=(
              "The folder to index (default: the current one). Inside a git repository the whole repository, "
              "from its top level, is indexed, unless --project names the project: then this folder alone.")),
          project: Optional[str] = typer.Option(None, "--project", "-p",
                                                help="Project name (default: the git root's folder name)."),
          force: bool = typer.Option(False, "--force", help="Re-chunk and re-embed every file."),
          as_json: bool = JsonOpt) -> None:
    """Index a code folder incrementally: only changed files are re-embedded, deleted ones removed."""
    with engine(lambda: check_root(path)) as eng:
        bar = progress_bar(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                           TextColumn("{task.fields[chunks]} chunks, {task.fields[rate]} chunks/s"),
                           TimeElapsedColumn(), TimeRemainingColumn(), disable=as_json)
        task = bar.add_task("scanning", total=None, chunks=0, rate="-")

        def progress(phase: str, done: int, total: int, info: dict) -> None:
            desc = {"wait": "waiting for another process indexing it", "scan": "scanning", "index": "files",
                    "resolve": "resolving symbols", "density": "chunk neighbourhoods"}[phase]
            bar.update(task, description=desc, completed=done, total=total or None,
                       chunks=info.get("chunks", bar.tasks[0].fields["chunks"]),
                       rate=info.get("chunks_per_s", bar.tasks[0].fields["rate"]))

        with bar:
            report = index_project(eng, path, project=project, force=force, progress=progress)
    _json(report.to_dict()) if as_json else _print_report(report)


@app.command()
def watch(path: Path = typer.Argument(Path("."), help=(
              "The folder to keep indexed; inside a git repository the whole repository, unless --project "
              "names the project: then this folder alone.")),
          project: Optional[str] = typer.Option(None, "--project", "-p", help="Project name."),
          debounce: float = typer.Option(1.0, min=0.0, help="Seconds of quiet before re-indexing.")) -> None:
    """Index a folder, then re-index it whenever files change, until Ctrl-C."""
    from .watcher import Watcher

    with engine(lambda: check_root(path)) as eng:
        def report(r: IndexReport) -> None:
            err.print(f"{time.strftime('%H:%M:%S')} {r.project}: {r.files_indexed} files re-indexed, "
                      f"{r.files_removed} removed, {r.chunks} chunks ({r.seconds}s)")

        w = Watcher(eng, path, project, debounce=debounce, on_report=report).start()
        err.print(f"watching {w.root} as project {w.project!r}; Ctrl-C stops")
        try:
            while True:
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            w.stop()


@app.command("search-code")
def search_code(query: str = typer.Argument(..., help=(
                    "What the code does, an identifier, a file (path:name, path:line), or a mix.")),
                limit: int = typer.Option(10, "--limit", "-n", min=1, max=1000, help="Results to show."),
                project: Optional[str] = typer.Option(None, "--project", "-p", help="Only this project."),
                path_prefix: Optional[str] = PathOpt,
                language: Optional[List[str]] = typer.Option(None, "--language", "-l",
                                                             help="Only this language (repeatable)."),
                chunk_type: Optional[List[str]] = typer.Option(None, "--type", "-t",
                                                               help="function, method, class, module, ..."),
                mode: str = typer.Option("hybrid", help="hybrid, vector, bm25 or graph."),
                explain: bool = typer.Option(False, "--explain", help="Show each stage's contribution."),
                as_json: bool = JsonOpt) -> None:
    """Search indexed code by meaning, identifier and structure.

    When nothing matches well (low confidence) a note on stderr says so."""
    with engine(mode_check(mode)) as eng:
        hits = eng.search_code(query, limit=limit, mode=mode, project=project, path_prefix=path_prefix,
                               languages=language, chunk_types=chunk_type)
        _note_runs(eng, project)
    if hits and hits.note:
        err.print(labelled("note:", "yellow", hits.note), soft_wrap=True)
    if as_json:
        _json([h.to_dict(explain=explain) for h in hits])
        return
    # grep-style lines, as `symbols` prints: a table's no-wrap path column left a narrow terminal no room
    # for the breadcrumb, and a path is copied into an editor whole
    for h in hits:
        r = h.record or {}
        where = f"{r.get('path')}:{r.get('start_line')}-{r.get('end_line')}"
        if r.get("definition_start_line"):  # one window of a longer definition
            where += f" of {r['definition_start_line']}-{r['definition_end_line']}"
        out.print(Text.assemble(f"{h.score:.3f}  ", (where, "cyan"), "  ", (h.title, "bold")), soft_wrap=True)
        if explain:
            out.print(Text("       " + explanation(h), style="dim"), soft_wrap=True)
    if not hits:
        out.print("no results")


def _note_runs(eng, project: Optional[str]) -> None:
    """On stderr, when the project asked (or any, for every project) is being indexed: answers may lack it."""
    note = eng.index_note(project)
    if note:
        err.print(labelled("note:", "yellow", note), soft_wrap=True)


def _label(r: dict) -> str:
    return r["qualname"] or r["name"]  # a module's qualname is empty: it is the scope of its top level


def _print_symbols(rows: list[dict], title: str) -> None:
    """One line per symbol, grep-style (path:line kind name), its signature under it: whole at any width."""
    out.print(Text(title, style="bold"))
    for r in rows:
        hops = f"  ({r['distance']} hops)" if r.get("distance", 1) > 1 else ""
        through = (f"  (through {r['through']})", "yellow") if r.get("through") else ""
        out.print(Text.assemble((f"{r['path']}:{r['start_line']}", "cyan"), f"  {r['kind']} ", (_label(r), "bold"),
                                hops, through), soft_wrap=True)
        if r["signature"]:
            out.print(Text("    " + r["signature"], style="dim"), soft_wrap=True)
    if not rows:
        out.print("no symbols")


@app.command()
def symbols(name: str = typer.Argument(..., help=(
                "A name, part of one, text of a signature, a dotted path or a file's path (base.py, "
                "pkg/module.py:name, pkg/module.py:88).")),
            project: Optional[str] = typer.Option(None, "--project", "-p", help="Only this project."),
            kind: Optional[str] = typer.Option(None, help=KINDS_HELP), path_prefix: Optional[str] = PathOpt,
            limit: int = typer.Option(20, "--limit", "-n", min=1, max=1000),
            as_json: bool = JsonOpt) -> None:
    """Find symbols by name: exact matches first, then prefixes, then substrings; Class.method also finds a
    method the class inherits, module.function the module's function, and a dotted path
    (pkg.module.Class.method, as an import or a traceback writes it) the symbol it leads to."""
    with engine() as eng:
        rows = eng.find_symbols(name, project=project, kind=kind, path_prefix=path_prefix, limit=limit)
        _note_runs(eng, project)
    _json(rows) if as_json else _print_symbols(rows, f"symbols matching {name!r}")


def _relation(symbol: str, relation: str, depth: int, project: Optional[str], limit: int, as_json: bool) -> None:
    with engine() as eng:
        res = eng.symbol_graph(symbol, relation, depth=depth, project=project, limit=limit)
        _note_runs(eng, project)
    if as_json:
        _json(res)
        return
    s = res["symbol"]
    title = f"{relation} of {_label(s)} ({s['path']}:{s['start_line']})"
    if res.get("inherited_by"):
        title += f", inherited by {res['inherited_by']}"
    if res.get("overloads"):  # asked as one: calls cannot tell them apart
        title += " with its overloads at lines " + ", ".join(str(o["start_line"]) for o in res["overloads"])
    _print_symbols(res["results"], title)
    if res.get("truncated"):
        out.print(Text(f"more than {limit}: raise --limit to see them", style="yellow"))
    if res["unresolved"]:
        out.print("outside the project: " + ", ".join(res["unresolved"]))
    if res.get("others"):  # the name is ambiguous: say so, or an empty answer reads as "nothing calls it"
        more = res["others_total"] - len(res["others"])
        out.print(Text(f"also named {symbol!r} (ask by qualified name or id): " + ", ".join(
            f"{_label(o)} ({o['path']}:{o['start_line']})" for o in res["others"])
            + (f" and {more} more" if more else ""), style="yellow"), soft_wrap=True)


LIMIT_HELP = "Most symbols to list (the answer says when there are more)."


@app.command()
def callers(symbol: str = typer.Argument(..., help=SYMBOL_HELP),
            depth: int = typer.Option(1, min=1, max=3, help="Hops to follow."),
            project: Optional[str] = typer.Option(None, "--project", "-p"),
            limit: int = typer.Option(100, "--limit", "-n", min=1, max=1000, help=LIMIT_HELP),
            as_json: bool = JsonOpt) -> None:
    """Who calls this symbol; then, marked "through", who calls a method it overrides or implements (a call
    through an interface or base class may reach it)."""
    _relation(symbol, "callers", depth, project, limit, as_json)


@app.command()
def callees(symbol: str = typer.Argument(..., help=SYMBOL_HELP),
            depth: int = typer.Option(1, min=1, max=3, help="Hops to follow."),
            project: Optional[str] = typer.Option(None, "--project", "-p"),
            limit: int = typer.Option(100, "--limit", "-n", min=1, max=1000, help=LIMIT_HELP),
            as_json: bool = JsonOpt) -> None:
    """What this symbol calls (names outside the project are listed apart); after an interface's, trait's or
    abstract method, marked "through" it, the methods that implement it (what such a call may run)."""
    _relation(symbol, "callees", depth, project, limit, as_json)


@app.command("symbol-graph")
def symbol_graph(symbol: str = typer.Argument(..., help=SYMBOL_HELP),
                 relation: str = typer.Option("callers", "--relation", "-r", help=(
                     "What to list: " + ", ".join(SYMBOL_RELATIONS) + ".")),
                 depth: int = typer.Option(1, min=1, max=3, help="Hops to follow."),
                 project: Optional[str] = typer.Option(None, "--project", "-p"),
                 limit: int = typer.Option(100, "--limit", "-n", min=1, max=1000, help=LIMIT_HELP),
                 as_json: bool = JsonOpt) -> None:
    """A symbol's neighbours of one relation: callers, callees, imports, imported_by, subclasses,
    superclasses, members (of a class or module) or container (what defines it)."""
    _relation(symbol, relation, depth, project, limit, as_json)


@app.command()
def projects(as_json: bool = JsonOpt) -> None:
    """Indexed projects with their files, chunks, symbols and edges (and how many of those name something outside
    the project: library calls, external bases); on stderr, the index runs in progress in any process."""
    with engine() as eng:
        rows = eng.code_projects()
        for run in eng.indexing():
            err.print(labelled("indexing:", "yellow", status(run) + f" by process {run.get('pid')}"),
                      soft_wrap=True)
    if as_json:
        _json(rows)
        return
    t = Table("project", "root", "files", "chunks", "symbols", "edges", "unresolved")
    for p in rows:
        t.add_row(p["project"], p["root"], str(p["files"]), str(p["chunks"]), str(p["symbols"]), str(p["edges"]),
                  str(p.get("unresolved_edges", "")))
    out.print(t)


@app.command("delete-project")
def delete_project(project: str = typer.Argument(..., help="Project name (see `projects`)."),
                   as_json: bool = JsonOpt) -> None:
    """Drop a project's code index; its memories are kept. An error while another process indexes it."""
    with engine() as eng:
        counts = eng.delete_project(project)
    _json(counts) if as_json else out.print(f"deleted {counts['code_chunks']} chunks of {project}")
