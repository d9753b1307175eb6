"""What GraphQL's grammar leaves to the reader: a schema's types, interfaces, enums, inputs, unions, scalars and
directives, and a document's operations and fragments, are definitions; a type's fields, an input's fields
and an enum's values its members (an ``extend type Query`` adds to Query); and a type a field, an argument,
a union or a variable names, a fragment spread and a directive used are uses of the project's own, one
namespace per schema (https://spec.graphql.org/October2021/#sec-Schema). What a field's type names is the
field's use, so ``callers Cart`` lists ``Query.cart``, not the whole Query type. A ``schema { query: QueryRoot
}`` names the root types; without one they are Query, Mutation and Subscription."""

from __future__ import annotations

import posixpath
import re

from ..refs import Ref
from ..typed import node_text
from . import LangSpec
from .base import Language, parser_for, register

#: node type -> symbol kind; a breadcrumb's word is a definition's first (``type``, ``union``, ``query``)
DEFINITIONS = {"object_type_definition": "class", "interface_type_definition": "interface",
               "enum_type_definition": "enum", "input_object_type_definition": "struct",
               "union_type_definition": "type", "scalar_type_definition": "type",
               "directive_definition": "function", "fragment_definition": "function",
               "operation_definition": "function", "object_type_extension": "impl",
               "interface_type_extension": "impl", "input_object_type_extension": "impl",
               "enum_type_extension": "impl", "schema_definition": "type"}
#: a type's field, an input's field, an enum's value: members (a field's arguments are not)
ATTRIBUTES = {"field_definition": "attribute", "input_value_definition": "attribute",
              "enum_value_definition": "attribute"}
#: a named type, a fragment spread, a directive: uses; a field selected: a use of the schema's field (``use``)
CALLS = {"named_type": "", "fragment_spread": "", "directive": "", "field": ""}
HERITAGE = {"implements_interfaces": "implements"}
KEYWORDS = {"impl": "extend"}
#: what no schema defines: the built-in scalars and directives
BUILTINS = frozenset({"String", "Int", "Float", "Boolean", "ID", "skip", "include", "deprecated", "specifiedBy",
                      "oneOf"})
#: the type an operation's first fields are selected on (https://spec.graphql.org/October2021/#sec-Root-Operation-Types)
#: when no schema definition names another
ROOTS = {"query": "Query", "mutation": "Mutation", "subscription": "Subscription"}
#: the name a schema definition is known by (it has none of its own)
SCHEMA = "schema"
_ESCAPE = re.compile(rb"\\.")
#: the bodies a definition's signature stops at
_BODIES = frozenset({"fields_definition", "enum_values_definition", "input_fields_definition", "selection_set"})


def for_parser(data: bytes) -> bytes:
    """A document as its grammar parses it: each escape in a string (``"a\\nb"``, ``\\"``), which tree-sitter-graphql
    cannot read (graphql-core prints a description of several lines with them), blanked to as many spaces."""
    return _ESCAPE.sub(b"  ", data)


def roots(root) -> dict[str, str]:
    """operation -> root type of the schema a file defines or extends (``schema { query: QueryRoot }``), from
    ROOTS when it defines none."""
    document = next((c for c in root.named_children if c.type == "document"), root)
    schemas = [schema for definition in document.named_children for system in definition.named_children
               for schema in system.named_children if schema.type in ("schema_definition", "schema_extension")]
    found = {} if any(s.type == "schema_definition" for s in schemas) else dict(ROOTS)
    for schema in schemas:  # an extension adds an operation's root (``extend schema { subscription: S }``)
        found.update(roots_of(node_text(schema)))
    return found


def roots_of(signature: str) -> dict[str, str]:
    """operation -> root type named in a schema definition's text (``schema { query: QueryRoot }``)."""
    return dict(re.findall(r"\b(query|mutation|subscription)\s*:\s*(\w+)", signature))


def kind_of(node, root_types=ROOTS) -> str | None:
    """The symbol kind of a definition node: a root type's field (``Mutation.addLine``) is an operation of
    the API, a method with a chunk of its own; any other field a member of its type's chunk (None).
    ``root_types``: the file's (``roots``)."""
    if node.type == "field_definition":
        owner = node.parent.parent if node.parent is not None else None
        return "method" if owner is not None and definition_name(owner) in root_types.values() else None
    return DEFINITIONS.get(node.type)


def _name(node):
    """The ``name`` node under ``node``: its own, or its enum value's or fragment name's."""
    for c in node.named_children:
        if c.type == "name":
            return c
        if c.type in ("enum_value", "fragment_name"):
            return _name(c)
    return None


