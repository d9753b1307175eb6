"""What Zig's grammar (tree-sitter-zig's PEG names: ``Decl``, ``FnProto``, ``VarDecl``, ``SuffixExpr``) leaves
to the reader. A type is a constant holding a container (``const Point = struct {...}``), or a function returning
one (``fn ArrayList(comptime T: type) type``, whose struct's members are the type's); a file is a struct too, so
``@This()`` names it or the container it is in, and ``@import("mem.zig")`` binds a file. A call is a chain of
suffixes (``std.mem.eql(...)``, ``list.append(...)``): its name and the path it is called on, resolved through
the file's imports, aliases (``const debug = std.debug;``) and declared types (``self: *Self``, ``p: Point``,
``var l = List.init(a)`` where ``fn init(a: Allocator) Self``), by ``_Paths`` below."""

from __future__ import annotations

import re

from ..receivers import owner_of, type_key
from ..refs import EXPRESSION, Ref
from ..typed import HOLDS
from ..typed import node_text
from . import LangSpec
from .base import Language, ranked, register

#: a container's keyword -> its symbol kind (an error set is an enum of errors)
CONTAINER_KINDS = {"struct": "struct", "union": "struct", "enum": "enum", "opaque": "type"}
#: marks an import's value as the container it is in (``const Self = @This();``): "^" + that container's
#: qualified name ("^" alone: the file)
THIS = "^"
#: marks an import's value as an alias of a path from the same scope (``const debug = std.debug;``)
ALIAS = "="
#: between an import's module and the path of fields taken from it (``@import("list.zig").List``)
FIELDS = "|"
_CONTAINERS = frozenset(CONTAINER_KINDS.values())
#: nodes that declare a variable's type (``declared``)
DECLARING = frozenset({"ParamDecl", "ContainerField", "VarDecl"})
_MODIFIERS = frozenset({"pub", "export", "extern", "inline", "noinline", "threadlocal"})
_TYPE = re.compile(r"(?:[?*!]|\[\*?\]|const\s+|volatile\s+|allowzero\s+)*([A-Za-z_][\w.]*)(\(.*\))?$", re.S)


def _after(node, token: str):
    """The first named child after an anonymous ``token`` child (a VarDecl's value after ``=``), else None."""
    seen = False
    for child in node.children:
        if seen and child.is_named:
            return child
        seen = seen or child.type == token
    return None


def _ident(node):
    return next((c for c in node.named_children if c.type == "IDENTIFIER"), None)


def _suffix(expr):
    """The SuffixExpr an expression is (``ErrorUnionExpr`` wraps every one), else None."""
    while expr is not None and expr.type == "ErrorUnionExpr" and expr.named_child_count == 1:
        expr = expr.named_children[0]
    return expr if expr is not None and expr.type == "SuffixExpr" else None


def _container(var_decl) -> str:
    """The kind of container a VarDecl's value is (``struct {...}`` -> "struct"), else ""."""
    value = _suffix(_after(var_decl, "="))
    head = value.named_children[0] if value is not None and value.named_children else None
    if head is not None and head.type == "ErrorSetDecl":
        return "enum"
    if head is None or head.type != "ContainerDecl" or len(value.named_children) > 1:
        return ""
    word = next((c for c in head.named_children if c.type == "ContainerDeclType"), None)
    return CONTAINER_KINDS.get(word.children[0].type, "") if word is not None and word.children else ""


def _part(node, kind: str):
    return next((c for c in node.named_children if c.type == kind), None)


def kind_of(node) -> str:
    """The symbol kind a node defines: "function" for a ``fn``, "test" for a ``test`` (never what a call names),
    "struct" for a function returning a type (its struct's members are its own) and for ``const P = struct
    {...}``, "enum"..., else ""."""
    if node.type == "TestDecl":
        return "test"
    if node.type != "Decl":
        return ""
    proto = _part(node, "FnProto")
    if proto is not None:
        returns = next((c for c in reversed(proto.named_children) if c.type == "ErrorUnionExpr"), None)
        return "struct" if node_text(returns) == "type" and _part(node, "Block") is not None else "function"
    var = _part(node, "VarDecl")
    return _container(var) if var is not None else ""


