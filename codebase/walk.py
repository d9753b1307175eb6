"""One file's walk over its parse tree: what the chunker has found so far, shared with the language's hooks."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .chunks import ParsedFile
from .languages import LangSpec
from .refs import Ref


@dataclass
class Walk:
    """The state of one file's walk. Indexes are into ``out.symbols``; lines are 0-based."""

    out: ParsedFile
    spec: LangSpec
    calls: list[tuple[Ref, int]] = field(default_factory=list)          # each call, with the symbol it is made in
    call_at: dict[tuple[int, int], Ref] = field(default_factory=dict)   # each call by its bytes
    #: a call on a call's result: the inner call's bytes, and its mark (AWAITED or "")
    chained: list[tuple[Ref, tuple[int, int], str]] = field(default_factory=list)
    parents: dict[int, int] = field(default_factory=dict)   # symbol -> the symbol it is defined in
    aliases: dict[str, tuple[str, str]] = field(default_factory=dict)  # a short name -> the (table, field) bound
    bare: list[Ref] = field(default_factory=list)            # names read as values, kept if a function's
    adopted: dict[tuple[int, int], int] = field(default_factory=dict)  # a body's bytes -> its signature's symbol
    clauses: dict[int, int] = field(default_factory=dict)    # a definition's start byte -> its symbol
    defs: list[tuple[int, int, int]] = field(default_factory=list)  # (symbol, first line, last line)
    def_at: dict[int, int] = field(default_factory=dict)     # symbol -> its place in defs
    state: Any = None                                        # the language's own (``Language.begin``)

    def qualname(self, scope: int) -> str:
        return self.out.symbols[scope].qualname

    def ref(self, scope: int, kind: str, name: str, node, receiver: str = "") -> Ref:
        """Record that the symbol ``scope`` uses ``name`` at ``node``'s line."""
        self.out.refs.append(Ref(self.qualname(scope), kind, name, node.start_point[0] + 1, receiver))
        return self.out.refs[-1]

    def call(self, scope: int, name: str, node, receiver: str = "", kind: str = "calls") -> Ref:
        """Record a call (or a read) whose receiver is typed after the walk."""
        ref = self.ref(scope, kind, name, node, receiver)
        self.calls.append((ref, scope))
        return ref
