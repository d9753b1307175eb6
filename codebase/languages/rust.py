"""Rust: ``mod error;`` imports a file, declarations state types (``?``, ``.unwrap()`` and ``.await`` unwrap a
result), and ``impl Deref`` makes its Target a base."""

from __future__ import annotations

from ..refs import STAR, Ref, last_ident
from ..typed import node_text, rust_taken_from, rust_type, rust_types
from . import LangSpec
from .base import Language, ranked, register

SPEC = LangSpec(
    {"function_item": "function", "struct_item": "struct", "enum_item": "enum", "trait_item": "trait",
     "impl_item": "impl", "mod_item": "namespace", "union_item": "struct"},
    frozenset({"impl_item", "trait_item", "mod_item"}), {"call_expression": "function"},
    frozenset({"use_declaration"}), {}, {"function": "fn", "method": "fn", "namespace": "mod"},
    {"const_item": "constant", "static_item": "variable"},
    # not struct fields: a getter or builder method often shares its field's name (`fn pos(&self) -> usize`)
    {"function_signature_item": "method", "enum_variant": "attribute"})


class Rust(Language):
    def typed(self, node, known: dict[str, str]) -> list[tuple[str, str, int]]:
        return ranked(rust_types(node))

    def declaration(self, node, walk) -> bool:
        """Rust's ``mod error;`` (a module whose body is another file: ``error.rs`` beside a crate root or a
        ``mod.rs``, else in the folder named like the declaring file) is an import of that file."""
        if node.type != "mod_item" or node.child_by_field_name("body") is not None:
            return False
        name = node_text(node.child_by_field_name("name"))
        if name:
            folder, _, file = walk.out.path.rpartition("/")
            stem = file.rsplit(".", 1)[0]
            root = stem in ("lib", "main", "mod") or folder.rpartition("/")[2] in ("tests", "examples", "benches",
                                                                                 "bin")
            module = f"./{name}" if root else f"./{stem}/{name}"
            walk.out.refs.append(Ref("", "imports", module, node.start_point[0] + 1))  # binds no name: `drop(x)`
        return True

    def imports(self, node, out):
        if node.type != "use_declaration":
            return None
        argument = node.child_by_field_name("argument")
        return _uses(argument) if argument is not None else []

    def unwrapped(self, node):
        return rust_taken_from(node)

    def heritage(self, node, spec) -> list[tuple[str, str]]:
        found = super().heritage(node, spec)
        if last_ident(node_text(node.child_by_field_name("trait"))) in ("Deref", "DerefMut"):
            body = node.child_by_field_name("body")
            found.extend(("extends", target) for item in (body.named_children if body is not None else [])
                         if item.type == "type_item" and node_text(item.child_by_field_name("name")) == "Target"
                         and (target := rust_type(node_text(item.child_by_field_name("type")))))
        return found  # a method call sees through Rust's Deref (`impl Deref for Ptr { type Target = Stream }`)


def _uses(node, prefix: str = "") -> list[tuple[str, str]]:
    """(bound name, path) of each item a Rust ``use`` tree imports: ``a::b::{c, d as e, self}`` gives
    (c, a::b::c), (e, a::b::d), (b, a::b); a glob ``a::b::*`` gives (STAR + "a::b", "a::b")."""
    def join(path: str) -> str:
        return f"{prefix}::{path}" if prefix and path else prefix or path

    if node.type == "use_as_clause":
        path, alias = join(node_text(node.child_by_field_name("path"))), node_text(node.child_by_field_name("alias"))
        return [(alias, path)] if alias != "_" else [("", path)]  # `as _`: a trait in scope, no name
    if node.type == "scoped_use_list":
        inner = join(node_text(node.child_by_field_name("path")))
        listed = node.child_by_field_name("list")
        return [u for c in (listed.named_children if listed is not None else []) for u in _uses(c, inner)]
    if node.type == "use_list":
        return [u for c in node.named_children for u in _uses(c, prefix)]
    if node.type == "use_wildcard":
        path = join(node_text(node.named_children[0])) if node.named_children else prefix
        return [(STAR + path, path)]
    if node.type == "self":
        return [(last_ident(prefix), prefix)]
    path = join(node_text(node))
    return [(last_ident(path), path)] if path else []


register(Rust(), "rust", spec=SPEC)
