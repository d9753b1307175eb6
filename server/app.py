"""The MCP server: 20 tools, each a thin wrapper over one Engine call (validate, call, shape the answer)."""

from __future__ import annotations

import difflib
import functools
import inspect
import json
import logging
import time
from datetime import datetime, timezone
from typing import Annotated, Any, Literal

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import ConfigDict, BaseModel, Field, ValidationError, create_model, model_validator

from memory_graph import Engine, __version__
from memory_graph.errors import MemoryGraphError
from memory_graph.models import Hit, Memory, iso

from .early import INSTRUCTIONS
from .state import ServerState

log = logging.getLogger("memory_graph.server")



# Only what differs from MCP's defaults (not read-only, destructive, not idempotent) is published: every session
# of every agent reads these lines. openWorldHint (default true: "may reach outside") is left out too, though no
# tool here reaches outside the store: it cost 160 of the list's tokens.
READ = ToolAnnotations(readOnlyHint=True)
WRITE = ToolAnnotations(destructiveHint=False)
IDEMPOTENT = ToolAnnotations(destructiveHint=False, idempotentHint=True)
DESTRUCTIVE = ToolAnnotations(destructiveHint=True, idempotentHint=True)

Id = Annotated[str, Field(min_length=1, max_length=200, description="Memory id.")]
Ids = Annotated[list[Id], Field(min_length=1, max_length=100, description="Memory ids.")]
Limit = Annotated[int, Field(ge=1, le=100, description="Results wanted.")]
Time = Annotated[str | None, Field(description="ISO 8601 date.")]
Tags = Annotated[list[Annotated[str, Field(min_length=1, max_length=100)]] | None,
                 Field(max_length=50, description="Tags.")]
PathPrefix = Annotated[str | None, Field(max_length=1000, description="Only files under this path (src/api/).")]
Project = Annotated[str | None, Field(max_length=200, description="Default: the current one.")]
Scope = Annotated[Literal["project", "global", "all"], Field(description=(
    "project (and global memories), global or all."))]
Types = Annotated[list[str] | None, Field(max_length=20, description="Memory types.")]


def _answer(result: Any) -> Any:
    """A tool's dict as the call's result: its JSON in one compact line of text, once. Clients show the model one
    form of a result (Claude Code passes structured content when there is any, others the text), so the second
    copy the MCP spec suggests for older clients would only double every answer on the wire; with no output
    schema published, text alone is a complete answer (the SDK's own for a tool without one)."""
    if not isinstance(result, dict):
        return result
    text = json.dumps(result, ensure_ascii=False, default=str, separators=(",", ":"))
    return CallToolResult(content=[TextContent(type="text", text=text)])


def _tool_errors(fn):
    """A caller's mistake comes back as a tool error the agent can act on, never a traceback."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return _answer(fn(*args, **kwargs))
        except MemoryGraphError as exc:
            raise ToolError(exc.message + (f" Hint: {exc.hint}" if exc.hint else "")) from None

    return wrapper


def _noted(eng: Engine, project: str | None, answer: dict[str, Any], note: str | None = None) -> dict[str, Any]:
    """A code answer, with a note when the project asked (or, for every project, any) is being indexed, and
    the search's own note (nothing matches well)."""
    notes = [n for n in (eng.index_note(project), note) if n]  # a run in progress explains a weak answer
    return {**answer, "note": "; ".join(notes)} if notes else answer


def _stamp(when: float | str | None) -> str | None:
    """A compact answer's time, to the minute in UTC ("2026-11-24T09:30Z"): two facts of one day need their
    order, no answer needs the seconds."""
    if when is None or when == "":
        return None
    t = datetime.fromisoformat(when) if isinstance(when, str) else datetime.fromtimestamp(when, tz=timezone.utc)
    return t.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%MZ")


def _compact(m: Memory) -> dict[str, Any]:
    out = {"id": m.id, "title": m.title, "type": m.memory_type, "date": _stamp(m.created_at),
           "project": m.project or None}
    if m.valid_until is not None:
        out["valid_until"] = _stamp(m.valid_until)
        if m.ended(time.time()):
            out.update(ended=True, superseded_by=m.superseded_by or None)
    return out