def name_of(node) -> str:
    """The name a definition gives: a function's, a constant's, a test's (``test "adds"`` -> adds)."""
    if node.type == "TestDecl":
        named = _ident(node) or _part(node, "STRINGLITERALSINGLE")
        return node_text(named).strip('"') if named is not None else "test"
    inner = _part(node, "FnProto") or _part(node, "VarDecl")
    return node_text(_ident(inner)) if inner is not None else ""


def _modifiers(node) -> str:
    """``pub`` before a Decl is its sibling, ``export``/``inline`` its child: the words before what it is."""
    words = [node_text(c) for c in node.children if not c.is_named and c.type in _MODIFIERS]
    prev = node.prev_sibling
    if prev is not None and prev.type == "pub":
        words.insert(0, "pub")
    return " ".join(words + [""])


def signature(node) -> str:
    """A definition as its first line says it: ``pub fn add(self: *Self, other: Point) Point``, ``pub const
    Point = struct``, ``test "adds"``."""
    if node.type == "TestDecl":
        named = _ident(node) or _part(node, "STRINGLITERALSINGLE")
        return f"test {node_text(named)}".strip()
    proto = _part(node, "FnProto")
    if proto is not None:
        return _modifiers(node) + " ".join(node_text(proto).split())
    text = node_text(node)
    value = _suffix(_after(_part(node, "VarDecl"), "=")) if _part(node, "VarDecl") is not None else None
    head = value.named_children[0] if value is not None and value.named_children else None
    if head is not None:  # `const Point = struct`, not its body
        brace = next((c for c in head.children if c.type == "{"), None)
        text = node.text[: brace.start_byte - node.start_byte].decode("utf-8", errors="replace") \
            if brace is not None else text.split("\n", 1)[0]
    return _modifiers(node) + " ".join(text.split()).rstrip("{ ").rstrip()


def binding(node, kind: str):
    """(name node, kind) of a constant, variable or field a node binds (``const max_len = 64;``, a struct's
    ``items: []T``, an enum's ``red``), else (None, ""): a definition, an import, an alias are no such binding."""
    if node.type == "ContainerField":
        name = _ident(node)
        if name is None:  # an enum's member is written as an expression: `red,`
            value = _suffix(node.named_children[0] if node.named_children else None)
            name = value.named_children[0] if value is not None and value.named_child_count == 1 else None
        return (name, "attribute") if name is not None and name.type == "IDENTIFIER" else (None, "")
    var = _part(node, "VarDecl") if node.type == "Decl" else None
    if var is None or _container(var) or bound(var) is not None:
        return None, ""
    if kind != "attribute":
        kind = "constant" if var.children and var.children[0].type == "const" else "variable"
    return _ident(var), kind


def bound(var_decl) -> str | None:
    """What a ``const`` binds when it names code rather than a value: an import (``@import("mem.zig")`` ->
    "./mem.zig", ``@import("std").mem`` -> "std|mem"), the container it is in (``@This()`` -> THIS), an alias
    of a path (``std.debug`` -> "=std.debug"), else None."""
    value = _suffix(_after(var_decl, "="))
    if value is None or any(c.type in (":", "InitList") for c in var_decl.children):
        return None  # `const n: usize = ...`, `const p = Point{...}`: a value
    kids = value.named_children
    head = kids[0] if kids else None
    if head is None:
        return None
    if head.type == "IDENTIFIER" and node_text(_ident(var_decl))[:1].isupper() and \
            (chain := _chain(value)).endswith("()"):
        return ALIAS + chain  # `pub const Shake256 = Shake(256);`: a type, what a type function returns
    fields = [node_text(_ident(k)) for k in kids[1:] if k.type == "FieldOrFnCall"]
    if len(fields) != len(kids) - (2 if head.type == "BUILTINIDENTIFIER" else 1) or \
            any(_part(k, "FnCallArguments") is not None for k in kids[1:] if k.type == "FieldOrFnCall"):
        return None  # a call's result, an index: a value
    if head.type == "BUILTINIDENTIFIER":
        args = kids[1] if len(kids) > 1 and kids[1].type == "FnCallArguments" else None
        if node_text(head) == "@This" and args is not None and not fields:
            return THIS
        module = _import_of(kids[:2])
        return module + (FIELDS + ".".join(fields) if fields else "") if module else None
    if head.type == "IDENTIFIER" and fields:
        return ALIAS + ".".join([node_text(head), *fields])
    return None