def definition_name(node) -> str:
    """The name a definition gives (``Cart``, a fragment's ``CartParts``, an operation's ``GetCart``, a schema
    definition's ``schema``), else "" (an anonymous ``{ viewer { login } }``)."""
    if node.type == "schema_definition":
        return SCHEMA
    found = _name(node)
    return node_text(found) if found is not None else ""


def member_name(node):
    """The ``name`` node a field, an input field or an enum value binds, else None."""
    return _name(node)


def use(node) -> tuple[str, str]:
    """(name, "") of a type, fragment or directive used; (name, the path it is selected on) of a field
    selected (``owner`` on ``Query.cart`` in ``query { cart { owner } }``); ("", "") for a built-in one, an
    introspection field, and an interface a type implements (a base type, not a use)."""
    if node.parent is not None and node.parent.type == "implements_interfaces":
        return "", ""
    if node.type == "field":
        name, path = definition_name(node), _selected_on(node)
        return (name, path) if path and not name.startswith("__") else ("", "")
    found = _name(node.named_children[0] if node.type == "fragment_spread" and node.named_children else node)
    name = node_text(found) if found is not None else ""
    return ("", "") if name in BUILTINS else (name, "")


def _selected_on(node) -> str:
    """The path of fields a selection is made on, from the type it starts at: ``Query.cart`` for ``owner``
    in ``query { cart { owner } }``, ``Cart`` in ``fragment F on Cart { owner }`` or ``... on Cart {
    owner }``; "" outside an operation or fragment."""
    names = []
    up = node.parent
    while up is not None:
        if up.type == "field":
            names.append(definition_name(up))
        elif up.type in ("inline_fragment", "fragment_definition"):
            condition = next((c for c in up.named_children if c.type == "type_condition"), None)
            if condition is not None:  # `... @include(if: $x) { }` selects on the enclosing type
                return ".".join([node_text(condition).split()[-1], *reversed(names)])
        elif up.type == "operation_definition":
            kind = next((c for c in up.named_children if c.type == "operation_type"), None)
            return ".".join([ROOTS.get(node_text(kind), "Query") if kind is not None else "Query", *reversed(names)])
        up = up.parent
    return ""


def field_type(signature: str) -> str:
    """The type a field's signature names, without lists and non-null marks: ``Line`` for ``lines(first: Int
    = 10): [Line!]!``; "" when it names none."""
    rest = re.sub(r"^\s*\w+\s*", "", signature)
    depth = 0
    for at, ch in enumerate(rest):  # past the arguments, which have types of their own
        depth += (ch == "(") - (ch == ")")
        if ch == ":" and depth == 0:
            found = re.search(r"\w+", rest[at + 1:])
            return found.group() if found else ""
    return ""


def select(name: str, path: str, members, root_types=ROOTS) -> dict | None:
    """The field a selection names: ``owner`` on ``Query.cart`` is the ``owner`` field of the type Query's
    ``cart`` returns. ``members(type, name)``: the schema's fields of that name on that type; ``root_types``:
    the schema's (an operation's selections start at ``QueryRoot`` where it names that)."""
    typ, *steps = path.split(".")
    defaults = {v: k for k, v in ROOTS.items()}
    typ = root_types.get(defaults[typ], typ) if typ in defaults and typ not in root_types.values() else typ
    hit = None
    for step in [*steps, name]:
        found = members(typ, step)
        if not found:
            return None
        hit = found[0]
        typ = field_type(hit["signature"])
    return hit


def signature(node) -> str:
    """A definition without its descriptions and body: ``type Cart implements Node @key(fields: "id")``,
    ``union Owner = User | Team``, ``query GetCart($id: ID!)``, ``lines(first: Int = 10): [Line!]!`` (and
    without the descriptions of its arguments)."""
    parts = [c for c in node.children if c.type != "description"]
    if not parts:
        return ""
    end = next((c.start_byte for c in parts if c.type in _BODIES), node.end_byte)
    start, cut, stack = parts[0].start_byte, [], [c for c in parts if c.start_byte < end]
    while stack:
        n = stack.pop()
        if n.type == "description":
            cut.append((n.start_byte, n.end_byte))
        elif n.type not in _BODIES:
            stack.extend(n.children)
    data, kept, at = node.text, [], start
    for a, b in sorted(cut):
        kept.append(data[at - node.start_byte: a - node.start_byte])
        at = b
    kept.append(data[at - node.start_byte: end - node.start_byte])
    text = b" ".join(kept).decode("utf-8", errors="replace")
    return re.sub(r"\s+", " ", text).replace("( ", "(").replace(" )", ")").strip().rstrip(",")


