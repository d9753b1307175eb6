"""The `memory-graph` console script. `memory-graph hook EVENT` runs without importing the CLI or the Engine
(a hook runs at every prompt and tool call, and must answer in milliseconds); every other command goes to the
typer app (server.cli)."""

from __future__ import annotations

import sys
from pathlib import Path


def _hook_args(argv: list[str]) -> tuple[str, Path | None] | None:
    """(event, data directory) of ``[--data-dir DIR] hook EVENT``, else None."""
    data_dir = None
    if argv[:1] in (["--data-dir"], ["-d"]) and len(argv) >= 2:
        data_dir, argv = Path(argv[1]), argv[2:]
    elif argv and argv[0].startswith("--data-dir="):
        data_dir, argv = Path(argv[0].split("=", 1)[1]), argv[1:]
    if len(argv) == 2 and argv[0] == "hook" and not argv[1].startswith("-"):
        return argv[1], data_dir
    return None


def main() -> None:
    hook = _hook_args(sys.argv[1:])
    if hook is not None:
        from memory_graph.hooks.client import main as run_hook

        sys.exit(run_hook(*hook))
    from server.cli import app

    app()


if __name__ == "__main__":
    main()
