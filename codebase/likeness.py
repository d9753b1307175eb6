"""Whether a variable's name suggests a type: how a call on a receiver of unknown type picks its method's class."""

from __future__ import annotations

import re
from functools import lru_cache


@lru_cache(maxsize=65_536)
def resembles(receiver: str, type_name: str) -> bool:
    """Whether a variable's name suggests this type: a camel-case or snake_case tail of the one is a tail of
    the other (``runner`` and CliRunner, ``currentQuery`` and Query), or abbreviates one keeping its first
    letter (``ctx`` and Context); a name of one or two letters is the type's initials (Go's receivers: ``c``
    and Command, ``fs`` and FlagSet; networkx's ``G`` and Graph)."""
    type_name = type_name.rsplit(".", 1)[-1]
    receiver = receiver.rstrip("0123456789") or receiver  # G1, G2: two graphs
    ours, theirs = _tails(receiver), _tails(type_name)
    if not ours or not theirs:
        return False
    if ours & theirs:
        return True
    r = receiver.lower().replace("_", "")
    if len(r) <= 2:
        return r == "".join(w[0] for w in _words(type_name)).lower()
    return any(r[0] == t[0] and _subsequence(r, t) for t in theirs)


def _words(name: str) -> list[str]:
    return re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", name)


@lru_cache(maxsize=65_536)
def _tails(name: str) -> frozenset[str]:
    words = _words(name)
    return frozenset("".join(words[i:]).lower() for i in range(len(words)))


def _subsequence(short: str, long: str) -> bool:
    it = iter(long)
    return all(ch in it for ch in short)
