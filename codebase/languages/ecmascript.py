"""JavaScript and TypeScript: functions assigned to a name or a member (``res.cookie = function``) and held
by a declared variable or class field, CommonJS's ``require``, a file parsed again without the statements
that break it, and GraphQL documents in tagged templates."""

from __future__ import annotations

from ..bindings import assigned_function, function_value
from . import LangSpec
from .base import Language, register
from .graphql import Host

JAVASCRIPT = LangSpec(
    {"function_declaration": "function", "generator_function_declaration": "function",
     "class_declaration": "class", "method_definition": "method", "variable_declarator": "function",
     "assignment_expression": "function", "field_definition": "method"},
    frozenset({"class_declaration"}), {"call_expression": "function", "new_expression": "constructor"},
    frozenset({"import_statement"}), {"class_heritage": "extends"}, {}, {"variable_declarator": "variable"},
    {"field_definition": "attribute"})
TYPESCRIPT = LangSpec(
    {"function_declaration": "function", "generator_function_declaration": "function",
     "class_declaration": "class", "abstract_class_declaration": "class", "method_definition": "method",
     "interface_declaration": "interface", "type_alias_declaration": "type", "enum_declaration": "enum",
     "variable_declarator": "function", "assignment_expression": "function",
     "public_field_definition": "method", "module": "namespace", "internal_module": "namespace"},
    frozenset({"class_declaration", "abstract_class_declaration", "module", "internal_module"}),
    {"call_expression": "function", "new_expression": "constructor"},
    frozenset({"import_statement"}),
    {"extends_clause": "extends", "implements_clause": "implements", "extends_type_clause": "extends"}, {},
    {"variable_declarator": "variable"},
    # an interface's and an abstract class's members are symbols in its chunk, as a class's fields are
    {"public_field_definition": "attribute", "property_signature": "attribute", "method_signature": "method",
     "abstract_method_signature": "method"})
#: a declared value or a class field is a definition only when it holds a function
_HOLDERS = frozenset({"variable_declarator", "field_definition", "public_field_definition"})


class ECMAScript(Host, Language):
    requires = True
    reparses = True

    def defines(self, node) -> bool:
        # `handleClick = (e) => {...}` in a class is a method
        return node.type not in _HOLDERS or function_value(node.child_by_field_name("value")) is not None

    def definition_name(self, node, kind, out, scope):
        if node.type != "assignment_expression":
            return super().definition_name(node, kind, out, scope)
        assigned = assigned_function(node)
        return None if assigned is None else (assigned[0], assigned[1], kind)


register(ECMAScript(), "javascript", spec=JAVASCRIPT)
register(ECMAScript(), "typescript", "tsx", spec=TYPESCRIPT)
