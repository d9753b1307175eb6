"""What the core asks of a language beyond its node types (``LangSpec``), and the registry that answers.

The chunker, the labels, the bindings, the references and the resolver call the hooks of ``Language``; each hook
does the common thing here, and a language's module overrides those it reads differently and registers an
instance (``register``, with its node types and extensions). The core never names a language: it asks
``language_named(name)``. A new language is one module of this package: discovered, it registers itself.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
import threading
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

# the one module of the core a language's hooks read on every node: it imports nothing of this package
from ..typed import DECLARED_NODES, LOCAL_TYPE_NODES, RETURNED, aliased, declared_types, local_type, parameter_property

if TYPE_CHECKING:
    from ..chunks import ParsedFile, Symbol
    from ..walk import Walk

_REGISTRY: dict[str, "Language"] = {}
_COMMON: dict[str, "Language"] = {}  # the common reading of a language no module registered, made once per name
_DISCOVERED = False
_DISCOVERING = threading.RLock()


class Language:
    """The common reading of a tree-sitter grammar; a language's module overrides what it reads otherwise."""

    #: a definition node may also bind a name (GraphQL's field is one or the other)
    definitions_bind = True
    #: a binding's own symbol is where what its value names is used (a GraphQL field's type)
    binding_is_scope = False
    #: a binding's name may be any node type (GraphQL's), not only an identifier
    any_binding_name = False
    #: ``Self`` in a type names the type whose body holds it (Rust's); Zig's Self is a constant its resolver reads
    self_is_own_type = True
    #: a definition given an owner keeps its kind (Terraform's resource, Elixir's def, a protobuf message)
    owner_keeps_kind = False
    #: a function defined in a class-like scope is a method (not in an Elixir protocol)
    members_are_methods = True
    #: a ``require("m")`` call is an import (CommonJS, Lua)
    requires = False
    #: a file that fails to parse is parsed again without its top-level statements that fail alone
    reparses = False
    #: the word for ``super`` where it is another (PHP's ``parent``, C#'s ``base``)
    super_word = ""

    def __init__(self, name: str = "") -> None:
        self.name = name

    # ---- parsing ----------------------------------------------------------
    def for_parser(self, data: bytes) -> bytes:
        """The bytes the parser reads (the same length, so that every position stays the file's)."""
        return data

    def reparsed(self, tree, data: bytes, parse) -> Any:
        """The tree to walk, given the first parse (``parse(bytes)`` parses again)."""
        return tree

    def begin(self, root) -> Any:
        """What the language keeps for one file's walk (``Walk.state``), read from the tree's root."""
        return None

    # ---- the walk ---------------------------------------------------------
    def skipped(self, node) -> bool:
        """Nothing in this node is a definition, a binding or a call (Elixir's typespecs and documents)."""
        return False

    def definition_kind(self, node, walk: Walk) -> str | None:
        """The symbol kind a node defines, or None."""
        return walk.spec.definitions.get(node.type)

    def typed(self, node, known: dict[str, str]) -> list[tuple[str, str, int]]:
        """(variable, class, rank) of each variable the node gives a class (``known``: variable -> class in its
        scope): rank 3 for a class named outright, 2 for what a function returns, 1 for what another variable
        holds."""
        typed = local_type(node) if node.type in LOCAL_TYPE_NODES else None
        found = [typed] if typed else []
        if typed is None and (alias := aliased(node)) is not None and (held := known.get(alias[1], "")):
            return [(alias[0], held, 1)]  # `self.store = store`, where the parameter `store: Store`
        if typed is not None and (prop := parameter_property(node)):
            found.append((prop, typed[1]))  # TypeScript's `constructor(private store: Store)`
        return ranked(found)

    def binds_alias(self, node, walk: Walk) -> bool:
        """The binding only gives a short name to another (Lua's ``local insert = table.insert``)."""
        return False

    def declaration(self, node, walk: Walk) -> bool:
        """Record a declaration that is no definition of its own (Rust's ``mod error;``); whether it was one."""
        return False

    def continued_definition(self, node, walk: Walk) -> int | None:
        """The symbol a definition node continues (an Elixir function's next clause), else None."""
        return None

    def definition_start(self, node):
        """The node a definition's chunk starts at (before decorators and wrappers are added)."""
        return node

    def definition_body(self, node):
        """A definition's body where it is not inside the definition's node (Dart's), else None."""
        return None

    def visit(self, node, walk: Walk, scope: int, in_func: bool) -> bool:
        """Record what the language's own statements say (directives, reads, calls of its own shape); whether
        the node was one, so the common reading of calls and imports is skipped."""
        return False

    def is_call(self, node) -> bool:
        """A node of a call type that calls something (not Swift's subscript, not a SQL name that uses nothing)."""
        return True

    def callee(self, node, field_name: str) -> tuple[str, str]:
        """(name, receiver) of a call node; ("", "") when it calls what another call returned."""
        from ..refs import callee

        return callee(node, field_name, self)

    def callee_node(self, target):
        """The node naming what a call calls, given the grammar's field (Scala's generic calls)."""
        return target

    def call_name(self, name: str, text: str) -> str:
        """A called name as the language writes it in a definition (Ruby's ``empty?``)."""
        return name

    def call_target(self, name: str, receiver: str, node, walk: Walk) -> tuple[str, str]:
        """(name, receiver) of a call after the file's aliases (Lua's ``local insert = table.insert``)."""
        return name, receiver

    def unwrapped(self, node):
        """The call whose result a node unwraps (Rust's ``?``, ``.unwrap()``, ``.await``), else None."""
        return None

    def imports(self, node, out: ParsedFile) -> list[tuple[str, str]] | None:
        """(bound name or "", path) of each module an import statement names, or None to read it as most
        grammars write it (``refs.imports_of``)."""
        return None

    def macro_calls(self, node) -> list[tuple[str, int]]:
        """(name, line) of each call in a macro's body (C's ``#define``), which no parse tree holds."""
        return []

    def opens_function(self, node) -> bool:
        """A node outside the definitions whose body binds its own locals (a Lua function value)."""
        return False

    def reads_call(self, symbol: Symbol) -> bool:
        """A name read without a call (Scala's, Dart's) calls this function or method."""
        return "(" not in symbol.signature

    # ---- definitions -----------------------------------------------------
    def defines(self, node) -> bool:
        """The node is a definition, not a use of the type it names (C's ``struct S x;``)."""
        return True

    def definition_name(self, node, kind: str, out: ParsedFile, scope: int) -> tuple[str, str | None, str] | None:
        """(name, owner or None, kind) of a definition, or None when it defines nothing."""
        found = self.name_node(node, kind) or common_name_node(node)
        name = self.name_of(node)
        if found is None and not name:
            return None
        return name or found.text.decode("utf-8", errors="replace").strip(), self.owner_of(node), kind

    def name_node(self, node, kind: str):
        """The node holding a definition's name where the common search would not find it (C's declarators)."""
        return None

    def name_of(self, node) -> str:
        """The name a definition gives where no name node says it (Solidity's constructor, SQL's table)."""
        return ""

    def owner_of(self, node) -> str | None:
        """The type a definition is a member of although written outside it (Scala's extension), else None."""
        return None

    def refined_kind(self, node, kind: str) -> str:
        """The kind a definition is, where its node type does not say it alone (a Kotlin interface)."""
        return kind

    def receiver_type(self, node) -> str | None:
        """The type a method is declared on outside its body (Go's receiver), else None."""
        return None

    def qualified(self, name: str, kind: str, parent: Symbol, out: ParsedFile) -> tuple[str, str] | None:
        """(prefix, kind) of a definition whose name says its owner (C++'s ``int A::run()``), else None."""
        return None

    def signature_mark(self, node, parent: Symbol) -> str:
        """The word a signature is led by when it has no body of its own (``abstract``), or ""."""
        return ""

    def bases(self, node, kind: str, spec, out: ParsedFile, parent: Symbol) -> list[tuple[str, str]]:
        """(extends | implements, name) of each base a definition names."""
        from . import is_classy

        return self.heritage(node, spec) if is_classy(kind) else []

    def heritage(self, node, spec) -> list[tuple[str, str]]:
        """(extends | implements, name) of each base type a type definition names."""
        from ..refs import common_heritage

        return common_heritage(node, spec, self)

    def heritage_relation(self, holder, rel: str, node, holders: list) -> str:
        """Whether a base the definition names is extended or implemented (Kotlin's, Swift's own rules)."""
        return rel

    def base_relation(self, name: str, rel: str) -> str:
        """The relation to one named base (C#'s ``IStore`` is implemented)."""
        return rel

    # ---- labels -----------------------------------------------------------
    def signature(self, node) -> str:
        """What a definition says before its body, on one line (at most 200 characters)."""
        from ..labels import common_signature

        return common_signature(node)

    def crumb(self, symbol: Symbol, parent: Symbol | None, word: str, label: str) -> tuple[str, str]:
        """(word, label) of one step of a breadcrumb (``def bar`` in ``class Foo > def bar``)."""
        return word, label

    # ---- resolving (codebase.resolve) ---------------------------------------
    #: the kinds of reference this language answers wherever they are made (GraphQL's "queries" from code)
    answers: frozenset[str] = frozenset()
    #: a bare call of unknown receiver may be guessed to be a function of another file (not Lua's locals)
    guesses_functions = True

    def index(self, resolver, symbol: dict) -> None:
        """Keep a symbol of one of the language's files in its own table (``resolver.tables[name]``)."""

    def prepare(self, resolver, path: str, refs: list) -> None:
        """Read what one of its files' references say before any is resolved (Terraform's module sources)."""

    def resolve(self, resolver, name: str, kind: str, from_path: str, imports: dict[str, str], receiver: str,
                source: str, typed: str) -> Any:
        """The symbol (or None) a name used in one of its files refers to, found the language's own way; COMMON
        to look it up as most languages do."""
        return COMMON

    def module_files(self, resolver, module: str, from_path: str) -> list[str] | None:
        """The files a module its files import names, the language's own way (Elixir's module names); None for
        the common lookup by path."""
        return None

    def bare_names(self, resolver, name: str) -> list[dict] | None:
        """The only symbols a bare name its files use may be (Lua's globals), or None for the common lookup."""
        return None

    def resolve_method(self, resolver, name: str, receiver: str, imports: dict[str, str]) -> Any:
        """The symbol a method called on ``receiver`` is, found the language's own way (a Lua module's
        function), or COMMON."""
        return COMMON

    def answer(self, resolver, kind: str, name: str, receiver: str, from_path: str) -> dict | None:
        """The symbol a reference of a kind this language answers (``answers``) names, from any file."""
        return None

    # ---- bindings ---------------------------------------------------------
    def binding_name(self, node, kind: str):
        """(name node or None, kind) of a binding the language reads its own way, else None (the common search
        finds its name)."""
        return None

    def property_name(self, node):
        """The name node of a property declaration the common search misses (Swift's pattern, Objective-C's
        ``@property``), else None."""
        return None

    def binding_value(self, node, name: str, value, kind: str):
        """(value, kind) of a binding, as the language reads them (Lua's tables)."""
        return value, kind

    def binding_text(self, node, text: str) -> str:
        """The text a binding's symbol shows (GraphQL's field without its description)."""
        return text


