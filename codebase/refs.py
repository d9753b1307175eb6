"""The names a parsed file uses: calls (with the receiver a method is called on), imports and base types.

``codebase.resolve`` turns them into symbol edges once the whole project's symbols are known.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .languages import BODY_TYPES, NAME_TYPES, LangSpec
from .typed import DOTTED, IDENT_RE, node_text, unmark

_QUALIFIED = frozenset({"attribute", "member_expression", "scoped_identifier", "scoped_type_identifier",
                        "qualified_name", "qualified_identifier", "dotted_name", "navigation_expression",
                        "field_expression", "selector_expression", "qualified_type", "scope_resolution"})
_SKIP_IN_HERITAGE = frozenset({"type_arguments", "type_parameters", "keyword_argument", "value_arguments",
                               "arguments", "type_argument_list", "access_specifier", "comment"})
#: fields holding the receiver where a grammar names the method apart from it (Java, Ruby, PHP)
_RECEIVER_FIELDS = ("object", "receiver", "scope")
#: receivers that are the enclosing type itself (``super`` is its base types)
SELF_RECEIVERS = frozenset({"self", "this", "cls", "Self", "static"})
#: marks the ``imports`` key of a star import (``from m import *`` gives ``{"*m": "m"}``): never a name
STAR = "*"
#: the receiver of a method called on an expression that is not a name (``f().g()``, ``a[0].g()``)
EXPRESSION = "()"


@dataclass
class Ref:
    """A name used by a symbol, to be resolved against the project's symbols."""

    source: str            # qualname of the symbol that uses the name ("" = the module)
    #: calls | imports | extends | implements | holds (a class's attribute, its class in typed) | reads (Scala's
    #: member read without parentheses: a call if it names a method) | queries (what a GraphQL document in code,
    #: ``gql`...```, uses: a call of the schema's when the project has it; receiver: the path it is selected on)
    kind: str
    name: str
    line: int = 0
    #: for a call, what the name is looked up on: "" for a plain call, else the receiver as a dotted name
    #: (``self.runner`` in ``self.runner.invoke()``), ``super``, or EXPRESSION
    receiver: str = ""
    #: for a call on a variable that holds an instance of a known class (``local_type``), that class
    typed: str = ""


def last_ident(text: str) -> str:
    idents = IDENT_RE.findall(text)
    return idents[-1] if idents else ""


def common_heritage(node, spec: LangSpec, lang: Any) -> list[tuple[str, str]]:
    """(extends | implements, name) of each base type a type definition names, as most grammars write them
    (``Language.heritage``; ``lang`` decides how each is related)."""
    holders: list[tuple[Any, str]] = []
    queue = list(node.named_children)
    while queue:
        c = queue.pop(0)
        if c.type in BODY_TYPES or c.type in ("class_body", "declaration_list"):
            continue
        if c.type in spec.heritage:
            holders.append((c, lang.heritage_relation(c, spec.heritage[c.type], node, holders)))
        elif c.type in ("class_heritage", "delegation_specifiers", "super_interfaces", "type_list"):
            queue.extend(c.named_children)
    return [(lang.base_relation(name, rel), name) for holder, rel in holders for name in names_in(holder)]


def names_in(node) -> list[str]:
    names: list[str] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type in _SKIP_IN_HERITAGE:
            continue
        if n is not node and (n.type in NAME_TYPES or n.type in _QUALIFIED):
            names.append(last_ident(n.text.decode("utf-8", errors="replace")))
            continue
        stack.extend(reversed(n.named_children))
    return [n for n in dict.fromkeys(names) if n]


_GENERIC = re.compile(r"^([\w.$:]+)<.*>$", re.S)


def callee(node, field_name: str, lang: Any) -> tuple[str, str]:
    """(name, receiver) of a call node; ("", "") when it calls what another call returned (``f()()``)."""
    target = node.child_by_field_name(field_name) if field_name else None
    if target is None:
        target = node.named_children[0] if node.named_children else None
    target = lang.callee_node(target)
    if target is None or target.type in ("call_expression", "call"):  # f()() : the inner call counts on its own
        return "", ""
    text = target.text.decode("utf-8", errors="replace")[:200]
    text = _GENERIC.sub(r"\1", text)  # `new Box<Item>()`, Swift's `Cache<Int>(...)`: Box, not Item
    name = last_ident(text)
    if not name:
        return "", ""
    recv_node = next((r for f in _RECEIVER_FIELDS if (r := node.child_by_field_name(f)) is not None), None)
    at = text.rfind(name)
    if at > 0 and text[at - 1] == "#":  # this.#update(): a private member's name keeps its mark
        name, at = "#" + name, at - 1
    name = lang.call_name(name, text)
    if recv_node is not None and recv_node != target:
        before = recv_node.text.decode("utf-8", errors="replace")[-200:]
    else:
        before = text[:at]
    return name.lstrip("$"), receiver_key(before, lang.super_word)


