"""The names a parsed file uses: calls (with the receiver a method is called on), imports and base types.

``codebase.resolve`` turns them into symbol edges once the whole project's symbols are known.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .languages import BODY_TYPES, NAME_TYPES, LangSpec

IDENT_RE = re.compile(r"[A-Za-z_$][\w$]*")
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
_DOTTED = re.compile(r"[A-Za-z_$][\w$]*(\s*(?:\.|::|->|\?\.)\s*[A-Za-z_$][\w$]*)*")
#: the receiver of a method called on an expression that is not a name (``f().g()``, ``a[0].g()``)
EXPRESSION = "()"


@dataclass
class Ref:
    """A name used by a symbol, to be resolved against the project's symbols."""

    source: str            # qualname of the symbol that uses the name ("" = the module)
    kind: str              # calls | imports | extends | implements | holds (a class's attribute, its class in typed)
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
                holders.append((c, rel))
            elif c.type in ("class_heritage", "delegation_specifiers", "super_interfaces", "type_list"):
                queue.extend(c.named_children)
    for holder, rel in holders:
        for name in _names_in(holder):
            r = rel
            if language == "csharp" and re.match(r"I[A-Z]", name):
                r = "implements"
            found.append((r, name))
    return found


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
    names = [declared_type(re.sub(r"\[.*\]", "", _text(e))) for e in embedded if e is not None]
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


def callee(node, field_name: str, language: str = "") -> tuple[str, str]:
    """(name, receiver) of a call node; ("", "") when it calls what another call returned (``f()()``)."""
    target = node.child_by_field_name(field_name) if field_name else None
    if target is None:
        target = node.named_children[0] if node.named_children else None
    if target is None or target.type in ("call_expression", "call"):  # f()() : the inner call counts on its own
        return "", ""
    text = target.text.decode("utf-8", errors="replace")[:200]
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


def receiver_call(node, field_name: str, call_types) -> Any:
    """The call whose result a method is called on (``a.b()`` in ``a.b().c()``), or None."""
    recv = next((r for f in _RECEIVER_FIELDS if (r := node.child_by_field_name(f)) is not None), None)
    target = node.child_by_field_name(field_name) if field_name else None
    if target is None and node.named_children:
        target = node.named_children[0]
    if recv is None and target is not None:  # Python's attribute, JavaScript's member, Go's selector, Rust's field
        recv = next((r for f in ("object", "operand", "value") if (r := target.child_by_field_name(f)) is not None),
                    target.named_children[0] if target.type == "navigation_expression" else None)  # Kotlin
    return recv if recv is not None and recv.type in call_types else None


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
    t = _unmark(t)  # `this.#client` is the class's attribute `client`
    if _DOTTED.fullmatch(t):
        return ".".join(i.lstrip("$") for i in IDENT_RE.findall(t))
    if t[-1] in ")]}\"'`":
        return EXPRESSION
    return last_ident(t).lstrip("$") or EXPRESSION


def _rust_uses(node, prefix: str = "") -> list[tuple[str, str]]:
    """(bound name, path) of each item a Rust ``use`` tree imports: ``a::b::{c, d as e, self}`` gives
    (c, a::b::c), (e, a::b::d), (b, a::b); a glob ``a::b::*`` gives (STAR + "a::b", "a::b")."""
    def join(path: str) -> str:
        return f"{prefix}::{path}" if prefix and path else prefix or path

    if node.type == "use_as_clause":
        path, alias = join(_text(node.child_by_field_name("path"))), _text(node.child_by_field_name("alias"))
        return [(alias, path)] if alias != "_" else [("", path)]  # `as _`: a trait in scope, no name
    if node.type == "scoped_use_list":
        inner = join(_text(node.child_by_field_name("path")))
        listed = node.child_by_field_name("list")
        return [u for c in (listed.named_children if listed is not None else []) for u in _rust_uses(c, inner)]
    if node.type == "use_list":
        return [u for c in node.named_children for u in _rust_uses(c, prefix)]
    if node.type == "use_wildcard":
        path = join(_text(node.named_children[0])) if node.named_children else prefix
        return [(STAR + path, path)]
    if node.type == "self":
        return [(last_ident(prefix), prefix)]
    path = join(_text(node))
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
        uses = _php_uses(_text(node))
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
    word = _text(method)
    if word in _RUBY_MIXINS and in_type_body:
        names = [last_ident(_text(a)) for a in args.named_children if a.type in ("constant", "scope_resolution")]
        out.refs.extend(Ref(scope.qualname, "extends", n, line) for n in names if n)
        return bool(names)
    if word not in ("require", "require_relative", "autoload"):
        return False
    paths = [_text(c) for a in args.named_children if a.type == "string"
             for c in a.named_children if c.type == "string_content"]
    if len(paths) != 1:
        return False  # require(some_variable): nothing to follow
    module = paths[0] if word != "require_relative" or paths[0].startswith(".") else "./" + paths[0]
    out.refs.append(Ref("", "imports", module, line))
    if word == "autoload" and args.named_children[0].type == "simple_symbol":  # autoload :Utils, "rack/utils"
        out.imports[_text(args.named_children[0]).lstrip(":")] = module
    return True


