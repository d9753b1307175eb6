"""The neutral hook event every agent's adapter produces.

Light on purpose: the hook's own process imports this module and nothing heavy.
"""

from __future__ import annotations

import re
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


_URL_PASSWORD = re.compile(r"(\b[a-z][a-z0-9+.-]*://[^\s:/@]+:)([^\s@/]+)(@)", re.I)
_ENV_SECRET = re.compile(r"(\b[A-Z0-9_]*(?:PASSWORD|PASSWD|PASS|PWD|SECRET|TOKEN|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|"
                         r"CREDENTIALS?|AUTH)[A-Z0-9_]*\s*[=:]\s*)(['\"]?)([^\s'\"]{4,})\2", re.I)


def mask_credentials(text: str) -> str:
    """``text`` with the password of a URL (``https://user:PASSWORD@host``) and the value of a secret-named
    assignment (``DB_PASSWORD=...``, ``export API_TOKEN="..."``) replaced by ``[secret removed]``.

    Broader than ``memory_graph.secrets`` (which decides what code is indexed, where ``password = "..."`` in a
    test fixture must not hide the file): what a session captures is prose about commands, where such an
    assignment is a credential far more often than not.
    """
    text = _URL_PASSWORD.sub(r"\1[secret removed]\3", text)
    return _ENV_SECRET.sub(lambda m: m.group(1) + "[secret removed]"
                           if "secret removed" not in m.group(3) else m.group(0), text)
