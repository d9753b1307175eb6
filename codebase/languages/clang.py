"""What C and C++ hide from a tree-sitter parse: macros, typedef names and functions behind export macros.

A C project names much of its API with the preprocessor: ``#define setobj(L,o1,o2) ...`` is called like a
function, ``typedef struct { ... } Point;`` is the only name a struct has, and ``LUA_API lua_Integer
luaL_len (...)`` puts a macro before the return type, which tree-sitter (that does not expand macros) parses
as an error with the return type as the function's name.
"""

from __future__ import annotations

import re

from ..typed import node_text
from . import LangSpec
from .base import Language, register
from .swift import property_name

#: C's module-level names that are no definition with a body: macros (object-like too) and typedefs
C_BINDINGS = {"preproc_def": "macro", "preproc_function_def": "macro", "type_definition": "typedef"}
#: node types of a C or C++ struct, union, enum or class (its definition when it has a body)
SPECIFIERS = frozenset({"struct_specifier", "union_specifier", "enum_specifier", "class_specifier"})
#: words before a ``(`` in a macro body that are no call
_NOT_CALLS = frozenset({"if", "while", "for", "switch", "return", "sizeof", "defined", "do", "else", "case",
                        "typeof", "__typeof__", "alignof", "_Alignof", "offsetof", "__attribute__", "__declspec",
                        "void", "char", "short", "int", "long", "float", "double", "signed", "unsigned", "const",
                        "volatile", "struct", "union", "enum", "static_cast", "reinterpret_cast", "const_cast",
                        "dynamic_cast", "decltype", "noexcept", "__extension__", "__builtin_expect"})
_CALL_IN_MACRO = re.compile(r"(?<![\w.>#])([A-Za-z_]\w*)\s*\(")
_DECLARATORS = ("declarator", "pointer_declarator", "parenthesized_declarator", "attributed_declarator",
                "reference_declarator", "array_declarator", "function_declarator")
#: a ``#define`` with its continuation lines
_MACRO = re.compile(rb"^[ \t]*#[ \t]*define\b(?:[^\n]*\\\r?\n)*[^\n]*", re.M)
_BLOCK_COMMENT = re.compile(rb"/\*.*?\*/", re.S)
#: a line that is only an ALL_CAPS name with an underscore, a macro: one opening or closing a scope
#: (``FMT_BEGIN_NAMESPACE``, ``G_BEGIN_DECLS``), ``Q_OBJECT``, ``FMT_CLASS_API`` on the line before a class
_LONE_MACRO = re.compile(rb"^[ \t]*_*[A-Z][A-Z0-9]*_[A-Z0-9_]*[ \t]*(?://[^\n]*)?$", re.M)
#: an export macro between ``class`` (or ``struct``) and the name of a type it defines: ``class FMT_API
#: format_error : public std::runtime_error {``, ``class Q_CORE_EXPORT QObject``
_CLASS_MACRO = re.compile(rb"(\b(?:class|struct)[ \t]+)(_*[A-Z][A-Z0-9]*_[A-Z0-9_]*)(?=[ \t]+\w+[ \t]*"
                          rb"(?:final[ \t]*)?[:{])")
#: macros in a declaration's specifiers, before the type or name (``LUA_API int f``, ``static FMT_INLINE auto
#: g``, ``FMT_CONSTEXPR basic_string_view(...)``): ALL_CAPS with an underscore and followed by a word, so a type
#: such as ``FILE *f`` or ``HRESULT`` stays (universal-ctags' ``-I`` takes such a list from its user)
_SPECIFIER_MACROS = re.compile(rb"^([ \t]*(?:(?:static|inline|extern|friend|virtual|explicit|constexpr)[ \t]+)*)"
                               rb"((?:_*[A-Z][A-Z0-9]*_[A-Z0-9_]*[ \t]+)+)(?=[A-Za-z_])", re.M)


def _blank(text: bytes) -> bytes:
    return re.sub(rb"[^\n]", b" ", text)