def rust_mod_declaration(node, out: Any, path: str) -> None:
    """Record Rust's ``mod error;`` (a module whose body is another file: ``error.rs`` beside a crate root or a
    ``mod.rs``, else in the folder named like the declaring file) as an import of that file."""
    name = _text(node.child_by_field_name("name"))
    if not name:
        return
    folder, _, file = path.rpartition("/")
    stem = file.rsplit(".", 1)[0]
    root = stem in ("lib", "main", "mod") or folder.rpartition("/")[2] in ("tests", "examples", "benches", "bin")
    module = f"./{name}" if root else f"./{stem}/{name}"
    out.refs.append(Ref("", "imports", module, node.start_point[0] + 1))  # binds no name: `drop(x)` is std's


#: nodes that may give a variable a class: a typed parameter, an annotated or constructed variable
LOCAL_TYPE_NODES = frozenset({"typed_parameter", "typed_default_parameter", "assignment", "variable_declarator",
                              "required_parameter", "optional_parameter", "assignment_expression",
                              "public_field_definition", "property_signature", "as_pattern"})
_SELF_ATTRIBUTE = re.compile(r"(?:self|this)\.[A-Za-z_$][\w$]*")
_CLASS_NAME = re.compile(r"(?:[A-Za-z_$][\w$]*\.)*[A-Z][\w$]*[a-z][\w$]*")
_FUNCTION_NAME = re.compile(r"(?:[A-Za-z_$][\w$]*\.)*[a-z_][\w$]*")
#: marks a Ref.typed that is what a function returns (``eng = engine()`` gives ``engine()``) or yields to a
#: ``with`` (``with engine() as eng`` gives ``with engine()``): the resolver reads the function's annotation
RETURNED, ENTERED = "()", "with "
#: joins a class and one of its attributes in a Ref.typed (``Server@store`` for ``s.store.save()``): the call is
#: on what the class's attribute holds, which the resolver reads from the ``holds`` refs of any file
HOLDS = "@"


def class_name(text: str) -> str:
    """The class a type annotation names (``Store``, ``'Store'``, ``Store | None``, ``Optional[Store]``,
    ``models.Store``), or "" for anything else: a builtin, a union, a generic, a constant-like name."""
    t = text.strip().strip("'\"").strip()
    t = re.sub(r"^Optional\[(.*)\]$", r"\1", t).strip()
    parts = [p.strip() for p in t.split("|") if p.strip() not in ("None", "null", "undefined")]
    return parts[0] if len(parts) == 1 and _CLASS_NAME.fullmatch(parts[0]) else ""


