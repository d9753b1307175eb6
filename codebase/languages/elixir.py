"""What Elixir's grammar leaves to the reader: every form is a call (``defmodule``, ``def``, ``alias``, ``if``),
so the definitions are calls of the ``def*`` macros; a module is named by its full dotted name wherever its file
is (``Shop.Cart``, nested ``defmodule Inner`` in it is ``Shop.Cart.Inner``); ``alias Shop.{Item, Price}`` makes
``Price.check()`` a call of ``Shop.Price.check``, ``import Shop.Helpers`` makes a bare ``round_to()`` one of its
functions, and a bare call is otherwise the module's own function or Kernel's."""

from __future__ import annotations

import re

from ..labels import signature_word
from ..refs import STAR, Ref
from ..typed import node_text
from . import LangSpec, is_classy
from ..receivers import type_key
from .base import Language, register

#: the macro that defines a thing -> its symbol kind (a protocol's bodiless defs are what each defimpl defines)
KINDS = {"defmodule": "namespace", "defprotocol": "interface", "defimpl": "namespace",
         "def": "function", "defp": "function", "defmacro": "function", "defmacrop": "function",
         "defguard": "function", "defguardp": "function", "defdelegate": "function", "defn": "function",
         "defnp": "function"}
_MODULES = frozenset({"defmodule", "defprotocol", "defimpl"})
#: forms that read as syntax, not as calls a reader follows (Kernel.SpecialForms and Kernel's control macros)
SYNTAX = frozenset({"if", "unless", "case", "cond", "with", "for", "try", "receive", "quote", "unquote",
                    "unquote_splicing", "fn", "raise", "reraise", "throw", "super", "__MODULE__", "__aliases__",
                    "alias", "import", "require", "use", "and", "or", "not", "in", "when", "defstruct", "defexception",
                    "defoverridable", *KINDS})
#: module attributes that hold types or documents, not code: nothing in them is called
_NOT_CODE = frozenset({"spec", "type", "typep", "opaque", "callback", "macrocallback", "doc", "moduledoc",
                       "typedoc", "impl", "deprecated", "since", "derive", "dialyzer", "compile"})
#: module attributes that describe the definition after them, and join its chunk
_ABOUT_NEXT = frozenset({"doc", "spec", "impl", "deprecated", "since"})


def _target(node) -> str:
    """The name a call node calls when it is a plain name (``def``, ``alias``, ``helper``), else ""."""
    if node is None or node.type != "call":
        return ""
    target = node.child_by_field_name("target")
    return node_text(target) if target is not None and target.type == "identifier" else ""


def kind_of(node) -> str:
    """The symbol kind a node defines (``def`` -> "function", ``defmodule`` -> "namespace"), else ""."""
    return KINDS.get(_target(node), "")


def _args(node) -> list:
    args = next((c for c in node.named_children if c.type == "arguments"), None)
    return args.named_children if args is not None else []


def _keyword(node, key: str):
    """The value of ``key:`` in a call's keyword arguments (``for: Shop.Cart``, ``as: P``), else None."""
    for arg in _args(node):
        if arg.type == "keywords":
            for pair in arg.named_children:
                k = pair.child_by_field_name("key")
                if k is not None and node_text(k).rstrip(": ") == key:
                    return pair.child_by_field_name("value")
    return None


def expand(written: str, aliases: dict[str, str], own: str) -> str:
    """The full name of a module as written in a module named ``own``: ``__MODULE__.Inner`` is
    ``own.Inner``, an alias's head is what it stands for (``Price.Rules`` -> ``Shop.Price.Rules``)."""
    head, dot, rest = written.partition(".")
    if head == "__MODULE__":
        head = own
    elif head in aliases:
        head = aliases[head]
    return head + dot + rest if head else rest


def _head(node):
    """The call or name a ``def`` defines (``add(cart, item)`` in ``def add(cart, item) when ...``)."""
    args = _args(node)
    head = args[0] if args else None
    if head is not None and head.type == "binary_operator" and node_text(head.child_by_field_name("operator")) == \
            "when":
        head = head.child_by_field_name("left")
    return head


