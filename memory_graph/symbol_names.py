"""How code names things, for symbol lookup: the shapes of a file mention, a traceback frame, an alias or an
abstract method's signature, and small pure helpers over names and paths."""

from __future__ import annotations

import ast
import re
import textwrap
from pathlib import PurePosixPath

from .paths import is_package_file

#: a name too short for the in-memory symbol index (``index_symbol``), alone or backticked
_SHORT_NAME = re.compile(r"`?([A-Za-z_][A-Za-z0-9_]?)`?")
#: a file a code query or symbol name names, by path or file name, with a member after ``:``, ``::`` or ``#``
#: (``django/db/transaction.py:atomic``, pytest's ``tests/test_app.py::TestApp::test_run``) or a line
#: (``registry.py:88``, a traceback's ``File "/src/app/registry.py", line 88``, PHP's ``Table.php(123)``,
#: .NET's ``in /src/Cart.cs:line 42``)
_FILE_MENTION = re.compile(r"(?<![\w/.\-])(?:\.{1,2}/|/)*((?:[\w.\-]+/)*[\w\-]+\.[A-Za-z][A-Za-z0-9]{0,7})"
                           r"((?:(?:::?|#)(?!line\s+\d)[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)*)"
                           r"(?:(?::|\(|:line\s+|[\"']?,?\s+line\s+)(\d{1,7})\)?)?(?![\w/])")
_FRAME = re.compile(r'\bFile "(?=[^"\n]+", line \d)')
#: symbol kinds a namespaced name may end in (``_namespaced``)
_TYPES = frozenset({"class", "interface", "struct", "enum", "trait", "object", "record", "type", "namespace"})
#: a method's signature that says it is abstract: ``abstract`` (Java, C#, TypeScript), ``@abstractmethod``
#: (Python, as the chunker writes it), pure virtual (C++'s ``= 0``)
_ABSTRACT = re.compile(r"\babstract\s|^@abstractmethod |^virtual\b.*=\s*0\s*;?$")
#: a binding that only renames a name: ``s = attributes = attrs``, ``export const fetch = request`` (the
#: signature of a module-level binding symbol is its line)
_ALIAS = re.compile(r"(?:export\s+)?(?:(?:const|let|var)\s+)?[A-Za-z_$][\w$]*(?:\s*=\s*[A-Za-z_$][\w$]*)*"
                    r"\s*=\s*([A-Za-z_$][\w$]*);?")
#: files that declare what another file defines: a stub has no body, so no callees
_DECLARATIONS = (".d.ts", ".d.mts", ".d.cts", ".pyi")


def _like(needle: str) -> str:
    return needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _top_level(path: str) -> bool:
    """Whether a module's file is at its project's root, or is a root folder's package file."""
    parts = PurePosixPath(path).parts
    return len(parts) == 1 or (len(parts) == 2 and is_package_file(PurePosixPath(path)))


def _same_file(indexed: str, named: str) -> bool:
    """Whether a path a user wrote names an indexed file: one is the other's end at a folder boundary."""
    named = named.lstrip("/")
    return indexed == named or indexed.endswith("/" + named) or named.endswith("/" + indexed)


def _member_name(qualname: str) -> str:
    return qualname.rsplit(".", 1)[-1].rstrip("'")


def raises_not_implemented(code: str) -> bool:
    """Whether Python source is one function whose body, a docstring aside, only raises NotImplementedError:
    Python's convention for a method its subclasses must provide."""
    try:
        tree = ast.parse(textwrap.dedent(code))
    except (SyntaxError, ValueError):
        return False
    if len(tree.body) != 1 or not isinstance(fn := tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    body = fn.body
    if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and \
            isinstance(body[0].value.value, str):
        body = body[1:]
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or body[0].exc is None:
        return False
    exc = body[0].exc.func if isinstance(body[0].exc, ast.Call) else body[0].exc
    return isinstance(exc, ast.Name) and exc.id == "NotImplementedError"
