"""How a definition is shown: its signature (what comes before its body) and its breadcrumb (``class Foo > def
bar``), the words a chunk leads with."""

from __future__ import annotations

import re

from .chunks import ParsedFile, Symbol
from .languages import (BODY_TYPES, DART_DEFINITIONS, dart, elixir, graphql, is_classy, keyword, protobuf, solidity,
                        sql, zig)

#: the name a definition gives where no name node says it
NAME_OF = {"solidity": solidity.unnamed, "sql": sql.name_of, "graphql": graphql.definition_name, "zig": zig.name_of}
#: a definition's signature, where it is not what comes before its body
SIGNATURE_OF = {"elixir": elixir.signature, "sql": sql.signature, "protobuf": protobuf.signature,
                 "graphql": graphql.signature, "zig": zig.signature}


def signature(node, language: str = "") -> str:
    """What a definition says before its body, on one line (at most 200 characters)."""
    if language in SIGNATURE_OF:
        return SIGNATURE_OF[language](node)[:200]
    if language == "dart" and not is_classy(DART_DEFINITIONS[node.type]):
        node = dart.signature_of(node)  # however many lines: its body (if any) is beside it
    text = node.text.decode("utf-8", errors="replace")
    body = node.child_by_field_name("body")
    if body is None:
        body = next((c for c in node.named_children if c.type in BODY_TYPES), None)
    if body is not None and body.start_byte > node.start_byte:
        text = node.text[: body.start_byte - node.start_byte].decode("utf-8", errors="replace")
    elif language != "dart":
        text = text.split("\n", 1)[0]
    else:  # a parameter per line, a trailing comma: `Request(String method, {Uri? url})`
        text = re.sub(r",?\s*([)\]}])", r"\1", re.sub(r"([(\[{])\s+", r"\1", text))
    text = re.sub(r"\s+", " ", text).strip().rstrip("{:").strip()
    text = text.rstrip(";").rstrip() if language == "solidity" else text  # `event Transfer(...);`
    return (text.removesuffix("=").rstrip() if language == "scala" else text)[:200]  # `def f(): Int =`


def breadcrumb(out: ParsedFile, idx: int, language: str, by_qual: dict[str, Symbol]) -> str:
    """``class Foo > def bar``; ``by_qual``: the file's symbols by qualified name."""
    parts = []
    s = out.symbols[idx]
    while s is not None and s.kind != "module":
        parent = by_qual.get(s.parent) if s.parent else None
        label = s.qualname if language == "hcl" else s.name  # Terraform's address: aws_s3_bucket.logs
        if s.kind == "method":
            # a method defined outside its type's body (Go's receivers, `res.cookie = function`, C++'s
            # `int A::run()`) names its owner: its qualified name below the enclosing scope's
            scope = (parent.member_prefix or parent.qualname) + "." if parent is not None else ""
            label = s.qualname.rstrip("'").removeprefix(scope)
        word = keyword(language, s.kind)
        if language in ("elixir", "solidity", "graphql"):  # defp; contract, modifier; type, input, union, query
            first = re.match(r"\w+", re.sub(r"^abstract ", "", s.signature))
            word = first.group() if first else word
            if is_classy(s.kind) and language == "elixir":  # Shop.Cart, or Inner in it
                label = s.qualname.removeprefix(parent.qualname + "." if parent is not None and parent.qualname else "")
        elif language == "zig":  # fn, struct, enum, union, test
            word = zig.word(s.signature) or word
        parts.append(f"{word} {label}" if word != label else label)  # Solidity's `constructor`
        s = parent
    return " > ".join(reversed(parts))
