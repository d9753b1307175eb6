"""What a session's tool calls and prompts leave in memory: observations, fixes, decisions and a summary.

Pure: each function reads a ``SessionLog`` and an ``Event`` and returns the writes to make (``Write``); the
service applies them to an Engine and records the ids they got. Nothing here stores a secret: every text passes
``clean`` (private spans removed, secrets masked) before it is kept.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from dataclasses import asdict, dataclass, field
from pathlib import PurePath
from typing import Any, Iterable

from ..secrets import mask_secrets
from ..validation import strip_private
from .events import Event

#: commands that only look: their runs say nothing worth remembering unless they fail
LOOK_COMMANDS = frozenset("ls ll cat head tail less more pwd cd echo printf grep rg ag find fd which whereis type "
                          "wc tree stat file du df env printenv date whoami history clear sleep true".split())
LOOK_GIT = frozenset("status diff log show branch remote config blame".split())
_TEST = re.compile(r"\b(pytest|py\.test|unittest|tox|nox|jest|vitest|mocha|ava|rspec|phpunit|ctest|"
                   r"go\s+test|cargo\s+test|(?:npm|yarn|pnpm|bun)\s+(?:run\s+)?test|make\s+(?:test|check))\b")
_COUNTS = re.compile(r"(\d+)\s+(passed|failed|errors?|skipped|xfailed|xpassed|tests?|passing|failing)\b", re.I)
_ERROR = re.compile(r"(error|exception|traceback|failed|failure|fatal|cannot|can't|not found|denied|refused|"
                    r"undefined|panic)", re.I)
_RAISED = re.compile(r"\b\w*(Error|Exception|Panic)\b|^E\s{2,}|^error(\[\w+\])?:", re.M)
#: a sentence that states a decision or a rule (what a later session must know)
_DECISION = re.compile(r"\b(we decided|decided to|decision:|let's (?:use|go with|keep|switch)|we(?:'ll| will) use|"
                       r"going with|chose|we use|use \S+ instead of|instead of|switch(?:ed)? (?:to|from)|"
                       r"from now on|don't use|do not use|never use|always use|must (?:not )?use|prefer \S+ over|"
                       r"the convention is|rule:)\b", re.I)
#: files whose content is a secret in itself: their edits are noted without what changed
_SECRET_FILES = re.compile(r"(^|/)(\.env(\..*)?|.*\.(pem|key|p12|pfx|keystore)|id_(rsa|dsa|ecdsa|ed25519)|"
                           r"credentials(\.json)?|\.netrc|\.pgpass|secrets?\.(ya?ml|json|toml))$", re.I)


@dataclass
class SessionLog:
    """What the capture remembers of one session between hook calls (kept as JSON by the service)."""

    session: str
    project: str = ""
    root: str = ""
    started: float = 0.0
    prompts: list[str] = field(default_factory=list)
    #: relative path -> id of the session's observation of its edits
    edited: dict[str, str] = field(default_factory=dict)
    #: every file the session changed, in order
    files: list[str] = field(default_factory=list)
    #: command -> {"obs": id, "error": first error line, "files": files edited since it failed, "ran": commands
    #: run since it failed}
    failing: dict[str, dict] = field(default_factory=dict)
    fixed: list[str] = field(default_factory=list)
    tests: list[str] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)
    seen: list[str] = field(default_factory=list)
    observations: list[str] = field(default_factory=list)
    summary: str = ""
    #: memories already put in the agent's context this session (the digest's and the prompts'): not sent again
    #: until the context is cleared or compacted
    injected: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "SessionLog":
        return cls(**{k: d[k] for k in cls.__dataclass_fields__ if k in d})


@dataclass
class Write:
    """One change to the store. op: store (``item`` is a memory), merge (append ``text`` to memory ``target``),
    update (replace ``target``'s content with ``item``'s), invalidate (``target``, superseded by what ``item``
    stores). ``key`` names what the service records the new id under (SessionLog fields)."""

    op: str
    item: dict = field(default_factory=dict)
    target: str = ""
    text: str = ""
    key: str = ""


def clean(text: str, limit: int) -> str:
    """``text`` fit to keep: private spans removed, secrets masked, whitespace folded, at most ``limit`` chars."""
    text, _ = mask_secrets(strip_private(text))
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def _tags(log: SessionLog, *extra: str) -> list[str]:
    return ["hook", f"session:{log.session.lower()}"[:100], *extra]


def _item(log: SessionLog, content: str, title: str, kind: str, importance: int, tags: Iterable[str],
          entities: Iterable[str] = ()) -> dict:
    return {"content": content, "title": title[:200], "memory_type": kind, "importance": importance,
            "tags": list(tags), "project": log.project or None, "source": "hook",
            "metadata": {"session": log.session}, "entities": [e for e in entities if e] or None}


def _new(log: SessionLog, text: str) -> bool:
    """Whether this text is new to the session (and remember it): repeats are dropped."""
    key = hashlib.sha1(text.encode()).hexdigest()[:16]
    if key in log.seen:
        return False
    log.seen.append(key)
    return True


def relative(path: str, root: str) -> str:
    """``path`` relative to the project's root when it lies in it, else as given."""
    try:
        return PurePath(path).relative_to(root).as_posix() if root and path else path
    except ValueError:
        return path