def definition(node, aliases: dict[str, str], own: str) -> tuple[str, str, bool] | None:
    """(name, kind, absolute) of what a ``def*`` call defines, else None (``def unquote(name)()``, an
    operator). A module's name is as written, below the module it is in unless ``absolute``: a ``defimpl``'s is
    the protocol's full name and the type's (``defimpl Size, for: Cart`` is ``Size.Cart``)."""
    macro = _target(node)
    kind = KINDS.get(macro, "")
    args = _args(node)
    if not kind or not args:
        return None
    if macro == "defimpl":
        typ = _keyword(node, "for")
        typ_name = expand(node_text(typ), aliases, own) if typ is not None and typ.type == "alias" else own
        protocol = expand(node_text(args[0]), aliases, own) if args[0].type == "alias" else ""
        return (f"{protocol}.{typ_name}", kind, True) if protocol and typ_name else None
    if macro in _MODULES:
        return (node_text(args[0]), kind, False) if args[0].type == "alias" else None
    head = _head(node)
    if head is not None and head.type == "call":
        name = _target(head)
    else:
        name = node_text(head) if head is not None and head.type == "identifier" else ""
    return (name, kind, False) if name else None


def previous_clause(node) -> int | None:
    """The start byte of the clause before this one of the same function (``defp walk([])`` before
    ``defp walk([h | t])``, past comments and ``@impl``/``@spec`` lines), else None: a function's clauses are
    one definition."""
    defined = definition(node, {}, "") if kind_of(node) == "function" else None
    prev = node.prev_named_sibling
    while prev is not None and (prev.type == "comment" or _attribute(prev) in ("impl", "spec")):
        prev = prev.prev_named_sibling
    if defined is None or prev is None or _target(prev) != _target(node):
        return None
    return prev.start_byte if definition(prev, {}, "") == defined else None


def protocol_of(node, aliases: dict[str, str], own: str) -> str:
    """The full name of the protocol a ``defimpl`` implements, else ""."""
    args = _args(node) if _target(node) == "defimpl" else []
    return expand(node_text(args[0]), aliases, own) if args and args[0].type == "alias" else ""


def signature(node) -> str:
    """A definition as its first line says it, without its body: ``def add(cart, item)``, ``def total(cart)``
    for ``def total(cart), do: ...``, ``defimpl Size, for: Cart``."""
    args = next((c for c in node.named_children if c.type == "arguments"), None)
    if args is None:
        return node_text(node).split("\n", 1)[0]
    kept = [a for a in args.named_children if not (a.type == "keywords" and _keyword(node, "do") is not None)]
    end = kept[-1].end_byte if kept else args.start_byte
    text = " ".join(node.text[: end - node.start_byte].decode("utf-8", errors="replace").split())
    return re.sub(r",?\s*([)\]}])", r"\1", re.sub(r"([(\[{])\s+", r"\1", text))  # a parameter per line


def first_of(node):
    """The first of the ``@doc``, ``@spec`` and ``@impl`` attributes right before a definition, else the
    definition itself."""
    while (prev := node.prev_named_sibling) is not None and _attribute(prev) in _ABOUT_NEXT:
        node = prev
    return node


def _attribute(node) -> str:
    """The name of a module attribute a node sets or reads (``@doc "..."`` -> doc), else ""."""
    if node is None or node.type != "unary_operator" or not node_text(node).startswith("@"):
        return ""
    return _target(node.child_by_field_name("operand")) or node_text(node.child_by_field_name("operand"))


def skipped(node) -> bool:
    """Whether nothing in a node is code a reader follows: a typespec, a document (``@spec``, ``@doc``)."""
    return _attribute(node) in _NOT_CODE


def behaviour(node, aliases: dict[str, str], own: str) -> str:
    """The full name of the behaviour ``@behaviour Shop.Store`` says a module implements, else ""."""
    if _attribute(node) != "behaviour":
        return ""
    args = _args(node.child_by_field_name("operand"))
    return expand(node_text(args[0]), aliases, own) if args and args[0].type == "alias" else ""


