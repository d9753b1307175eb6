"""The `memory-graph` console script: memory commands, code commands and `serve`, on one typer app."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import Optional

import typer

import codebase.cli  # noqa: F401  (registers index, watch, search-code, symbols, callers, callees, ...)
import memory_graph.hooks.cli  # noqa: F401  (registers hooks install|uninstall|status and hook)
from memory_graph.cli import _state, app

__all__ = ["app", "serve"]

# two arenas, not glibc's 16 on 2 cores: on a store of 100,000 memories built as benchmarks/speed.py builds it,
# benchmarks.server_rss.server_rss gave 681 and 704 MB without, 660 and 661 with extra_env MALLOC_ARENA_MAX=2,
# at the same round-trip time
SERVER_MALLOC_ARENAS = 2


@app.command()
def ui(port: int = typer.Option(8777, min=1, max=65535, help="Port on 127.0.0.1."),
       open_browser: bool = typer.Option(False, "--open", help="Open the viewer in the default browser."),
       ) -> None:
    """Serve a local web viewer on 127.0.0.1: search memories and code (a search is a link: /?q=TEXT), read a
    memory with its validity, entities and neighbours, edit, invalidate or delete it, a timeline by project, the
    entity graph, projects and their code index, stats. It works beside a running MCP server on the same data
    directory. Another origin must send the bearer token of MEMORY_GRAPH_HTTP_TOKEN."""
    from memory_graph.engine import Engine

    from .http import http_token
    from .ui.app import serve_ui

    serve_ui(Engine(_state["data_dir"], load_model_in_background=True), port, http_token(), open_browser)


@app.command()
def serve(http: bool = typer.Option(False, "--http", help=(
              "Serve streamable HTTP on 127.0.0.1 instead of stdio; clients must send the bearer token of "
              "MEMORY_GRAPH_HTTP_TOKEN (a random one is printed to stderr if unset).")),
          port: int = typer.Option(8765, min=1, max=65535, help="Port of the --http mode."),
          project_dir: Optional[Path] = typer.Option(
              None, "--project-dir", help="Folder whose project is current (default: the working directory)."),
          watch: bool = typer.Option(False, "--watch", help="Index the current project and keep it indexed."),
          ) -> None:
    """Run the MCP server (stdio by default). Logs go to stderr; stdout carries only the protocol."""
    from memory_graph.heap import limit_malloc_arenas

    first_line, answered = None, None
    if not http and not sys.stdin.isatty():
        # answer `initialize` now, before the MCP SDK and the stores load (server.early)
        from importlib.metadata import version

        from .early import MAX_DISCOVER_PROBES, discover_answer, initialize_answer, read_line

        first_line = read_line(0)
        for _ in range(MAX_DISCOVER_PROBES):
            probe = discover_answer(first_line)
            if probe is None:
                break
            os.write(1, probe)
            first_line = read_line(0)
        early = initialize_answer(first_line, version("memory-graph"))
        if early is not None:
            os.write(1, early[0])
            answered = early[1]

    from .state import ServerState

    if "MALLOC_ARENA_MAX" not in os.environ:  # glibc reads it itself
        limit_malloc_arenas(SERVER_MALLOC_ARENAS)

    logging.basicConfig(level=os.environ.get("MEMORY_GRAPH_LOG_LEVEL", "WARNING").upper(), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s", force=True)
    import threading

    # the Engine and the model load in the background while the MCP SDK is imported here. Both import pydantic's
    # models: loaded here first, so that no two threads import one package at once (a concurrent import of a
    # package with circular imports can hand one of them a half-initialised module)
    import pydantic.main  # noqa: F401

    state = ServerState(_state["data_dir"], project_dir)
    from .app import build_server

    def resume() -> None:
        try:
            state.resume_interrupted()
        except Exception:  # a server that cannot resume a run still serves
            logging.getLogger("memory_graph.server").exception("could not resume interrupted index runs")

    threading.Thread(target=resume, daemon=True, name="mg-resume").start()
    if watch and state.project_root is not None:
        def start_watch() -> None:
            try:
                run, _ = state.start_index(str(state.project_root), state.project, False)
                run.finished.wait()
                if run.error is None:  # not failed, nor stopped by delete_project
                    state.watch(run.project, run.root)
            except Exception:
                logging.getLogger("memory_graph.server").exception("could not watch %s", state.project_root)

        threading.Thread(target=start_watch, daemon=True, name="mg-watch-start").start()
    server = build_server(state)
    try:
        if http:
            from .http import http_token, serve_http

            serve_http(server, port, http_token())
        else:
            import anyio

            from .stdio import run_stdio

            anyio.run(run_stdio, server, first_line, answered)
    finally:
        state.close()