def local_type(node) -> tuple[str, str] | None:
    """(variable, class) that a node binds: a parameter annotated with a class (``store: Store``,
    TypeScript's ``store: Store``), a variable or field annotated with one, or one assigned a new instance
    (``store = Store()``, ``self.store = Store()``, ``this.store = new Store()``, ``with Store() as store``);
    for one assigned what a function returns (``store = open_store()``, ``with open_store() as store``), the
    function marked with RETURNED or ENTERED; None otherwise. Calls on the variable are then resolved in that
    class (``store.save()``) before what its name resembles (``Ref.typed``)."""
    if node.type == "as_pattern":
        target = node.child_by_field_name("alias")
        name = target.named_children[0] if target is not None and target.named_children else None
        value = node.named_children[0] if node.named_children else None
        if name is None or name.type != "identifier" or value is None or value.type != "call":
            return None
        found = _made_by(value.child_by_field_name("function"), ENTERED)
        return (name.text.decode("utf-8", errors="replace"), found) if found else None
    name = node.child_by_field_name("name") or node.child_by_field_name("left") or \
        node.child_by_field_name("pattern")
    if name is None and node.type == "typed_parameter":
        name = next((c for c in node.named_children if c.type == "identifier"), None)
    if name is None:
        return None
    var = _unmark(name.text.decode("utf-8", errors="replace"))
    if name.type not in ("identifier", "property_identifier", "private_property_identifier") and \
            not _SELF_ATTRIBUTE.fullmatch(var):
        return None
    typ = node.child_by_field_name("type")
    if typ is not None and typ.type == "type_annotation":  # TypeScript's: the language's type, `Map<K, V>` a Map
        written = _text(typ).lstrip(":").strip()
        found = declared_type(written) or ("Array" if written.endswith("]") else "")  # `Store[]`, `[A, B]`
        return (var, found) if found else None
    if typ is not None:
        found = class_name(typ.text.decode("utf-8", errors="replace").lstrip(":"))
        return (var, found) if found else None
    value = node.child_by_field_name("right") or node.child_by_field_name("value")
    if value is None:
        return None
    if value.type == "new_expression":
        found = class_name(_text(value.child_by_field_name("constructor")))
    elif value.type in ("call", "call_expression"):
        found = _made_by(value.child_by_field_name("function"))
    else:
        return None
    return (var, found) if found else None


def aliased(node) -> tuple[str, str] | None:
    """(variable, name) where a node assigns one name's value to another (``self.store = store``, ``const s =
    store``, TypeScript's ``this.#store = store``): the variable holds what the name holds."""
    if node.type not in LOCAL_TYPE_NODES:
        return None
    name = node.child_by_field_name("name") or node.child_by_field_name("left")
    value = node.child_by_field_name("right") or node.child_by_field_name("value")
    if name is None or value is None or value.type != "identifier":
        return None
    var = _unmark(_text(name))
    return (var, _text(value)) if IDENT_RE.fullmatch(var) or _SELF_ATTRIBUTE.fullmatch(var) else None


def parameter_property(node) -> str:
    """The attribute a TypeScript constructor parameter declares (``private readonly store: Store`` declares
    ``this.store``), or ""."""
    if node.type not in ("required_parameter", "optional_parameter") or not any(
            c.type in ("accessibility_modifier", "readonly", "override_modifier") for c in node.children):
        return ""
    name = node.child_by_field_name("pattern")
    return "this." + _text(name) if name is not None and name.type == "identifier" else ""


#: nodes of Java, Kotlin and Go that give a variable a declared type: a parameter (Go's method receiver
#: too), a Kotlin property, a Go ``var`` or struct field, a Java for-each variable; Java's fields and locals
#: are their ``variable_declarator`` (LOCAL_TYPE_NODES), whose declaration holds the type
DECLARED_NODES = frozenset({"formal_parameter", "enhanced_for_statement", "parameter", "class_parameter",
                            "property_declaration", "parameter_declaration", "var_spec", "field_declaration",
                            "short_var_declaration", "catch_formal_parameter", "foreach_statement",
                            "catch_declaration"})
#: a call whose result a Java or C# variable declared ``var`` holds
_INVOCATIONS = frozenset({"method_invocation", "invocation_expression"})
_KOTLIN_TYPES = ("user_type", "nullable_type")


