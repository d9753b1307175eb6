"""What Dart's grammar says in its own way: a function's signature and its body are siblings, not one node; a
call is a chain of selectors after a name (``a.b.c(x)`` is ``a``, ``.b``, ``.c``, ``(x)``); an import brings in
every public name of a file unless it says ``show`` or ``as``; declarations state their variables' types."""

from __future__ import annotations

from ..refs import Ref, receiver_key
from ..typed import AWAITED, DOTTED, RETURNED, class_name, declared_type, node_text
from . import LangSpec, is_classy
from .base import Language, ranked, register

#: node type -> symbol kind (a ``declaration`` in a class body is a field, an abstract method or a constructor)
DEFINITIONS = {"class_definition": "class", "mixin_declaration": "class", "extension_declaration": "impl",
               "enum_declaration": "enum", "function_signature": "function", "getter_signature": "function",
               "setter_signature": "function", "method_signature": "method", "declaration": "method"}
_NAMED = frozenset({"function_signature", "getter_signature", "setter_signature"})
_CONSTRUCTORS = frozenset({"constructor_signature", "constant_constructor_signature",
                           "factory_constructor_signature", "redirecting_factory_constructor_signature"})
_MEMBERS = frozenset({"unconditional_assignable_selector", "conditional_assignable_selector"})
#: a chain's links after its first name: ``.b``, ``?.b``, ``(x)``, ``[i]``, ``!``
_LINKS = frozenset({"selector", *_MEMBERS})
_STAR = "*"  # as refs.STAR (refs imports this module, so not from there)


def definition(node) -> tuple[str, str] | None:
    """(name, kind) of what a definition node defines, else None (a field: a binding, not a definition). A
    constructor is a method named like its class (``Cart(this.owner)``), a named one by its own name
    (``Cart.empty()`` is the method ``empty`` of Cart), an operator ``operator ==``; an extension's members are
    its type's."""
    kind = DEFINITIONS.get(node.type, "")
    if node.type == "extension_declaration":
        name = declared_type(node_text(node.child_by_field_name("class")))
        return (name.rsplit(".", 1)[-1], kind) if name else None
    if node.type == "mixin_declaration":
        ident = next((c for c in node.named_children if c.type == "identifier"), None)
        return (node_text(ident), kind) if ident is not None else None
    if node.type in ("method_signature", "declaration"):
        node = signature_of(node)
        if node.type in ("method_signature", "declaration"):
            return None
    if node.type == "operator_signature":  # `bool operator ==(Object other)`
        op = next((c for c in node.named_children if "operator" in c.type), None)
        return (f"operator {node_text(op)}", "method") if op is not None else None
    if node.type in _CONSTRUCTORS:
        idents = [c for c in node.named_children if c.type == "identifier"]
        return (node_text(idents[-1]), "method") if idents else None
    name = node.child_by_field_name("name")
    return (node_text(name), kind) if name is not None else None


def signature_of(node):
    """The node of a definition's signature alone: a method's or constructor's, without a constructor's
    initializers (``: url = _compute(), super(body)``)."""
    if node.type in ("method_signature", "declaration"):
        return next((c for c in node.named_children if c.type in _NAMED or c.type in _CONSTRUCTORS
                     or c.type == "operator_signature"), node)
    return node


def body_of(node):
    """The ``function_body`` that follows a function's or method's signature, else None (an abstract method)."""
    if node.type not in _NAMED and node.type != "method_signature":
        return None
    after = node.next_named_sibling
    return after if after is not None and after.type == "function_body" else None


def first_of(node):
    """The first of the annotations (``@override``) right before a definition, else the definition itself."""
    while (prev := node.prev_named_sibling) is not None and prev.type == "annotation":
        node = prev
    return node


def is_abstract(node) -> bool:
    """Whether a class body's ``declaration`` declares a method without a body (``double total(int n);``):
    what its subclasses implement, unless ``external``."""
    return node.type == "declaration" and any(c.type in _NAMED for c in node.named_children) and \
        not node_text(node).startswith("external")


