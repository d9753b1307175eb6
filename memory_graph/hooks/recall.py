"""What the hooks put in the agent's context: a session-start digest and the memories a prompt needs.

Pure: both take memories already read and return text within a token budget. A token is counted as four
characters, the usual rule of thumb for English text and code with OpenAI's and Anthropic's tokenizers; the
budget is a ceiling, not a target.
"""

from __future__ import annotations

import re
import time
from typing import Iterable, Sequence

from ..models import Memory

CHARS_PER_TOKEN = 4


def tokens(text: str) -> int:
    """About how many tokens ``text`` is (``CHARS_PER_TOKEN`` characters each)."""
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def line(m: Memory, width: int) -> str:
    """One memory as one line: its text folded and cut to ``width`` characters, its date and its id."""
    text = re.sub(r"\s+", " ", m.content).strip()
    if len(text) > width:
        text = text[:width - 1].rstrip() + "…"
    day = time.strftime("%Y-%m-%d", time.gmtime(m.created_at)) if m.created_at else ""
    return f"- {text} ({day}) [{m.id}]"


def _within(lines: Iterable[str], budget: int) -> list[str]:
    out, used = [], 0
    for x in lines:
        cost = tokens(x) + 1
        if used + cost > budget:
            break
        out.append(x)
        used += cost
    return out


def _important_first(ms: Iterable[Memory]) -> list[Memory]:
    return sorted(ms, key=lambda m: (-m.importance, -m.created_at, m.id))


def digest(project: str, memories: Sequence[Memory], budget: int, width: int = 220) -> str:
    """The session-start digest of a project: its decisions, procedures, open problems and known fixes, most
    important and most recent first, then what its last sessions did, within ``budget`` tokens.

    ``memories`` are the project's memories still valid; the caller picks them (``HookService.digest``).
    """
    summaries = sorted((m for m in memories if "session-summary" in m.tags), key=lambda m: -m.created_at)
    rest = [m for m in memories if "session-summary" not in m.tags]
    sections = [
        ("Decisions", [m for m in rest if m.memory_type == "decision"]),
        ("Procedures", [m for m in rest if m.memory_type == "procedural"]),
        ("Open problems", [m for m in rest if {"open-problem", "todo"} & set(m.tags)]),
        ("Known fixes", [m for m in rest if m.memory_type == "bugfix"]),
        ("Facts and preferences", [m for m in rest if m.memory_type in ("fact", "preference", "semantic")
                                   and m.importance >= 6]),
    ]
    head = (f"memory-graph: what earlier sessions left about {project or 'this folder'} (the id in brackets "
            f"gives the whole memory through get_memories).")
    filled = [(title, _important_first(ms)) for title, ms in sections if ms]
    if summaries:
        filled.append(("Last sessions", summaries[:3]))
    spare = budget - tokens(head) - 1
    # round robin over the sections, one line each per round: many decisions cannot crowd out the open problems
    queues = {title: list(ms) for title, ms in filled}
    taken: dict[str, list[str]] = {title: [] for title, _ in filled}
    while any(queues.values()):
        for title, _ in filled:
            if not queues[title]:
                continue
            x = line(queues[title].pop(0), width)
            cost = tokens(x) + 1 + (0 if taken[title] else tokens(title) + 2)
            if cost > spare:
                queues[title].clear()  # a section stops at its first line that does not fit
                continue
            taken[title].append(x)
            spare -= cost
    parts = [f"{title}:\n" + "\n".join(taken[title]) for title, _ in filled if taken[title]]
    return "\n".join([head, *parts]) if parts else ""


def prompt_context(memories: Sequence[Memory], budget: int, width: int = 260) -> str:
    """The memories a prompt needs, best first, within ``budget`` tokens; '' when there are none."""
    head = "memory-graph: memories that may bear on this prompt (get_memories with an id gives the whole one):"
    lines = _within((line(m, width) for m in memories), budget - tokens(head) - 1)
    return "\n".join([head, *lines]) if lines else ""
