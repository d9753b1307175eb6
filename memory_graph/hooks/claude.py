"""The Claude Code adapter: its hook payloads to ``Event``, and ``Event`` answers to what it reads on stdout.

Payloads as documented at https://code.claude.com/docs/en/hooks: every event carries ``session_id``,
``transcript_path``, ``cwd`` and ``hook_event_name``; SessionStart adds ``source`` (startup, resume, clear,
compact), UserPromptSubmit ``prompt``, PostToolUse ``tool_name``, ``tool_input`` and ``tool_response``,
PostToolUseFailure ``tool_name``, ``tool_input`` and ``error``, SessionEnd ``reason``. SessionStart and
UserPromptSubmit add context by printing ``{"hookSpecificOutput": {"hookEventName": ..., "additionalContext":
...}}``; the other events print nothing (a Stop hook's output could block the agent from stopping).
"""

from __future__ import annotations

import json
import time
from typing import Any

from .events import Event

#: Claude Code's event name -> the neutral kind
EVENTS = {"SessionStart": "session_start", "UserPromptSubmit": "prompt", "PostToolUse": "tool",
          "PostToolUseFailure": "tool", "Stop": "session_stop", "SessionEnd": "session_end"}
#: the tools whose calls say what a session did; reads, searches and listings are noise
CAPTURED_TOOLS = ("Edit", "MultiEdit", "Write", "NotebookEdit", "Bash")


class PayloadError(ValueError):
    """A payload this adapter cannot read."""


def parse(event_name: str, payload: Any) -> Event:
    """The neutral event of a Claude Code hook payload. Raises PayloadError when it is not one."""
    if event_name not in EVENTS:
        raise PayloadError(f"unknown hook event {event_name!r}; one of {', '.join(EVENTS)}")
    if not isinstance(payload, dict):
        raise PayloadError("the hook payload must be a JSON object")
    session = payload.get("session_id")
    if not isinstance(session, str) or not session.strip():
        raise PayloadError("the hook payload has no session_id")
    text = lambda key: payload.get(key) if isinstance(payload.get(key), str) else ""  # noqa: E731
    ev = Event(kind=EVENTS[event_name], session=session.strip(), cwd=text("cwd"), at=time.time(),
               transcript=text("transcript_path"))
    if event_name == "SessionStart":
        ev.source = text("source") or "startup"
    elif event_name == "UserPromptSubmit":
        ev.prompt = text("prompt")
    elif event_name in ("PostToolUse", "PostToolUseFailure"):
        ev.tool = text("tool_name")
        ev.tool_input = payload.get("tool_input") if isinstance(payload.get("tool_input"), dict) else {}
        ev.tool_output = payload.get("tool_response")
        ev.failed, ev.error = event_name == "PostToolUseFailure", text("error")
        ev.failed = ev.failed or _failed(ev.tool_output)
    elif event_name == "SessionEnd":
        ev.source = text("reason")
    return ev


def _failed(response: Any) -> bool:
    """Whether a tool's response says it failed (an error flag, a non-zero exit code, an interruption)."""
    if not isinstance(response, dict):
        return False
    if response.get("is_error") or response.get("isError") or response.get("interrupted"):
        return True
    code = next((response[k] for k in ("exit_code", "exitCode", "returncode", "return_code") if k in response), 0)
    return isinstance(code, int) and not isinstance(code, bool) and code != 0


def answer(event_name: str, context: str | None) -> str | None:
    """What to print on stdout for this event: the context as additional context, or nothing."""
    if not context or event_name not in ("SessionStart", "UserPromptSubmit"):
        return None
    return json.dumps({"hookSpecificOutput": {"hookEventName": event_name, "additionalContext": context}})