def member_name(node):
    """The name node of an enum's constant, or of the (first) variable a field ``declaration`` or a top-level
    variable list binds."""
    if node.type == "enum_constant":
        return node.child_by_field_name("name")
    lists = [node] if node.type != "declaration" else [c for c in node.named_children if c.type.endswith("_list")]
    for lst in lists:
        for item in lst.named_children:
            ident = item.named_children[0] if item.named_children else None
            if ident is not None and ident.type == "identifier":
                return ident
    return None


_DECLARING_WORDS = frozenset({"final_builtin", "const_builtin", "inferred_type", "type_identifier", "type_arguments",
                              "nullable_type", "late", "final", "const", "var", "static", "external"})


def declared_with(lst) -> str:
    """The words before a top-level variable list, which the grammar leaves beside it (``late final Map<K, V>``
    in ``late final Map<K, V> cache;``)."""
    words, prev = [], lst.prev_sibling
    while prev is not None and prev.type in _DECLARING_WORDS:
        words.append(node_text(prev))
        prev = prev.prev_sibling
    return " ".join(reversed(words)).replace(" <", "<").replace(" ?", "?")  # `Map<K, V>`, `Store?`


def imports(node) -> list[tuple[str, str]]:
    """(bound name, module) of an import, export or part directive: ``import 'a.dart'`` brings in every public
    name of a.dart (a star import), ``show A, B`` only those, ``as p`` binds p; ``export 'a.dart'`` re-exports
    a.dart's names and ``part``/``part of`` share a library's. A relative path is made ``./``-relative."""
    spec = next((c for c in node.named_children if c.type in ("library_import", "library_export")), node)
    spec = next((c for c in spec.named_children if c.type == "import_specification"), spec)
    uri = next((c for c in _walk(spec) if c.type == "uri"), None)
    module = node_text(uri).strip().strip("'\"") if uri is not None else ""
    if not module:
        return []
    if ":" not in module and not module.startswith((".", "/")):
        module = "./" + module
    alias = next((c for c in spec.named_children if c.type == "identifier"), None)
    if alias is not None:
        return [(node_text(alias), module)]
    shown = [c for c in spec.named_children if c.type == "combinator" and node_text(c).startswith("show")]
    names = [node_text(i) for c in shown for i in c.named_children if i.type == "identifier"]
    return [(n, module) for n in names] if names else [(_STAR + module, module)]


def _walk(node):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.named_children))


def _is_call(link) -> bool:
    return link.type == "selector" and any(c.type == "argument_part" for c in link.named_children)


def _member(link) -> str:
    """The name a link looks up (``.b``, ``?.b``), else ""."""
    inner = link if link.type in _MEMBERS else next((c for c in link.named_children if c.type in _MEMBERS), None)
    ident = next((c for c in inner.named_children if c.type == "identifier"), None) if inner is not None else None
    return node_text(ident)


def _receiver(last) -> tuple[str, object]:
    """What the chain ending at ``last`` (the link before a member's name) is, as a dotted name (``this.store``,
    ``Cart``), or "()" (an expression) with the call whose result it is (``repo.find()``), if it ends with one."""
    links = []
    while last is not None and last.type in _LINKS:
        links.append(last)
        last = last.prev_named_sibling
    if last is None or last.type not in ("identifier", "this", "super"):
        return "()", None
    names = [node_text(last)]
    links = [x for x in reversed(links) if x.named_children]  # `store!.save()`: the `!` changes nothing here
    for i, link in enumerate(links):
        if (name := _member(link)):
            names.append(name)
        else:  # a call's result or an index: only a call right before the member is followed
            return "()", link if i == len(links) - 1 and _is_call(link) else None
    return ".".join(names), None