def observe(log: SessionLog, ev: Event) -> list[Write]:
    """The writes a tool call makes: edits, commands and test runs that say something, fixes of earlier failures."""
    if ev.tool in ("Edit", "MultiEdit", "Write", "NotebookEdit"):
        return _edit(log, ev)
    if ev.tool == "Bash":
        return _command(log, ev)
    return []


def _edit(log: SessionLog, ev: Event) -> list[Write]:
    raw = ev.tool_input.get("file_path") or ev.tool_input.get("notebook_path") or ""
    if not isinstance(raw, str) or not raw or ev.failed:
        return []
    path = clean(relative(raw, log.root), 300)
    change = "" if _SECRET_FILES.search(path) else _change(ev.tool, ev.tool_input)
    if path not in log.files:
        log.files.append(path)
    for fail in log.failing.values():
        if path not in fail["files"]:
            fail["files"].append(path)
    if not _new(log, f"{path}\x00{change}"):
        return []
    if path in log.edited:
        return [Write("merge", target=log.edited[path], text=change or "edited again")]
    content = f"Edited {path}" + (f": {change}" if change else "")
    return [Write("store", _item(log, content, f"Edited {path}", "episodic", 3, _tags(log, "edit"), [path]),
                  key=f"edited:{path}")]


def _change(tool: str, inp: dict) -> str:
    """What an edit changed, in a line: the first differing lines of each replacement."""
    if tool == "Write":  # the hook's client sends the number of lines, not the text (client._safe)
        lines = inp.get("content_lines")
        if not isinstance(lines, int):
            content = inp.get("content") if isinstance(inp.get("content"), str) else ""
            lines = content.count("\n") + 1 if content else 0
        return f"wrote {lines} lines"
    if tool == "NotebookEdit":
        return clean(f"cell: {inp.get('new_source', '')}", 160)
    edits = inp.get("edits") if tool == "MultiEdit" and isinstance(inp.get("edits"), list) else [inp]
    parts = []
    for e in edits[:3]:
        if not isinstance(e, dict):
            continue
        old, new = str(e.get("old_string", "")), str(e.get("new_string", ""))
        a, b = _first_difference(old, new)
        parts.append(f"`{clean(a, 100)}` -> `{clean(b, 100)}`" if a or b else "")
    return "; ".join(p for p in parts if p)


def _first_difference(old: str, new: str) -> tuple[str, str]:
    olds, news = old.splitlines() or [""], new.splitlines() or [""]
    for a, b in zip(olds, news):
        if a.strip() != b.strip():
            return a.strip(), b.strip()
    if len(olds) != len(news):
        longer, shorter = (olds, news) if len(olds) > len(news) else (news, olds)
        extra = next((x.strip() for x in longer[len(shorter):] if x.strip()), "")
        return (extra, "") if longer is olds else ("", extra)
    return "", ""


