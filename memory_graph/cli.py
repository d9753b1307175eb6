"""The memory-graph command line: the Engine's API, one command per call (typer, rich)."""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, List, Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn
from rich.table import Column, Table

from .errors import MemoryGraphError, ValidationError
from .models import MODES, TYPES_HELP, iso
from .show import _words, err, labelled, out, print_explanations, progress_bar

if TYPE_CHECKING:  # the CLI imports the Engine (and its dependencies) only when a command needs it
    from .engine import Engine

app = typer.Typer(
    help="Long-term memory for coding agents: store memories, then find them again by meaning, words and links.",
    no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)

_state: dict = {"data_dir": None}

JsonOpt = typer.Option(False, "--json", help="Print machine-readable JSON instead of a table.")
CreatedAfter = typer.Option(None, "--created-after", help="Only memories stored after this time (ISO 8601).")
CreatedBefore = typer.Option(None, "--created-before", help="Only memories stored before this time (ISO 8601).")


@app.callback()
def main(data_dir: Optional[Path] = typer.Option(
        None, "--data-dir", "-d", envvar="MEMORY_GRAPH_HOME",
        help="Data directory (default: $MEMORY_GRAPH_HOME, else the platform's user data directory)."),
        store: Optional[str] = typer.Option(
            None, "--store", envvar="MEMORY_GRAPH_STORE_URI", show_envvar=False,
            help="Keep the records on object storage (s3://BUCKET/PREFIX, gs://, az://), shared by every machine "
                 "given the same URI; credentials from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION, "
                 "AWS_ENDPOINT_URL (default: $MEMORY_GRAPH_STORE_URI, else the data directory)."),
        verbose: bool = typer.Option(False, "--verbose", "-v", help="Log progress to stderr."),
        version: bool = typer.Option(False, "--version", is_eager=True, callback=lambda shown: _version(shown),
                                     help="Print the version and exit.")) -> None:
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")
    _state["data_dir"] = data_dir
    if store:  # read by Config.from_env in this process and in those it starts (the hooks' daemon)
        os.environ["MEMORY_GRAPH_STORE_URI"] = store


def _version(shown: bool) -> None:
    if shown:
        from importlib.metadata import version

        print(f"memory-graph {version('memory-graph')}")
        raise typer.Exit()


@contextmanager
def engine(*checks: Callable[[], object], renamed: dict[str, str] | None = None) -> Iterator[Engine]:
    """Open the Engine; turn every MemoryGraphError into a clear message and exit code 2. ``checks`` run
    first: a mistake in what was typed is told at once, not after the stores and the model are loaded.
    ``renamed``: the flags of this command that are not the API's argument in kebab case (list's --valid-at
    is the API's as_of)."""
    try:
        for check in checks:
            check()
        from .engine import Engine

        eng = Engine(_state["data_dir"])
        try:
            yield eng
        finally:
            eng.close()
    except MemoryGraphError as exc:
        hint = labelled("\nhint:", "yellow", cli_words(exc.hint)) if exc.hint else ""
        err.print(labelled("error:", "red", flag_words(exc.message, renamed or {})) + hint)
        raise typer.Exit(2) from None


#: API arguments whose flag is not their name in kebab case, in every command
_FLAGS = {"memory_type": "--type", "types": "--type"}


def flag_words(message: str, renamed: dict[str, str]) -> str:
    """An error's message in the words the user typed: the Engine names its arguments (``as_of='soon'``,
    ``limit=0``), the command line has flags (``--as-of 'soon'``, ``--limit 0``)."""
    def flag(m: re.Match) -> str:
        name = m.group(1)
        return (renamed.get(name) or _FLAGS.get(name) or "--" + name.replace("_", "-")) + " "
    return re.sub(r"(?<![\w.-])([a-z][a-z_]*)=(?=\S)", flag, message)


def times_check(**flags: str | None) -> Callable[[], None]:
    """A check for ``engine()``: each given flag (``as_of="soon"``) is a date, before the stores open."""
    def check() -> None:
        from .validation import parse_time

        for name, value in flags.items():
            if value:
                parse_time(value, name)  # named as the API names it: flag_words gives the flag
    return check


def mode_check(mode: str) -> Callable[[], None]:
    """A check for ``engine()``: --mode is one of the search modes."""
    def check() -> None:
        if mode not in MODES:
            raise ValidationError(f"--mode {mode!r} is not one of {', '.join(MODES)}")
    return check


