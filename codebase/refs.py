"""The names a parsed file uses: calls (with the receiver a method is called on), imports and base types.

``codebase.resolve`` turns them into symbol edges once the whole project's symbols are known.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .languages import BODY_TYPES, NAME_TYPES, LangSpec, dart, graphql, protobuf, scala, solidity
from .typed import DOTTED, IDENT_RE, declared_type, node_text, rust_taken_from, rust_type, unmark

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
#: the languages whose word for ``super`` is another (``parent::save()``, ``base.Save()``)
_SUPER_KEYWORDS = {"php": "parent", "csharp": "base"}
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


def heritage(node, spec: LangSpec, language: str) -> list[tuple[str, str]]:
    """(extends | implements, name) of each base type a type definition names."""
    if language == "go":
        return [("extends", name) for name in _go_embedded(node)]
    found: list[tuple[str, str]] = []
    superclasses = node.child_by_field_name("superclasses") if language == "python" else None
    holders = [(superclasses, "extends")] if superclasses is not None else []
    if language != "python":
        queue = list(node.named_children)
        while queue:
            c = queue.pop(0)
            if c.type in BODY_TYPES or c.type in ("class_body", "declaration_list"):
                continue
            if c.type in spec.heritage:
                rel = spec.heritage[c.type]
                if language == "kotlin":
                    rel = "extends" if any(x.type == "constructor_invocation" for x in c.named_children) \
                        else "implements"
                elif language == "swift":  # a class's superclass comes first; the rest are protocols
                    rel = "extends" if not holders and any(x.type == "class" for x in node.children) \
                        else "implements"
                holders.append((c, rel))
            elif c.type in ("class_heritage", "delegation_specifiers", "super_interfaces", "type_list"):
                queue.extend(c.named_children)
    if language == "objc" and (superclass := node.child_by_field_name("superclass")) is not None:
        found.append(("extends", node_text(superclass)))
    for holder, rel in holders:
        for name in _names_in(holder):
            r = rel
            if language == "csharp" and re.match(r"I[A-Z]", name):
                r = "implements"
            found.append((r, name))
    if language == "rust" and last_ident(node_text(node.child_by_field_name("trait"))) in ("Deref", "DerefMut"):
        body = node.child_by_field_name("body")
        found.extend(("extends", target) for item in (body.named_children if body is not None else [])
                     if item.type == "type_item" and node_text(item.child_by_field_name("name")) == "Target"
                     and (target := rust_type(node_text(item.child_by_field_name("type")))))
    return found  # a method call sees through Rust's Deref (`impl Deref for Ptr { type Target = Stream }`)


def _go_embedded(node) -> list[str]:
    """The types a Go interface or struct embeds (``io.Reader`` in an interface, ``*Base`` as a field without a
    name): their methods are the embedder's, Go's way of extending a type."""
    typ = node.child_by_field_name("type")
    if typ is not None and typ.type == "interface_type":
        embedded = [c for c in typ.named_children if c.type in ("type_elem", "constraint_elem")]
    elif typ is not None and typ.type == "struct_type":
        fields = next((c for c in typ.named_children if c.type == "field_declaration_list"), None)
        embedded = [c.child_by_field_name("type") for c in (fields.named_children if fields is not None else [])
                    if c.type == "field_declaration" and c.child_by_field_name("name") is None]
    else:
        return []
    names = [declared_type(re.sub(r"\[.*\]", "", node_text(e))) for e in embedded if e is not None]
    return [last_ident(n) for n in names if n]  # not a constraint's `~int | ~float64`


def _names_in(node) -> list[str]:
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


def callee(node, field_name: str, language: str = "") -> tuple[str, str]:
    """(name, receiver) of a call node; ("", "") when it calls what another call returned (``f()()``)."""
    if language == "protobuf":  # a type a field or an rpc names: its name, and the scope written before it
        return protobuf.type_use(node)
    if language == "graphql":  # a type, fragment or directive named
        return graphql.use(node)
    target = node.child_by_field_name(field_name) if field_name else None
    if target is None:
        target = node.named_children[0] if node.named_children else None
    if language == "scala":
        target = scala.callee_node(target)
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
    if language == "ruby" and text.endswith(("?", "!")) and text[:-1].endswith(name):  # empty?, save!
        name += text[-1]
    if recv_node is not None and recv_node != target:
        before = recv_node.text.decode("utf-8", errors="replace")[-200:]
    else:
        before = text[:at]
    return name.lstrip("$"), receiver_key(before, language)


def receiver_call(node, field_name: str, call_types, language: str = "") -> tuple[Any, bool]:
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
        elif language == "rust" and (inner := rust_taken_from(recv)) is not None:
            awaited, recv = True, inner
        else:
            break
    return (recv, awaited) if recv is not None and recv.type in call_types else (None, False)


def receiver_key(text: str, language: str = "") -> str:
    """What a method is called on, from the source text before its name: a dotted name (``self.runner.``
    gives ``self.runner``, ``Vec::<u8>::`` gives ``Vec``), ``super`` (also PHP's ``parent::`` and C#'s
    ``base.``), or EXPRESSION."""
    t = re.sub(r"<[^<>]*>", "", text).strip().rstrip(".?!:->&").strip()
    if not t:
        return ""
    if t == _SUPER_KEYWORDS.get(language):
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


def _rust_uses(node, prefix: str = "") -> list[tuple[str, str]]:
    """(bound name, path) of each item a Rust ``use`` tree imports: ``a::b::{c, d as e, self}`` gives
    (c, a::b::c), (e, a::b::d), (b, a::b); a glob ``a::b::*`` gives (STAR + "a::b", "a::b")."""
    def join(path: str) -> str:
        return f"{prefix}::{path}" if prefix and path else prefix or path

    if node.type == "use_as_clause":
        path, alias = join(node_text(node.child_by_field_name("path"))), node_text(node.child_by_field_name("alias"))
        return [(alias, path)] if alias != "_" else [("", path)]  # `as _`: a trait in scope, no name
    if node.type == "scoped_use_list":
        inner = join(node_text(node.child_by_field_name("path")))
        listed = node.child_by_field_name("list")
        return [u for c in (listed.named_children if listed is not None else []) for u in _rust_uses(c, inner)]
    if node.type == "use_list":
        return [u for c in node.named_children for u in _rust_uses(c, prefix)]
    if node.type == "use_wildcard":
        path = join(node_text(node.named_children[0])) if node.named_children else prefix
        return [(STAR + path, path)]
    if node.type == "self":
        return [(last_ident(prefix), prefix)]
    path = join(node_text(node))
    return [(last_ident(path), path)] if path else []


def _php_uses(text: str) -> list[tuple[str, str]]:
    """(bound name, path) of each name a PHP ``use`` imports: ``use A\\B;``, ``use A\\B as C;``, ``use
    function A\\f;``, ``use A\\{B, C as D};``."""
    body = re.sub(r"^\s*use\s+(?:function\s+|const\s+)?", "", text).strip().rstrip(";").strip()
    group = re.fullmatch(r"(.*?)\\?\{(.*)\}", body, re.S)
    prefix, items = (group.group(1).rstrip("\\") + "\\", group.group(2)) if group else ("", body)
    found = []
    for item in items.split(","):
        path, _, alias = re.sub(r"^\s*(?:function|const)\s+", "", item).strip().partition(" as ")
        path = (prefix + path.strip()).lstrip("\\")
        if path:
            found.append((alias.strip() or path.rsplit("\\", 1)[-1], path))
    return found


def imports_of(node, out: Any) -> None:
    """Record an import statement's module (``out.refs``) and the names it binds (``out.imports``)."""
    uses: list[tuple[str, str]] | None = None
    if node.type == "use_declaration":  # Rust
        argument = node.child_by_field_name("argument")
        uses = _rust_uses(argument) if argument is not None else []
    elif node.type == "namespace_use_declaration":  # PHP
        uses = _php_uses(node_text(node))
    elif node.type == "import_declaration" and node.child_by_field_name("path") is not None:  # Scala
        uses = scala.imports(node)
    elif node.type in ("import_or_export", "part_directive", "part_of_directive"):  # Dart
        uses = dart.imports(node)
    elif node.type == "import_directive":  # Solidity
        uses = solidity.imports(node)
    elif node.type == "import" and node.child_by_field_name("path") is not None:  # Protocol Buffers: a file
        uses = [("", node_text(node.child_by_field_name("path")).strip("\"'"))]
    elif node.type == "package":  # Protocol Buffers: where the file's names are looked up from
        out.imports[protobuf.PACKAGE] = protobuf.package_name(node)
        return
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


