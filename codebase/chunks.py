"""What a parsed file is made of (symbols, chunks, the references ``codebase.refs`` records) and the chunks of
text no grammar cuts: line windows, Markdown sections, and the windows a chunk too long for the model becomes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from .refs import Ref

#: what a line of a Vue or Svelte component's markup is commented out with (``codebase.components``): a line
#: comment, marked so that no comment of the script is taken for markup (U+2063, an invisible separator, is in
#: no one's code)
MARKUP_COMMENT = "//\u2063"
_TOKEN_RE = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d{1,3}|[^\w\s]|_")


_COMMENTS = frozenset({"comment", "line_comment", "block_comment", "multiline_comment", "documentation_comment",
                       "doc_comment"})
_MARKUP = MARKUP_COMMENT.encode()


def doc_start(node) -> int:
    """The first line (0-based) of a definition with the comments just above it (JSDoc, Go and Rust doc
    comments, ``#`` notes): the words that describe a definition are what a query in words matches.

    A comment counts when at most one blank line separates it from what follows, and it does not share a
    line with the code before it (``x = 1  # note``)."""
    start = node.start_point[0]
    prev = node.prev_named_sibling
    if prev is None and node.parent is not None and node.parent.type == "body" and \
            node.parent.parent is not None and node.parent.parent.type == "config_file":
        prev = node.parent.prev_named_sibling  # HCL: the comment above a file's first block is outside its body
    while prev is not None and prev.type in _COMMENTS and start - last_row(prev) <= 2 and \
            not prev.text.startswith(_MARKUP):  # a component's markup (``<script setup>``) documents nothing
        before = prev.prev_sibling
        if before is not None and last_row(before) >= prev.start_point[0]:
            break
        start = prev.start_point[0]
        prev = prev.prev_named_sibling
    return start


def last_row(node) -> int:
    """The last line a node has text on: Rust's line comments end at column 0 of the next line, and Scala's
    indented bodies at the next definition's first token."""
    text = node.text
    return node.end_point[0] - text[len(text.rstrip()):].count(b"\n")


def meaningful(body: str) -> bool:
    """More than braces, blank lines and elisions."""
    return len(re.sub(r"[\W_]", "", body.replace("…", ""))) >= 3


def owned_lines(lines: list[str], owner: list[int], idx: int, start: int, end: int) -> tuple[str, tuple[int, ...]]:
    """The lines of [start, end] owned by ``idx``, runs joined with an elision line, and the source line
    (1-based; 0 for an elision) of each."""
    parts: list[tuple[int, str]] = []
    gap = False
    for i in range(start, end + 1):
        if owner[i] == idx:
            if gap and parts:
                parts.append((0, "…"))
            parts.append((i + 1, lines[i]))
            gap = False
        else:
            gap = True
    while parts and (not parts[-1][1].strip() or not parts[-1][0]):
        parts.pop()
    while parts and (not parts[0][1].strip() or not parts[0][0]):
        parts.pop(0)
    return "\n".join(t for _, t in parts), tuple(n for n, _ in parts)


def estimate_tokens(text: str) -> int:
    """A conservative guess of the word pieces a BERT tokenizer makes of ``text``.

    Identifiers are split on case and underscores, punctuation counts one each, long words count extra.
    ``tests/test_real_model.py`` checks it against the real tokenizer.
    """
    toks = _TOKEN_RE.findall(text)
    return len(toks) + sum(len(t) // 7 for t in toks if len(t) > 7)


@dataclass
class Symbol:
    name: str
    qualname: str          # "Foo.bar"; "" for the module itself
    kind: str
    signature: str
    start_line: int
    end_line: int
    parent: str = ""       # qualname of the enclosing symbol
    member_prefix: str = ""  # qualname prefix of members when it is not the qualname (Rust impl blocks)


@dataclass
class Chunk:
    start_line: int
    end_line: int
    chunk_type: str
    name: str
    breadcrumb: str
    content: str
    symbol: str            # qualname of the symbol this chunk defines ("" = module)
    signature: str = ""
    # the source line (1-based) of each content line, 0 for an elision, where the content skips lines
    line_map: tuple[int, ...] | None = field(default=None, repr=False, compare=False)


@dataclass
class ParsedFile:
    path: str
    language: str
    chunks: list[Chunk] = field(default_factory=list)
    symbols: list[Symbol] = field(default_factory=list)
    refs: list[Ref] = field(default_factory=list)
    imports: dict[str, str] = field(default_factory=dict)   # imported name -> module
    parse_error: bool = False
    qualnames: set[str] = field(default_factory=set, repr=False, compare=False)  # of symbols, for lookups


# ---- fallbacks ----------------------------------------------------------------
def line_chunks(lines: list[str], path: str) -> list[Chunk]:
    body = "\n".join(lines).strip("\n")
    if not body.strip():
        return []
    first = next(i for i, ln in enumerate(lines) if ln.strip())
    return [Chunk(first + 1, len(lines), "lines", PurePosixPath(path).name, "", body, "")]


_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def markdown_chunks(lines: list[str], path: str) -> list[Chunk]:
    chunks: list[Chunk] = []
    trail: list[tuple[int, str]] = []
    start, title, crumb = 0, PurePosixPath(path).name, ""
    fenced = False

    def close(end: int) -> None:
        body = "\n".join(lines[start:end]).strip("\n")
        if body.strip():
            chunks.append(Chunk(start + 1, end, "section", title, crumb, body, ""))

    for i, ln in enumerate(lines):
        if ln.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        m = None if fenced else _HEADING.match(ln)
        if m:
            close(i)
            level = len(m.group(1))
            trail = [t for t in trail if t[0] < level] + [(level, m.group(2))]
            start, title = i, m.group(2)
            crumb = " > ".join(f"{'#' * lv} {t}" for lv, t in trail)
    close(len(lines))
    return chunks


def window(ch: Chunk, path: str, max_tokens: int, overlap_lines: int) -> list[Chunk]:
    """Split a chunk whose text (with its header) exceeds ``max_tokens`` into overlapping windows."""
    # a window may be led by its scopes (or its path) and the signature (see chunk_embed_text): budget for both
    header = estimate_tokens(f"{path} {ch.breadcrumb}") + estimate_tokens(ch.signature) + 2
    lines = ch.content.split("\n")
    costs = [estimate_tokens(ln) + 1 for ln in lines]
    if header + sum(costs) <= max_tokens:
        return [ch]
    budget = max(16, max_tokens - header)
    # a single line over budget (minified code, data) is cut into pieces first
    pieces: list[tuple[int, str, int]] = []  # (line offset, text, cost)
    for off, (ln, cost) in enumerate(zip(lines, costs)):
        if cost <= budget:
            pieces.append((off, ln, cost))
            continue
        step = max(8, int(len(ln) * budget / cost))
        for j in range(0, len(ln), step):
            part = ln[j:j + step]
            pieces.append((off, part, estimate_tokens(part) + 1))
    # a window of an elided chunk (a class around its methods, a file's module-level code) spans its own lines
    line_of = ch.line_map or tuple(range(ch.start_line, ch.start_line + len(lines)))
    out: list[Chunk] = []
    i = 0
    while i < len(pieces):
        total, j = 0, i
        while j < len(pieces) and total + pieces[j][2] <= budget:
            total += pieces[j][2]
            j += 1
        j = max(j, i + 1)
        part = pieces[i:j]
        own = [line_of[p[0]] for p in part if line_of[p[0]]] or [ch.start_line]
        out.append(Chunk(own[0], own[-1], ch.chunk_type, ch.name, ch.breadcrumb,
                         "\n".join(p[1] for p in part), ch.symbol, ch.signature))
        if j >= len(pieces):
            break
        back = 0
        while back < overlap_lines and j - back - 1 > i and \
                sum(p[2] for p in pieces[j - back - 1:j]) <= budget // 3:
            back += 1
        i = j - back
    return out