#: the commands that do what an MCP tool named in an error's hint does
_COMMANDS = {"search_symbols": "memory-graph symbols", "project_status": "memory-graph projects",
             "create_entity": "memory-graph entity", "search_memory": "memory-graph search",
             "list_memories": "memory-graph list", "get_related": "memory-graph related",
             "delete_memory": "memory-graph delete", "update": "memory-graph update",
             "index_project": "memory-graph index"}
_TOOL_WORD = re.compile(r"\b(?:" + "|".join(_COMMANDS) + r")\b")


def cli_words(hint: str) -> str:
    """An error's hint as a CLI user acts on it: the Engine's hints name the MCP tools."""
    return _TOOL_WORD.sub(lambda m: _COMMANDS[m.group()], hint)


def _stdin_text() -> str:
    """Standard input as UTF-8 text, without the line ends that close it (piped from echo, git log...).

    Raises ValidationError if it is not UTF-8.
    """
    data = typer.get_binary_stream("stdin").read()
    try:
        return data.decode("utf-8").rstrip("\r\n")
    except UnicodeDecodeError as exc:
        raise ValidationError(f"standard input is not UTF-8 text (byte {exc.start} of {len(data)})",
                              hint="convert it first, e.g. iconv -f latin1 -t utf-8") from None


def _json(data) -> None:
    out.print_json(json.dumps(data, ensure_ascii=False, default=str))


def _progress():
    return progress_bar(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())


@app.command()
def store(text: str = typer.Argument(..., help="The memory's content; - reads it from standard input."),
          memory_type: str = typer.Option("episodic", "--type", "-t",
                                          help=TYPES_HELP),
          title: Optional[str] = typer.Option(None, help="Short title (default: the first line)."),
          tags: Optional[str] = typer.Option(None, help="Comma-separated tags."),
          importance: int = typer.Option(5, min=1, max=10, help=(
              "1 (trivia) to 10 (critical); search scores 10 x1.1 and 1 x0.92 to break near-ties; list orders by it.")),
          project: Optional[str] = typer.Option(None, "--project", "-p", help="Project name (default: global)."),
          entity: Optional[List[str]] = typer.Option(None, "--entity", "-e", help="Entity to link (repeatable)."),
          source: Optional[str] = typer.Option(None, help="File path or URL it came from."),
          valid_from: Optional[str] = typer.Option(
              None, help="Since when it holds (ISO 8601; default: from when it is stored)."),
          as_json: bool = JsonOpt) -> None:
    """Store a memory and print its id."""
    with engine() as eng:
        content = _stdin_text() if text == "-" else text
        mid = eng.store(content, memory_type=memory_type, title=title, tags=tags, importance=importance,
                        project=project, entities=entity, source=source, valid_from=valid_from)
        same = eng.duplicates(mid)
        newer_than = eng.may_update(mid)
        alike = [a for a in eng.similar(mid) if a[0] not in dict(newer_than)]
    # soft_wrap: a terminal-wide wrap would cut the command in two
    if same:
        err.print(labelled("note:", "yellow", f"the same text is stored as {', '.join(same)}; "
                                              f"`memory-graph delete {mid}` removes this copy if it is a repeat"),
                  soft_wrap=True)
    if newer_than:
        err.print(labelled("note:", "yellow", "may update: " + ", ".join(f"{i} ({s:.2f})" for i, s in newer_than) +
                           f"; if the old one no longer holds, `memory-graph invalidate ID --superseded-by {mid}`"),
                  soft_wrap=True)
    if alike:
        err.print(labelled("note:", "yellow", "similar: " + ", ".join(f"{i} ({s:.2f})" for i, s in alike) +
                           f"; if this replaces one, `memory-graph invalidate ID --superseded-by {mid}`"),
                  soft_wrap=True)
    if not as_json:
        return out.print(mid)
    _json({"id": mid, **({"duplicate_of": same} if same else {}),
           **({"may_update": [{"id": i, "similarity": s} for i, s in newer_than]} if newer_than else {}),
           **({"similar": [{"id": i, "similarity": round(s, 3)} for i, s in alike]} if alike else {})})