def call(node) -> tuple[str, str, object] | None:
    """(name, receiver, inner call) of a call: a selector with arguments (``c.add(x)``: add on c, ``save()``),
    a cascade's section (``..add(x)``, on what the cascade is applied to), a constructor's redirection to
    another (``: this._(x)``); None for a call of a call's
    result (``f()()``). ``inner``: the call whose result the method is called on (``repo.find().save()``)."""
    if node.type == "redirection":  # a constructor's `: this._(a)`, `: this(a)`: another of its class's
        named = next((c for c in node.named_children if c.type == "identifier"), None)
        owner = node.parent
        while owner is not None and owner.type != "class_definition":
            owner = owner.parent
        name = node_text(named) if named is not None else node_text(owner.child_by_field_name("name")) \
            if owner is not None else ""
        return (name, "this", None) if name else None
    if node.type == "cascade_section":
        name = next((c for c in node.named_children if c.type == "cascade_selector"), None)
        if name is None or not any(c.type == "argument_part" for c in node.named_children):
            return None
        target = node.prev_named_sibling
        while target is not None and target.type == "cascade_section":
            target = target.prev_named_sibling
        receiver, inner = _receiver(target)
        return node_text(name).strip(), receiver, inner
    if not _is_call(node):
        return None
    prev = node.prev_named_sibling
    if prev is None:
        return None
    if prev.type == "identifier":
        return node_text(prev), "", None
    name = _member(prev) if prev.type in _LINKS else ""
    if not name:
        return None
    receiver, inner = _receiver(prev.prev_named_sibling)
    return name, receiver, inner


def member_read(node) -> tuple[str, str] | None:
    """(member, receiver) of a member read without a call (``cart.count``, which calls ``get count`` when that
    is what Cart has), else None: a call's member, an assignment's target."""
    if node.type not in _LINKS or not (name := _member(node)):
        return None
    after = node.next_named_sibling
    if after is not None and _is_call(after) or node.parent is not None and node.parent.type == "assignable_expression":
        return None
    receiver, _ = _receiver(node.prev_named_sibling)
    return (name, receiver) if receiver != "()" else None


#: parents of an identifier that names rather than reads (a declaration, a label, a type, an import)
_NAMING = frozenset({"formal_parameter", "initialized_identifier", "static_final_declaration", "label",
                     "cascade_selector", "combinator", "dotted_identifier_list", "annotation", "constructor_param",
                     "super_formal_parameter", "mixin_declaration", "enum_constant", "type_alias",
                     "assignable_expression", "redirection", *_CONSTRUCTORS, *_MEMBERS})


def bare_read(node) -> str:
    """The name an identifier reads as a value (``price`` in ``price * n``, a method torn off as in
    ``onPressed: _increment``), else "": a declaration's name, a call's callee, a member after a dot, a label,
    an assignment's target."""
    parent = node.parent
    if node.type == "identifier_dollar_escaped":  # `'total: $sum'`
        return node_text(node).lstrip("$")
    if node.type != "identifier" or parent is None or parent.type in _NAMING:
        return ""
    after = node.next_named_sibling
    if parent.child_by_field_name("name") == node or after is not None and _is_call(after):
        return ""
    return node_text(node)


DECLARING = frozenset({"formal_parameter", "initialized_variable_definition", "initialized_identifier",
                       "static_final_declaration"})


def declared(node) -> list[tuple[str, str]]:
    """(variable, type) a parameter or variable declaration binds: the type written (``Store store``, ``final
    Store? s``, a field's ``late Repo repo``), else the class it is given a new instance of (``Store()``,
    ``new Store()``), else the function whose result it holds (``Cart.of(x)``, ``repo.load()``, marked
    RETURNED; awaited, marked AWAITED)."""
    kids = node.named_children
    name = node.child_by_field_name("name") or (kids[0] if kids and kids[0].type == "identifier" else None)
    if name is None or name.type != "identifier":
        return []
    typ = next((c for c in kids if c.type == "type_identifier" and c.start_byte < name.start_byte), None)
    if typ is None and node.type in ("initialized_identifier", "static_final_declaration"):
        typ = _list_type(node.parent)
    if typ is not None:
        written = declared_type(node_text(typ))
        return [(node_text(name), written)] if written else []
    if node.type == "formal_parameter":
        return []
    value = [c for c in kids if c.start_byte > name.end_byte and c.type != "cascade_section"]
    held = _value_type(value)
    return [(node_text(name), held)] if held else []


def _list_type(lst):
    """The type written before a list of declared variables (``final Store a, b;``), else None."""
    prev = lst.prev_named_sibling if lst is not None else None
    while prev is not None and prev.type in ("type_arguments", "nullable_type"):
        prev = prev.prev_named_sibling
    return prev if prev is not None and prev.type == "type_identifier" else None


