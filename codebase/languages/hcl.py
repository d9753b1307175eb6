"""Terraform (HCL): each top-level block is a definition named by its address as Terraform writes it
(``aws_s3_bucket.logs``, ``data.aws_iam_policy_document.read``, ``var.region``, ``module.vpc``,
``output.arn``), each ``locals`` entry a binding ``local.name``, and a reference in an expression
(``var.region``, ``aws_s3_bucket.logs.arn``) a use of what it names, resolved in the same folder (a Terraform
module is a folder). A ``module`` block with a local ``source`` reaches into its child's folder: its arguments
set the child's variables (``cidr = ...`` uses ``var.cidr`` there) and ``module.vpc.vpc_id`` reads the child's
``output.vpc_id``."""

from __future__ import annotations

import posixpath

from ..refs import node_text
from . import LangSpec
from .base import COMMON, Language, register

#: block type -> (the prefix of its address, the symbol kind); a resource's prefix is its type
BLOCKS = {"resource": ("", "resource"), "data": ("data", "data"), "variable": ("var", "variable"),
          "output": ("output", "output"), "module": ("module", "module_call"), "provider": ("provider", "provider")}
#: what a reference to a block of the module starts with, besides a resource's type
_ROOTS = frozenset({"var", "local", "module", "data"})
#: a module block's arguments that are Terraform's, not the child's variables
_META_ARGUMENTS = frozenset({"source", "version", "providers", "count", "for_each", "depends_on"})


def _labels(node) -> list[str]:
    return [node_text(c).strip('"') for c in node.named_children if c.type in ("string_lit", "identifier")][1:]


def block(node) -> tuple[str, str, str] | None:
    """(name, owner, kind) of a top-level block (``resource "aws_s3_bucket" "logs"``: logs, aws_s3_bucket,
    resource), else None (``terraform``, ``locals``, a nested block)."""
    if node.parent is None or node.parent.parent is None or node.parent.parent.parent is not None:
        return None  # config_file > body > block: only the file's own blocks
    word = node_text(node.named_children[0]) if node.named_children else ""
    labels = _labels(node)
    if word not in BLOCKS or not labels:
        return None
    prefix, kind = BLOCKS[word]
    if word in ("resource", "data"):
        if len(labels) < 2:
            return None
        owner = ".".join(p for p in (prefix, labels[0]) if p)
        return labels[1], owner, kind
    return labels[0], prefix, kind


def local_name(node) -> str:
    """The name a ``locals`` block's entry binds, else ""."""
    holder = node.parent.parent if node.parent is not None else None
    if holder is None or holder.type != "block" or not holder.named_children or \
            node_text(holder.named_children[0]) != "locals":
        return ""
    name = node.named_children[0] if node.named_children else None
    return node_text(name) if name is not None and name.type == "identifier" else ""


def _parts(node) -> list[str]:
    """The names a reference expression is made of (``module.vpc.vpc_id[0]``: module, vpc, vpc_id)."""
    parts: list[str] = []
    for c in node.named_children:
        if not parts and c.type != "variable_expr":
            return []
        if c.type == "variable_expr":
            parts.append(node_text(c))
        elif c.type == "get_attr" and c.named_children:
            parts.append(node_text(c.named_children[0]))
        else:
            break
    return parts


def reference(node) -> str:
    """The address an expression refers to (``var.region``, ``aws_vpc.this``, ``data.aws_region.current``,
    ``module.vpc``, ``local.name``), else ""."""
    parts = _parts(node)
    want = 3 if parts[:1] == ["data"] else 2
    # a resource type has its provider's prefix (aws_vpc, random_id): `v.create` is a for expression's `v`
    if len(parts) < want or parts[0] not in _ROOTS and "_" not in parts[0]:
        return ""
    return ".".join(parts[:want])