@app.command()
def search(query: str = typer.Argument(..., help="What to look for, in plain words."),
           limit: int = typer.Option(10, "--limit", "-n", min=1, max=1000, help="Results to return."),
           mode: str = typer.Option("hybrid", help="hybrid, vector, bm25 or graph."),
           project: Optional[str] = typer.Option(None, "--project", "-p",
                                                 help="Only this project (plus global memories)."),
           memory_type: Optional[str] = typer.Option(None, "--type", "-t", help="Only this memory type."),
           tags: Optional[str] = typer.Option(None, help="Comma-separated tags (any of them)."),
           created_after: Optional[str] = CreatedAfter, created_before: Optional[str] = CreatedBefore,
           as_of: Optional[str] = typer.Option(None, help="Search as of this time (ISO 8601): validity and decay."),
           include_invalid: bool = typer.Option(False, help="Also return memories whose validity ended."),
           min_score: Optional[float] = typer.Option(None, min=0.0, max=1.0,
                                                     help="Drop results scoring below this (0-1)."),
           explain: bool = typer.Option(False, help="Show each stage's contribution to every result."),
           as_json: bool = JsonOpt) -> None:
    """Search memories with the hybrid pipeline (vector + BM25 + graph, fusion, PPR, decay, MMR).

    When nothing matches well (low confidence) a note on stderr says so; a result a newer memory updates is
    marked "updated by"."""
    with engine(mode_check(mode), times_check(as_of=as_of, created_after=created_after,
                                              created_before=created_before)) as eng:
        hits = eng.search(query, limit=limit, mode=mode, project=project, types=memory_type, tags=tags,
                          created_after=created_after, created_before=created_before, as_of=as_of,
                          include_invalid=include_invalid, min_score=min_score)
        hint = eng.project_hint(project)
    for note in (hint, hits.note if hits else None):
        if note:
            err.print(labelled("note:", "yellow", note))
    if as_json:
        return _json([h.to_dict(explain=explain) for h in hits])
    if not hits:
        out.print("no results")
        return
    table = Table("score", *_record_columns())
    for h in hits:
        table.add_row(f"{h.score:.3f}", h.id, h.record.get("memory_type", ""),
                      (h.record.get("created_at") or "")[:10],
                      _ended(h.record) + ("[updated] " if h.record.get("updated_by") else "") + h.title)
    out.print(table)
    _print_superseded([(h.id, h.record.get("superseded_by", "")) for h in hits if h.record.get("ended")])
    if explain:
        print_explanations(hits)


def _ended(record: dict) -> str:
    """A title's prefix for a memory whose validity ended: an outdated fact must not read as a current one."""
    return f"(ended {(record.get('valid_until') or '')[:10]}) " if record.get("ended") else ""


def _print_superseded(pairs: list[tuple[str, str]]) -> None:
    """Name each ended memory's replacement under the table, where its id is not cut to the column."""
    for old, new in pairs:
        if new:
            out.print(f"{old} is superseded by {new}")


def _title(m) -> str:
    return _ended({"ended": m.ended(time.time()), "valid_until": iso(m.valid_until)}) + m.title


def _record_columns() -> list[Column]:
    """Columns of a memory table: the id, type and date stay whole (an id is copied into `get`), the title wraps."""
    return [Column("id", no_wrap=True, min_width=24), Column("type", no_wrap=True, min_width=10),
            Column("date", no_wrap=True, min_width=10), Column("title")]


@app.command()
def get(ids: List[str] = typer.Argument(..., help="One or more memory ids."), as_json: bool = JsonOpt) -> None:
    """Print full memory records."""
    with engine() as eng:
        records = eng.get(ids)
    if as_json:
        return _json([m.to_dict() for m in records])
    for m in records:
        out.rule(f"{m.id} [{m.memory_type}] {m.title}")
        out.print(m.content, highlight=False)
        out.print(f"tags={m.tags} project={m.project!r} created={m.to_dict()['created_at']} "
                  f"valid_until={m.to_dict()['valid_until']}")


