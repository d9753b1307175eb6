"""What a variable holds, read from a parse: the class a Python or TypeScript annotation or constructor names
(``local_type``), a Java, Kotlin, Go or C# declared type (``declared_types``), what another variable holds
(``aliased``), a function's declared result (``result_type``), all recorded as ``Ref.typed``.

``codebase.resolve`` follows them to the classes a call's receiver is an instance of.
"""

from __future__ import annotations

import re

IDENT_RE = re.compile(r"[A-Za-z_$][\w$]*")
DOTTED = re.compile(r"[A-Za-z_$][\w$]*(\s*(?:\.|::|->|\?\.)\s*[A-Za-z_$][\w$]*)*")
_PRIVATE_MARK = re.compile(r"(^|\.\s*)#(?=[A-Za-z_$])")


def node_text(node) -> str:
    """A tree-sitter node's source text ("" for no node)."""
    return node.text.decode("utf-8", errors="replace") if node is not None else ""


def unmark(text: str) -> str:
    """A name without JavaScript's private mark (``#store``, ``this.#store``): classes keep what their private
    fields hold under the plain name (a class cannot have both)."""
    return _PRIVATE_MARK.sub(r"\1", text)


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
#: marks, before RETURNED, a function's result that is awaited (``u = await repo.get()`` gives ``await repo.get()``):
#: the resolver unwraps the ``Promise<User>``, ``Task<User>`` or ``Awaitable[User]`` the function declares
AWAITED = "await "
_AWAITS = frozenset({"await", "await_expression"})
#: joins a class and one of its attributes in a Ref.typed (``Server@store`` for ``s.store.save()``): the call is
#: on what the class's attribute holds, which the resolver reads from the ``holds`` refs of any file
HOLDS = "@"
#: marks a step that a variable's assignment made (``value = lookup.get(k)`` gives ``Map@=get()``, held_through),
#: not a chain written out (``lookup.get(k).save()``): from a library's class it stays as unknown as the variable
#: was before its receiver's class was known, unless the project has no symbol of the step's name
ASSIGNED = "="


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
    var = unmark(name.text.decode("utf-8", errors="replace"))
    if name.type not in ("identifier", "property_identifier", "private_property_identifier") and \
            not _SELF_ATTRIBUTE.fullmatch(var):
        return None
    typ = node.child_by_field_name("type")
    if typ is not None and typ.type == "type_annotation":  # TypeScript's: the language's type, `Map<K, V>` a Map
        written = node_text(typ).lstrip(":").strip()
        found = declared_type(written) or ("Array" if written.endswith("]") else "")  # `Store[]`, `[A, B]`
        return (var, found) if found else None
    if typ is not None:
        found = class_name(typ.text.decode("utf-8", errors="replace").lstrip(":"))
        return (var, found) if found else None
    value = node.child_by_field_name("right") or node.child_by_field_name("value")
    awaited = value is not None and value.type in _AWAITS and bool(value.named_children)
    value = value.named_children[0] if awaited else value
    if value is None:
        return None
    if value.type == "new_expression":
        found = class_name(node_text(value.child_by_field_name("constructor")))
    elif value.type in ("call", "call_expression") and getattr(value.child_by_field_name("function"), "text",
                                                                 b"") != b"require":  # an import: no class
        found = _made_by(value.child_by_field_name("function"), AWAITED if awaited else "")
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
    var = unmark(node_text(name))
    return (var, node_text(value)) if IDENT_RE.fullmatch(var) or _SELF_ATTRIBUTE.fullmatch(var) else None


def parameter_property(node) -> str:
    """The attribute a TypeScript constructor parameter declares (``private readonly store: Store`` declares
    ``this.store``), or ""."""
    if node.type not in ("required_parameter", "optional_parameter") or not any(
            c.type in ("accessibility_modifier", "readonly", "override_modifier") for c in node.children):
        return ""
    name = node.child_by_field_name("pattern")
    return "this." + node_text(name) if name is not None and name.type == "identifier" else ""


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
    return t if DOTTED.fullmatch(t) and "::" not in t and "->" not in t and t != "var" else ""


