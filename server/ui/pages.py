"""The viewer's pages as HTML, rendered on the server from what the Engine returns. Every value goes through
``esc``; nothing here reads the store."""

from __future__ import annotations

import json
import time
from html import escape
from typing import Any, Iterable
from urllib.parse import quote, urlencode

NAV = (("/", "Search"), ("/timeline", "Timeline"), ("/graph", "Graph"), ("/projects", "Projects"), ("/stats", "Stats"))


def esc(value: Any) -> str:
    return escape("" if value is None else str(value), quote=True)


def day(t: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(t)) if t else "-"


def page(title: str, body: str, q: str = "", note: str = "") -> str:
    links = "".join(f'<a href="{href}">{name}</a>' for href, name in NAV)
    flash = f'<p class="note" id="note">{esc(note)}</p>' if note else ""
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(title)} · memory-graph</title><link rel="stylesheet" href="/static/style.css"></head>
<body><header><a class="brand" href="/">memory-graph</a><nav>{links}</nav>
<form action="/" method="get" class="search"><input type="search" name="q" value="{esc(q)}" id="q"
 placeholder="Search memories and code" aria-label="search"><button type="submit">Search</button></form></header>
<main>{flash}<h1>{esc(title)}</h1>{body}</main></body></html>"""


def table(rows: Iterable[Iterable[str]], head: Iterable[str] = (), cls: str = "") -> str:
    """An HTML table; cells are HTML already (escape what comes from the store before)."""
    th = "".join(f"<th>{h}</th>" for h in head)
    trs = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    return f'<table class="{cls}">' + (f"<thead><tr>{th}</tr></thead>" if th else "") + f"<tbody>{trs}</tbody></table>"


def memory_link(mid: str, text: str | None = None) -> str:
    return f'<a href="/memory/{quote(mid)}">{esc(text or mid)}</a>'


def search_results(q: str, hits: list, note: str | None, explain, code_hits: list, code_note: str | None) -> str:
    """The search page's two lists: memories, then code, each hit with why it ranks where it does."""
    if not q:
        return ('<p>Search what your agents remember, and the code they indexed. A search is a link you can keep: '
                '<code>/?q=TEXT</code>.</p>')
    parts = ['<section id="memories"><h2>Memories</h2>' + (f'<p class="note">{esc(note)}</p>' if note else "")]
    items = []
    for h in hits:
        r = h.record or {}
        ended = ' <span class="tag ended">ended</span>' if r.get("ended") else ""
        items.append(f'<li class="hit">{memory_link(h.id, h.title or h.id)}{ended}'
                     f'<div class="meta">{esc(r.get("memory_type", ""))} · {esc(r.get("project") or "global")} · '
                     f'{esc(str(r.get("created_at", ""))[:16].replace("T", " "))} · score {h.score:.3f}</div>'
                     f'<div class="why">{esc(explain(h))}</div></li>')
    parts.append(f'<ol class="hits">{"".join(items)}</ol>' if items else "<p>No memory matches.</p>")
    parts.append("</section>")
    if code_hits or code_note:
        parts.append('<section id="code"><h2>Code</h2>' + (f'<p class="note">{esc(code_note)}</p>' if code_note else ""))
        rows = []
        for h in code_hits:
            r = h.record or {}
            where = f'{r.get("path", "")}:{r.get("start_line", "")}-{r.get("end_line", "")}'
            rows.append(f'<li class="hit"><span class="code-title">{esc(h.title)}</span>'
                        f'<div class="meta">{esc(r.get("project", ""))} · {esc(where)} · score {h.score:.3f}</div>'
                        f'<div class="why">{esc(explain(h))}</div></li>')
        parts.append(f'<ol class="hits">{"".join(rows)}</ol></section>')
    return "".join(parts)