def for_parser(data: bytes) -> bytes:
    """C or C++ source as tree-sitter, which does not expand macros, can parse it, every byte where it was.

    Each ``/* comment */`` inside a ``#define`` is blanked: the grammar ends a macro's body at a comment in it
    and parses the rest as code, so a commented multi-line macro (``luaV_fastget`` in Lua's lvm.h) was an
    error, not a definition. A comment that ends the macro stays, since the grammar reads it well and a
    ``#define X`` followed by blanks takes the next line for its body. A line that is only a macro
    (``FMT_END_DETAIL_NAMESPACE``, which expands to ``}``) is blanked too: read as the type of a declaration,
    it swallowed the class after it (fmt's ``basic_string_view`` had no methods, only functions). So are an
    export macro after ``class`` (``class FMT_API format_error``, a method ``std.runtime_error`` before) and
    macros among a declaration's specifiers (``_SPECIFIER_MACROS``): tree-sitter takes ``LUA_API`` for the
    type and the return type for the name, or fails on a constructor (``FMT_CONSTEXPR basic_string_view(...)``
    swallowed the next method)."""
    def in_macro(macro: re.Match) -> bytes:
        text = macro.group()
        return _BLOCK_COMMENT.sub(lambda c: _blank(c.group()) if text[c.end():].strip() else c.group(), text)
    data = _LONE_MACRO.sub(lambda m: _blank(m.group()), _MACRO.sub(in_macro, data))
    data = _CLASS_MACRO.sub(lambda m: m.group(1) + _blank(m.group(2)), data)
    return _SPECIFIER_MACROS.sub(lambda m: m.group(1) + _blank(m.group(2)), data)


def function_name(node):
    """The node naming a C or C++ function definition when a macro ``for_parser`` leaves (not ALL_CAPS) before
    its return type made tree-sitter misparse it (``lua_export lua_CFunction f (lua_State *L)`` names
    ``lua_CFunction``, with ``f`` in an error node), else None: the regular parse names it."""
    d = node.child_by_field_name("declarator")
    while d is not None and d.type != "function_declarator":
        d = d.child_by_field_name("declarator") or next((c for c in d.named_children if c.type in _DECLARATORS),
                                                        None)
    errors = [c for c in d.named_children if c.type == "ERROR"] if d is not None else []
    names = [c for c in errors[-1].named_children if c.type == "identifier"] if errors else []
    return names[-1] if names else None


def typedef_name(node):
    """The node naming the type a ``type_definition`` declares (``typedef int (*lua_CFunction) (lua_State *L)``
    declares ``lua_CFunction``), else None."""
    d = node.child_by_field_name("declarator")
    while d is not None and d.type != "type_identifier":
        d = d.child_by_field_name("declarator") or next(
            (c for c in d.named_children if c.type in _DECLARATORS or c.type == "type_identifier"), None)
    return d


def pure_virtual_name(node):
    """The name of the method a C++ ``virtual double area() const = 0;`` declares, else None: a pure virtual
    method has no body anywhere, so its declaration is the symbol (what `callers` and `callees` reach through);
    another declaration's definition is elsewhere (``double Shape::area() const {...}``) and is the symbol."""
    value, decl = node.child_by_field_name("default_value"), node.child_by_field_name("declarator")
    if value is None or value.text != b"0" or decl is None or decl.type != "function_declarator":
        return None
    name = decl.child_by_field_name("declarator")
    return name if name is not None and name.type == "field_identifier" else None


def binding_name(node):
    """The node naming what a ``#define`` or a typedef binds, else None: an include guard (``#ifndef lapi_h``
    ``#define lapi_h``) binds nothing worth a symbol, and ``typedef struct Table {...} Table`` or ``typedef
    struct {...} Point`` define a struct, which is the symbol."""
    if node.type != "type_definition":
        name, guard = node.child_by_field_name("name"), node.parent
        if name is not None and node.child_by_field_name("value") is None and guard is not None and \
                guard.type == "preproc_ifdef" and getattr(guard.child_by_field_name("name"), "text", b"") == name.text:
            return None
        return name
    body_type, name = node.child_by_field_name("type"), typedef_name(node)
    if body_type is None or body_type.type not in SPECIFIERS or body_type.child_by_field_name("body") is None:
        return name
    own = body_type.child_by_field_name("name")
    return name if own is not None and name is not None and own.text != name.text else None


def anonymous_type_name(node):
    """The typedef name of an anonymous struct, union or enum (``typedef struct { ... } Point``), else None."""
    parent = node.parent
    if node.child_by_field_name("name") is not None or parent is None or parent.type != "type_definition":
        return None
    return typedef_name(parent)