#: what a GraphQL document in JavaScript or TypeScript is written in: graphql-tag's and Apollo's ``gql`...```,
#: Relay's ``graphql`...```, and codegen's and gql.tada's ``graphql(`...`)``; or a template string marked
#: ``#graphql`` at its start (Shopify Hydrogen's) or by a ``/* GraphQL */`` comment before it; in Python, the
#: gql client's ``gql("""...""")``
TAGS = frozenset({"gql", "graphql"})
#: the nodes such a document may be, in the languages it is read in (``Host``)
NODES = frozenset({"call_expression", "template_string", "call"})
#: what a document's text holds that is not GraphQL: ``${...}``, Python's quotes and an f-string's ``{...}``
_NOT_GRAPHQL = frozenset({"template_substitution", "string_start", "string_end", "interpolation"})
_NAMES = frozenset({"identifier", "property_identifier"})
#: a schema's or a document's files
FILES = (".graphql", ".graphqls", ".gql")
#: what a fragment spread is selected on: a fragment's name, never a type's
SPREAD = "..."


def _tagged(call):
    """The template string a ``gql`...``` or ``graphql(`...`)`` call is given (Python's string), else None."""
    function, text = call.child_by_field_name("function"), call.child_by_field_name("arguments")
    if function is not None and function.type in ("member_expression", "attribute"):  # `graphql_tag.gql`
        function = function.child_by_field_name("property") or function.child_by_field_name("attribute")
    # the name's node only: a function expression's text (a bundle's IIFE) may be the whole file
    if function is None or function.type not in _NAMES or node_text(function) not in TAGS or text is None:
        return None
    if text.type in ("arguments", "argument_list") and text.named_child_count == 1:
        text = text.named_children[0]
    return text if text.type in ("template_string", "string") else None


def embedded(node) -> tuple[bytes, int, list] | None:
    """The GraphQL document a JavaScript, TypeScript or Python node is (TAGS), what is no GraphQL in it blanked
    (lines kept), the row it starts on, and the names interpolated in it (``${CART_PARTS}``: a fragment another
    document holds) with their receivers and rows; else None."""
    if node.type in ("call_expression", "call"):
        text = _tagged(node)
    elif node.type != "template_string":
        return None
    else:
        up = node.parent.parent if node.parent is not None and node.parent.type == "arguments" else node.parent
        if up is not None and up.type == "call_expression" and _tagged(up) == node:
            return None  # read with its call
        before = node.prev_named_sibling
        marked = before is not None and before.type == "comment" and \
            re.fullmatch(rb"/\*\s*graphql\s*\*/", before.text, re.I) is not None
        text = node if marked or re.match(rb"`\s*#graphql\b", node.text) else None
    if text is None:
        return None
    data, interpolated = bytearray(text.text), []
    # Python's quotes too: a `"""` would open a GraphQL string
    for part in (p for p in text.named_children if p.type in _NOT_GRAPHQL):
        a, b = part.start_byte - text.start_byte, part.end_byte - text.start_byte
        data[a:b] = bytes(c if c == 0x0A else 0x20 for c in data[a:b])
        value = part.named_children[0] if part.named_child_count == 1 else None
        if value is not None and value.type in ("identifier", "member_expression"):  # `${fragments.Cart}`
            receiver, _, name = node_text(value).rpartition(".")
            interpolated.append((name, receiver, part.start_point[0]))
    data[0] = data[-1] = 0x20  # JavaScript's backticks
    return bytes(data), text.start_point[0], interpolated


def embedded_uses(node, parser, symbols, scope: str) -> list[tuple[str, str, str, str, int]]:
    """(user, kind, name, path it is selected on or receiver, 0-based row) of what a document in code
    (``embedded``) uses: "queries" of each type, fragment (path SPREAD), directive and field of the schema;
    "calls" of each name interpolated, the code's own (``${CART_PARTS}``, the document holding a fragment it
    spreads). The user is the variable the document is assigned to when it is a symbol (``GET_CART`` in
    ``const GET_CART = gql`...```), else ``scope``. ``parser(language)``: a tree-sitter parser."""
    document = embedded(node)
    if document is None:
        return []
    up = node.parent
    while up is not None and up.type in ("parenthesized_expression", "as_expression", "satisfies_expression"):
        up = up.parent
    user, bound = scope, {"variable_declarator": "name", "assignment": "left"}.get(up.type) if up else None
    if bound and (name := up.child_by_field_name(bound)) is not None:
        user = next((s.qualname for s in reversed(symbols) if s.name == node_text(name) and
                     s.start_line == up.start_point[0] + 1), scope)
    found = [(user, "calls", name, receiver, row) for name, receiver, row in document[2]]
    stack = [parser("graphql").parse(for_parser(document[0])).root_node]
    while stack:
        n = stack.pop()
        if n.type in CALLS and (used := use(n))[0]:
            spread = SPREAD if n.type == "fragment_spread" else used[1]
            found.append((user, "queries", used[0], spread, document[1] + n.start_point[0]))
        stack.extend(n.named_children)
    return found


