"""How a definition is shown: its signature (what comes before its body) and its breadcrumb (``class Foo > def
bar``), the words a chunk leads with."""

from __future__ import annotations

import re
from typing import Any

from .chunks import ParsedFile, Symbol
from .languages import BODY_TYPES, keyword


def common_signature(node, first_line: bool = True) -> str:
    """What a definition says before its body, on one line: the text before its body node, else its first line
    (``first_line``) or all its lines joined (a parameter per line, a trailing comma: `Request(String method,
    {Uri? url})`)."""
    text = node.text.decode("utf-8", errors="replace")
    body = node.child_by_field_name("body")
    if body is None:
        body = next((c for c in node.named_children if c.type in BODY_TYPES), None)
    if body is not None and body.start_byte > node.start_byte:
        text = node.text[: body.start_byte - node.start_byte].decode("utf-8", errors="replace")
    elif first_line:
        text = text.split("\n", 1)[0]
    else:
        text = re.sub(r",?\s*([)\]}])", r"\1", re.sub(r"([(\[{])\s+", r"\1", text))
    return re.sub(r"\s+", " ", text).strip().rstrip("{:").strip()


def signature_word(symbol: Symbol, word: str) -> str:
    """The first word of a definition's signature (``defp``, ``contract``, ``query``), else ``word``."""
    first = re.match(r"\w+", re.sub(r"^abstract ", "", symbol.signature))
    return first.group() if first else word


def breadcrumb(out: ParsedFile, idx: int, lang: Any, by_qual: dict[str, Symbol]) -> str:
    """``class Foo > def bar``; ``lang``: the file's ``Language``; ``by_qual``: its symbols by qualified name."""
    parts = []
    s = out.symbols[idx]
    while s is not None and s.kind != "module":
        parent = by_qual.get(s.parent) if s.parent else None
        label = s.name
        if s.kind == "method":
            # a method defined outside its type's body (Go's receivers, `res.cookie = function`, C++'s
            # `int A::run()`) names its owner: its qualified name below the enclosing scope's
            scope = (parent.member_prefix or parent.qualname) + "." if parent is not None else ""
            label = s.qualname.rstrip("'").removeprefix(scope)
        word, label = lang.crumb(s, parent, keyword(lang.name, s.kind), label)
        parts.append(f"{word} {label}" if word != label else label)  # Solidity's `constructor`
        s = parent
    return " > ".join(reversed(parts))
