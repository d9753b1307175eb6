"""Our entries in Claude Code's settings (``.claude/settings.json``): install, uninstall, status.

Claude Code's settings hold ``{"hooks": {EVENT: [{"matcher": ..., "hooks": [{"type": "command", "command": ...,
"timeout": ...}]}]}}``. We add one group per event and recognise ours by the command (``... hook EVENT``);
everything else in the file is left as it was.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
from pathlib import Path

from ..errors import ValidationError
from .claude import CAPTURED_TOOLS

#: event -> (matcher or None, timeout in seconds). Tool events only for the tools whose calls are captured,
#: so a Read or a Grep starts no process at all.
EVENTS = {
    "SessionStart": (None, 15),
    "UserPromptSubmit": (None, 5),
    "PostToolUse": ("|".join(CAPTURED_TOOLS), 5),
    "PostToolUseFailure": ("|".join(CAPTURED_TOOLS), 5),
    "Stop": (None, 10),
    "SessionEnd": (None, 10),
}
_OURS = re.compile(r"(^|[\s/\\'\"])memory[-_]graph(\.exe)?['\"]?(\s+--data-dir[\s=]+\S+)?\s+hook\s+\w+\s*$")


def settings_path(project_dir: Path | None, user: bool) -> Path:
    """Where the settings live: the user's ``~/.claude/settings.json``, or the project's."""
    if user:
        return Path.home() / ".claude" / "settings.json"
    return Path(project_dir or Path.cwd()).expanduser().resolve() / ".claude" / "settings.json"


def hook_command(event: str, data_dir: Path | None = None) -> str:
    """The command a hook runs: this installation's ``memory-graph``, by absolute path when it has one (a hook's
    shell may not have the virtual environment's PATH)."""
    exe = shutil.which("memory-graph")
    here = Path(sys.argv[0]).resolve() if sys.argv and sys.argv[0] else None
    if here is not None and here.name.startswith("memory-graph") and here.exists():
        exe = str(here)
    base = shlex.quote(exe) if exe else f"{shlex.quote(sys.executable)} -m memory_graph"
    extra = f" --data-dir {shlex.quote(str(data_dir))}" if data_dir else ""
    return f"{base}{extra} hook {event}"


def is_ours(command: object) -> bool:
    return isinstance(command, str) and bool(_OURS.search(command))


def read(path: Path) -> dict:
    """The settings at ``path`` ({} if there are none). Raises ValidationError if they are not a JSON object."""
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValidationError(f"{path} is not valid JSON ({exc}); fix or move it, then run this again") from None
    if not isinstance(data, dict) or not isinstance(data.get("hooks", {}), dict):
        raise ValidationError(f"{path} does not hold a settings object with a 'hooks' object")
    return data


def _without_ours(groups: list) -> list:
    out = []
    for g in groups:
        if not isinstance(g, dict) or not isinstance(g.get("hooks"), list):
            out.append(g)
            continue
        kept = [h for h in g["hooks"] if not (isinstance(h, dict) and is_ours(h.get("command")))]
        if kept:
            out.append({**g, "hooks": kept})
        elif not g["hooks"]:
            out.append(g)
    return out


def installed(data: dict) -> dict[str, str]:
    """Event -> our command, for the events whose hooks include ours."""
    found = {}
    for event, groups in (data.get("hooks") or {}).items():
        for g in groups if isinstance(groups, list) else []:
            for h in g.get("hooks", []) if isinstance(g, dict) else []:
                if isinstance(h, dict) and is_ours(h.get("command")):
                    found[event] = h["command"]
    return found


def install(data: dict, data_dir: Path | None = None) -> dict:
    """The settings with our hooks in (replacing any of ours already there), others untouched."""
    out = json.loads(json.dumps(data))
    hooks = out.setdefault("hooks", {})
    for event, (matcher, timeout) in EVENTS.items():
        groups = _without_ours(hooks.get(event) if isinstance(hooks.get(event), list) else [])
        group: dict = {"matcher": matcher} if matcher else {}
        group["hooks"] = [{"type": "command", "command": hook_command(event, data_dir), "timeout": timeout}]
        hooks[event] = groups + [group]
    return out


def uninstall(data: dict) -> dict:
    """The settings without our hooks; an event left with no hooks at all is removed."""
    out = json.loads(json.dumps(data))
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    for event in list(hooks):
        if not isinstance(hooks[event], list):
            continue
        had = installed({"hooks": {event: hooks[event]}})
        if not had:
            continue
        kept = _without_ours(hooks[event])
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    return out


def write(path: Path, data: dict) -> None:
    """Write the settings whole or not at all."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".memory-graph.tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)
