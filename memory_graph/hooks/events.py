"""The neutral hook event every agent's adapter produces.

Light on purpose: the hook's own process imports this module and nothing heavy.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

#: what the capture and recall core understands; an adapter maps its agent's events onto these
KINDS = ("session_start", "prompt", "tool", "session_stop", "session_end")


@dataclass
class Event:
    """One hook call, whatever agent sent it.

    kind: one of ``KINDS``. session: the agent's session id. cwd: its working directory. source: why a session
    started (startup, resume, clear, compact). prompt: the user's prompt. tool, tool_input, tool_output: a
    tool call and what it returned; failed and error: whether it failed, and how. transcript: the session's
    transcript file, if the agent keeps one. at: when (epoch seconds).
    """

    kind: str
    session: str
    cwd: str = ""
    at: float = 0.0
    source: str = ""
    prompt: str = ""
    tool: str = ""
    tool_input: dict[str, Any] = field(default_factory=dict)
    tool_output: Any = None
    failed: bool = False
    error: str = ""
    transcript: str = ""
    agent: str = "claude-code"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Event":
        known = {k: d[k] for k in cls.__dataclass_fields__ if k in d}
        return cls(**known)

