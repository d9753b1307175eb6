"""The bindings a parse makes symbols of: a module's variables and constants, a class body's attributes and
fields, and JavaScript's functions assigned to a name or a member (``res.cookie = function``)."""

from __future__ import annotations

import re

from .chunks import ParsedFile, Symbol, last_row
from .languages import LangSpec
from .languages.base import Language
from .refs import is_required, last_ident

#: kinds of scope whose bindings are members (attributes), not module variables
MEMBER_OF = frozenset({"class", "interface", "struct", "enum", "trait", "impl", "object", "record"})
JS_FUNCTIONS = ("arrow_function", "function_expression", "function", "generator_function")
_FUNCTION_VALUES = frozenset({*JS_FUNCTIONS, "function_definition"})  # and `local f = function() end`
_MODULE_SCOPES = frozenset({"module", "namespace"})
#: expressions that leave the function they wrap what it is: `function computed() {...} as any`, `(() => 1)`
_WRAPPERS = frozenset({"as_expression", "satisfies_expression", "parenthesized_expression", "non_null_expression"})
_DECLARATIONS = frozenset({"lexical_declaration", "variable_declaration", "const_declaration", "var_declaration"})


_LOOPS = frozenset({"for_statement", "for_in_statement", "while_statement", "do_statement", "repeat_statement"})


def function_value(value):
    """The function a declared value is: itself, one in a cast or parentheses (mobx's `export const computed:
    IComputedFactory = function computed(...) {...} as any`), or the first argument of ``Object.assign`` (a
    function given properties: `export const flow = Object.assign(function flow(...) {...}, annotation)`);
    None when it is no function."""
    value = _unwrapped(value)
    if value is not None and value.type == "call_expression":
        callee, args = value.child_by_field_name("function"), value.child_by_field_name("arguments")
        if callee is None or callee.text != b"Object.assign" or args is None or not args.named_children:
            return None
        value = _unwrapped(args.named_children[0])  # `Object.assign(function flow() {...} as any, ...)`
    return value if value is not None and value.type in JS_FUNCTIONS else None


def _unwrapped(value):
    while value is not None and value.type in _WRAPPERS:
        value = value.named_children[0] if value.named_children else None
    return value


def in_loop(node) -> bool:
    """Inside a loop: a module-level loop's variables (``for (let i ...)``, ``total = n`` in its body) are
    scratch, not definitions, while an ``if`` or ``try`` at module level does define its bindings."""
    node = node.parent
    while node is not None and node.type not in _LOOPS:
        node = node.parent
    return node is not None


#: function values a binding inside is a local of, not a definition of the class or module around them
_LAMBDAS = frozenset({"lambda_expression", "lambda_literal", "anonymous_function", "arrow_function",
                      "function_expression"})
_SCOPE_BODIES = frozenset({"class_body", "enum_class_body", "interface_body", "enum_body", "source_file", "program"})


def in_lambda(node) -> bool:
    """Inside a function value (a Java or JavaScript lambda, a Kotlin `run { val x = 1 }`) that lies in a
    class body or at module level: its variables are the lambda's."""
    node = node.parent
    while node is not None and node.type not in _SCOPE_BODIES:
        if node.type in _LAMBDAS:
            return True
        node = node.parent
    return False


def binding_kind(node, spec: LangSpec, scope_kind: str) -> str | None:
    """The symbol kind of a binding made by ``node`` in a scope of this kind: a module-level one (a variable,
    a constant) or one in a class body (an attribute), else None."""
    if scope_kind in _MODULE_SCOPES:
        return spec.variables.get(node.type)
    if node.type == "method_signature" and scope_kind != "interface":
        return None  # TypeScript's overload signatures in a class: the method is the definition after them
    return spec.attributes.get(node.type) if scope_kind in MEMBER_OF else None


_BINDING_NAMES = frozenset({"identifier", "property_identifier", "private_property_identifier", "type_identifier",
                            "simple_identifier", "field_identifier", "IDENTIFIER"})
#: a property, a constructor's property parameter, an enum entry: their name is an identifier inside
_PROPERTIES = frozenset({"property_declaration", "class_parameter", "enum_entry"})
_JAVA_FIELDS = frozenset({"field_declaration", "constant_declaration"})