# types, inputs, operations and fragments; what a field's type names is the field's use (codebase.graphql)
SPEC = LangSpec(DEFINITIONS, calls=CALLS, heritage=HERITAGE, keywords=KEYWORDS,
                    attributes=ATTRIBUTES)


class GraphQL(Language):
    definitions_bind = False  # a field is a definition's member or a binding, not both
    binding_is_scope = True  # what a field's type names is the field's use
    any_binding_name = True

    def for_parser(self, data: bytes) -> bytes:
        return for_parser(data)

    def begin(self, root):
        return roots(root)

    def definition_kind(self, node, walk) -> str | None:
        return kind_of(node, walk.state)

    def name_of(self, node) -> str:
        return definition_name(node)  # a fragment's, an operation's

    def callee(self, node, field_name: str) -> tuple[str, str]:
        return use(node)  # a type, fragment or directive named

    def signature(self, node) -> str:
        return signature(node)

    def crumb(self, symbol, parent, word: str, label: str) -> tuple[str, str]:
        from ..labels import signature_word

        return signature_word(symbol, word), label  # type, input, union, query

    def binding_name(self, node, kind: str):
        return member_name(node), kind  # a type's field, an input's field, an enum's value

    def binding_text(self, node, text: str) -> str:
        return signature(node)  # `lines(first: Int): [Line!]!`, without its description

    answers = frozenset({"queries"})  # what a document in code (gql`...`) uses of the project's schema

    def index(self, resolver, symbol: dict) -> None:
        if symbol["kind"] not in ("module", "attribute", "impl"):  # a name -> types, fragments, directives
            resolver.tables.setdefault("graphql", {}).setdefault(symbol["qualname"], []).append(symbol)

    def resolve(self, resolver, name, kind, from_path, imports, receiver, source, typed):
        return used(resolver, name, receiver, from_path) if kind in ("calls", "implements") else None

    def answer(self, resolver, kind: str, name: str, receiver: str, from_path: str) -> dict | None:
        return used(resolver, name, receiver, from_path)


def used(resolver, name: str, path: str, from_path: str) -> dict | None:
    """The GraphQL definition a document in ``from_path`` uses: a type, fragment or directive by name, a field
    selected by the ``path`` of fields it is selected on (``owner`` on ``Query.cart``: the field of what ``cart``
    returns)."""
    if not path or path == SPREAD:  # a spread in code: a fragment, not the type it may share a name with
        return _nearest(resolver, name, from_path, path == SPREAD)
    schema = _nearest(resolver, SCHEMA, from_path)
    return select(name, path, lambda owner, field: [
        s for s in resolver.members.get((owner, field), []) if s["path"].endswith(FILES)],
        roots_of(schema["signature"]) if schema else ROOTS)


def _nearest(resolver, name: str, from_path: str, fragment: bool = False) -> dict | None:
    """The GraphQL definition of a name nearest a file: its own, then its folder's, then any (one namespace per
    schema, and a project may hold several); ``fragment``: a fragment's only."""
    folder = posixpath.dirname(from_path)
    found = [s for s in resolver.tables.get("graphql", {}).get(name, [])
             if not fragment or s["signature"].startswith("fragment")]
    return min(found, key=lambda s: (s["path"] != from_path, posixpath.dirname(s["path"]) != folder), default=None)


class Host:
    """A language a GraphQL document is written in (``gql`...```, ``gql(...)``): what it uses of the
    schema."""

    def visit(self, node, walk, scope: int, in_func: bool) -> bool:
        if node.type not in NODES:
            return False
        used = embedded_uses(node, parser_for, walk.out.symbols, walk.qualname(scope))
        walk.out.refs.extend(Ref(user, kind, name, row + 1, path) for user, kind, name, path, row in used)
        return bool(used)


register(GraphQL(), "graphql", spec=SPEC)