def _hit(h: Hit, details: bool, explain: bool, full: dict | None = None) -> dict[str, Any]:
    r = h.record or {}
    out: dict[str, Any] = {"id": h.id, "title": h.title, "score": round(h.score, 4)}
    if h.kind == "memory":
        out.update(type=r.get("memory_type"), date=_stamp(r.get("created_at")), project=r.get("project") or None)
        # an agent may read no further than this index, so a superseded memory must say so here
        if r.get("valid_until"):
            out["valid_until"] = _stamp(r["valid_until"])
        out.update({k: r[k] for k in ("ended", "superseded_by", "invalidation_reason", "updated_by") if r.get(k)})
    else:
        out.update(path=r.get("path"), lines=f"{r.get('start_line')}-{r.get('end_line')}",
                   language=r.get("language"), type=r.get("chunk_type"))
        if r.get("definition_start_line"):  # the hit is one window of this definition
            out["definition"] = f"{r['definition_start_line']}-{r['definition_end_line']}"
    if details and full:
        out["content"] = full.get("content")
        if "tags" in full:
            out["tags"] = full["tags"]
    if explain:
        out["explanation"] = h.explanation.to_dict()
    return out


def build_server(state: ServerState) -> MCPServer:
    """The MCP server over one ServerState. Every tool is documented; schemas carry defaults and bounds."""
    mcp = MCPServer("memory-graph", instructions=INSTRUCTIONS, version=__version__)

    def scope_of(project: str | None, scope: str) -> tuple[str | None, bool]:
        if scope == "all":
            return None, True
        if scope == "global":
            return "", False
        return (project if project is not None else state.project), True

    # ---- memory ---------------------------------------------------------------
    @mcp.tool(annotations=WRITE)
    @_tool_errors
    def store_memory(
            content: Annotated[str, Field(min_length=1, description="What to remember.")],
            memory_type: Annotated[str, Field(description=(
                "episodic (what happened), fact, decision, procedural, preference, bugfix, ..."))]
            = "episodic",
            title: Annotated[str | None, Field(max_length=500, description="Default: the first line.")]
            = None,
            tags: Tags = None,
            importance: Annotated[int, Field(ge=1, le=10, description="1 trivia to 10 critical.")] = 5,
            project: Annotated[str | None, Field(max_length=200, description=(
                "Default: the current project; \"\" for a global memory."))] = None,
            entities: Annotated[list[Annotated[str, Field(min_length=1, max_length=200)]] | None,
                                Field(max_length=50, description="More entities to link.")] = None,
            source: Annotated[str | None, Field(max_length=2000, description="File or URL it came from.")]
            = None,
            valid_from: Time = None) -> dict[str, Any]:
        """Remember a decision, fix, procedure or fact for later sessions. Returns its id, and older memories
        it may update (retire them with invalidate_memory)."""
        eng = state.engine()
        mid = eng.store(content, memory_type=memory_type, title=title, tags=tags, importance=importance,
                        project=state.project if project is None else project, source=source,
                        entities=entities, valid_from=valid_from)
        m = eng.get([mid])[0]
        out: dict[str, Any] = {"id": mid, "title": m.title, "project": m.project or None}
        notes = []
        same = eng.duplicates(mid)
        if same:
            out["duplicate_of"] = same
            notes.append("this exact content was stored before; if this is a repeat, not a new event, "
                         "delete_memory removes the new copy")
        newer_than = eng.may_update(mid)
        if newer_than:
            out["may_update"] = [{**_compact(o), "similarity": s}
                                 for o, (_, s) in zip(eng.get([i for i, _ in newer_than]), newer_than)]
            notes.append(f"this probably updates an older fact about the same thing (may_update); searches rank "
                         f"it first already, and invalidate_memory(id, superseded_by=\"{mid}\") retires the old "
                         f"one if it no longer holds")
        alike = [a for a in eng.similar(mid) if a[0] not in dict(newer_than)]
        if alike:
            out["similar"] = [{**_compact(o), "similarity": round(alike_to, 3)}
                              for o, (_, alike_to) in zip(eng.get([i for i, _ in alike]), alike)]
            notes.append(f"similar memories say much the same; if this replaces one, invalidate_memory(id, "
                         f"superseded_by=\"{mid}\") retires it and keeps its history")
        if notes:
            out["note"] = "; ".join(notes)
        return out

    @mcp.tool(annotations=READ)
    @_tool_errors
    def get_memories(ids: Ids) -> dict[str, Any]:
        """Full records of chosen memories."""
        return {"memories": [m.to_dict() for m in state.engine().get(ids)]}

    @mcp.tool(annotations=IDEMPOTENT)
    @_tool_errors
    def update_memory(
            id: Id, content: Annotated[str | None, Field(min_length=1, description="New content.")] = None,
            title: Annotated[str | None, Field(max_length=500, description="New title.")] = None,
            memory_type: Annotated[str | None, Field(description="New type.")] = None,
            tags: Tags = None,
            importance: Annotated[int | None, Field(ge=1, le=10, description="1 to 10.")] = None,
            project: Annotated[str | None, Field(max_length=200, description="Move it to this project.")] = None,
            valid_from: Time = None, valid_until: Time = None) -> dict[str, Any]:
        """Correct a memory's fields."""
        m = state.engine().update(id, content=content, title=title, memory_type=memory_type, tags=tags,
                                  importance=importance, project=project, valid_from=valid_from,
                                  valid_until=valid_until)
        return {"memory": m.to_dict()}

    @mcp.tool(annotations=DESTRUCTIVE)
    @_tool_errors
    def delete_memory(ids: Ids) -> dict[str, Any]:
        """Delete memories for good; invalidate_memory keeps history instead."""
        return {"deleted": state.engine().delete(ids)}

    @mcp.tool(annotations=READ)
    @_tool_errors
    def list_memories(
            project: Project = None, scope: Scope = "project",
            memory_type: Types = None, tags: Tags = None,
            created_after: Time = None, created_before: Time = None,
            valid_at: Annotated[str | None, Field(description="Only memories valid then (ISO 8601).")] = None,
            limit: Limit = 20,
            offset: Annotated[int, Field(ge=0, le=1_000_000, description="Results to skip.")] = 0,
            order_by: Annotated[Literal["created_at", "updated_at", "importance"], Field(
                description="Sort key.")] = "created_at",
            descending: Annotated[bool, Field(description="Newest or most important first.")] = True
            ) -> dict[str, Any]:
        """Browse memories by filters, a page at a time."""
        eng = state.engine()
        proj, _ = scope_of(project, scope)
        page, total = eng.list(project=proj, memory_type=memory_type, tags=tags, created_after=created_after,
                               created_before=created_before, valid_at=valid_at, limit=limit, offset=offset,
                               order_by=order_by, descending=descending)
        return {"total": total, "offset": offset, "memories": [_compact(m) for m in page]}

    @mcp.tool(annotations=IDEMPOTENT)
    @_tool_errors
    def invalidate_memory(
            id: Id, reason: Annotated[str, Field(max_length=2000, description="Why it no longer holds.")] = "",
            superseded_by: Annotated[str | None, Field(max_length=200, description="The memory replacing it.")]
            = None,
            at: Annotated[str | None, Field(description="When it ended (ISO 8601); default now.")] = None
    ) -> dict[str, Any]:
        """Mark a memory no longer true, keeping it as history; searches then skip it."""
        m = state.engine().invalidate(id, at=at, reason=reason, superseded_by=superseded_by)
        return {"id": m.id, "valid_until": iso(m.valid_until), "superseded_by": m.superseded_by or None}

    # ---- search ---------------------------------------------------------------
    @mcp.tool(annotations=READ)
    @_tool_errors
    def search_memory(
            query: Annotated[str, Field(min_length=1, max_length=10_000, description="A question or words.")],
            limit: Limit = 10,
            project: Project = None, scope: Scope = "project",
            memory_type: Types = None, tags: Tags = None,
            created_after: Time = None, created_before: Time = None,
            as_of: Annotated[str | None, Field(description="Search as of a past time.")] = None,
            include_invalid: Annotated[bool, Field(description="Include memories no longer true.")] = False,
            min_score: Annotated[float | None, Field(ge=0, le=1, description="Drop weaker results.")] = None,
            details: Annotated[bool, Field(description="Include content.")] = False,
            explain: Annotated[bool, Field(description="Say why each was found.")] = False
    ) -> dict[str, Any]:
        """Recall what earlier sessions stored: decisions, fixes, codenames, facts. A compact index (get_memories
        for content); a low confidence with a note means nothing matches well."""
        eng = state.engine()
        proj, include_global = scope_of(project, scope)
        hits = eng.search(query, limit=limit, project=proj, include_global=include_global,
                          types=memory_type, tags=tags, created_after=created_after, created_before=created_before,
                          as_of=as_of, include_invalid=include_invalid, min_score=min_score)
        full = {m.id: m.to_dict() for m in eng.get([h.id for h in hits])} if details and hits else {}
        out = {"results": [_hit(h, details, explain, full.get(h.id)) for h in hits],
               "scope": {"project": proj, "include_global": include_global}, "confidence": hits.confidence}
        notes = [n for n in (hits.note, eng.project_hint(proj)) if n]
        return {**out, "note": "; ".join(notes)} if notes else out

    @mcp.tool(annotations=READ)
    @_tool_errors
    def timeline(
            anchor_id: Annotated[str | None, Field(max_length=200, description="Memory to centre on.")] = None,
            query: Annotated[str | None, Field(max_length=10_000, description=(
                "Else: its top hit is the anchor."))] = None,
            before: Annotated[int, Field(ge=0, le=50, description="Memories before.")] = 3,
            after: Annotated[int, Field(ge=0, le=50, description="Memories after.")] = 3,
            project: Project = None) -> dict[str, Any]:
        """What was stored just before and after a memory, in its project."""
        t = state.engine().timeline(anchor_id=anchor_id, query=query, before=before, after=after,
                                    project=project if project is not None else state.project)
        return {"anchor": _compact(t["anchor"]), "before": [_compact(m) for m in t["before"]],
                "after": [_compact(m) for m in t["after"]]}

    # ---- graph ----------------------------------------------------------------
    @mcp.tool(annotations=IDEMPOTENT)
    @_tool_errors
    def create_entity(
            name: Annotated[str, Field(min_length=1, max_length=200, description="Entity name.")],
            entity_type: Annotated[str, Field(max_length=50, description="person, project, service, ...")]
            = "concept",
            description: Annotated[str, Field(max_length=5_000, description="What it is.")] = "",
            aliases: Annotated[list[Annotated[str, Field(min_length=1, max_length=200)]] | None,
                               Field(max_length=50, description="Other names, e.g. a codename.")] = None
    ) -> dict[str, Any]:
        """Name a person, service or concept (or describe an existing one), with aliases such as codenames."""
        return {"entity": state.engine().create_entity(name, entity_type, description, aliases).to_dict()}

    @mcp.tool(annotations=WRITE)
    @_tool_errors
    def create_relation(
            source: Annotated[str, Field(min_length=1, max_length=200, description="Entity or memory.")],
            target: Annotated[str, Field(min_length=1, max_length=200, description="Entity or memory.")],
            relation_type: Annotated[str, Field(min_length=1, max_length=100, description="e.g. depends_on.")]
            = "related_to",
            weight: Annotated[float, Field(gt=0, le=100, description="Strength.")] = 1.0,
            valid_from: Time = None) -> dict[str, Any]:
        """Link two entities or memories (a new name becomes an entity)."""
        rel = state.engine().create_relation(source, target, relation_type, weight, valid_from=valid_from)
        return {"relation": rel.to_dict()}

    @mcp.tool(annotations=READ)
    @_tool_errors
    def get_related(
            id: Annotated[str, Field(min_length=1, max_length=200, description="Entity or memory.")],
            depth: Annotated[int, Field(ge=1, le=3, description="Hops.")] = 1,
            direction: Annotated[Literal["out", "in", "both"], Field(description="Edge direction.")] = "both",
            relation_types: Annotated[list[str] | None, Field(max_length=20, description="Only these.")] = None,
            limit: Limit = 50) -> dict[str, Any]:
        """What an entity or memory is linked to, within a few hops."""
        return {"related": state.engine().get_related(id, depth, direction, relation_types, limit=limit)}

    @mcp.tool(annotations=DESTRUCTIVE)
    @_tool_errors
    def delete_entity(
            id: Annotated[str, Field(min_length=1, max_length=200, description=(
                "Entity, or relation id (rel_...)."))]) -> dict[str, Any]:
        """Delete an entity with its links, or one relation."""
        return state.engine().delete_entity(id)

    @mcp.tool(annotations=READ)
    @_tool_errors
    def detect_communities(min_size: Annotated[int, Field(ge=2, le=1000, description="Smallest size.")] = 2,
                           top: Annotated[int, Field(ge=1, le=50, description="Members shown.")] = 5
                           ) -> dict[str, Any]:
        """Clusters of related entities, largest first."""
        return {"communities": state.engine().communities(min_size=min_size, top=top)}

    # ---- code -----------------------------------------------------------------
    @mcp.tool(annotations=IDEMPOTENT)
    async def index_project(
            ctx: Context,
            path: Annotated[str | None, Field(max_length=4096, description="Default: the current project.")]
            = None,
            project: Project = None,
            force: Annotated[bool, Field(description="Re-embed every file.")] = False,
            watch: Annotated[bool, Field(description="Re-index as files change.")] = False
    ) -> dict[str, Any]:
        """Index a project's code for search_code and symbol_graph; a re-run only reads changed files."""
        try:
            run, started = await anyio.to_thread.run_sync(state.start_index, path, project, force)
        except MemoryGraphError as exc:
            raise ToolError(exc.message + (f" Hint: {exc.hint}" if exc.hint else "")) from None
        last = None
        while not run.finished.is_set():
            snap = (run.phase, run.done, run.total, run.chunks)
            if snap != last:
                last = snap
                await ctx.report_progress(run.done, run.total or None, run.message())
            await anyio.sleep(0.2)
        if run.error:
            raise ToolError(run.error)
        await ctx.report_progress(run.total or 1, run.total or 1, "done")
        out = {**run.report.to_dict(), "joined_running": not started}
        out["errors"] = out["errors"][:20]
        if watch:
            out["watching"] = await anyio.to_thread.run_sync(state.watch, run.project, run.root) or \
                run.project in state.watchers
        return _answer(out)

    @mcp.tool(annotations=READ)
    @_tool_errors
    def search_code(
            query: Annotated[str, Field(min_length=1, max_length=10_000, description=(
                "What the code does, a name, path:line or an error."))],
            limit: Limit = 10,
            project: Annotated[str | None, Field(max_length=200, description=(
                "Default: the current project; \"*\" for all."))] = None,
            path_prefix: PathPrefix = None,
            languages: Annotated[list[str] | None, Field(max_length=20, description="e.g. python.")] = None,
            chunk_types: Annotated[list[str] | None, Field(max_length=20, description=(
                "function, method, class, ..."))] = None,
            details: Annotated[bool, Field(description="Include code.")] = False,
            explain: Annotated[bool, Field(description="Say why each was found.")] = False) -> dict[str, Any]:
        """Find code by what it does, a name, path:line or a pasted error; tests and docs rank below code. A low
        confidence with a note means nothing matches well."""
        eng = state.engine()
        if project == "*":
            proj = None
        elif project:
            proj = project
        else:  # the current project when it is indexed (or being indexed), else every project
            proj = state.project if eng.has_code(state.project) or eng.indexing(state.project) else None
        hits = eng.search_code(query, limit=limit, project=proj, path_prefix=path_prefix,
                               languages=languages, chunk_types=chunk_types)
        full = {c["id"]: c for c in eng.get_chunks([h.id for h in hits])} if details and hits else {}
        results = [_hit(h, details, explain, full.get(h.id)) for h in hits]
        if proj is None:  # paths alone are ambiguous across projects
            for out, h in zip(results, hits):
                out["project"] = (h.record or {}).get("project")
        return _noted(eng, proj, {"results": results, "project": proj, "confidence": hits.confidence}, hits.note)

    @mcp.tool(annotations=READ)
    @_tool_errors
    def search_symbols(
            name: Annotated[str, Field(min_length=1, max_length=200, description=(
                "A name or part of one, Class.method, pkg.module.name, or path.py:name."))],
            project: Project = None,
            kind: Annotated[str | None, Field(max_length=50, description="function, class, method, ...")] = None,
            path_prefix: PathPrefix = None,
            limit: Limit = 20) -> dict[str, Any]:
        """Find definitions by name: exact, then prefix, then substring."""
        eng = state.engine()
        rows = eng.find_symbols(name, project=project, kind=kind, path_prefix=path_prefix, limit=limit)
        return _noted(eng, project, {"symbols": rows})

    @mcp.tool(annotations=READ)
    @_tool_errors
    def symbol_graph(
            symbol: Annotated[str, Field(min_length=1, max_length=300, description=(
                "A name, Class.method, pkg.module.name, path.py:line or id."))],
            relation: Annotated[Literal["callers", "callees", "imports", "imported_by", "subclasses",
                                        "superclasses", "members", "container"], Field(
                description="What to follow.")] = "callers",
            depth: Annotated[int, Field(ge=1, le=3, description="Hops.")] = 1, project: Project = None,
            limit: Limit = 50) -> dict[str, Any]:
        """Walk the code graph from a symbol (callers, callees, imports, ...); same-named symbols are listed in
        `others`."""
        eng = state.engine()
        return _noted(eng, project, eng.symbol_graph(symbol, relation, depth=depth, project=project, limit=limit))

    @mcp.tool(annotations=READ)
    @_tool_errors
    def project_status(project: Project = None) -> dict[str, Any]:
        """Indexed projects and the progress of index runs, in any process."""
        eng = state.engine()
        runs = [r for r in state.runs() if project in (None, r["project"])]
        mine = {r["project"] for r in runs if r["running"]}
        runs += [{"project": r["project"], "root": r.get("root"), "phase": r.get("phase"),
                  "files_done": r.get("files_done"), "files_total": r.get("files_total"),
                  "chunks_embedded": r.get("chunks_embedded", 0), "running": True,
                  "seconds": round(time.time() - r.get("started", time.time()), 1), "error": None,
                  "pid": r.get("pid")}
                 for r in eng.indexing(project) if r["project"] not in mine]  # a watcher's, another process's
        rows = eng.code_projects(project)
        if not rows and not runs:  # a first run in progress has written no file yet
            eng.check_project(project)
        for p in rows:
            p["last_indexed"] = iso(p["last_indexed"])
            w = state.watchers.get(p["project"])
            p["watching"] = w is not None
            if w is not None:
                st = w.status()
                p["watch"] = {**st, "last_run": iso(st["last_run"])}
        return {"current_project": state.project, "projects": rows, "runs": runs}

    @mcp.tool(annotations=DESTRUCTIVE)
    @_tool_errors
    def delete_project(project: Annotated[str, Field(min_length=1, max_length=200, description="Project name.")]
                       ) -> dict[str, Any]:
        """Drop a project's code index; its memories stay."""
        w = state.watchers.pop(project, None)
        if w is not None:
            w.stop()
        # else the run would write on after the deletion and bring part of the project back
        state.stop_index(project, f"indexing stopped: delete_project dropped project {project!r} meanwhile")
        return {"deleted": state.engine().delete_project(project)}

    # ---- system ---------------------------------------------------------------
    @mcp.tool(annotations=READ)
    @_tool_errors
    def get_status() -> dict[str, Any]:
        """Version, data path, counts, health and the current project."""
        s = state.engine().stats()
        return {"version": __version__, "current_project": state.project,
                "allowed_roots": [str(r) for r in state.roots], **s}

    _forbid_unknown_arguments(mcp)
    return mcp


