"""A JavaScript or TypeScript file that tree-sitter cannot parse whole: find its top-level statements that fail
on their own, so the file can be parsed again without them and its other definitions survive.

tree-sitter-typescript fails on some valid code (an interface whose members have no semicolons before a generic
call signature), and its error node can swallow every definition after it: mobx's ``src/api/action.ts`` lost
``runInAction``. Pure functions over lines; the parser is an argument.
"""

from __future__ import annotations

import re
from typing import Callable

#: a line that begins a top-level statement: at column 0, a declaration keyword or a decorator
_TOP = re.compile(r"^(?:export|import|function|async|class|abstract|interface|type|enum|const|let|var|declare|"
                  r"namespace|module|@)\b")


def statement_spans(lines: list[str]) -> list[tuple[int, int]]:
    """[start, end) line ranges (0-based) of the top-level statements, each from one statement's first line to
    the next one's: comments before a statement end the span before it."""
    starts = [i for i, ln in enumerate(lines) if _TOP.match(ln)]
    if not starts or starts[0] != 0:
        starts = [0, *starts]
    return [(a, b) for a, b in zip(starts, [*starts[1:], len(lines)]) if a < b]


def broken_spans(lines: list[str], fails: Callable[[str], bool]) -> list[tuple[int, int]]:
    """The statement spans that ``fails`` (parse the text, say whether the tree holds an error) rejects alone."""
    return [(a, b) for a, b in statement_spans(lines) if fails("\n".join(lines[a:b]))]


def blank(lines: list[str], spans: list[tuple[int, int]]) -> list[str]:
    """The lines with those spans emptied (the line count stays, so every line number still holds)."""
    out = list(lines)
    for a, b in spans:
        out[a:b] = [""] * (b - a)
    return out