#: languages whose ``require("m")`` call is an import: JavaScript's CommonJS, Lua
REQUIRE_LANGUAGES = frozenset({"javascript", "typescript", "tsx", "lua"})


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


_RUBY_MIXINS = frozenset({"include", "extend", "prepend"})


def ruby_directive(node, out: Any, scope: Any, in_type_body: bool) -> bool:
    """Record a Ruby ``call`` or ``super`` node that the generic call rule would misread, and say whether it
    was one: ``include Helpers`` (also ``extend``, ``prepend``) in a class or module body mixes the module's
    methods into the type, an ``extends`` ref the resolver looks methods up through; ``require "rack/utils"``,
    ``require_relative "utils"`` and ``autoload :Utils, "rack/utils"`` import a file; ``super`` and
    ``super(x)`` in a method call the method of the same name in the type's bases."""
    line = node.start_point[0] + 1
    if node.type == "super":
        if scope.kind == "method":
            out.refs.append(Ref(scope.qualname, "calls", scope.name, line, "super"))
        return True
    method, args = node.child_by_field_name("method"), node.child_by_field_name("arguments")
    if method is not None and method.type == "super":
        return True  # super(x): its `super` node says what it calls
    if node.child_by_field_name("receiver") is not None or method is None or args is None:
        return False
    word = node_text(method)
    if word in _RUBY_MIXINS and in_type_body:
        names = [last_ident(node_text(a)) for a in args.named_children if a.type in ("constant", "scope_resolution")]
        out.refs.extend(Ref(scope.qualname, "extends", n, line) for n in names if n)
        return bool(names)
    if word not in ("require", "require_relative", "autoload"):
        return False
    paths = [node_text(c) for a in args.named_children if a.type == "string"
             for c in a.named_children if c.type == "string_content"]
    if len(paths) != 1:
        return False  # require(some_variable): nothing to follow
    module = paths[0] if word != "require_relative" or paths[0].startswith(".") else "./" + paths[0]
    out.refs.append(Ref("", "imports", module, line))
    if word == "autoload" and args.named_children[0].type == "simple_symbol":  # autoload :Utils, "rack/utils"
        out.imports[node_text(args.named_children[0]).lstrip(":")] = module
    return True


def rust_mod_declaration(node, out: Any, path: str) -> None:
    """Record Rust's ``mod error;`` (a module whose body is another file: ``error.rs`` beside a crate root or a
    ``mod.rs``, else in the folder named like the declaring file) as an import of that file."""
    name = node_text(node.child_by_field_name("name"))
    if not name:
        return
    folder, _, file = path.rpartition("/")
    stem = file.rsplit(".", 1)[0]
    root = stem in ("lib", "main", "mod") or folder.rpartition("/")[2] in ("tests", "examples", "benches", "bin")
    module = f"./{name}" if root else f"./{stem}/{name}"
    out.refs.append(Ref("", "imports", module, node.start_point[0] + 1))  # binds no name: `drop(x)` is std's