def _forbid_unknown_arguments(mcp: MCPServer) -> None:
    """Reject arguments a tool does not declare, naming the one meant. The SDK drops them silently, so a
    misspelt parameter ("qeury") would run the call without it. The published schema leaves out
    ``additionalProperties: false`` (20 lines every agent reads for a rule the error states when it matters).
    Every argument error is then said as ArgumentsError says it."""
    for tool in mcp._tool_manager.list_tools():  # no public hook for this in mcp 2.x
        model = tool.fn_metadata.arg_model
        known = [f.alias or name for name, f in model.model_fields.items()]

        def check(data: Any, _tool: str = tool.name, _known: list[str] = known) -> Any:
            unknown = [k for k in data if k not in _known] if isinstance(data, dict) else []
            if unknown:
                raise ValueError(_unknown_arguments(_tool, unknown, _known))
            return data

        tool.fn_metadata.arg_model = create_model(model.__name__, __base__=(model, _Readable),
                                                  __validators__={"_known": model_validator(mode="before")(check)})
        # every session of every agent reads this list: no code indentation in descriptions, no generated
        # titles, an optional argument said once (absent from "required") rather than as anyOf [X, null]
        tool.description = inspect.cleandoc(tool.description or "")
        # every tool returns a dict of its own shape: the generated outputSchema said only "an object" (about
        # 400 of the list's tokens), and each answer is its JSON text (_answer)
        tool.fn_metadata.output_schema = tool.fn_metadata.output_model = None
        tool.parameters = compact_schema(tool.parameters)


