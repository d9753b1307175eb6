"""What the command line prints, for a person: consoles that escape control characters, progress as a bar or
as plain lines, a search's explanation in words, and figures as a line reads them."""

from __future__ import annotations

import re
import sys
import time

from rich.console import Console
from rich.progress import Progress
from rich.table import Column, Table
from rich.text import Text

#: control characters but tab and newline: a stored escape sequence would set the terminal's title, clear the
#: screen or make a link of whatever an agent stored
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def shown(text: str) -> str:
    """The text with each control character written as its escape (``\\x1b``), to print it safely."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


class _Shown(Console):
    """A console that prints every string, table cells included, with control characters escaped."""

    def render_str(self, text: str, **kwargs):
        return super().render_str(shown(text), **kwargs)


# markup off: titles, ids and messages are user text ("[WIP] fix [/path]" is not a style)
out = _Shown(markup=False)
err = _Shown(stderr=True, markup=False)


def labelled(label: str, style: str, message: str) -> Text:
    """A styled label, then the message as plain text."""
    return Text.assemble((label, style), " ", message)


class LineProgress:
    """rich's Progress as plain lines, for a stderr that is no terminal (a log file, a CI job), where a bar
    would show nothing until the end: a line whenever the phase changes, else every ``every`` seconds."""

    def __init__(self, every: float = 10.0, disable: bool = False) -> None:
        self.every, self.disable = every, disable
        self.tasks: list = []
        self._last = (None, 0.0)

    def __enter__(self) -> "LineProgress":
        return self

    def __exit__(self, *exc) -> None:
        if self.tasks and exc[0] is None:
            self._print(self.tasks[0])

    def add_task(self, description: str, total=None, **fields) -> int:
        from types import SimpleNamespace

        self.tasks.append(SimpleNamespace(description=description, total=total, completed=0, fields=fields))
        return len(self.tasks) - 1

    def update(self, task: int, description=None, completed=None, total=None, **fields) -> None:
        t = self.tasks[task]
        t.description = description if description is not None else t.description
        t.completed = completed if completed is not None else t.completed
        t.total = total if total is not None else t.total
        t.fields.update(fields)
        if t.description != self._last[0] or time.monotonic() - self._last[1] >= self.every:
            self._print(t)

    def _print(self, t) -> None:
        self._last = (t.description, time.monotonic())
        if self.disable:
            return
        done = f" {t.completed}/{t.total}" if t.total else f" {t.completed}" if t.completed else ""
        extra = "".join(f", {k} {v}" for k, v in t.fields.items())
        print(f"{time.strftime('%H:%M:%S')} {t.description}{done}{extra}", file=sys.stderr, flush=True)


def progress_bar(*columns, disable: bool = False):
    """A rich progress bar on a terminal, plain periodic lines (``LineProgress``) elsewhere."""
    if not err.is_terminal:
        return LineProgress(disable=disable)
    return Progress(*columns, console=err, disable=disable)


def print_explanations(hits) -> None:
    """Why each result ranks where it does, as a table: its rank in each leg (the graph's through which
    entities or memories, by name), the fused score, and what each later stage changed, in words."""
    table = Table("#", Column("title", max_width=32), "meaning", "words", "graph", "fused", "then",
                  title="why each result ranks where it does")
    for n, h in enumerate(hits, 1):
        e = h.explanation
        via = [str(p) for p in e.graph_path if p != h.id]
        graph = f"#{e.ranks['graph']}" if e.ranks.get("graph") else "-"
        legs = [f"#{e.ranks[leg]}" if e.ranks.get(leg) else "-" for leg in ("vector", "bm25")]
        if via and e.ranks.get("graph"):
            graph += " via " + " > ".join(via)
        table.add_row(str(n), h.title, *legs, graph, f"{e.fused:.3f}", later_stages(h) or "nothing changed")
    out.print(table)


#: what each leg matched a result by, as a reader would say it
_LEG_WORDS = {"vector": "meaning", "bm25": "words", "graph": "the graph"}


def explanation(h) -> str:
    """Why a result ranks where it does, in words on one line: which legs found it and at what rank (through
    which entities, for the graph), its fused score, and what each later stage changed."""
    e = h.explanation
    found = [f"{_LEG_WORDS.get(leg, leg)} #{rank}" for leg, rank in e.ranks.items() if rank]
    said = "found by " + ", ".join(found) if found else "found by no leg"
    via = [str(p) for p in e.graph_path if p != h.id]  # the path ends at the result itself
    if via:
        said += " (via " + " > ".join(via) + ")"
    changed = later_stages(h)
    return f"{said}; fused {e.fused:.3f} ({e.fusion}); " + (changed or "no later stage changed it")


def later_stages(h) -> str:
    """What the stages after fusion did to a result, in words ("" when none changed it)."""
    e = h.explanation
    changed = []
    if round(e.ppr_factor, 3) != 1:
        changed.append(f"graph walk x{e.ppr_factor:.3f}")
    if round(e.decay_factor, 3) != 1:
        changed.append(f"age x{e.decay_factor:.3f}")
    if round(e.prior_factor, 3) != 1:
        changed.append(f"prior x{e.prior_factor:.2f}")  # importance (memories); test file, prose, line (code)
    if e.mmr_moved:
        changed.append(f"diversity moved it {'up' if e.mmr_moved > 0 else 'down'} {abs(e.mmr_moved)}")
    return ", ".join(changed)


def _words(value, key: str = "") -> str:
    """A figure of ``stats`` or a count of ``export``/``import`` as a line reads it, not as a Python repr:
    {'memories': 2, 'entities': 1} -> "2 memories, 1 entities"; a size in bytes in KB, MB or GB."""
    if isinstance(value, dict):
        if not value:
            return "none"
        return ", ".join(f"{v} {k.replace('_', ' ')}" if isinstance(v, (int, float)) and not isinstance(v, bool)
                         else f"{k.replace('_', ' ')} {_words(v)}" for k, v in value.items())
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "-"
    if key.endswith("bytes") and isinstance(value, (int, float)):
        size, unit = float(value), "bytes"
        for unit in ("bytes", "KB", "MB", "GB"):
            if size < 1024 or unit == "GB":
                break
            size /= 1024
        return f"{size:.0f} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
    return str(value)