def _output(ev: Event) -> str:
    out = ev.tool_output
    if isinstance(out, dict):
        text = "\n".join(str(out.get(k) or "") for k in ("stdout", "stderr", "output", "error", "content"))
    elif isinstance(out, str):
        text = out
    else:
        text = json.dumps(out) if out is not None else ""
    return "\n".join(x for x in (text, ev.error) if x)


def error_line(text: str) -> str:
    """The line of a command's output that best says what went wrong: the last one naming an error."""
    lines = [x.strip() for x in text.splitlines() if x.strip()]
    raised = [x for x in lines if _RAISED.search(x)]
    named = [x for x in lines if _ERROR.search(x) and not _COUNTS.search(x)]
    return clean((raised or named or lines or [""])[-1], 200)


_WHERE = [re.compile(r"^(?P<file>[\w./-]+\.\w+):(?P<line>\d+):? in (?P<func>[\w.<>]+)", re.M),  # pytest
          re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<func>[\w.<>]+)'),  # a Python traceback
          re.compile(r"^\s*at (?P<func>[\w.$<>]+) \((?P<file>[^():]+):(?P<line>\d+)(?::\d+)?\)", re.M)]  # JS


def failure_place(text: str, root: str = "") -> str:
    """Where a failure happened, from the deepest frame of its traceback that lies in the project
    ("ledger/totals.py:14 in average_line"), or ''."""
    frames = [m for rx in _WHERE for m in rx.finditer(text)]
    frames.sort(key=lambda m: m.start())
    inside = [m for m in frames if "site-packages" not in m["file"] and not m["file"].startswith("<")]
    if not inside:
        return ""
    m = inside[-1]
    return clean(f"{relative(m['file'], root)}:{m['line']} in {m['func']}", 160)


def test_counts(text: str) -> str:
    """A test run's counts as its runner printed them ("3 failed, 41 passed"), or ''."""
    seen: dict[str, str] = {}
    for n, word in _COUNTS.findall(text):
        seen.setdefault(word.lower(), n)
    return ", ".join(f"{n} {w}" for w, n in seen.items())


def _looks_only(cmd: str) -> bool:
    try:
        words = shlex.split(cmd, comments=True)
    except ValueError:
        words = cmd.split()
    if not words:
        return True
    if any(op in cmd for op in ("&&", "||", ";", "|", ">")):
        return False
    head = PurePath(words[0]).name
    return head in LOOK_COMMANDS or (head == "git" and len(words) > 1 and words[1] in LOOK_GIT)


def _command(log: SessionLog, ev: Event) -> list[Write]:
    cmd = ev.tool_input.get("command")
    if not isinstance(cmd, str) or not cmd.strip():
        return []
    key = clean(cmd, 200)
    output = _output(ev)
    is_test = bool(_TEST.search(cmd))
    counts = test_counts(output) if is_test else ""
    if ev.failed:
        err = error_line(output) or "no output"
        known = log.failing.get(key)
        if known is not None and known["error"] == err:
            return []  # the same failure again
        what = "Tests failed" if is_test else "Command failed"
        place = failure_place(output, log.root)
        err = f"{err} (at {place})" if place and place.split(":")[0] not in err else err
        content = f"{what}: `{key}`" + (f" ({counts})" if counts else "") + f": {err}"
        log.failing[key] = {"obs": "", "error": err, "files": [], "ran": []}
        _new(log, content)
        return [Write("store", _item(log, content, f"{what}: {key}", "episodic", 5,
                                     _tags(log, "failed", "open-problem")), key=f"failing:{key}")]
    if key in log.failing:
        fail = log.failing.pop(key)
        files, ran = fail["files"], fail.get("ran", [])
        after = [f"editing {', '.join(files[:8])}"] * bool(files) + [f"running {', '.join(ran[:3])}"] * bool(ran)
        content = (f"Fixed: `{key}` failed with \"{fail['error']}\"" +
                   (f"; after {' and '.join(after)} it passes" if after else "; it passes now") +
                   (f" ({counts})." if counts else "."))
        log.fixed.append(content)
        store = Write("store", _item(log, content, f"Fixed: {key}", "bugfix", 7, _tags(log, "fix"), files[:8]),
                      key="fixed")
        return [store] + ([Write("invalidate", target=fail["obs"], text="fixed later in the session")]
                          if fail["obs"] else [])
    if is_test:
        content = f"Tests passed: `{key}`" + (f" ({counts})" if counts else "")
        log.tests.append(content)
        if not _new(log, content):
            return []
        return [Write("store", _item(log, content, f"Tests passed: {key}", "episodic", 3, _tags(log, "tests")))]
    if _looks_only(cmd):
        return []
    for fail in log.failing.values():  # a command run between a failure and its pass may be the fix
        if f"`{key}`" not in fail.setdefault("ran", []) and len(fail["ran"]) < 5:
            fail["ran"].append(f"`{key}`")
    if not _new(log, key):
        return []
    return [Write("store", _item(log, f"Ran `{key}`", f"Ran {key}", "episodic", 2, _tags(log, "command")))]