def module_source(node) -> str:
    """The folder a ``module`` block's ``source = "./modules/vpc"`` names (a local path only; a registry's
    or a URL's module is not in the project), else ""."""
    holder = node.parent.parent if node.parent is not None else None
    if holder is None or holder.type != "block" or not holder.named_children or \
            node_text(holder.named_children[0]) != "module" or len(node.named_children) < 2 or \
            node_text(node.named_children[0]) != "source":
        return ""
    value = node_text(node.named_children[1]).strip().strip('"')
    return value if value.startswith(("./", "../")) else ""


def module_output(node) -> str:
    """The child module's output an expression reads (``module.vpc.vpc_id``: vpc_id), else ""."""
    parts = _parts(node)
    return parts[2] if len(parts) >= 3 and parts[0] == "module" else ""


def module_input(node) -> str:
    """The child's variable an argument of a ``module`` block with a local ``source`` sets (``cidr = ...``:
    cidr), else "": a meta-argument, or a module from a registry, whose variables are not in the project."""
    holder = node.parent.parent if node.parent is not None else None
    if holder is None or holder.type != "block" or not node.named_children or \
            node.named_children[0].type != "identifier" or node_text(node.named_children[0]) in _META_ARGUMENTS:
        return ""
    body = node.parent
    if not any(c.type == "attribute" and module_source(c) for c in body.named_children):
        return ""
    return node_text(node.named_children[0])


# Terraform: a top-level block is a definition named by its address, a `locals` entry a binding (codebase.hcl)
SPEC = LangSpec({"block": "resource"}, keywords={"module_call": "module"}, variables={"attribute": "variable"})


class Hcl(Language):
    owner_keeps_kind = True

    def definition_name(self, node, kind, out, scope):
        return block(node)

    def visit(self, node, walk, scope: int, in_func: bool) -> bool:
        if node.type == "expression" and (address := reference(node)):
            walk.ref(scope, "calls", address, node)
            if output := module_output(node):  # the child's output, found through the module block
                walk.ref(scope, "calls", f"output.{output}", node, address)
        elif node.type == "attribute" and (source := module_source(node)):
            walk.ref(scope, "imports", source, node)
        elif node.type == "attribute" and (variable := module_input(node)):
            # `cidr = ...` in `module "vpc"` sets the child's var.cidr
            walk.ref(scope, "calls", f"var.{variable}", node, walk.qualname(scope))
        else:
            return False
        return True

    def binding_name(self, node, kind: str):
        # a `locals` entry, `local.name`
        return (node.named_children[0] if local_name(node) else None, kind) if node.type == "attribute" else None

    def crumb(self, symbol, parent, word: str, label: str) -> tuple[str, str]:
        return word, label if symbol.kind == "method" else symbol.qualname  # its address: aws_s3_bucket.logs

    # a Terraform module is a folder: an address names a block of the file's folder, or of a module block's
    def index(self, resolver, symbol: dict) -> None:
        if symbol["path"].endswith(".tf"):
            key = (posixpath.dirname(symbol["path"]), symbol["qualname"])
            resolver.tables.setdefault("terraform", {}).setdefault(key, symbol)

    def prepare(self, resolver, path: str, refs: list) -> None:
        if path.endswith(".tf"):  # `module "vpc" { source = "./modules/vpc" }`: (folder, module.vpc) -> its folder
            folder = posixpath.dirname(path)
            resolver.tables.setdefault("terraform modules", {}).update(
                ((folder, ref[0]), posixpath.normpath(posixpath.join(folder, ref[2]))) for ref in refs
                if ref[1] == "imports" and ref[0].startswith("module."))

    def resolve(self, resolver, name, kind, from_path, imports, receiver, source, typed):
        if not from_path.endswith(".tf"):
            return COMMON
        folder: str | None = posixpath.dirname(from_path)
        if receiver:  # a module block's input or output: its child's (`module.vpc` -> ./modules/vpc)
            folder = resolver.tables.get("terraform modules", {}).get((folder, receiver))
        return resolver.tables.get("terraform", {}).get((folder, name)) if kind == "calls" and folder is not None \
            else None


register(Hcl(), "hcl", spec=SPEC, extensions=())