def receiver_call(node, field_name: str, call_types, lang: Any) -> tuple[Any, bool]:
    """The call whose result a method is called on (``a.b()`` in ``a.b().c()``, ``(await a.b()).c()``, Rust's
    ``a.b().await.c()``, ``a.b()?.c()`` and ``a.b().unwrap().c()``) or None, and whether that result is awaited
    (or, in Rust, unwrapped)."""
    recv = next((r for f in _RECEIVER_FIELDS if (r := node.child_by_field_name(f)) is not None), None)
    target = node.child_by_field_name(field_name) if field_name else None
    if target is None and node.named_children:
        target = node.named_children[0]
    if recv is None and target is not None:  # Python's attribute, JavaScript's member, Go's selector, Rust's field
        recv = next((r for f in ("object", "operand", "value", "expression")  # C#'s is `expression`
                     if (r := target.child_by_field_name(f)) is not None),
                    target.named_children[0] if target.type == "navigation_expression" else None)  # Kotlin
    awaited = False
    while recv is not None:
        if recv.type in ("parenthesized_expression", "await", "await_expression") and recv.named_children:
            awaited, recv = awaited or recv.type != "parenthesized_expression", recv.named_children[0]
        elif (inner := lang.unwrapped(recv)) is not None:
            awaited, recv = True, inner
        else:
            break
    return (recv, awaited) if recv is not None and recv.type in call_types else (None, False)


def receiver_key(text: str, super_word: str = "") -> str:
    """What a method is called on, from the source text before its name: a dotted name (``self.runner.``
    gives ``self.runner``, ``Vec::<u8>::`` gives ``Vec``), ``super`` (also PHP's ``parent::`` and C#'s
    ``base.``), or EXPRESSION."""
    t = re.sub(r"<[^<>]*>", "", text).strip().rstrip(".?!:->&").strip()
    if not t:
        return ""
    if super_word and t == super_word:  # PHP's `parent::`, C#'s `base.`
        return "super"
    if re.fullmatch(r"super\s*(\(.*\))?", t, re.S):
        # Rust's super::f() names the parent module, not a base type: kept apart, it resolves as a path
        return "super::" if text.rstrip().endswith("::") else "super"
    t = unmark(t)  # `this.#client` is the class's attribute `client`
    if DOTTED.fullmatch(t):
        return ".".join(i.lstrip("$") for i in IDENT_RE.findall(t))
    if t[-1] in ")]}\"'`" or t.endswith(".await"):  # Rust's `f().await.g()`
        return EXPRESSION
    return last_ident(t).lstrip("$") or EXPRESSION