class DeclaredTypes:
    """A language whose declarations state each variable's type (``typed.declared_types``): a call on a variable
    of a type the project does not define is a library's, never guessed from the method's name."""

    def typed(self, node, known: dict[str, str]) -> list[tuple[str, str, int]]:
        return ranked(declared_types(node) if node.type in DECLARED_NODES or node.type == "variable_declarator"
                      else [])


class _Common:
    """The answer of a resolving hook that leaves the name to the common lookup."""

    def __repr__(self) -> str:
        return "COMMON"


COMMON: Any = _Common()


def common_name_node(node):
    """The node holding a definition's name: its ``name`` field, else the declarator's, else a name child."""
    from . import NAME_TYPES

    if node.type == "impl_item":
        return node.child_by_field_name("type")
    n = node.child_by_field_name("name") or node.child_by_field_name("property")
    if n is not None:  # a C++ specialization `struct is_char<char>` is one of is_char's
        return n.child_by_field_name("name") or n if n.type == "template_type" else n
    d = node.child_by_field_name("declarator")
    while d is not None and d.type not in NAME_TYPES:
        nxt = d.child_by_field_name("declarator")
        if nxt is None:
            nxt = next((c for c in d.named_children if c.type in NAME_TYPES), None)
        d = nxt
    if d is not None:
        return d
    return next((c for c in node.named_children if c.type in NAME_TYPES), None)