def directive(node, aliases: dict[str, str], own: str) -> list[tuple[str, str]] | None:
    """(bound name, full module name) of each name an ``alias``, ``import``, ``require`` or ``use`` binds
    (``import`` binds STAR + module: its functions are called bare; ``require`` and ``use`` bind "" and are only
    imports), else None when the node is none of them."""
    macro = _target(node)
    if macro not in ("alias", "import", "require", "use"):
        return None
    args = _args(node)
    if not args:
        return []
    first = args[0]
    if first.type == "dot" and (right := first.child_by_field_name("right")) is not None and right.type == "tuple":
        base = expand(node_text(first.child_by_field_name("left")), aliases, own)  # alias Shop.{Item, Price}
        modules = [f"{base}.{node_text(a)}" for a in right.named_children if a.type == "alias"]
    elif first.type in ("alias", "dot"):
        modules = [expand(node_text(first), aliases, own)]
    else:
        return []  # `import :math`, `use unquote(mod)`: an Erlang module or a name made at compile time
    if macro == "alias":
        renamed = _keyword(node, "as")
        if renamed is not None and len(modules) == 1:
            return [(node_text(renamed), modules[0])]
        return [(m.rsplit(".", 1)[-1], m) for m in modules]
    return [(STAR + m if macro == "import" else "", m) for m in modules]


def call(node, aliases: dict[str, str], own: str) -> tuple[str, str] | None:
    """(name, receiver) of a call a reader follows: ``helper(x)`` and ``x |> helper()`` (receiver ""),
    ``Price.check(x)`` and ``&Price.check/1`` (receiver the module's full name), ``__MODULE__.f()``; a capture
    ``&helper/1`` and a function plug (``plug :fetch_user``) too. None for syntax (``if``, ``case``), a
    definition's head, a map's field (``cart.items``), an anonymous function's call (``fun.(1)``) and calls on
    what only runs know (``mod.run()``, ``:ets.new()``)."""
    if node.type == "unary_operator":  # &helper/1
        operand = node.child_by_field_name("operand")
        if node_text(node).startswith("&") and operand is not None and operand.type == "binary_operator" and \
                node_text(operand.child_by_field_name("operator")) == "/":
            left = operand.child_by_field_name("left")
            if left is not None and left.type == "identifier":
                return node_text(left), ""
        return None
    if node.type != "call" or _is_head(node) or _attribute(node.parent) or _in_bit_type(node):
        return None  # `@timeout 5_000` sets an attribute
    target = node.child_by_field_name("target")
    if target is None:
        return None
    if target.type == "identifier":
        name, args = node_text(target), _args(node)
        if name == "plug" and args and args[0].type == "atom":  # `plug :fetch_user`: the module's function
            return node_text(args[0]).lstrip(":"), ""
        return None if name in SYNTAX else (name, "")
    if target.type != "dot":
        return None
    left, right = target.child_by_field_name("left"), target.child_by_field_name("right")
    if left is None or right is None or right.type != "identifier":
        return None
    if left.type == "alias" or left.type == "identifier" and node_text(left) == "__MODULE__":
        return node_text(right), expand(node_text(left), aliases, own)
    return None


def _in_bit_type(node) -> bool:
    """Whether a call is a bitstring segment's type (``size(n)`` in ``<<head::binary-size(n), rest::binary>>``)."""
    up = node.parent
    while up is not None and up.type == "binary_operator":
        if node_text(up.child_by_field_name("operator")) == "::":
            return True
        up = up.parent
    return False


def _is_head(node) -> bool:
    """Whether a call is what a definition defines (``add(cart)`` in ``def add(cart)``), or its guard."""
    up = node.parent
    if up is not None and up.type == "binary_operator" and node_text(up.child_by_field_name("operator")) == "when":
        if up.child_by_field_name("left") != node:
            return False  # a guard (`when is_cart(x)`) is called
        up = up.parent
    return up is not None and up.type == "arguments" and up.parent is not None and kind_of(up.parent) != ""


def enclosing(symbols: list, parents: dict[int, int], scope: int) -> str:
    """The full name of the module a symbol index is in (itself when it is one), or ""."""
    while scope and symbols[scope].kind not in ("namespace", "interface"):
        scope = parents.get(scope, 0)
    return symbols[scope].qualname if scope else ""


# every form is a call: codebase.elixir tells definitions, directives and calls apart
SPEC = LangSpec({}, keywords={"namespace": "defmodule", "interface": "defprotocol", "function": "def"})


