"""Ruby: ``include`` makes a module a base, ``require`` imports a file, ``super`` calls the base's method of the
same name, and a method's name may end in ``?`` or ``!``."""

from __future__ import annotations

from ..refs import Ref, last_ident
from ..typed import node_text
from . import LangSpec, is_classy
from .base import Language, register

SPEC = LangSpec(
    {"class": "class", "module": "namespace", "method": "method", "singleton_method": "method"},
    frozenset({"class", "module"}), {"call": "method"}, frozenset(), {"superclass": "extends"},
    {"function": "def", "method": "def", "namespace": "module"})
_MIXINS = frozenset({"include", "extend", "prepend"})


class Ruby(Language):
    def call_name(self, name: str, text: str) -> str:
        return name + text[-1] if text.endswith(("?", "!")) and text[:-1].endswith(name) else name  # empty?, save!

    def visit(self, node, walk, scope: int, in_func: bool) -> bool:
        own = walk.out.symbols[scope]
        return node.type in ("call", "super") and directive(node, walk.out, own, is_classy(own.kind) and not in_func)


def directive(node, out, scope, in_type_body: bool) -> bool:
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
    if word in _MIXINS and in_type_body:
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


register(Ruby(), "ruby", spec=SPEC)