def directive(node, scope: str, own: str) -> tuple[str, str, str] | None:
    """(key, value, module imported or "") of a ``const`` binding code, else None. ``scope``: the qualified name of
    what the node is in, which keys it (``Point.Self``: each struct has its own Self); ``own``: of the container
    it is in, which ``@This()`` names. A ``usingnamespace @import(...)`` imports with no key."""
    if node.type == "AssignExpr" and node.children and node.children[0].type == "return" and scope:
        block = node.parent.parent if node.parent is not None else None  # Statement, then the function's Block
        decl = block.parent if block is not None and block.type == "Block" else None
        chain = _chain(_suffix(_after(node, "return"))) if decl is not None and kind_of(decl) == "struct" else ""
        # `fn AutoHashMap(K, V) type { return HashMap(K, V, ...); }`: its members are HashMap's
        return (scope + "()", ALIAS + chain, "") if chain.endswith("()") else None
    local = node.type == "VarDecl" and node.parent is not None and node.parent.type == "Statement"
    var = node if local else _part(node, "VarDecl") if node.type == "Decl" else None
    value = bound(var) if var is not None else None
    if local and value is not None and value[:1] == ALIAS:
        return None  # `const next = node.next;` in a function: a value, mostly
    if value is None:
        used = _suffix(_part(node, "ErrorUnionExpr")) if node.type == "Decl" and any(
            c.type == "usingnamespace" for c in node.children) else None
        return ("", "", module) if used is not None and (module := _import_of(used.named_children)) else None
    name = node_text(_ident(var))
    value = THIS + own if value == THIS else value
    module = "" if value[:1] in (THIS, ALIAS) else value.split(FIELDS)[0]
    return (f"{scope}.{name}" if scope else name), value, module


def enclosing(symbols: list, parents: dict[int, int], scope: int) -> str:
    """The qualified name of the container a symbol index is in (itself when it is one), or "" for the file."""
    while scope and symbols[scope].kind not in _CONTAINERS:
        scope = parents.get(scope, 0)
    return symbols[scope].qualname if scope else ""


def _import_of(kids: list) -> str:
    """The module an ``@import("...")`` (its builtin and arguments nodes) names: a file relative to the
    importing one (``./mem.zig``), or a package (``std``); else ""."""
    text = node_text(kids[1]).strip("() \n") if len(kids) == 2 and kids[1].type == "FnCallArguments" else ""
    if node_text(kids[0]) != "@import" or not re.fullmatch(r'"[^"\\]+"', text):
        return ""
    module = text.strip('"')
    return f"./{module}" if module.endswith(".zig") and not module.startswith(".") else module


def calls(node) -> list[tuple[str, str, object]]:
    """(name, receiver, node) of each call a SuffixExpr makes: ``helper(x)`` (receiver ""), ``std.mem.eql(a,
    b)`` (receiver "std.mem"), ``std.ArrayList(u8).init(a)`` (init's receiver "std.ArrayList()": what a type
    function returns), ``p.get().x()`` (x's receiver EXPRESSION). A builtin (``@intCast``) calls nothing."""
    kids = node.named_children
    if not kids:
        return []
    path: list[str] | None = [node_text(kids[0])] if kids[0].type == "IDENTIFIER" else None
    if path and node.children[0].type == ".":  # `.init(a)`: a declaration of the type the result must be
        path = [_inferred(node) or EXPRESSION, *path]
    found = []
    for kid in kids[1:]:
        if kid.type == "FnCallArguments":
            if path:
                found.append((path[-1], ".".join(path[:-1]), kid))
                path[-1] += "()"
            else:
                path = None
        elif kid.type == "FieldOrFnCall":
            name, args = node_text(_ident(kid)), _part(kid, "FnCallArguments")
            if args is not None and name:
                found.append((name, ".".join(path) if path else EXPRESSION, kid))
                path = path + [name + "()"] if path else None
            elif path is not None and name:
                path.append(name)
        elif node_text(kid) not in (".*", ".?"):  # an index, a slice: what only runs know
            path = None
    return found