@app.command("list")
def list_(project: Optional[str] = typer.Option(None, "--project", "-p", help="Only this project."),
          memory_type: Optional[str] = typer.Option(None, "--type", "-t", help="Only this type."),
          tags: Optional[str] = typer.Option(None, help="Comma-separated tags (any of them)."),
          limit: int = typer.Option(20, "--limit", "-n", min=1, max=1000, help="Page size."),
          offset: int = typer.Option(0, min=0, help="Skip this many."),
          order_by: str = typer.Option("created_at", help="created_at, updated_at or importance."),
          oldest_first: bool = typer.Option(False, help="Ascending order (oldest, or least important, first)."),
          valid_at: Optional[str] = typer.Option(None, help="Only memories valid at this time (ISO 8601, or now)."),
          created_after: Optional[str] = CreatedAfter, created_before: Optional[str] = CreatedBefore,
          as_json: bool = JsonOpt) -> None:
    """List memories, newest first, with filters and pagination. Ended ones are marked in the title."""
    with engine(times_check(valid_at=valid_at, created_after=created_after, created_before=created_before),
                renamed={"as_of": "--valid-at"}) as eng:
        page, total = eng.list(project=project, memory_type=memory_type, tags=tags, limit=limit, offset=offset,
                               order_by=order_by, descending=not oldest_first, valid_at=valid_at,
                               created_after=created_after, created_before=created_before)
    if as_json:
        return _json({"total": total, "offset": offset, "items": [m.to_dict() for m in page]})
    ranked = order_by == "importance"
    table = Table(*_record_columns(), *([Column("importance", justify="right")] if ranked else []),
                  title=f"{len(page)} of {total}")
    for m in page:
        table.add_row(m.id, m.memory_type, (m.to_dict()["created_at"] or "")[:10], _title(m),
                      *([str(m.importance)] if ranked else []))
    out.print(table)
    _print_superseded([(m.id, m.superseded_by) for m in page if m.ended(time.time())])


@app.command()
def update(memory_id: str = typer.Argument(..., help="The memory to change."),
           text: Optional[str] = typer.Option(None, "--text", help="New content; - reads it from standard input."),
           title: Optional[str] = typer.Option(None, help="New title."),
           memory_type: Optional[str] = typer.Option(None, "--type", "-t", help="New type."),
           tags: Optional[str] = typer.Option(None, help="New comma-separated tags (replace the old ones)."),
           importance: Optional[int] = typer.Option(None, min=1, max=10, help="New importance, 1 to 10."),
           project: Optional[str] = typer.Option(None, "--project", "-p", help="Move it to this project."),
           valid_from: Optional[str] = typer.Option(None, help="When it began to hold (ISO 8601)."),
           valid_until: Optional[str] = typer.Option(None, help="When it stops holding (ISO 8601); see also "
                                                                 "invalidate."),
           as_json: bool = JsonOpt) -> None:
    """Change fields of a memory; only a new text or title re-embeds it."""
    with engine() as eng:
        content = _stdin_text() if text == "-" else text
        m = eng.update(memory_id, content=content, title=title, memory_type=memory_type, tags=tags,
                       importance=importance, project=project, valid_from=valid_from, valid_until=valid_until)
    _json(m.to_dict()) if as_json else out.print(f"updated {m.id}")


@app.command()
def timeline(memory_id: Optional[str] = typer.Argument(None, help="The anchor memory (or give --query)."),
             query: Optional[str] = typer.Option(None, "--query", "-q", help="Anchor on this search's top hit."),
             before: int = typer.Option(3, min=0, max=100, help="Memories before the anchor."),
             after: int = typer.Option(3, min=0, max=100, help="Memories after the anchor."),
             project: Optional[str] = typer.Option(None, "--project", "-p", help="Search this project (--query)."),
             as_json: bool = JsonOpt) -> None:
    """What was stored just before and after a memory, in its project."""
    with engine() as eng:
        t = eng.timeline(anchor_id=memory_id, query=query, before=before, after=after, project=project)
    if as_json:
        return _json({k: ([m.to_dict() for m in v] if isinstance(v, list) else v.to_dict()) for k, v in t.items()})
    table = Table("", *_record_columns())
    for mark, ms in (("", t["before"]), (">", [t["anchor"]]), ("", t["after"])):
        for m in ms:
            table.add_row(mark, m.id, m.memory_type, (m.to_dict()["created_at"] or "")[:10], _title(m))
    out.print(table)
    every = t["before"] + [t["anchor"]] + t["after"]
    _print_superseded([(m.id, m.superseded_by) for m in every if m.ended(time.time())])


@app.command()
def invalidate(memory_id: str = typer.Argument(..., help="The memory to end."),
               reason: str = typer.Option("", help="Why it is no longer true."),
               superseded_by: Optional[str] = typer.Option(None, help="Id of the memory that replaces it."),
               at: Optional[str] = typer.Option(None, help="When it ended (ISO 8601; default now)."),
               as_json: bool = JsonOpt) -> None:
    """End a memory's validity; searches stop returning it."""
    with engine() as eng:
        m = eng.invalidate(memory_id, at=at, reason=reason, superseded_by=superseded_by)
    _json(m.to_dict()) if as_json else out.print(f"{m.id} valid until {m.to_dict()['valid_until']}")


