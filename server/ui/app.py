"""`memory-graph ui`: a local web viewer over the Engine (Starlette, pages rendered on the server).

It listens on 127.0.0.1 only. A browser on the viewer's own address needs nothing more; a request from another
origin (a page elsewhere, a host name other than 127.0.0.1 or localhost: DNS rebinding) must carry the bearer
token of the HTTP MCP mode (``MEMORY_GRAPH_HTTP_TOKEN``), and a form sent without an Origin or Referer of the
viewer's own is refused the same way.
"""

from __future__ import annotations

import hmac
import sys
import time
from pathlib import Path
from urllib.parse import quote, urlparse

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from memory_graph.errors import MemoryGraphError, NotFoundError, ValidationError
from memory_graph.show import _words, explanation

from . import pages

STATIC = Path(__file__).parent / "static"
LOCAL_HOSTS = ("127.0.0.1", "localhost")


class SameOriginOrToken:
    """ASGI middleware: a request from another origin, or a form from no known origin, needs the bearer token."""

    def __init__(self, app, token: str) -> None:
        self.app, self.token = app, token.encode()

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and not self._allowed(scope):
            await PlainTextResponse("this viewer answers its own pages; another origin must send "
                                    "'Authorization: Bearer <MEMORY_GRAPH_HTTP_TOKEN>'\n", 403)(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _allowed(self, scope) -> bool:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        auth = headers.get("authorization", "")
        if auth.startswith("Bearer ") and hmac.compare_digest(auth[7:].strip().encode(), self.token):
            return True
        host = headers.get("host", "")
        if urlparse(f"//{host}").hostname not in LOCAL_HOSTS:
            return False
        source = headers.get("origin") or headers.get("referer")
        if source:
            seen = urlparse(source)
            return seen.hostname in LOCAL_HOSTS and seen.netloc.split(":")[-1:] == host.split(":")[-1:]
        return scope["method"] in ("GET", "HEAD")  # a form from nowhere known is not the user's


def build_app(engine, token: str) -> Starlette:
    """The viewer over ``engine``; ``token`` admits requests from other origins."""

    def html(title: str, body: str, q: str = "", note: str = "", status: int = 200) -> HTMLResponse:
        return HTMLResponse(pages.page(title, body, q, note), status)

    def home(request: Request) -> Response:
        q = request.query_params.get("q", "").strip()
        project = request.query_params.get("project") or None
        hits, code, note, code_note = [], [], None, None
        if q:
            hits = engine.search(q, limit=20, project=project)
            note = getattr(hits, "note", None)
            indexed = {p["project"] for p in engine.code_projects()}
            if indexed and (project is None or project in indexed):
                code = engine.search_code(q, limit=10, project=project)
                code_note = getattr(code, "note", None)
        return html(f"Search: {q}" if q else "Search", pages.search_results(q, hits, note, explanation, code,
                                                                            code_note), q,
                    request.query_params.get("note", ""))

    def memory(request: Request) -> Response:
        mid = request.path_params["mid"]
        m = engine.get([mid])[0]
        related = engine.get_related(mid, depth=1, limit=100)
        return html(m.title or m.id, pages.memory_page(m, related, time.time()), note=request.query_params.get("note", ""))

    async def edit(request: Request) -> Response:
        mid = request.path_params["mid"]
        form = await request.form()
        importance = form.get("importance", "").strip()
        try:
            importance_n = int(importance) if importance else None
        except ValueError:
            raise ValidationError(f"importance={importance!r} is not a whole number from 1 to 10") from None
        # a field the form does not send is left as it is
        tags = [t.strip() for t in form["tags"].split(",") if t.strip()] if "tags" in form else None
        engine.update(mid, content=form.get("content") or None, title=form.get("title"), tags=tags,
                      memory_type=form.get("memory_type") or None, importance=importance_n)
        return RedirectResponse(f"/memory/{quote(mid)}?note=saved", 303)

    async def invalidate(request: Request) -> Response:
        mid = request.path_params["mid"]
        form = await request.form()
        engine.invalidate(mid, reason=form.get("reason", "").strip() or "invalidated in the viewer")
        return RedirectResponse(f"/memory/{quote(mid)}?note=invalidated", 303)

    async def delete(request: Request) -> Response:
        mid = request.path_params["mid"]
        engine.delete([mid])
        return RedirectResponse(f"/?note={quote('deleted ' + mid)}", 303)

    def timeline(request: Request) -> Response:
        project = request.query_params.get("project") or None
        memories, total = engine.list(project=project, limit=200, order_by="created_at")
        return html("Timeline", pages.timeline_page(project, engine.memory_projects(), memories, total))

    def graph(request: Request) -> Response:
        return html("Graph", pages.graph_page(request.query_params.get("node", "").strip()))

    def graph_data(request: Request) -> Response:
        node = request.query_params.get("node", "").strip()
        if not node:
            raise ValidationError("node is empty: give a memory id, an entity id or an entity name")
        related = engine.get_related(node, depth=2, limit=200)
        centre = next((r["via"] for r in related if r.get("distance") == 1), node)
        # get_related names an entity it went through by its name: back to ids, so that the edges meet
        ids = {r.get("name"): r["id"] for r in related if r.get("distance") == 1}
        related = [{**r, "via": centre if r.get("distance") == 1 else ids.get(r["via"], r["via"])} for r in related]
        # a tag or a project joins everything filed under it: shown, but not walked through
        hubs = {r["id"] for r in related if r.get("distance") == 1 and r.get("entity_type") in ("tag", "project")}
        related = [r for r in related if r.get("distance") == 1 or r["via"] not in hubs][:80]
        nodes = {centre: {"id": centre, "label": _label(engine, centre), "kind": _kind(centre), "centre": True}}
        edges = []
        for r in related:
            nodes.setdefault(r["id"], {"id": r["id"], "label": (r.get("name") or r["id"])[:60], "kind": r["kind"]})
            nodes.setdefault(r["via"], {"id": r["via"], "label": _label(engine, r["via"]), "kind": _kind(r["via"])})
            edges.append({"source": r["via"], "target": r["id"], "type": r.get("edge_type", "")})
        return JSONResponse({"nodes": list(nodes.values()), "edges": edges})

    def projects(request: Request) -> Response:
        return html("Projects", pages.projects_page(engine.code_projects(), engine.indexing(),
                                                    engine.memory_projects()))

    def project(request: Request) -> Response:
        name = request.path_params["name"]
        engine.check_project(name)
        symbol = request.query_params.get("symbol", "").strip()
        found = engine.find_symbols(symbol, project=name, limit=30) if symbol else []
        return html(f"Project {name}", pages.project_page(name, engine.code_files(name), symbol, found))

    def stats(request: Request) -> Response:
        return html("Stats", pages.stats_page(engine.stats(), _words))

    async def failed(request: Request, exc: MemoryGraphError) -> Response:
        if isinstance(exc, NotFoundError):
            return HTMLResponse(pages.error_page(404, exc.message), 404)
        return HTMLResponse(pages.error_page(400, exc.message + (f" ({exc.hint})" if exc.hint else "")), 400)

    routes = [Route("/", home), Route("/memory/{mid}", memory), Route("/memory/{mid}/edit", edit, methods=["POST"]),
              Route("/memory/{mid}/invalidate", invalidate, methods=["POST"]),
              Route("/memory/{mid}/delete", delete, methods=["POST"]), Route("/timeline", timeline),
              Route("/graph", graph), Route("/api/graph", graph_data), Route("/projects", projects), Route("/project/{name}", project),
              Route("/stats", stats), Mount("/static", StaticFiles(directory=STATIC), name="static")]
    app = Starlette(routes=routes, exception_handlers={MemoryGraphError: failed})
    return SameOriginOrToken(app, token)


def _kind(node: str) -> str:
    return "memory" if node.startswith("mem_") else "entity"


def _label(engine, node: str) -> str:
    try:
        if node.startswith("mem_"):
            m = engine.get([node])[0]
            return (m.title or m.content)[:60]
        return engine.get_entity(node).name[:60]
    except MemoryGraphError:
        return node[:60]


def serve_ui(engine, port: int, token: str, open_browser: bool = False) -> None:
    """Serve the viewer on 127.0.0.1:port until interrupted."""
    import uvicorn

    url = f"http://127.0.0.1:{port}/"
    if open_browser:
        import threading
        import webbrowser

        threading.Timer(1.0, lambda: webbrowser.open(url)).start()
    print(f"memory-graph viewer on {url} (Ctrl-C stops it)", file=sys.stderr, flush=True)
    uvicorn.run(build_app(engine, token), host="127.0.0.1", port=port, log_level="warning")