def declared_type(text: str) -> str:
    """The type a Java, Kotlin or Go declaration names, without its annotations, type arguments, Go's pointer
    and Kotlin's nullable marks (``@Nullable List<Foo>`` gives ``List``, ``*pkg.Server`` gives ``pkg.Server``,
    ``ReadableMap?`` gives ``ReadableMap``), or "" for anything but a (dotted) name: an array, a map, a
    function type, Java's ``var``."""
    t = re.sub(r"@[\w.]+(?:\([^()]*\))?", "", text)
    while (untyped := re.sub(r"<[^<>]*>", "", t)) != t:
        t = untyped
    # TypeScript's `Store | undefined`, `null | Store`: the type a value has when there is one
    t = re.sub(r"^\s*(?:(?:null|undefined)\s*\|\s*)+|(?:\s*\|\s*(?:null|undefined))+\s*$", "", t)
    t = t.strip().lstrip("*&").rstrip("?!").strip()
    return t if _DOTTED.fullmatch(t) and "::" not in t and "->" not in t and t != "var" else ""


def declared_types(node) -> list[tuple[str, str]]:
    """(variable, type) of each variable a Java, Kotlin or Go declaration binds: the type written
    (``ReadableMap args``, ``args: ReadableMap?``, ``s *Server``, ``a, b Store``), else the class a Java or
    Kotlin variable is assigned a new instance of (``var f = new Foo()``, ``val f = Foo()``). Unlike Python's
    annotations, these are the language's types: a type the project does not define is a library's."""
    names: list[str] = []
    typ: str = ""
    if node.type == "short_var_declaration":  # Go: `s := &Server{}`, `s, err := NewServer()`
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None or not left.named_children or not right.named_children:
            return []
        return [(_text(name), typ) for name, value in zip(left.named_children, right.named_children)
                if name.type == "identifier" and (typ := _go_value_type(value))]
    if node.type == "variable_declarator":  # Java, C#: `Foo a = ..., b;`, the type on the declaration
        name = node.child_by_field_name("name")
        names = [_text(name)] if name is not None and name.type == "identifier" else []
        typ = declared_type(_text(node.parent.child_by_field_name("type")))
        value = node.child_by_field_name("value") or (node.named_children[-1] if len(node.named_children) > 1
                                                       else None)  # C#'s value has no field name
        if not typ and value is not None and value.type == "object_creation_expression":
            typ = class_name(declared_type(_text(value.child_by_field_name("type"))))
        elif not typ and value is not None and value.type in _INVOCATIONS:  # `var s = open()`: what open returns
            function = _text(value.child_by_field_name("function")) or ".".join(
                _text(part) for part in (value.child_by_field_name("object"), value.child_by_field_name("name"))
                if part is not None)
            typ = function + RETURNED if _DOTTED.fullmatch(function) and len(function) <= 200 else ""
    elif node.type == "catch_formal_parameter":  # Java: `catch (IOException e)`; `A | B e` names no one type
        names = [_text(node.child_by_field_name("name"))]
        typ = declared_type(_text(next((c for c in node.named_children if c.type == "catch_type"), None)))
    elif node.type == "foreach_statement":  # C#: `foreach (Store s in all)`
        left = node.child_by_field_name("left")
        names = [_text(left)] if left is not None and left.type == "identifier" else []
        typ = declared_type(_text(node.child_by_field_name("type")))
    elif node.child_by_field_name("type") is not None or node.type == "var_spec":  # parameters, vars, fields
        names = [_text(c) for i, c in enumerate(node.children)
                 if node.field_name_for_child(i) == "name" and c.type in ("identifier", "field_identifier")]
        typ = declared_type(_text(node.child_by_field_name("type")))
        values = node.child_by_field_name("value")
        if not typ and values is not None and values.named_children:  # Go: `var reg = NewRegistry()`
            names, typ = names[:1], _go_value_type(values.named_children[0])
    elif node.type in ("parameter", "class_parameter", "property_declaration"):  # Kotlin: no field names
        decl = next((c for c in node.named_children if c.type == "variable_declaration"), node)
        names = [_text(c) for c in decl.named_children if c.type == "simple_identifier"][:1]
        typ = next((declared_type(_text(c)) for c in decl.named_children if c.type in _KOTLIN_TYPES), "")
        value = next((c for c in node.named_children if c.type == "call_expression"), None)
        if not typ and node.type == "property_declaration" and value is not None and value.named_children:
            function = _text(value.named_children[0])  # `val f = Foo()`, or `val m = hashMapOf()`: its result
            typ = class_name(function) or (function + RETURNED if _DOTTED.fullmatch(function) else "")
    return [(n, typ) for n in names if typ] if names else []