@app.command()
def delete(ids: List[str] = typer.Argument(..., help="One or more memory ids."), as_json: bool = JsonOpt) -> None:
    """Delete memories for good (with their links and index entries)."""
    with engine() as eng:
        n = eng.delete(ids)
    _json({"deleted": n}) if as_json else out.print(f"deleted {n}")


@app.command()
def stats(as_json: bool = JsonOpt) -> None:
    """Counts, index health, model and disk use."""
    with engine() as eng:
        s = eng.stats()
    if as_json:
        return _json(s)
    for k, v in s.items():
        out.print(f"{k.removesuffix('_bytes').replace('_', ' ')}: {_words(v, k)}", soft_wrap=True)


@app.command()
def check(repair: bool = typer.Option(False, "--repair", help="Mend what is found: delete dangling rows, "
                                      "recompute torn memories' passages and links, reconcile the BM25 index."),
          as_json: bool = JsonOpt) -> None:
    """Look for rows a write left torn (a memory without its passages or links) or dangling (a link, passage,
    relation or code row whose record is gone) and a BM25 index out of step with LanceDB. Exits 1 when
    something is wrong and was not repaired."""
    with engine() as eng:
        r = eng.check(repair=repair)
    if as_json:
        _json(r)
    else:
        out.print(f"dangling rows: {_words(r['dangling'])}", soft_wrap=True)
        out.print(f"torn memories: {_words(r['torn'])}", soft_wrap=True)
        out.print(f"text index in sync: {_words(r['text_index_in_sync'])}")
        out.print("repaired" if r.get("repaired") else "ok" if r["ok"] else
                  "problems found: run `memory-graph check --repair`")
    if not r["ok"] and not r.get("repaired"):
        raise typer.Exit(1)


@app.command("export")
def export_(path: Path = typer.Argument(..., help="JSON Lines file to write."), as_json: bool = JsonOpt) -> None:
    """Export the memories, entities and relations (with their vectors) to JSON Lines, for import into another
    data directory. The code index is left out: index the projects again there."""
    with engine() as eng, _progress() as bar:
        task = bar.add_task("exporting", total=None)
        counts = eng.export(path, progress=lambda d, t: bar.update(task, completed=d, total=t))
    _json(counts) if as_json else out.print(f"exported {_words(counts)} to {path}", soft_wrap=True)


@app.command("import")
def import_(path: Path = typer.Argument(..., help="JSON Lines file written by export."),
            as_json: bool = JsonOpt) -> None:
    """Import an export file (existing ids are skipped)."""
    with engine() as eng, _progress() as bar:
        task = bar.add_task("importing", total=None)
        counts = eng.import_(path, progress=lambda d, t: bar.update(task, completed=d, total=t))
    _json(counts) if as_json else out.print(f"imported {_words(counts)}", soft_wrap=True)


@app.command()
def rebuild(as_json: bool = JsonOpt) -> None:
    """Rebuild the BM25 index, the graph and the code chunks' neighbour lists from LanceDB (the source of truth)."""
    with engine() as eng, _progress() as bar:
        task = bar.add_task("rebuilding", total=None)
        result = eng.rebuild(progress=lambda d, t: bar.update(task, completed=d, total=t))
    _json(result) if as_json else out.print(f"rebuilt: {_words(result)}", soft_wrap=True)


@app.command("prune-entities")
def prune_entities(apply: bool = typer.Option(False, "--apply", help="Delete them (default: only list them)."),
                   as_json: bool = JsonOpt) -> None:
    """List (or, with --apply, delete) extracted names that extraction would not create today, e.g. "Friends"
    from "Friends are the best!" in a store written before sentence-opening words stopped becoming entities.
    Entities with a description, alias, relation or explicit mention are kept."""
    with engine() as eng:
        gone = eng.prune_entities(apply=apply)
    if as_json:
        return _json({"applied": apply, "entities": [e.to_dict() for e in gone]})
    out.print(f"{'deleted' if apply else 'would delete'} {len(gone)} entities" + (": " if gone else ""),
              ", ".join(e.name for e in gone))


@app.command()
def optimize(keep_versions_seconds: Optional[float] = typer.Option(
        None, min=0, help="Prune only versions older than this (default 60); 0 keeps only the latest, for when "
                          "no other process has the data open."),
             as_json: bool = JsonOpt) -> None:
    """Compact the tables, prune old versions and build the vector index now (writes also do it now and then)."""
    with engine() as eng:
        eng.optimize(keep_versions_seconds=keep_versions_seconds)
        disk = eng.stats()["disk_bytes"]
    _json({"disk_bytes": disk}) if as_json else out.print(f"optimized; {disk / 1e6:.1f} MB on disk")