def _inferred(node) -> str:
    """The type a decl literal (``.init(a)``) is of, where its place says: a variable's declared type
    (``var r: Reader = .init(a)``), a returned value's function's result (``fn init() Self``); else ""."""
    up = node.parent
    while up is not None and up.type in ("ErrorUnionExpr", "UnaryExpr"):
        up = up.parent  # `try .init(a)`
    if up is not None and up.type == "VarDecl" and _after(up, ":") is not None and _after(up, ":") != _after(up, "="):
        return type_name(node_text(_after(up, ":")))
    if up is None or up.type != "AssignExpr" or not up.children or up.children[0].type != "return":
        return ""
    while up is not None and up.type != "Decl":
        up = up.parent
    proto = _part(up, "FnProto") if up is not None else None
    return returns(" ".join(node_text(proto).split())) if proto is not None else ""


def type_name(text: str) -> str:
    """The type a declared type names, as a path: ``*const Node`` -> Node, ``?*std.mem.Allocator`` ->
    std.mem.Allocator, ``std.ArrayList(u8)`` -> std.ArrayList() (what a type function returns), ``Error!Self``
    -> Self (what it is when it is no error); "" for a slice, an array or a builtin type."""
    text = text.rsplit("!", 1)[-1]
    if re.fullmatch(r"[\s?*]*(?:const\s+)?@This\(\)", text):
        return THIS  # `self: *@This()`: the container it is written in
    match = _TYPE.match(" ".join(text.split()))
    if match is None or text.lstrip().startswith("[") and not text.lstrip().startswith("[*]"):
        return ""
    name = match.group(1) + ("()" if match.group(2) else "")
    return "" if re.fullmatch(r"[iu]\d+|f\d+|usize|isize|bool|void|anytype|type|comptime_\w+", name) else name


def declared(node) -> list[tuple[str, str]]:
    """(variable, type path) of what a node declares: a parameter (``self: *Self``), a field (``items:
    List``), a variable with a type or a value that says it (``Point{...}``, ``List.init(a)``)."""
    if node.type == "ParamDecl":
        name, typ = _ident(node), _part(node, "ParamType")
        return [(node_text(name), t)] if name is not None and (t := type_name(node_text(typ))) else []
    if node.type == "ContainerField":
        name = _ident(node)
        typ = _after(node, ":")
        return [(node_text(name), t)] if name is not None and (t := type_name(node_text(typ))) else []
    if node.type != "VarDecl" or bound(node) is not None:
        return []
    name = node_text(_ident(node))
    typ = _after(node, ":")
    if typ is not None and typ != _after(node, "="):
        return [(name, t)] if (t := type_name(node_text(typ))) else []
    value = _after(node, "=")
    if value is not None and value.type == "UnaryExpr" and node_text(value).startswith("try"):
        value = value.child_by_field_name("left")  # `try List.init(a)`: what it gives when it does not fail
    chain = _chain(_suffix(value)) if value is not None else ""
    literal = any(c.type == "InitList" for c in node.children)  # `Point{ .x = 1 }`
    return [(name, chain)] if chain and (literal or chain.endswith("()")) else []


def _chain(suffix) -> str:
    """A SuffixExpr as a path, a call's result marked "()" (``std.ArrayList(u8).init(a)`` ->
    "std.ArrayList().init()"), else "" (a builtin's, an index's)."""
    kids = suffix.named_children if suffix is not None else []
    if not kids or kids[0].type != "IDENTIFIER":
        return ""
    path = node_text(kids[0])
    for kid in kids[1:]:
        if kid.type == "FnCallArguments":
            path += "()"
        elif kid.type == "FieldOrFnCall":
            path += "." + node_text(_ident(kid)) + ("()" if _part(kid, "FnCallArguments") is not None else "")
        else:
            return ""
    return path


def returns(signature: str) -> str:
    """The type a function's signature says it returns (``pub fn init(a: Allocator) !Self`` -> Self), else ""."""
    start, depth = signature.find("("), 0
    for i in range(max(start, 0), len(signature)):
        depth += {"(": 1, ")": -1}.get(signature[i], 0)
        if start >= 0 and depth == 0:
            return type_name(re.sub(r"^\s*(?:callconv\([^)]*\)\s*)?", "", signature[i + 1:]))
    return ""


def field_type(signature: str) -> str:
    """The type a field's signature declares (``next: ?*Node = null,`` -> Node), else ""."""
    head = signature.split("=", 1)[0].rstrip(", ")
    return type_name(head.split(":", 1)[1]) if ":" in head else ""