def ranked(found: list[tuple[str, str]]) -> list[tuple[str, str, int]]:
    """Each (variable, class) with its rank: 2 for what a function returns, 3 for a class named outright."""
    return [(var, cls, 2 if cls.endswith(RETURNED) else 3) for var, cls in found]


@functools.lru_cache(maxsize=None)
def parser_for(name: str):
    """A tree-sitter parser of this language's grammar (tree-sitter-language-pack's name where it differs)."""
    from tree_sitter_language_pack import get_parser

    from . import GRAMMARS

    return get_parser(GRAMMARS.get(name, name))


def register(language: Language, *names: str, spec: Any = None, extensions: tuple[str, ...] = ()) -> Language:
    """Make ``language`` the answer for each of ``names`` (its own name first), with its tree-sitter node types
    (``spec``, a LangSpec: parsed, else cut in line windows) and the file extensions that are its own."""
    language.name = language.name or names[0]
    for name in names:
        _REGISTRY[name] = language
        if spec is not None:
            _SPECS[name] = spec
    for ext in extensions:
        _EXTENSIONS[ext] = names[0]
    return language


def language_named(name: str) -> Language:
    """The registered language of this name, else the common reading."""
    _discover()
    found = _REGISTRY.get(name)
    if found is None:
        found = _COMMON.setdefault(name, Language(name))
    return found


