"""`memory-graph hooks install|uninstall|status` and `memory-graph hook EVENT`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from ..cli import _state, app
from ..errors import ValidationError
from ..show import err, out
from . import settings as cc

hooks_app = typer.Typer(help="Automatic memory through Claude Code's hooks: install, uninstall, status.",
                        no_args_is_help=True)
app.add_typer(hooks_app, name="hooks")

ProjectDir = typer.Option(None, "--project-dir", help="Project whose .claude/settings.json to change (default: the "
                                                      "working directory).")
User = typer.Option(False, "--user", help="Change the user's ~/.claude/settings.json instead (every project).")


def _settings(project_dir: Optional[Path], user: bool) -> tuple[Path, dict]:
    """The settings file asked for and what it holds; exits 1, naming the file, when it is not a settings object."""
    if user and project_dir is not None:
        raise typer.BadParameter("give --project-dir or --user, not both")
    path = cc.settings_path(project_dir, user)
    try:
        return path, cc.read(path)
    except ValidationError as exc:
        err.print(f"error: {exc.message}")
        raise typer.Exit(1)


@hooks_app.command("install")
def install(project_dir: Optional[Path] = ProjectDir, user: bool = User,
            dry_run: bool = typer.Option(False, "--dry-run", help="Print the settings it would write; change nothing.")
            ) -> None:
    """Add memory-graph's hooks to Claude Code's settings, keeping every other hook. Sessions then start with a
    digest of the project's memory, prompts get the memories that bear on them, and edits, commands, fixes and a
    summary of each session are stored (never what lies in <private> tags, never secrets)."""
    path, data = _settings(project_dir, user)
    new = cc.install(data, _state["data_dir"])
    if dry_run:
        typer.echo(json.dumps(new, indent=2))  # whole lines: a console would wrap them
        return
    cc.write(path, new)
    out.print(f"installed {len(cc.EVENTS)} hooks in {path}: {', '.join(cc.EVENTS)}")
    command = cc.hook_command("SessionStart", _state["data_dir"])
    if any(part in command for part in ("/.cache/", "/uv/archive-", "\\uv\\cache\\")):
        err.print(f"warning: the hooks run {command.split(' hook ')[0]}, which lies in a cache that may be "
                  "cleaned; install memory-graph for good (pipx install, uv tool install) and run this again")
    out.print("they take effect in the next Claude Code session; `memory-graph hooks uninstall` removes them")


@hooks_app.command("uninstall")
def uninstall(project_dir: Optional[Path] = ProjectDir, user: bool = User) -> None:
    """Remove memory-graph's hooks from Claude Code's settings, and nothing else. What they stored stays (delete it
    with `memory-graph delete` or by tag: every captured memory has the tag `hook`)."""
    path, data = _settings(project_dir, user)
    had = cc.installed(data)
    if not had:
        out.print(f"no memory-graph hooks in {path}")
        return
    cc.write(path, cc.uninstall(data))
    out.print(f"removed {len(had)} hooks from {path}: {', '.join(had)}")


@hooks_app.command("status")
def status(project_dir: Optional[Path] = ProjectDir) -> None:
    """Which of memory-graph's hooks are installed (the project's settings and the user's), and whether the hooks'
    daemon is running."""
    from ..config import default_data_dir
    from .client import _running

    for label, path in (("project", cc.settings_path(project_dir, False)), ("user", cc.settings_path(None, True))):
        try:
            found = cc.installed(cc.read(path))
        except ValidationError as exc:
            out.print(f"{label}: {exc.message}")
            continue
        missing = [e for e in cc.EVENTS if e not in found]
        state = "not installed" if not found else ("installed" if not missing else f"partly ({', '.join(missing)} "
                                                                                     f"missing)")
        out.print(f"{label} settings {path}: {state}")
    folder = Path(_state["data_dir"] or default_data_dir()) / "hooks"
    info = _running(folder)
    pending = len(list((folder / "spool").glob("*.json"))) if (folder / "spool").is_dir() else 0
    out.print(f"daemon: {'running, pid ' + str(info['pid']) if info else 'not running (the next hook starts it)'}; "
              f"{pending} events waiting")


@app.command("hook")
def hook(event: str = typer.Argument(..., help="The hook event: SessionStart, UserPromptSubmit, PostToolUse, "
                                               "PostToolUseFailure, Stop or SessionEnd.")) -> None:
    """Run one Claude Code hook: reads the event's JSON on stdin, prints what Claude Code reads (context for
    SessionStart and UserPromptSubmit, nothing otherwise). Never fails: errors go to DATA_DIR/hooks/hook.log.
    `memory-graph hooks install` sets these up; MEMORY_GRAPH_HOOKS=off turns them off."""
    from .client import main as run_hook

    raise typer.Exit(run_hook(event, _state["data_dir"]))