def word_of(signature: str) -> str:
    """The word a breadcrumb puts before a definition's name: fn, struct, enum, union, test."""
    found = re.match(r"(?:(?:pub|export|extern|inline|noinline)\s+(?:\"\w*\"\s+)?)*(test|fn)\b", signature)
    if found:
        return found.group(1)
    found = re.search(r"=\s*(?:extern\s+|packed\s+)?(struct|enum|union|opaque|error)\b", signature)
    return found.group(1) if found else ""


# a definition is a `fn`, a test, or a constant holding a type; a call a chain of suffixes (codebase.zig)
SPEC = LangSpec({}, keywords={"function": "fn", "method": "fn"}, variables={"Decl": "variable", "ContainerField":
                "attribute"}, attributes={"Decl": "attribute", "ContainerField": "attribute"})


class Zig(Language):
    self_is_own_type = False  # Self is a constant (`const Self = @This();`) its resolver reads

    def definition_kind(self, node, walk) -> str | None:
        return kind_of(node)

    def typed(self, node, known: dict[str, str]) -> list[tuple[str, str, int]]:
        return ranked(declared(node) if node.type in DECLARING else [])

    def name_of(self, node) -> str:
        return name_of(node)

    def signature(self, node) -> str:
        return signature(node)

    def visit(self, node, walk, scope: int, in_func: bool) -> bool:
        if node.type == "SuffixExpr" and (made_calls := calls(node)):
            for name, receiver, at in made_calls:
                walk.call(scope, name, at, receiver)
        elif (bound := directive(node, walk.qualname(scope), enclosing(walk.out.symbols, walk.parents, scope))) \
                is not None:
            key, value, module = bound  # `const mem = @import("mem.zig");`, `const Self = @This();`
            if module:
                walk.out.refs.append(Ref("", "imports", module, node.start_point[0] + 1))
            if key:
                walk.out.imports[key] = value
        else:
            return False
        return True

    def binding_name(self, node, kind: str):
        return binding(node, kind)  # not a definition, an import or an alias

    def crumb(self, symbol, parent, word: str, label: str) -> tuple[str, str]:
        return word_of(symbol.signature) or word, label  # fn, struct, enum, union, test

    def resolve(self, resolver, name, kind, from_path, imports, receiver, source, typed):
        return _Paths(resolver).call(name, kind, receiver, typed, from_path, source)


#: what a Zig path leads to: ("file", path) or ("symbol", a symbol row)
Place = tuple[str, object]
_PLACE_KINDS = frozenset({"struct", "enum", "type"})
_DEPTH = 12  # aliases of aliases: a cycle (`const a = b; const b = a;`) ends here