class Elixir(Language):
    owner_keeps_kind = True
    members_are_methods = False  # a protocol's defs are functions

    def skipped(self, node) -> bool:
        return skipped(node)  # a typespec or a document: nothing in it is called

    def definition_kind(self, node, walk) -> str | None:
        return kind_of(node)

    def continued_definition(self, node, walk) -> int | None:
        return walk.clauses.get(previous_clause(node))  # `defp walk([h | t])` after `defp walk([])`

    def definition_start(self, node):
        return first_of(node)

    def definition_name(self, node, kind, out, scope):
        # a module by its full name: `defmodule Inner` in Shop is Shop.Inner
        own = out.symbols[scope].qualname if is_classy(out.symbols[scope].kind) else ""
        defined = definition(node, out.imports, own)
        if defined is None:
            return None
        name, kind, absolute = defined
        dotted, _, short = name.rpartition(".")
        owner = dotted if absolute else ".".join(p for p in (own, dotted) if p)
        if is_classy(kind) and own and not absolute:  # and `Inner` names it in Shop
            out.imports[name.split(".")[0]] = f"{own}.{name.split('.')[0]}"
        return short, owner, kind

    def bases(self, node, kind, spec, out, parent) -> list[tuple[str, str]]:
        if protocol := protocol_of(node, out.imports, parent.qualname):
            return [("implements", protocol)]
        return super().bases(node, kind, spec, out, parent)

    def visit(self, node, walk, scope: int, in_func: bool) -> bool:
        out, line = walk.out, node.start_point[0] + 1
        own = enclosing(out.symbols, walk.parents, scope)
        if (bound := directive(node, out.imports, own)) is not None:
            for name, module in bound:  # alias, import, require, use
                out.refs.append(Ref("", "imports", module, line))
                if name:
                    out.imports[name] = module
        elif base := behaviour(node, out.imports, own):
            out.refs.append(Ref(own, "implements", base, line))
        elif (made_call := call(node, out.imports, own)) is not None:
            walk.ref(scope, "calls", made_call[0], node, made_call[1])
        return True  # every form is a call: none is read as another language's

    def signature(self, node) -> str:
        return signature(node)

    def index(self, resolver, symbol: dict) -> None:
        if symbol["kind"] in ("namespace", "interface"):  # a module's full name (Shop.Cart) -> its symbol
            resolver.tables.setdefault("elixir", {}).setdefault(symbol["qualname"], symbol)

    def module_files(self, resolver, module: str, from_path: str) -> list[str] | None:
        modules = resolver.tables.get("elixir", {})  # a module is named wherever its file is: `alias Shop.Cart`
        return [modules[module]["path"]] if module in modules else []

    def resolve(self, resolver, name, kind, from_path, imports, receiver, source, typed):
        return _resolve(resolver, name, kind, receiver, imports, source)

    def crumb(self, symbol, parent, word: str, label: str) -> tuple[str, str]:
        if is_classy(symbol.kind):  # Shop.Cart, or Inner in it
            label = symbol.qualname.removeprefix(parent.qualname + "." if parent is not None and parent.qualname
                                                 else "")
        return signature_word(symbol, word), label  # defp


def _resolve(resolver, name: str, kind: str, receiver: str, imports: dict[str, str], source: str) -> dict | None:
    """What an Elixir name refers to (the chunker has made aliases full names): a behaviour or protocol by
    its name; ``Shop.Price.check()`` the function of that module; a bare ``check()`` its own module's (an
    outer module's does not count), else an imported module's; None for Kernel's and libraries'."""
    if kind != "calls":
        return resolver.tables.get("elixir", {}).get(name)
    if receiver:
        owners = [receiver]
    else:
        own = type_key(source)
        while own and own not in resolver.tables.get("elixir", {}):
            own = own.rpartition(".")[0]
        owners = ([own] if own else []) + [m for bound, m in imports.items() if bound.startswith(STAR)]
    return next((s for owner in owners for s in resolver.members.get((owner, name), [])
                 if s["kind"] in ("function", "method")), None)


register(Elixir(), "elixir", spec=SPEC)