def imports_of(node, out: Any, lang: Any) -> None:
    """Record an import statement's module (``out.refs``) and the names it binds (``out.imports``): as the
    language reads it (``Language.imports``), else as most grammars write it."""
    uses = lang.imports(node, out)
    if uses is not None:
        for bound, path in uses:
            out.refs.append(Ref("", "imports", path, node.start_point[0] + 1))
            if bound:
                out.imports[bound] = path
        return
    text = node.text.decode("utf-8", errors="replace")
    strings = re.findall(r"[\"'<]([^\"'<>]+)[\"'>]", text)
    module_node = node.child_by_field_name("module_name")
    if module_node is not None:
        module = module_node.text.decode()
    elif strings:
        module = strings[0]
    else:
        body = re.sub(r"^\s*(import|use|using|from|#include|static)\s+", "", text).strip().rstrip(";")
        module = re.split(r"\s+", body)[0] if body else ""
    line = node.start_point[0] + 1
    if not module:
        return
    if node.type == "import_statement" and not strings:  # Python: import a.b, c as d
        for c in node.named_children:
            name = c.child_by_field_name("name") if c.type == "aliased_import" else c
            alias = c.child_by_field_name("alias") if c.type == "aliased_import" else None
            if name is None or name.type != "dotted_name":
                continue
            dotted = name.text.decode("utf-8", errors="replace")
            out.refs.append(Ref("", "imports", dotted, line))
            if alias is not None:
                out.imports[alias.text.decode("utf-8", errors="replace")] = dotted
            else:  # `import os.path` binds os
                out.imports[dotted.split(".")[0]] = dotted.split(".")[0]
        return
    if node.type in ("import_declaration", "preproc_include") and strings:
        for m in strings:
            out.refs.append(Ref("", "imports", m, line))
            if node.type == "import_declaration":
                out.imports[m.rsplit("/", 1)[-1]] = m
        return
    out.refs.append(Ref("", "imports", module, line))
    if node.type == "import_from_statement":
        names = [c for c in node.named_children if c != module_node]
        for c in names:
            if c.type == "wildcard_import":  # `from m import *`: the names m exports, looked up there on use
                out.imports[STAR + module] = module
                continue
            ident = c.child_by_field_name("alias") or c
            out.imports[last_ident(ident.text.decode())] = module
            if c.type == "aliased_import":
                out.imports[last_ident(ident.text.decode())] = module
    elif node.type in ("import_statement", "export_statement") and strings:  # JavaScript, TypeScript
        clause = text.split(" from ")[0] if " from " in text else ""
        required = next((c for c in node.named_children if c.type == "import_require_clause"), None)
        if required is not None and required.named_children:  # TypeScript's `import u = require("./utils")`
            clause = "import " + node_text(required.named_children[0])
        for ident in IDENT_RE.findall(clause):
            if ident not in ("import", "export", "type", "as", "from", "default"):
                out.imports[ident] = module
        if node.type == "export_statement" and re.match(r"export\s*\*\s*$", clause):  # `export * from "./b"`
            out.imports[STAR + module] = module
    elif node.type == "using_directive":  # C#: `using A.B;` opens a namespace: it binds no name
        pass
    else:
        last = last_ident(module)
        if last:
            out.imports[last] = module


def required_module(call) -> str:
    """The module a ``require("m")`` call names (Lua's ``require "m"`` too), else ""."""
    fn = call.child_by_field_name("function") or call.child_by_field_name("name")
    args = call.child_by_field_name("arguments")
    if fn is None or fn.text != b"require" or args is None:
        return ""
    strings = [args] if args.type == "string" else args.named_children
    if len(strings) != 1 or strings[0].type != "string":
        return ""  # require(some_variable): nothing to follow
    return "".join(node_text(c) for c in strings[0].named_children if c.type in ("string_fragment", "string_content"))


def is_required(value) -> bool:
    """Whether a bound value is a module a ``require`` call returns, or one of its members
    (``require('./utils').isAbsolute``): an import, not a variable."""
    if value is not None and value.type in ("member_expression", "dot_index_expression"):
        value = value.child_by_field_name("object") or value.child_by_field_name("table")
    return value is not None and bool(required_module(value))


def record_require(call, module: str, out: Any) -> None:
    """Record a ``require`` call as an import of ``module``, binding the names it is assigned to: ``const u =
    require('./u')``, ``const { merge } = require('./merge')``, Lua's ``local utils = require "pl.utils"``."""
    out.refs.append(Ref("", "imports", module, call.start_point[0] + 1))
    holder = call.parent
    if holder is not None and holder.type == "member_expression" and holder.parent is not None and \
            holder.parent.type == "variable_declarator":  # `var isAbsolute = require('./utils').isAbsolute`
        holder, call = holder.parent, holder
    names: list[str] = []
    if holder is not None and holder.type == "variable_declarator":
        bound = holder.child_by_field_name("name")
        if bound is not None and bound.type == "identifier":
            names = [node_text(bound)]
        elif bound is not None and bound.type == "object_pattern":  # `{ merge, a: b }`
            names = IDENT_RE.findall(node_text(bound))
    elif holder is not None and holder.type == "expression_list" and holder.parent is not None and \
            holder.parent.type == "assignment_statement":  # Lua: `local a, b = require "a", require "b"`
        at = holder.named_children.index(call) if call in holder.named_children else -1
        targets = next((c for c in holder.parent.named_children if c.type == "variable_list"), None)
        names = [node_text(targets.named_children[at])] if targets is not None and \
            0 <= at < len(targets.named_children) and targets.named_children[at].type == "identifier" else []
    for name in names:
        out.imports[name] = module