class _Paths:
    """Zig's names through files and containers (``std.mem.eql``, ``self.list.append``), over the Resolver's
    indexes (``r``)."""

    def __init__(self, r) -> None:
        self.r = r

    def call(self, name: str, kind: str, receiver: str, typed: str, from_path: str, source: str) -> dict | None:
        """What a Zig call names: through what the receiver is declared to hold (``self: *Self``, ``l:
        std.ArrayList(u8)``), else the receiver's path (``std.mem``: the file std.zig imports as mem), else a
        bare name in the scopes it is written in (the function's, its containers', the file's); None for what
        the project does not define (a builtin, a library's) or what only runs know."""
        if kind != "calls" or receiver == EXPRESSION:
            return None
        scopes = _zig_scopes(source)
        path = typed or receiver
        if not path:
            place = self._zig_path(name, from_path, scopes, 0)
        else:
            # `node.next.f()`: Node's field next (Node@next); `it.next()`, `it = map.iterator()`: Map@=iterator()
            base, *steps = path.split(HOLDS)
            place = self._zig_path(base, from_path, scopes, 0)
            for step in [*steps, name]:
                place = self._zig_step(place, step.removeprefix("="), 0) if place is not None else None
        hit = place[1] if place is not None and place[0] == "symbol" else None
        return hit if hit is not None and hit["kind"] in ("function", "method", "struct") else None

    def _zig_path(self, dotted: str, path: str, scopes: list[str], depth: int) -> Place | None:
        """Where a dotted path written in ``path`` within ``scopes`` (innermost first, "" the file) leads."""
        head, *rest = dotted.split(".")
        bare, call = head.removesuffix("()"), head.endswith("()")
        if head == THIS:  # `self: *@This()`: the container the scope is in, else the file
            own = next((s for s in scopes if s and self.r.by_file_qual.get((path, s), {}).get("kind") in _PLACE_KINDS), "")
            place = self._zig_value(THIS + own, path, scopes, depth + 1)
        else:  # Zig forbids shadowing: the innermost scope naming it is the only one
            place = next((p for scope in scopes if (p := self._zig_name(path, scope, bare, depth)) is not None), None)
        place = self._zig_called(place, depth + 1) if call and place is not None else place
        for part in rest:
            place = self._zig_step(place, part, depth + 1) if place is not None else None
        return place

    def _zig_step(self, place: Place, part: str, depth: int) -> Place | None:
        """One step along a path: a file's top-level name or import, a container's member, a field's type."""
        if depth > _DEPTH:
            return None
        bare, call = part.removesuffix("()"), part.endswith("()")
        where, what = place
        if where == "symbol" and what["kind"] == "attribute":  # a field: what its declared type is
            typ = field_type(what["signature"])
            owner = owner_of(what["qualname"])
            place = self._zig_path(typ, what["path"], _zig_scopes(owner), depth + 1) if typ else None
            return self._zig_step(place, part, depth + 1) if place is not None else None
        place = self._zig_name(what if where == "file" else what["path"],
                               "" if where == "file" else type_key(what["qualname"]), bare, depth)
        return self._zig_called(place, depth + 1) if call and place is not None else place

    def _zig_name(self, path: str, scope: str, name: str, depth: int) -> Place | None:
        """What a name means in a container of a file (scope "": the file): its member, or where its binding
        (``const mem = std.mem;``, keyed ``scope.name``) leads."""
        found = self._zig_member(path, scope, name)
        if found is not None:
            return "symbol", found
        value = self.r.file_imports.get(path, {}).get(f"{scope}.{name}" if scope else name)
        return self._zig_value(value, path, _zig_scopes(scope), depth + 1) if value else None

    def _zig_member(self, path: str, scope: str, name: str) -> dict | None:
        """What a file's container (or the file, scope "") defines by a name, a field too; never a test."""
        qual = f"{scope}.{name}" if scope else name
        for mark in ("", "'", "''"):  # a test may have the name first (`test isAligned` above isAligned)
            found = self.r.by_file_qual.get((path, qual + mark))
            if found is None or found["kind"] != "test":
                return found
        return None

    def _zig_value(self, value: str, path: str, scopes: list[str], depth: int) -> Place | None:
        """Where a Zig binding's value (codebase.zig.bound) leads: a file, a container, an aliased path."""
        if depth > _DEPTH:
            return None
        if value.startswith(THIS):
            own = value[len(THIS):]
            return ("file", path) if not own else ("symbol", self.r.by_file_qual[(path, own)]) \
                if (path, own) in self.r.by_file_qual else None
        if value.startswith(ALIAS):
            return self._zig_path(value[len(ALIAS):], path, scopes, depth + 1)
        module, _, fields = value.partition(FIELDS)
        files = self.r.module_files(module, path)
        place: Place | None = ("file", files[0]) if files else None
        for part in fields.split(".") if fields else ():
            place = self._zig_step(place, part, depth + 1) if place is not None else None
        return place

    def _zig_called(self, place: Place, depth: int) -> Place | None:
        """What calling a thing gives, where its signature says: a type function's type (``ArrayList(u8)``), a
        function's declared result (``Point.origin()``, ``fn origin() Self``)."""
        if place[0] != "symbol" or place[1]["kind"] not in ("struct", "function", "method") or depth > _DEPTH:
            return None
        what = place[1]
        if what["kind"] == "struct":  # a type function's own struct, or the one it returns (`return HashMap(K, V)`)
            other = self.r.file_imports.get(what["path"], {}).get(what["qualname"] + "()")
            return self._zig_value(other, what["path"], _zig_scopes(what["qualname"]), depth + 1) if other else place
        typ = returns(what["signature"])
        return self._zig_path(typ, what["path"], _zig_scopes(owner_of(what["qualname"])), depth + 1) if typ else None


def _zig_scopes(qualname: str) -> list[str]:
    """The scopes a name is looked up in from a symbol, innermost first: itself, its containers, the file ("")."""
    scopes = [qualname]
    while scopes[-1]:
        scopes.append(owner_of(scopes[-1]))
    return scopes


register(Zig(), "zig", spec=SPEC)