def memory_page(m, related: list[dict], now: float) -> str:
    """A memory: its text and fields, its validity and what replaced it, its entities and neighbours, and the
    forms that edit, invalidate and delete it."""
    validity = "valid"
    if m.valid_until is not None:
        validity = ("ended " if m.valid_until <= now else "ends ") + day(m.valid_until)
        if m.invalidation_reason:
            validity += f" ({m.invalidation_reason})"
    fields = [("id", esc(m.id)), ("type", esc(m.memory_type)), ("project", esc(m.project or "global")),
              ("tags", esc(", ".join(m.tags) or "-")), ("importance", esc(m.importance)),
              ("source", esc(m.source or "-")), ("created", esc(day(m.created_at))),
              ("updated", esc(day(m.updated_at))), ("validity", f'<span id="validity">{esc(validity)}</span>')]
    if m.superseded_by:
        fields.append(("superseded by", memory_link(m.superseded_by)))
    newer = [r for r in related if r.get("edge_type") == "supersedes" and r.get("direction") == "in"]
    older = [r for r in related if r.get("edge_type") == "supersedes" and r.get("direction") == "out"]
    if newer and not m.superseded_by:
        fields.append(("superseded by", ", ".join(memory_link(r["id"], r.get("name")) for r in newer)))
    if older:
        fields.append(("supersedes", ", ".join(memory_link(r["id"], r.get("name")) for r in older)))
    entities = [r for r in related if r.get("kind") == "entity"]
    others = [r for r in related if r.get("kind") == "memory" and r.get("edge_type") != "supersedes"]
    ents = "".join(f'<li><a href="/graph?node={quote(r["id"])}">{esc(r.get("name"))}</a> '
                   f'<span class="meta">{esc(r.get("entity_type", ""))}</span></li>' for r in entities)
    near = "".join(f'<li>{memory_link(r["id"], r.get("name"))} <span class="meta">{esc(r.get("edge_type"))}</span></li>'
                   for r in others)
    types = ("episodic", "semantic", "procedural", "decision", "bugfix", "preference", "note", "fact")
    options = "".join(f'<option{" selected" if t == m.memory_type else ""}>{t}</option>' for t in types)
    base = f"/memory/{quote(m.id)}"
    return f"""<pre class="content" id="content">{esc(m.content)}</pre>
{table(((k, v) for k, v in fields), cls="fields")}
<p><a href="/graph?node={quote(m.id)}" id="graph-link">See its graph</a></p>
<div class="columns"><section><h2>Entities</h2><ul id="entities">{ents or "<li>none</li>"}</ul></section>
<section><h2>Neighbours</h2><ul>{near or "<li>none</li>"}</ul></section></div>
<section class="forms"><h2>Edit</h2>
<form method="post" action="{base}/edit" id="edit-form">
<label>Title <input name="title" value="{esc(m.title)}"></label>
<label>Text <textarea name="content" rows="6" id="edit-content">{esc(m.content)}</textarea></label>
<label>Tags <input name="tags" value="{esc(", ".join(m.tags))}"></label>
<label>Type <select name="memory_type">{options}</select></label>
<label>Importance <input name="importance" type="number" min="1" max="10" value="{esc(m.importance)}"></label>
<button type="submit" id="save">Save</button></form>
<h2>Invalidate</h2><form method="post" action="{base}/invalidate" id="invalidate-form">
<label>Why <input name="reason" id="reason" placeholder="no longer true"></label>
<button type="submit" id="invalidate">Invalidate</button></form>
<h2>Delete</h2><form method="post" action="{base}/delete" id="delete-form"
 onsubmit="return confirm('Delete this memory for good?')"><button type="submit" class="danger">Delete</button></form>
</section>"""


def timeline_page(project: str | None, projects: list[str], memories: list, total: int) -> str:
    opts = '<option value="">every project</option>' + "".join(
        f'<option{" selected" if p == project else ""}>{esc(p)}</option>' for p in projects)
    out = [f'<form method="get" action="/timeline" class="inline"><select name="project">{opts}</select>'
           f'<button type="submit">Show</button></form><p class="meta">{total} memories, newest first</p>']
    last = None
    for m in memories:
        d = time.strftime("%Y-%m-%d", time.localtime(m.created_at))
        if d != last:
            out.append(f"<h2>{d}</h2>")
            last = d
        ended = ' <span class="tag ended">ended</span>' if m.valid_until and m.valid_until <= time.time() else ""
        out.append(f'<p class="entry">{time.strftime("%H:%M", time.localtime(m.created_at))} '
                   f'{memory_link(m.id, m.title or m.content[:80])}{ended} '
                   f'<span class="meta">{esc(m.memory_type)} · {esc(m.project or "global")}</span></p>')
    return "".join(out)


