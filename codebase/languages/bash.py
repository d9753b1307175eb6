"""Bash: functions, and commands as calls."""

from __future__ import annotations

from . import LangSpec
from .base import Language, register

SPEC = LangSpec({"function_definition": "function"}, frozenset(), {"command": "name"}, frozenset(), {})


register(Language(), "bash", spec=SPEC)