def make_variable(node, kind: str, out: ParsedFile, scope: int, lang: Language) -> str:
    """Record a binding of one name in a module (``gettext_lazy = lazy(gettext, str)``, ``const API_URL``, Go's
    ``var ErrNotFound``, Rust's ``const MAX``) or a class body (``objects = UserManager()``, a dataclass field, an
    enum member, a JavaScript class field) as a symbol, unless the name is ``_`` or already bound (the first
    binding is the definition), and C's macros and typedefs. Returns its qualified name, or "" when the node
    binds no name this way: a pattern, a ``require()`` (an import), a function value (a definition of its own),
    a typedef of the struct it defines."""
    read = lang.binding_name(node, kind)
    if read is not None:  # the language's own reading: C's macros and typedefs, Scala's vals, Dart's fields
        name_node, kind = read
    elif node.type in _PROPERTIES:  # no field names; a constructor parameter is a property with val/var
        decl = next((c for c in node.named_children if c.type == "variable_declaration"), node)
        name_node = next((c for c in decl.named_children if c.type == "simple_identifier"), None)
        if node.type == "class_parameter" and not any(c.type == "binding_pattern_kind" for c in node.children):
            return ""
        name_node = name_node or lang.property_name(node)
    else:
        name_node = node.child_by_field_name("left") or node.child_by_field_name("name") or \
            node.child_by_field_name("property")
        if name_node is None and node.type == "method_declaration":  # Objective-C's `- (void)save:(id)x;`
            name_node = next((c for c in node.named_children if c.type == "identifier"), None)
    if name_node is None or name_node.type not in _BINDING_NAMES and not lang.any_binding_name:
        return ""
    value, kind = lang.binding_value(node, name_node.text.decode("utf-8", errors="replace"),
                                     node.child_by_field_name("right") or node.child_by_field_name("value"), kind)
    if not kind or value is not None and (value.type in _FUNCTION_VALUES or function_value(value) is not None
                                          or is_required(value)):
        return ""  # the module's own table, a function (a definition of its own), an import
    name = name_node.text.decode("utf-8", errors="replace")
    parent = out.symbols[scope]
    prefix = parent.member_prefix or parent.qualname
    qual = f"local.{name}" if node.type == "attribute" else f"{prefix}.{name}" if prefix else name
    if name == "_" or qual in out.qualnames:  # the first binding of a name is its definition
        return qual
    # Java's `private final Store mStore = ...;` says more than its declarator `mStore = ...`
    shown = node.parent if node.type == "variable_declarator" and node.parent.type in _JAVA_FIELDS else node
    text = shown.text.decode("utf-8", errors="replace").split("\n", 1)[0].rstrip("\\")
    decl = node.parent
    while decl is not None and decl.type.endswith("_list"):  # Go's `var (...)` groups
        decl = decl.parent
    if decl is not None and decl.type in _DECLARATIONS:  # `const API_URL = ...`, not `API_URL = ...`
        text = f"{decl.text.split(maxsplit=1)[0].decode('utf-8', errors='replace')} {text}"
    else:
        text = lang.binding_text(node, text)
    out.symbols.append(Symbol(name, qual, kind, re.sub(r"\s+", " ", text).strip()[:200], node.start_point[0] + 1,
                              last_row(node) + 1, parent.qualname))
    out.qualnames.add(qual)
    return qual


def assigned_function(node) -> tuple[str, str] | None:
    """(name, owner) of a function assigned in JavaScript's pre-class style, else None.

    ``res.cookie = function (...)`` defines res.cookie, ``Foo.prototype.bar = ...`` Foo.bar, and
    ``exports.baz = ...`` or ``module.exports = function createApp`` a plain function."""
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None or right is None or right.type not in JS_FUNCTIONS:
        return None
    if left.type == "identifier":
        return left.text.decode("utf-8", errors="replace"), ""
    prop = left.child_by_field_name("property") if left.type == "member_expression" else None
    obj = left.child_by_field_name("object") if prop is not None else None
    if obj is None:
        return None
    name, target = prop.text.decode("utf-8", errors="replace"), obj.text.decode("utf-8", errors="replace")
    if target == "module" and name == "exports":
        own = right.child_by_field_name("name")
        return (own.text.decode("utf-8", errors="replace"), "") if own is not None else None
    target = re.sub(r"\.prototype$", "", target)
    if target in ("exports", "module.exports", "this"):
        return name, ""
    owner = last_ident(target)
    return (name, owner) if owner else None
