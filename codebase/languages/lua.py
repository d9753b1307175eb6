"""What Lua's grammar needs beside the shared chunker: a module is the table its file returns (``local M = {}``
... ``return M``), whose functions are the module's; a table with methods (``function Stack:push(x)``) is a
class; a function may be assigned (``M.run = function() end``); a bare name is a local or a global, never a
module's function; ``local insert = table.insert`` makes ``insert(t, x)`` a call of ``table.insert``."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass

from ..refs import last_ident, node_text, required_module
from . import LangSpec
from ..receivers import owner_of
from .base import COMMON, Language, register

#: tables a Lua program finds already set: the standard library's, LuaJIT's, and the hosts' (Neovim, LÖVE,
#: OpenResty); a call on one is the library's unless the project defines the module (Neovim's own runtime)
GLOBALS = frozenset({"_G", "string", "table", "math", "io", "os", "coroutine", "debug", "utf8", "package", "bit",
                     "bit32", "jit", "ffi", "vim", "love", "ngx"})
#: the receiver given to a bare call of a name the file does not bind: a global (``print``, ``setup``)
GLOBAL = "_G"
_INDEXES = ("dot_index_expression", "method_index_expression")
_GLOBAL_FUNCTION = re.compile(r"function\s+\w+\s*\(")
#: per thread, the last file's root node (held, so no other tree can take its id) and its FileTables
_last = threading.local()


@dataclass(frozen=True)
class FileTables:
    module: str               # the table the file returns, or ""
    classes: frozenset[str]   # tables it defines methods of with ``:``
    local: frozenset[str]     # names it binds: locals, parameters, functions declared by a plain name


def _root(node):
    while node.parent is not None:
        node = node.parent
    return node


def tables(node) -> FileTables:
    """What the file of ``node`` returns, gives methods and binds (computed once per file)."""
    root = _root(node)
    if getattr(_last, "root", None) is not None and _last.root.id == root.id:
        return _last.tables
    last = next((c for c in reversed(root.named_children) if c.type != "comment"), None)
    values = last.named_children[0].named_children if last is not None and last.type == "return_statement" \
        and last.named_children else []
    classes, local, stack = set(), set(), [root]
    while stack:
        n = stack.pop()
        stack.extend(n.named_children)
        if n.type == "function_declaration" and (name := n.child_by_field_name("name")) is not None:
            if name.type == "identifier":
                local.add(node_text(name))
            elif name.type == "method_index_expression" and n.parent is not None and n.parent == root:
                classes.add(node_text(name.child_by_field_name("table")))
        elif n.type in ("variable_list", "parameters"):  # a generic for's names are a variable_list
            local.update(node_text(c) for c in n.named_children if c.type == "identifier")
        elif n.type == "for_numeric_clause":
            local.add(node_text(n.child_by_field_name("name")))
    module = node_text(values[0]) if len(values) == 1 and values[0].type == "identifier" else ""
    _last.root, _last.tables = root, FileTables(module, frozenset(classes), frozenset(local))
    return _last.tables


def _named(target, node) -> tuple[str, str] | None:
    """(name, owner) of what ``target`` (``f``, ``M.f``, ``Stack:push``) names: no owner for the module's
    table (``M.f`` is the module's function ``f``) unless that table is a class."""
    if target is None:
        return None
    if target.type == "identifier":
        return node_text(target), ""
    if target.type not in _INDEXES:
        return None
    field = target.child_by_field_name("field") or target.child_by_field_name("method")
    owner = node_text(target.child_by_field_name("table"))
    if field is None or not owner:
        return None
    file = tables(node)
    if owner == file.module and owner not in file.classes:
        owner = ""
    return node_text(field), last_ident(owner)


def function_name(node) -> tuple[str, str] | None:
    """(name, owner) of a ``function`` declaration, else None."""
    return _named(node.child_by_field_name("name"), node)


def assigned_function(node) -> tuple[str, str] | None:
    """(name, owner) of a function an assignment defines (``M.run = function() end``,
    ``local run = function() end``), else None."""
    target, value = binding(node)
    return _named(target, node) if value is not None and value.type == "function_definition" else None


def _pairs(node) -> list[tuple]:
    """(target, value) of each name an assignment statement binds (value None past the last one)."""
    targets = next((c for c in node.named_children if c.type == "variable_list"), None)
    values = next((c for c in node.named_children if c.type == "expression_list"), None)
    left = targets.named_children if targets is not None else []
    right = values.named_children if values is not None else []
    return [(t, right[i] if i < len(right) else None) for i, t in enumerate(left)]


def binding(node) -> tuple:
    """(first target, its value) of an assignment statement, either None when it has none."""
    pairs = _pairs(node)
    return pairs[0] if pairs else (None, None)


def binding_kind(node, name: str) -> str:
    """The kind of a module-level binding: "class" for a table the file defines methods of, "" for the
    module's own table (it is the module, not a symbol in it), else "variable"."""
    file = tables(node)
    return "class" if name in file.classes else "" if name == file.module else "variable"


def bind_aliases(node, aliases: dict[str, tuple[str, str]], imports: dict[str, str]) -> bool:
    """Record the short names an assignment gives tables' fields: ``local insert, remove = table.insert,
    table.remove`` (a call of insert is one of table.insert, in ``aliases``), ``local quote = require
    'pl.stringx'.quote`` (an import of quote, in ``imports``). True when it binds nothing else."""
    pairs, found, file = _pairs(node), 0, tables(node)
    for target, value in pairs:
        if target.type != "identifier" or value is None or value.type != "dot_index_expression" or \
                node_text(target) in file.classes or node_text(target) == file.module:
            continue  # `local List = utils.stdmt.List`, then `function List:append`: a class of this file
        table, field = value.child_by_field_name("table"), value.child_by_field_name("field")
        if table is None or field is None:
            continue
        if table.type == "function_call" and (module := required_module(table)):
            imports[node_text(target)] = module
        elif table.type in ("identifier", "dot_index_expression"):
            aliases[node_text(target)] = (node_text(table), node_text(field))
        else:
            continue
        found += 1
    return bool(pairs) and found == len(pairs)


def call_target(name: str, receiver: str, node, aliases: dict[str, tuple[str, str]]) -> tuple[str, str]:
    """(name, receiver) a Lua call is resolved by: an alias's table and field; no receiver for the module's own
    table (``M.helper()`` in M's file is its function); GLOBAL for a bare name the file does not bind."""
    if not receiver and name in aliases:
        receiver, name = aliases[name]
    file = tables(node)
    if receiver and receiver == file.module and receiver not in file.classes:
        return name, ""
    if not receiver and name not in file.local:
        return name, GLOBAL
    return name, receiver


def is_global(symbol: dict) -> bool:
    """Whether a symbol is a Lua global function (``function setup()``), which a bare name anywhere may call:
    a local function or a module's (``function M.setup()``) is reached only from its file or its module."""
    return symbol["path"].endswith(".lua") and bool(_GLOBAL_FUNCTION.match(symbol.get("signature", "")))


SPEC = LangSpec(
    # `M.run = function() end` defines run; a table the file defines methods of is a class (codebase.lua)
    {"function_declaration": "function", "assignment_statement": "function"}, frozenset(),
    {"function_call": "name"}, frozenset(), {}, {"function": "function", "method": "function"},
    {"assignment_statement": "variable"})


class Lua(Language):
    requires = True
    guesses_functions = False  # a local or a module's function is reached by its file or module only

    def bare_names(self, resolver, name: str) -> list[dict] | None:
        # a bare name is a local, an import or a global function: no other
        return [s for s in resolver.by_name.get(name, []) if is_global(s)]

    def resolve_method(self, resolver, name: str, receiver: str, imports: dict[str, str]):
        root = receiver.partition(".")[0]
        return _module_function(resolver, name, receiver, imports) if root in imports or root in GLOBALS else COMMON

    def definition_name(self, node, kind, out, scope):
        named = function_name(node) if node.type == "function_declaration" else assigned_function(node)
        return None if named is None else (named[0], named[1], kind)

    def binds_alias(self, node, walk) -> bool:
        return bind_aliases(node, walk.aliases, walk.out.imports)  # `local insert = table.insert`

    def call_target(self, name: str, receiver: str, node, walk) -> tuple[str, str]:
        return call_target(name, receiver, node, walk.aliases)

    def opens_function(self, node) -> bool:
        # a function value's body (`setup({ on_attach = function() ... end })`) binds its own locals
        return node.type == "function_definition"

    def binding_name(self, node, kind: str):
        # `local Stack = {}`, a class when the file gives it methods
        return (binding(node)[0], kind) if node.type == "assignment_statement" else None

    def binding_value(self, node, name: str, value, kind: str):
        if node.type != "assignment_statement":
            return value, kind
        return binding(node)[1], binding_kind(node, name)


def _module_function(resolver, name: str, receiver: str, imports: dict[str, str]) -> dict | None:
    """A Lua function called through a module: an imported one's (``utils.raise``, ``List.new``), a
    submodule's of an imported package (``pl.utils.raise``), a global table's where the project is that
    module (Neovim's runtime calls ``vim.lsp.util.f``), a global function (``GLOBAL``); None for what the
    project does not define by that name (``table.insert``, ``log.warn`` set in a loop): never guessed."""
    root, _, rest = receiver.partition(".")
    if root == "_G" and not rest:  # a name no local binds: a global function, or a builtin
        return next((s for s in resolver.by_name.get(name, []) if is_global(s)), None)
    module = imports[root] + ("." + rest if rest else "") if root in imports else receiver
    files = _module_files(resolver, module) if "." in module or root in imports else []
    found = resolver._exported(name, files) if files else []
    # a module's function, else the method of the one class a module returns (`List.new`)
    return next((s for s in found if not owner_of(s["qualname"])), None) or (
        found[0] if len({owner_of(s["qualname"]) for s in found}) == 1 else None)


def _module_files(resolver, module: str) -> list[str]:
    """The project files of a Lua module path (``vim.lsp.util``: ``lua/vim/lsp/util.lua``), if any."""
    key = (module, "\0lua")  # apart from module_files' keys, whose second part is a folder or a path
    if key not in resolver._module_cache:
        tail = "/" + module.replace(".", "/")
        resolver._module_cache[key] = [p for stem, paths in resolver.by_stem.items() if ("/" + stem).endswith(tail)
                                   for p in paths if p.endswith(".lua")]
    return resolver._module_cache[key]


register(Lua(), "lua", spec=SPEC)