def answering(kind: str) -> Language | None:
    """The language that answers references of this kind wherever they are made, if one does."""
    _discover()
    return next((lang for lang in _REGISTRY.values() if kind in lang.answers), None)


def registered() -> dict[str, Language]:
    """Every language a module registered, by name."""
    _discover()
    return dict(_REGISTRY)


def _discover() -> None:
    """Import every module of this package once: each registers its languages."""
    global _DISCOVERED
    if _DISCOVERED:
        return
    with _DISCOVERING:  # another thread reads the tables only once every module has registered
        package = __name__.rpartition(".")[0]
        for module in pkgutil.iter_modules(importlib.import_module(package).__path__):
            importlib.import_module(f"{package}.{module.name}")
        _DISCOVERED = True


_SPECS: dict[str, Any] = {}
_EXTENSIONS: dict[str, str] = {}


class Registered(Mapping):
    """A table the language modules complete as they register (``SPECS``, ``EXTENSIONS``): read through it, the
    modules are imported first."""

    def __init__(self, table: dict, common: dict | None = None) -> None:
        self._table, self._common = table, common or {}

    def _all(self) -> dict:
        _discover()
        return {**self._common, **self._table}

    def __getitem__(self, key):
        _discover()
        return self._table[key] if key in self._table else self._common[key]

    def __iter__(self) -> Iterator:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())

    def __contains__(self, key) -> bool:
        _discover()
        return key in self._table or key in self._common

    def get(self, key, default=None):
        _discover()
        return self._table.get(key, self._common.get(key, default))