def graph_page(node: str) -> str:
    if not node:
        return ('<p>Open the graph of a memory from its page, or of an entity by name: '
                '<form method="get" action="/graph" class="inline"><input name="node" placeholder="entity name or id">'
                '<button type="submit">Show</button></form></p>')
    # JSON in a script element is not HTML-decoded: only "<" needs escaping, so that no "</script>" closes it
    data = json.dumps({"node": node}).replace("<", "\\u003c")
    return (f'<p class="meta">Within two hops of <b>{esc(node)}</b>; click a node to centre on it.</p>'
            f'<svg id="graph" width="900" height="560" role="img" aria-label="graph"></svg>'
            f'<script id="graph-data" type="application/json">{data}</script>'
            f'<script src="/static/springy.js"></script><script src="/static/graph.js"></script>')


def projects_page(code: list[dict], runs: list[dict], memory_projects: list[str]) -> str:
    rows = [(f'<a href="/project/{quote(p["project"])}">{esc(p["project"])}</a>', esc(p["root"]), f'{p["files"]:,}',
             f'{p["chunks"]:,}', f'{p.get("symbols", 0):,}',
             esc(day(p["last_indexed"]))) for p in code]
    running = [(esc(r.get("project")), esc(r.get("phase", "")), esc(r.get("files_done", "")),
                esc(r.get("files_total", ""))) for r in runs]
    mems = ", ".join(f'<a href="/timeline?project={quote(p)}">{esc(p)}</a>' for p in memory_projects) or "none"
    return ("<h2>Code indexes</h2>" + (table(rows, ("project", "root", "files", "chunks", "symbols", "last indexed"))
                                         if rows else "<p>No project is indexed (<code>memory-graph index</code>).</p>")
            + "<h2>Index runs in progress</h2>" + (table(running, ("project", "phase", "files done", "files"))
                                                    if running else "<p>none</p>")
            + f"<h2>Projects with memories</h2><p>{mems}</p>")


def project_page(project: str, files: dict[str, dict], symbol: str, symbols: list[dict]) -> str:
    """One project's code index: a symbol lookup, then its files."""
    found = ""
    if symbol:
        rows = [(esc(x.get("qualname") or x.get("name")), esc(x.get("kind", "")),
                 esc(f'{x.get("path", "")}:{x.get("start_line", "")}'), esc(x.get("signature", ""))[:160])
                for x in symbols]
        found = table(rows, ("symbol", "kind", "where", "signature")) if rows else "<p>No symbol by that name.</p>"
    listed = sorted(files.items())[:2_000]
    rows = [(esc(path), esc(r.get("chunks", "")), esc(r.get("status", ""))) for path, r in listed]
    more = f'<p class="meta">first 2,000 of {len(files):,} files</p>' if len(files) > 2_000 else ""
    return (f'<form method="get" class="inline"><input name="symbol" value="{esc(symbol)}" placeholder="a symbol '
            f'name, Type.member or path:line" id="symbol"><button type="submit">Find</button></form>{found}'
            f'<h2>Files ({len(files):,})</h2>{more}' + table(rows, ("path", "chunks", "status")))


def stats_page(stats: dict, words) -> str:
    rows = [(esc(k.replace("_", " ")), esc(words(v, k))) for k, v in stats.items()]
    return table(rows, cls="fields")


def error_page(status: int, message: str) -> str:
    return page("Not found" if status == 404 else "Error", f'<p class="error">{esc(message)}</p>')


def query(**params) -> str:
    return urlencode({k: v for k, v in params.items() if v})