def macro_calls(node) -> list[tuple[str, int]]:
    """The names a macro's body calls, each with its line (1-based): ``#define luaM_new(L,t)
    cast(t*, luaM_malloc_(L, sizeof(t), 0))`` calls ``cast`` and ``luaM_malloc_``. Its own parameters are
    left out (``#define apply(f, x) f(x)``)."""
    value = node.child_by_field_name("value")
    if value is None:
        return []
    params = node.child_by_field_name("parameters")
    own = {p.text.decode("utf-8", errors="replace") for p in params.named_children} if params is not None else set()
    text = value.text.decode("utf-8", errors="replace")
    text = re.sub(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'', '""', text)  # string literals call nothing
    first = value.start_point[0] + 1
    seen: set[str] = set()
    calls = []
    for m in _CALL_IN_MACRO.finditer(text):
        name = m.group(1)
        if name not in _NOT_CALLS and name not in own and name not in seen:
            seen.add(name)
            calls.append((name, first + text.count("\n", 0, m.start())))
    return calls


C_SPEC = LangSpec(
    {"function_definition": "function", "struct_specifier": "struct", "union_specifier": "struct",
     "enum_specifier": "enum"},
    frozenset(), {"call_expression": "function"}, frozenset({"preproc_include"}), {}, {}, C_BINDINGS)
CPP_SPEC = LangSpec(
    {"function_definition": "function", "class_specifier": "class", "struct_specifier": "struct",
     "union_specifier": "struct", "enum_specifier": "enum", "namespace_definition": "namespace"},
    frozenset({"class_specifier", "struct_specifier", "namespace_definition"}),
    {"call_expression": "function", "new_expression": "type"}, frozenset({"preproc_include"}),
    {"base_class_clause": "extends"}, {}, {**C_BINDINGS, "alias_declaration": "typedef"},
    {"field_declaration": "method"})  # pure virtual methods only (pure_virtual_name), not fields
OBJC_SPEC = LangSpec(
    # an @implementation (and a category's @interface) is kind impl: its methods are the class's
    {"class_interface": "class", "class_implementation": "impl", "protocol_declaration": "interface",
     "method_definition": "method", "function_definition": "function"},
    frozenset({"class_interface", "class_implementation", "protocol_declaration"}),
    {"message_expression": "method", "call_expression": "function"}, frozenset({"preproc_include"}),
    {"parameterized_arguments": "implements", "protocol_reference_list": "implements"},
    {"class": "@interface", "impl": "@implementation", "interface": "@protocol"}, C_BINDINGS,
    {"method_declaration": "method", "property_declaration": "attribute"})


class C(Language):
    def for_parser(self, data: bytes) -> bytes:
        return for_parser(data)

    def defines(self, node) -> bool:
        return node.type not in SPECIFIERS or node.child_by_field_name("body") is not None  # else a use of it

    def name_node(self, node, kind: str):
        return (node.type == "function_definition" and function_name(node)) or \
            (node.type in SPECIFIERS and anonymous_type_name(node)) or None

    def macro_calls(self, node) -> list[tuple[str, int]]:
        return macro_calls(node)

    def binding_name(self, node, kind: str):
        if node.type in C_BINDINGS:
            return binding_name(node), kind
        if node.type == "field_declaration" and kind == "method":  # C++'s `virtual void f() = 0;`
            return pure_virtual_name(node), kind
        return None


class Cpp(C):
    def qualified(self, name: str, kind: str, parent, out):
        if "::" not in name or kind != "function":
            return None
        # int A::run() {...}, outside class A
        qualifier = [q for q in re.sub(r"<[^<>]*>", "", name).split("::")[:-1] if q]
        prefix = ".".join([p for p in [parent.member_prefix or parent.qualname] if p] + qualifier)
        if qualifier and not any(s.kind == "namespace" and s.name == qualifier[-1] for s in out.symbols):
            kind = "method"
        return prefix, kind


class ObjC(C):
    def refined_kind(self, node, kind: str) -> str:
        if node.type == "class_interface" and node.child_by_field_name("category"):
            return "impl"  # `@interface Store (Disk)`, a category: methods it adds to Store
        return kind

    def heritage(self, node, spec) -> list[tuple[str, str]]:
        superclass = node.child_by_field_name("superclass")
        return ([("extends", node_text(superclass))] if superclass is not None else []) + super().heritage(node, spec)

    def property_name(self, node):
        return property_name(node)


register(C(), "c", spec=C_SPEC)
register(Cpp(), "cpp", spec=CPP_SPEC)
register(ObjC(), "objc", spec=OBJC_SPEC)