#: schema keywords left out of the tool list: generated titles, and the length limits the tool's model still
#: enforces with a clear error (an agent rarely comes near them, and every session pays for reading them)
_UNPUBLISHED = frozenset({"title", "minLength", "maxLength", "minItems", "maxItems"})


def compact_schema(schema: Any) -> Any:
    """A JSON schema without ``_UNPUBLISHED`` keywords, ``default: null`` or ``false`` (what an absent optional
    argument or flag means anyway), ``type`` beside ``enum``, and ``anyOf [X, {"type": "null"}]`` (X instead): the
    tool's own model still checks every argument."""
    if isinstance(schema, list):
        return [compact_schema(x) for x in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: compact_schema(v) for k, v in schema.items()
           if k not in _UNPUBLISHED and not (k == "default" and (v is None or v is False))}
    if "properties" in schema:  # property names, not keywords: a property may be called "title"
        out["properties"] = {name: compact_schema(v) for name, v in schema["properties"].items()}
    if "enum" in out and out.get("type") == "string":  # the values say it
        del out["type"]
    branches = out.get("anyOf")
    if isinstance(branches, list):
        rest = [b for b in branches if b != {"type": "null"}]
        if len(rest) == 1 and len(rest) < len(branches):
            merged = {**{k: v for k, v in out.items() if k != "anyOf"}, **rest[0]}
            return merged
    return out