_AWAITABLE = re.compile(r"(?:[\w.]+\.)?(?:Promise|PromiseLike|Task|ValueTask|Awaitable|Coroutine|Future)"
                        r"\s*[<\[](.*)[>\]]")


def awaited_type(text: str) -> str:
    """The type awaiting a value of a declared type gives: the last type argument of TypeScript's
    ``Promise<User>``, C#'s ``Task<User>``, Python's ``Awaitable[User]`` or ``Coroutine[Any, Any, User]``
    (``User``); any other type is itself (awaiting a plain value gives the value)."""
    m = _AWAITABLE.fullmatch(text.strip())
    return _type_arguments(m.group(1))[-1] if m is not None else text


def _type_arguments(text: str) -> list[str]:
    """A type's arguments, split at the commas outside brackets (``Dictionary<K, V>, E`` gives two)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += {"<": 1, "[": 1, "(": 1, ">": -1, "]": -1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            parts, start = parts + [text[start:i].strip()], i + 1
    return parts + [text[start:].strip()]


#: Rust's references and the smart pointers a method call sees through (``&mut Store``, ``Box<Store>``), and a
#: trait object's or opaque type's trait (``dyn Handler``, ``impl Handler``)
_RUST_THROUGH = re.compile(r"^\s*(?:&\s*(?:'\w+\s+)?(?:mut\s+)?|(?:dyn|impl|mut)\s+|"
                           r"(?:[\w:]+::)?(?:Box|Arc|Rc)\s*<(.*)>\s*$)", re.S)
RUST_NODES = frozenset({"parameter", "let_declaration", "field_declaration"})
_UNWRAPS = frozenset({"unwrap", "expect", "unwrap_or_default"})


def rust_type(text: str) -> str:
    """The type a Rust declaration names, through references, ``Box``/``Arc``/``Rc`` and ``dyn``/``impl``, the
    last segment of a path (``&'a mut crate::store::Store`` gives Store, ``Box<dyn Handler>`` Handler,
    ``Vec<Store>`` Vec, ``Self`` Self), or "" for a tuple, slice, array or function type."""
    t = text
    while (m := _RUST_THROUGH.match(t)) is not None:
        t = m.group(1) if m.group(1) is not None else t[m.end():]
    while (plain := re.sub(r"<[^<>]*>", "", t)) != t:
        t = plain
    return declared_type(t.strip().rsplit("::", 1)[-1])


def rust_unwrapped(text: str) -> str:
    """The type ``?``, ``.unwrap()`` or ``.expect()`` takes out of a Rust ``Result<T, E>`` or ``Option<T>``
    (``io::Result<T>`` too): T; any other type is itself."""
    m = re.fullmatch(r"\s*(?:[\w:]+::)?(?:Result|Option)\s*<(.*)>\s*", text, re.S)
    return _type_arguments(m.group(1))[0] if m is not None else text


def rust_types(node) -> list[tuple[str, str]]:
    """(variable, type) a Rust parameter, ``let`` or struct field binds: the type written (``store: &Store``,
    ``let s: Store``; a type parameter's trait bound, ``w: W`` where ``W: Write``), else what the value is
    (``Store { .. }``; ``Store::open(p)?``, ``repo.get().await``, ``make().unwrap()``: the function, marked
    RETURNED and, where unwrapped or awaited, AWAITED)."""
    if node.type not in RUST_NODES:
        return []
    name = node.child_by_field_name("pattern") or node.child_by_field_name("name")
    if name is not None and name.type == "mut_pattern" and name.named_children:
        name = name.named_children[-1]
    if name is None or name.type not in ("identifier", "field_identifier"):
        return []
    typ = node.child_by_field_name("type")
    if typ is not None:
        found = rust_type(node_text(typ))
        if found and (bound := _rust_bound(node, found)) is not None:
            found = bound  # a type parameter is what its trait bound says, if anything
        return [(node_text(name), found)] if found else []
    value, mark = node.child_by_field_name("value"), ""
    while value is not None and (inner := rust_taken_from(value)) is not None:
        value, mark = inner, AWAITED  # what the Result, Option or future holds
    if value is None:
        return []
    if value.type == "struct_expression":
        found = rust_type(node_text(value.child_by_field_name("name")))
    elif value.type == "call_expression":
        function = node_text(value.child_by_field_name("function"))
        found = mark + function + RETURNED if DOTTED.fullmatch(function) and len(function) <= 200 else ""
    else:
        found = ""
    return [(node_text(name), found)] if found else []


_RUST_GENERIC_OWNERS = frozenset({"function_item", "function_signature_item", "impl_item", "trait_item",
                                  "struct_item", "enum_item", "union_item"})
#: bounds that say nothing about the methods a call means (`T: Clone + Handler` is a Handler)
_RUST_MARKERS = frozenset({"Send", "Sync", "Sized", "Unpin", "Copy", "Clone", "Debug", "Default", "Eq", "PartialEq",
                           "Hash", "Ord", "PartialOrd"})


def _rust_bound(node, parameter: str) -> str | None:
    """The trait the type parameter ``parameter`` is bound by where ``node`` stands (``<W: io::Write>`` or
    ``where W: io::Write`` on its function, then on its impl, trait or type, gives Write): the first bound
    that is no marker like Send or Clone, else the first; "" when unbound, None when ``parameter`` is no
    type parameter there."""
    owner = node.parent
    while owner is not None:
        if owner.type in _RUST_GENERIC_OWNERS and (bounds := _rust_bounds_of(owner, parameter)) is not None:
            bounds = [b for b in bounds if b]
            return next((b for b in bounds if b not in _RUST_MARKERS), bounds[0] if bounds else "")
        owner = owner.parent
    return None


def _rust_bounds_of(owner, parameter: str) -> list[str] | None:
    """The traits ``owner``'s type parameters and ``where`` clause bind ``parameter`` by, in order, or None
    when ``owner`` declares no type parameter of that name."""
    generics = owner.child_by_field_name("type_parameters")
    declared = [item for item in (generics.named_children if generics is not None else [])
                if node_text(item.child_by_field_name("name")) == parameter]
    if not declared:
        return None
    predicates = [p for c in owner.children if c.type == "where_clause" for p in c.named_children
                  if node_text(p.child_by_field_name("left")) == parameter]
    return [rust_type(node_text(b)) for item in declared + predicates
            if (bounds := item.child_by_field_name("bounds")) is not None for b in bounds.named_children]


def rust_taken_from(value):
    """The expression Rust's ``?``, ``.await`` or ``.unwrap()`` takes a value out of (``open(p)?`` gives
    ``open(p)``), or None."""
    if value.type in ("try_expression", "await_expression"):
        return value.named_children[0] if value.named_children else None
    function = value.child_by_field_name("function") if value.type == "call_expression" else None
    if function is not None and function.type == "field_expression" and \
            node_text(function.child_by_field_name("field")) in _UNWRAPS:
        return function.child_by_field_name("value")
    return None


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
        return [(node_text(name), typ) for name, value in zip(left.named_children, right.named_children)
                if name.type == "identifier" and (typ := _go_value_type(value))]
    if node.type == "variable_declarator":  # Java, C#: `Foo a = ..., b;`, the type on the declaration
        name = node.child_by_field_name("name")
        names = [node_text(name)] if name is not None and name.type == "identifier" else []
        typ = declared_type(node_text(node.parent.child_by_field_name("type")))
        value = node.child_by_field_name("value") or (node.named_children[-1] if len(node.named_children) > 1
                                                       else None)  # C#'s value has no field name
        mark = AWAITED if value is not None and value.type in _AWAITS and value.named_children else ""
        value = value.named_children[0] if mark else value
        if not typ and value is not None and value.type == "object_creation_expression":
            typ = class_name(declared_type(node_text(value.child_by_field_name("type"))))
        elif not typ and value is not None and value.type in _INVOCATIONS:  # `var s = open()`: what open returns
            function = node_text(value.child_by_field_name("function")) or ".".join(
                node_text(part) for part in (value.child_by_field_name("object"), value.child_by_field_name("name"))
                if part is not None)
            typ = mark + function + RETURNED if DOTTED.fullmatch(function) and len(function) <= 200 else ""
    elif node.type == "catch_formal_parameter":  # Java: `catch (IOException e)`; `A | B e` names no one type
        names = [node_text(node.child_by_field_name("name"))]
        typ = declared_type(node_text(next((c for c in node.named_children if c.type == "catch_type"), None)))
    elif node.type == "foreach_statement":  # C#: `foreach (Store s in all)`
        left = node.child_by_field_name("left")
        names = [node_text(left)] if left is not None and left.type == "identifier" else []
        typ = declared_type(node_text(node.child_by_field_name("type")))
    elif node.child_by_field_name("type") is not None or node.type == "var_spec":  # parameters, vars, fields
        names = [node_text(c) for i, c in enumerate(node.children)
                 if node.field_name_for_child(i) == "name" and c.type in ("identifier", "field_identifier")]
        typ = declared_type(node_text(node.child_by_field_name("type")))
        values = node.child_by_field_name("value")
        if not typ and values is not None and values.named_children:  # Go: `var reg = NewRegistry()`
            names, typ = names[:1], _go_value_type(values.named_children[0])
    elif node.type in ("parameter", "property_declaration") and node.child_by_field_name("name") is not None:
        return _swift_declared(node)
    elif node.type in ("parameter", "class_parameter", "property_declaration"):  # Kotlin: no field names
        decl = next((c for c in node.named_children if c.type == "variable_declaration"), node)
        names = [node_text(c) for c in decl.named_children if c.type == "simple_identifier"][:1]
        typ = next((declared_type(node_text(c)) for c in decl.named_children if c.type in _KOTLIN_TYPES), "")
        value = next((c for c in node.named_children if c.type == "call_expression"), None)
        if not typ and node.type == "property_declaration" and value is not None and value.named_children:
            function = node_text(value.named_children[0])  # `val f = Foo()`, or `val m = hashMapOf()`: its result
            typ = class_name(function) or (function + RETURNED if DOTTED.fullmatch(function) else "")
    return [(n, typ) for n in names if typ] if names else []


def _swift_declared(node) -> list[tuple[str, str]]:
    """(variable, type) a Swift parameter or property binds: ``x: Store``, ``let s: Store? = nil``, else the
    class it is given a new instance of (``let c = Cache<Int>()``) or the function whose result it holds."""
    named = node.child_by_field_name("name")
    ident = named if named.type == "simple_identifier" else next(
        (c for c in named.named_children if c.type == "simple_identifier"), None)
    if ident is None:  # a tuple pattern, `let (a, b) = ...`
        return []
    holder = next((c for c in node.named_children if c.type == "type_annotation"), node)
    written = [c for i, c in enumerate(holder.children)
               if holder.field_name_for_child(i) == "name" and c.type in _SWIFT_TYPES]
    typ = declared_type(node_text(written[0])) if written else ""
    value = node.child_by_field_name("value")
    if not typ and value is not None and value.type == "constructor_expression":
        typ = class_name(declared_type(node_text(value.child_by_field_name("constructed_type"))))
    elif not typ and value is not None and value.type == "call_expression" and value.named_children:
        function = node_text(value.named_children[0])  # `let d = Store()`, or what `make()` returns
        typ = class_name(function) or (function + RETURNED if DOTTED.fullmatch(function) else "")
    return [(node_text(ident), typ)] if typ else []


_SWIFT_TYPES = ("user_type", "optional_type")
#: the result type of a Kotlin function's signature: `fun make(id: Int): Store?`
_KOTLIN_RESULT = re.compile(r"\)\s*:\s*([^=]+?)\s*(?:=.*)?$")


_DART_WORDS = frozenset({"factory", "external", "abstract"})


def result_type(signature: str, path: str, name: str = "") -> str:
    """The (first) result type of a Go, Kotlin or Java function's signature: ``func NewServer(o Options)
    (*Server, error)``, ``func (f *Factory) Make() *Server``, ``func Open() (s *Server, err error)`` give
    ``*Server``; Kotlin's ``fun make(id: Int): Server?`` gives ``Server?`` (TypeScript's ``make(id: number):
    Server`` ``Server``); Java's ``public static @Nullable Server make(int id)`` (``name``: make) gives
    ``Server``, C#'s ``async Task<User> Get()`` ``Task<User>``, Dart's ``Future<User> load()`` ``Future<User>``
    (a getter's ``double get price`` ``double``, a named constructor's ``factory Cart.of(...)`` ``Cart``)."""
    if path.endswith(".rs"):  # `fn open(p: &Path) -> io::Result<Self> where ...`
        angle = depth = 0  # the parameters are the first (...) outside <...>: `fn f<F: Fn(u8) -> u8>(f: F)`
        for i, ch in enumerate(signature):
            angle += {"<": 1, ">": -1}.get(ch, 0) if not depth and signature[i - 1:i + 1] != "->" else 0
            depth += {"(": 1, ")": -1}.get(ch, 0) if not angle else 0
            if ch == ")" and not depth and not angle:
                rest = signature[i + 1:].strip()
                return re.split(r"\swhere\s", rest[2:], maxsplit=1)[0].strip() if rest.startswith("->") else ""
        return ""
    if path.endswith((".java", ".cs", ".dart")):
        at = re.search(rf"(?<![\w$]){re.escape(name)}\s*\(", signature) or \
            re.search(rf"\bget\s+{re.escape(name)}\b", signature)  # Dart's getter: `double get price`
        words, depth = [""], 0
        for ch in signature[:at.start()] if at else "":  # words outside <...>: `<T extends Foo> List<T>`
            depth += {"<": 1, ">": -1}.get(ch, 0)
            words += [""] if ch.isspace() and depth == 0 else []
            words[-1] += "" if ch.isspace() and depth == 0 else ch
        # Dart's named constructor `factory Cart.of(...)` makes a Cart
        return next((w.rstrip(".") for w in reversed(words) if w and w not in _DART_WORDS), "")
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
        return declared_type(node_text(value.child_by_field_name("type")))
    function = node_text(value.child_by_field_name("function")) if value.type == "call_expression" else ""
    return function + RETURNED if DOTTED.fullmatch(function) and len(function) <= 200 else ""


def held_through(typed: str, held_by) -> str:
    """A function's result marked RETURNED as a step from the class its receiver holds (``repo.get()``, where
    ``held_by("repo")`` gives Repo, gives ``Repo@=get()``; ``await repo.get()`` ``Repo@=await get()``), so that
    the resolver reads Repo's ``get`` rather than a ``get`` named like ``repo``; else ``typed`` itself. Only
    through a class named outright: a chain through what some call returns stops where that call is unknown,
    while the receiver's name may still find ``get``."""
    mark = next((m for m in (AWAITED, ENTERED) if typed.startswith(m)), "")
    receiver, _, name = typed.removeprefix(mark).removesuffix(RETURNED).rpartition(".")
    cls = held_by(receiver) if receiver and typed.endswith(RETURNED) and HOLDS not in typed else ""
    return cls + HOLDS + ASSIGNED + mark + name + RETURNED if cls and not cls.endswith(RETURNED) and \
        HOLDS not in cls else typed


def _made_by(callee_node, prefix: str = "") -> str:
    """What a call's value holds as Ref.typed: the class it constructs (``Store()``), else the function whose
    annotation will say (``open_store()``, marked RETURNED, after ``prefix``), else ""."""
    text = unmark(node_text(callee_node))  # `this.#client.open()`
    return class_name(text) or (prefix + text + RETURNED if _FUNCTION_NAME.fullmatch(text) else "")