# ---- the entity graph ----------------------------------------------------
@app.command()
def entities(entity_type: Optional[str] = typer.Option(None, "--type", "-t", help="Only this type (person, ...)."),
             limit: int = typer.Option(100, "--limit", "-n", min=1, max=100_000, help="At most this many."),
             as_json: bool = JsonOpt) -> None:
    """List entities: names given or found in memories, with their type and aliases."""
    with engine() as eng:
        found = eng.list_entities(entity_type=entity_type, limit=limit)
    if as_json:
        return _json([e.to_dict() for e in found])
    table = Table(Column("id", no_wrap=True), Column("type", no_wrap=True), "name", "aliases")
    for e in found:
        table.add_row(e.id, e.entity_type, e.name, ", ".join(e.aliases))
    out.print(table)


@app.command()
def entity(name: str = typer.Argument(..., help="Its name."),
           entity_type: str = typer.Option("concept", "--type", "-t", help="person, project, service, ..."),
           description: str = typer.Option("", help="What it is (searchable)."),
           alias: Optional[List[str]] = typer.Option(None, "--alias", "-a", help="Another name (repeatable)."),
           as_json: bool = JsonOpt) -> None:
    """Create an entity, or add a description or aliases to the one with this name and type."""
    with engine() as eng:
        e = eng.create_entity(name, entity_type, description, alias)
    _json(e.to_dict()) if as_json else out.print(e.id)


@app.command()
def relate(source: str = typer.Argument(..., help="An entity name or id, or a memory id."),
           target: str = typer.Argument(..., help="An entity name or id, or a memory id."),
           relation_type: str = typer.Option("related_to", "--type", "-t", help="uses, owns, depends_on, ..."),
           weight: float = typer.Option(1.0, help="Strength, in (0, 100]."),
           valid_from: Optional[str] = typer.Option(None, help="When the link began to hold (ISO 8601)."),
           as_json: bool = JsonOpt) -> None:
    """Link two entities or memories; a name that is not an entity yet becomes one."""
    with engine() as eng:
        r = eng.create_relation(source, target, relation_type, weight, valid_from=valid_from)
    _json(r.to_dict()) if as_json else out.print(r.id)


@app.command()
def related(ref: str = typer.Argument(..., help="An entity name or id, or a memory id."),
            depth: int = typer.Option(1, min=1, max=3, help="Hops, 1 to 3."),
            direction: str = typer.Option("both", help="out, in or both."),
            relation_type: Optional[List[str]] = typer.Option(None, "--type", "-t", help="Only these (repeatable)."),
            limit: int = typer.Option(100, "--limit", "-n", min=1, max=1000, help="Results to show."),
            as_json: bool = JsonOpt) -> None:
    """Entities and memories linked to an entity or memory, with the link they came through."""
    with engine() as eng:
        rows = eng.get_related(ref, depth, direction, relation_type, limit=limit)
    if as_json:
        return _json(rows)
    table = Table(Column("id", no_wrap=True), "kind", "name", "hops", "link")
    for r in rows:
        link = f"{r['edge_type']} ({r['direction']}) {r['via']}" + (f" [{r['relation_id']}]" if
                                                                     r.get("relation_id") else "")
        kind = f"{r['kind']} ({r['entity_type']})" if r.get("entity_type") else r["kind"]
        table.add_row(r["id"], kind, r["name"], str(r["distance"]), link)
    out.print(table)


@app.command("delete-entity")
def delete_entity(ref: str = typer.Argument(..., help="An entity name or id, or a relation id (rel_...)."),
                  as_json: bool = JsonOpt) -> None:
    """Delete an entity with its links, or one relation; memories are kept."""
    with engine() as eng:
        res = eng.delete_entity(ref)
    _json(res) if as_json else out.print(f"deleted {res['kind']} {res['deleted']}")


@app.command()
def communities(min_size: int = typer.Option(2, min=1, help="Smallest community shown."),
                top: int = typer.Option(5, min=1, max=100, help="Members named per community."),
                as_json: bool = JsonOpt) -> None:
    """Groups of entities that are linked more among themselves than to the rest (Louvain)."""
    with engine() as eng:
        found = eng.communities(min_size=min_size, top=top)
    if as_json:
        return _json(found)
    for c in found:
        out.print(f"{c['size']:>5}  " + ", ".join(f"{m['name']} ({m['type']})" for m in c["members"]))


if __name__ == "__main__":  # pragma: no cover
    app()