class ArgumentsError(ValidationError):
    """A tool call's arguments that fail validation, said in a line per argument (pydantic's own text adds
    error codes, the input repeated whole and a documentation URL)."""

    def __str__(self) -> str:
        said = []
        for e in self.errors(include_url=False):
            where = ".".join(str(part) for part in e["loc"])
            msg = e["msg"].removeprefix("Value error, ")
            if e["type"] == "missing":
                said.append(f"{where} is required")
            elif where:
                shown = repr(e["input"])
                said.append(f"{where}: {msg} (got {shown if len(shown) <= 60 else shown[:57] + '...'})")
            else:
                said.append(msg)
        return "; ".join(said)


class _Readable(BaseModel):
    # strict: a client's wrong type is refused, not coerced ("importance": true stored 1, "5" passed as a limit,
    # "yes" as a boolean); an integer still passes where a number is asked
    model_config = ConfigDict(strict=True)

    @classmethod
    def model_validate(cls, obj: Any, **kwargs: Any) -> Any:
        try:
            return super().model_validate(obj, **kwargs)
        except ValidationError as e:
            raise ArgumentsError.from_exception_data(e.title, e.errors()) from None


def _unknown_arguments(tool: str, unknown: list[str], known: list[str]) -> str:
    """What a call's undeclared arguments were, the declared one each may have meant, and what the tool takes."""
    said = []
    for k in unknown:
        meant = [n for n in known if k in n or n in k] or difflib.get_close_matches(k, known, n=1, cutoff=0.6)
        said.append(f"'{k}'" + (f" (did you mean '{meant[0]}'?)" if meant else ""))
    return f"unknown argument {', '.join(said)}; {tool} takes {', '.join(known)}"