#: the result type of a Kotlin function's signature: `fun make(id: Int): Store?`
_KOTLIN_RESULT = re.compile(r"\)\s*:\s*([^=]+?)\s*(?:=.*)?$")


def result_type(signature: str, path: str, name: str = "") -> str:
    """The (first) result type of a Go, Kotlin or Java function's signature: ``func NewServer(o Options)
    (*Server, error)``, ``func (f *Factory) Make() *Server``, ``func Open() (s *Server, err error)`` give
    ``*Server``; Kotlin's ``fun make(id: Int): Server?`` gives ``Server?`` (TypeScript's ``make(id: number):
    Server`` ``Server``); Java's ``public static @Nullable Server make(int id)`` (``name``: make) gives
    ``Server``."""
    if path.endswith((".java", ".cs")):
        at = re.search(rf"(?<![\w$]){re.escape(name)}\s*\(", signature)
        head = signature[:at.start()] if at else ""
        while (plain := re.sub(r"<[^<>]*>", "", head)) != head:  # `<T extends Foo> List<T>`
            head = plain
        words = head.split()
        return words[-1] if words else ""
    if not path.endswith(".go"):
        found = _KOTLIN_RESULT.search(signature)
        return found.group(1) if found else ""
    rest = signature.removeprefix("func").lstrip()
    groups = 2 if rest.startswith("(") else 1  # a method's receiver, then its parameters
    for _ in range(groups):
        start, depth = rest.find("("), 0
        if start < 0:
            return ""
        for i in range(start, len(rest)):
            depth += {"(": 1, ")": -1}.get(rest[i], 0)
            if depth == 0:
                rest = rest[i + 1:]
                break
        else:
            return ""
    first = rest.strip().lstrip("(").split(",")[0].strip().removesuffix(")").split()
    return first[-1] if first else ""  # a named result `(s *Server, err error)` too


def extension_of(signature: str) -> str:
    """The type a C# extension method extends (``static BorrowedReference Borrow(this in NewReference r)``:
    ``NewReference``), or ""."""
    m = re.search(r"\(\s*this\s+(?:(?:in|ref|readonly|scoped)\s+)*([\w.]+)", signature)
    return m.group(1).rsplit(".", 1)[-1] if m else ""


def kotlin_property(accessor: str) -> str:
    """The Kotlin property a Java accessor's name reaches (``getTitle``, ``setTitle``: ``title``), or ""
    (``isShown()`` reaches ``isShown`` by its own name)."""
    m = re.fullmatch(r"(?:get|set)([A-Z])(\w*)", accessor)
    return m.group(1).lower() + m.group(2) if m else ""


def _go_value_type(value) -> str:
    """What a Go value holds as Ref.typed: the type of a composite literal (``Server{}``, ``&pkg.Server{}``),
    or the function a call is of, marked RETURNED (``NewServer()``: its result type decides), else ""."""
    if value.type == "unary_expression" and value.named_children:
        value = value.named_children[-1]
    if value.type == "composite_literal":
        return declared_type(_text(value.child_by_field_name("type")))
    function = _text(value.child_by_field_name("function")) if value.type == "call_expression" else ""
    return function + RETURNED if _DOTTED.fullmatch(function) and len(function) <= 200 else ""


def _text(node) -> str:
    return node.text.decode("utf-8", errors="replace") if node is not None else ""


_PRIVATE_MARK = re.compile(r"(^|\.\s*)#(?=[A-Za-z_$])")


def _unmark(text: str) -> str:
    """A name without JavaScript's private mark (``#store``, ``this.#store``): classes keep what their private
    fields hold under the plain name (a class cannot have both)."""
    return _PRIVATE_MARK.sub(r"\1", text)


def _made_by(callee_node, prefix: str = "") -> str:
    """What a call's value holds as Ref.typed: the class it constructs (``Store()``), else the function whose
    annotation will say (``open_store()``, marked RETURNED, after ``prefix``), else ""."""
    text = _unmark(_text(callee_node))  # `this.#client.open()`
    return class_name(text) or (prefix + text + RETURNED if _FUNCTION_NAME.fullmatch(text) else "")