def note_prompt(log: SessionLog, prompt: str) -> list[Write]:
    """Keep what the user asked (for the summary); a sentence stating a decision becomes a decision memory."""
    text = clean(prompt, 2_000)
    if not text or text.startswith("/"):
        return []
    log.prompts.append(text[:300])
    writes = []
    for sentence in decisions(text):
        if sentence not in log.decisions and _new(log, sentence):
            log.decisions.append(sentence)
            writes.append(Write("store", _item(log, sentence, sentence[:120], "decision", 7, _tags(log, "decision"))))
    return writes


def decisions(text: str, limit: int = 5) -> list[str]:
    """The sentences of ``text`` that state a decision or a rule, at most ``limit``."""
    sentences = re.split(r"(?<=[.!?])\s+|\n+", text)
    out = [clean(s, 240) for s in sentences if 12 <= len(s.strip()) and _DECISION.search(s)]
    return list(dict.fromkeys(out))[:limit]


def transcript_text(path: str, limit_bytes: int = 8_000_000) -> tuple[list[str], list[str]]:
    """The user's and the assistant's text in a Claude Code transcript (JSON Lines), in order; tool calls and
    their results are left out. A missing or unreadable transcript gives nothing."""
    users: list[str] = []
    assistant: list[str] = []
    try:
        with open(path, "rb") as f:
            raw = f.read(limit_bytes)
    except OSError:
        return users, assistant
    for line in raw.decode("utf-8", "replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        msg = entry.get("message") if isinstance(entry, dict) else None
        if not isinstance(msg, dict) or entry.get("isSidechain"):
            continue
        content = msg.get("content")
        texts = [content] if isinstance(content, str) else [
            b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text"]
        (users if msg.get("role") == "user" else assistant).extend(t for t in texts if isinstance(t, str) and t)
    return users, assistant


def summary(log: SessionLog, ev: Event, day: str) -> Write | None:
    """The session's extractive summary as one episodic memory (stored once, then updated at each stop)."""
    users, assistant = transcript_text(ev.transcript) if ev.transcript else ([], [])
    asked = log.prompts or [clean(u, 300) for u in users if not u.lstrip().startswith("<")][:5]
    stated = list(dict.fromkeys([*log.decisions, *(d for t in assistant for d in decisions(t, 3))]))[:5]
    if not (asked or log.files or log.fixed or log.failing or log.tests):
        return None
    lines = [f"Session of {day} in {log.project or 'no project'}."]
    if asked:
        lines.append("Asked: " + " | ".join(f"\"{clean(a, 160)}\"" for a in asked[:4]))
    if log.files:
        lines.append("Files changed: " + ", ".join(log.files[:12]))
    lines += [f"{clean(f, 300)}" for f in log.fixed[:4]]
    lines += [f"Still failing: `{cmd}`: {f['error']}" for cmd, f in list(log.failing.items())[:3]]
    if log.tests:
        lines.append(log.tests[-1])
    if stated:
        lines.append("Decisions: " + " | ".join(stated))
    content = "\n".join(lines)
    title = f"Session {day}: {clean(asked[0], 100)}" if asked else f"Session {day}"
    item = _item(log, content, title, "episodic", 6, _tags(log, "session-summary"), log.files[:8])
    item["metadata"]["observations"] = log.observations[-200:]
    if log.summary:
        return Write("update", item, target=log.summary)
    return Write("store", item, key="summary")