def _value_type(value: list) -> str:
    """The class a value's nodes make (``Store(...)``), or the function whose result they are, marked."""
    mark = ""
    if len(value) == 1 and value[0].type == "unary_expression" and value[0].named_children and \
            value[0].named_children[0].type == "await_expression":
        mark, value = AWAITED, value[0].named_children[0].named_children
    if len(value) == 1 and value[0].type in ("new_expression", "const_object_expression"):
        typ = next((c for c in value[0].named_children if c.type == "type_identifier"), None)
        return declared_type(node_text(typ)) if typ is not None and not mark else ""
    if len(value) < 2 or value[0].type != "identifier" or not _is_call(value[-1]):
        return ""
    names = [node_text(value[0])] + [_member(link) for link in value[1:-1]]
    if not all(names) or any(link.type not in _LINKS for link in value[1:-1]):
        return ""
    text = ".".join(names)
    if len(names) == 1 and class_name(text) and not mark:
        return text  # `Store()`: Dart's `new` is optional
    return mark + text + RETURNED if DOTTED.fullmatch(text) and len(text) <= 200 else ""


SPEC = LangSpec(
    # a signature and its body are siblings, a call a chain of selectors: codebase.dart reads them
    DEFINITIONS, frozenset({"class_definition", "mixin_declaration", "extension_declaration"}),
    {"selector": "", "cascade_section": "", "redirection": ""},
    frozenset({"import_or_export", "part_directive", "part_of_directive"}),
    {"superclass": "extends", "interfaces": "implements"}, {"impl": "extension"},
    {"initialized_identifier_list": "variable", "static_final_declaration_list": "variable"},
    {"declaration": "attribute", "enum_constant": "attribute"})
_IMPORTS = frozenset({"import_or_export", "part_directive", "part_of_directive"})


class Dart(Language):
    def typed(self, node, known: dict[str, str]) -> list[tuple[str, str, int]]:
        return ranked(declared(node) if node.type in DECLARING else [])

    def definition_name(self, node, kind, out, scope):
        found = definition(node)
        return None if found is None else (found[0], None, found[1])

    def definition_start(self, node):
        return first_of(node)

    def definition_body(self, node):
        return body_of(node)

    def signature_mark(self, node, parent) -> str:
        return "abstract " if is_abstract(node) else ""

    def signature(self, node) -> str:
        from ..labels import common_signature

        if not is_classy(DEFINITIONS[node.type]):
            node = signature_of(node)  # however many lines: its body (if any) is beside it
        return common_signature(node, first_line=False)

    def visit(self, node, walk, scope: int, in_func: bool) -> bool:
        if (read := member_read(node)) is not None:
            walk.call(scope, read[0], node, receiver_key(read[1]), kind="reads")
        elif read := bare_read(node):
            walk.bare.append(Ref(walk.qualname(scope), "reads", read, node.start_point[0] + 1))
        elif node.type in walk.spec.calls and (made_call := call(node)) is not None:
            name, receiver, inner = made_call
            ref = walk.call(scope, name, node, receiver_key(receiver))
            walk.call_at[(node.start_byte, node.end_byte)] = ref
            if inner is not None:  # `repo.find().save()`: typed by what `find` returns, once `repo` is typed
                walk.chained.append((ref, (inner.start_byte, inner.end_byte), ""))
        else:
            return node.type in walk.spec.calls  # a member or index selector, or a call of a call's result
        return True

    def imports(self, node, out):
        return imports(node) if node.type in _IMPORTS else None

    def reads_call(self, symbol) -> bool:
        # a tear-off of a method (`onPressed: _increment`) is how a widget's handler is called; not a constructor
        return "(" not in symbol.signature or not symbol.name[:1].isupper()

    def binding_name(self, node, kind: str):
        return member_name(node), kind  # a field's `declaration`, a top-level variable list

    def binding_text(self, node, text: str) -> str:
        if node.parent is not None and node.parent.type == "program":
            return f"{declared_with(node)} {text}"  # `final String name = 'x'`: its words are its siblings
        return text


register(Dart(), "dart", spec=SPEC)
