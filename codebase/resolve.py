"""Turn the names a file uses into symbol edges: same file, then imports, then same folder, then the project.

A method call is resolved through what it is called on: ``self.m()`` in the enclosing type and its bases (so is
a bare ``m()`` in Java, Kotlin, C# and C++, then in an outer class's),
``super().m()`` (PHP's ``parent::m()``, C#'s ``base.m()``) in the bases, ``Foo.m()`` in the type Foo,
``mod.m()`` in an imported project module (through a package's re-exports and ``from m import *``; Rust's
``super::m()`` from the file's module).
On a variable known to hold a class (annotated with it, assigned a new instance, or assigned what a function
annotated to return it returns; in Java, Kotlin, Go, C# and Rust, declared with it), or on an attribute of such a
variable that its class assigns a class (``s.store.save()``): in that class and its bases, or nowhere when the
class is a library's (in Java, Kotlin, Go, C# and Rust, any type the project does not define: ``List``, a type
parameter). On any other receiver: in the type named like it, else in the one type defining m whose name the
receiver's resembles (``runner.invoke`` -> CliRunner, ``ctx.invoke`` -> Context, ``G.add_edge`` -> Graph), else in
the one type defining m at all; where several types define m and one is a base of all the others, the base's. A
call that stays ambiguous is left unresolved rather than guessed.

What cannot be resolved (a library call, a builtin, an external base class) is kept as an edge with an empty
target and the name, so `callees` can still say what a function calls.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from collections import defaultdict
from pathlib import PurePosixPath
from typing import Any, Iterable, Iterator

from memory_graph.paths import is_package_file

from .languages.components import COMPONENT_LANGUAGES
from .languages import BARE_CALLS_NAME_NO_MEMBER, EXTENSIONS, IMPLICIT_THIS_CALLS
from .languages.base import COMMON, Language, answering, language_named
from .likeness import resembles
from .receivers import CLASSY, ReceiverTypes, owner_of, project_path, type_key
from .refs import EXPRESSION, SELF_RECEIVERS, STAR, last_ident
from .languages.tsconfig import Alias, alias_targets
from .typed import HOLDS, IDENT_RE, kotlin_property

__all__ = ["Resolver", "edge_id", "owner_of", "resolve_edges", "type_key"]

CALLABLE = frozenset({"function", "method", "class", "struct", "record", "object"})
#: the kinds of symbol whose members a bare call in those languages never names (a namespace's or a module's
#: functions it may: TypeScript's `namespace util { ... }`)
_TYPES = CLASSY - {"module", "namespace"}


def edge_id(project: str, source: str, kind: str, name: str, target: str) -> str:
    raw = f"{project}\x00{source}\x00{kind}\x00{name}\x00{target}".encode()
    return "edge_" + hashlib.sha1(raw).hexdigest()[:24]


def _is_component(path: str) -> bool:
    return EXTENSIONS.get(posixpath.splitext(path)[1]) in COMPONENT_LANGUAGES


def _strip_ext(path: str) -> str:
    base, ext = posixpath.splitext(path)
    return base if ext else path


class Resolver(ReceiverTypes):
    """Indexes a project's symbols once, then resolves names from any of its files."""

    def __init__(self, symbols: Iterable[dict], package: str = "", aliases: Iterable[Alias] = ()) -> None:
        self.package = package  # the project folder's name, as its own modules may import it
        self.aliases = list(aliases)  # tsconfig.json's `paths` (codebase.tsconfig)
        self._alias_prefixes = tuple(a[1].split("*")[0] for a in self.aliases)
        self.by_file_name: dict[tuple[str, str], list[dict]] = defaultdict(list)
        self.by_name: dict[str, list[dict]] = defaultdict(list)
        self.by_file_qual: dict[tuple[str, str], dict] = {}
        self.module_of: dict[str, dict] = {}
        self.by_stem: dict[str, list[str]] = defaultdict(list)   # path without extension -> paths
        self.members: dict[tuple[str, str], list[dict]] = defaultdict(list)   # (owner qualname, name) -> symbols
        self.types_by_flat: dict[str, list[dict]] = defaultdict(list)   # lower-case name without "_" -> types
        self.attributes: set[str] = set()   # names of class attributes
        #: type qualname -> qualnames of its base types in the project (filled by resolve_edges)
        self.bases: dict[str, list[str]] = defaultdict(list)
        #: type qualname -> its attribute -> (the class assigned to it, the file that does) (``holds`` refs)
        self.held: dict[str, dict[str, tuple[str, str]]] = defaultdict(dict)
        self.file_imports: dict[str, dict[str, str]] = {}   # path -> imported name -> module (resolve_edges)
        self._module_cache: dict[tuple[str, str], list[str]] = {}
        self._star_cache: dict[tuple[str, str, int], list[dict]] = {}   # (name, path, depth) -> _starred
        self._subtypes: dict[str, set[str]] | None = None   # base -> direct subtypes, once bases are known
        self.components: dict[str, list[dict]] = defaultdict(list)   # Vue/Svelte file's name -> its module
        #: each language's own tables (``Language.index``): Terraform's addresses, Elixir's modules, ...
        self.tables: dict[str, Any] = {}
        self._languages: dict[str, Language] = {}  # an extension -> its language
        for s in symbols:
            self.by_file_qual[(s["path"], s["qualname"])] = s
            self.language_of(s["path"]).index(self, s)
            if s["kind"] == "module":
                self.module_of[s["path"]] = s
                if _is_component(s["path"]):
                    self.components[s["name"]].append(s)
                stem = _strip_ext(s["path"])
                self.by_stem[stem].append(s["path"])
                if is_package_file(PurePosixPath(s["path"])):  # `from '..'`, Lua's `require "pl"`: the root's is ""
                    self.by_stem[stem.rpartition("/")[0]].append(s["path"])
                continue
            if s["kind"] != "attribute":  # a class attribute is reached through its class, never by bare name
                self.by_file_name[(s["path"], s["name"])].append(s)
                self.by_name[s["name"]].append(s)
            else:
                self.attributes.add(s["name"])
            if s["kind"] in CLASSY:
                self.types_by_flat[s["name"].lower().replace("_", "")].append(s)
            if owner_of(s["qualname"]):
                self.members[(owner_of(s["qualname"]), s["name"])].append(s)
        for lst in [*self.by_name.values(), *self.members.values()]:
            lst.sort(key=lambda s: (s["path"], s["start_line"]))

    def language_of(self, path: str) -> Language:
        """The language of a file, by its extension."""
        ext = posixpath.splitext(path)[1]
        if ext not in self._languages:
            self._languages[ext] = language_named(EXTENSIONS.get(ext) or "")
        return self._languages[ext]

    def module_files(self, module: str, from_path: str) -> list[str]:
        """Project files a module string names ('app.config', './format', 'stdio.h', 'pkg/mathutil')."""
        # only a relative module depends on where it is imported from (Rust's `super::` on the file itself)
        m = module.strip()
        if self.aliases and not m.startswith(".") and m.startswith(self._alias_prefixes):
            # an alias means what the tsconfig.json nearest the importing file says; a catch-all "*" pattern
            # matches every module, so what no alias leads to is cached apart, for any importing file
            key = (module, "alias:" + posixpath.dirname(from_path))
            if key not in self._module_cache:
                self._module_cache[key] = self._aliased_files(m, from_path)
            if self._module_cache[key]:
                return self._module_cache[key]
        own = self.language_of(from_path).module_files(self, m, from_path)
        if own is not None:  # Elixir's: a module is named wherever its file is (`alias Shop.Cart`)
            return own
        key = (module, posixpath.dirname(from_path) if m.startswith(".") else
               from_path if m.startswith(("self::", "super::")) else "")
        if key not in self._module_cache:
            self._module_cache[key] = self._module_files(module, from_path)
        return self._module_cache[key]

    def _aliased_files(self, module: str, from_path: str) -> list[str]:
        for key in alias_targets(module, from_path, self.aliases):
            found = self.by_stem.get(_strip_ext(key)) or self.by_stem.get(key) or \
                ([key] if key in self.module_of else [])
            if found:
                return sorted(dict.fromkeys(found))
        return []

    def _module_files(self, module: str, from_path: str) -> list[str]:
        m = module.strip()
        if m.startswith(("@/", "~/")):  # a bundler's alias of the source folder (tsconfig's `"@/*": ["./src/*"]`)
            m = m[2:]
        if self.package and (m == self.package or m.startswith(self.package + ".")):
            # the project is the package itself (networkx indexed at networkx/): `import networkx.utils`
            inner = m[len(self.package) + 1:]
            found = self._module_files(inner, from_path) if inner else \
                [p for p in ("__init__.py",) if p in self.module_of]
            if found:
                return found
        if not m:
            return []
        if "\\" in m:  # PHP: a namespace's folders sit under some root (PSR-4), so a file's path is its tail
            parts = [p for p in m.split("\\") if p]
            for key in ("/".join(parts[i:]) for i in range(len(parts))):
                found = self.by_stem.get(key) or [p for stem, paths in self.by_stem.items()
                                                  if ("/" + stem).endswith("/" + key) for p in paths]
                if found:
                    return sorted(dict.fromkeys(found))
            return []
        if m.startswith("package:"):  # Dart: a package's lib/ folder, the project's own or a monorepo's
            name, _, rest = m.removeprefix("package:").partition("/")
            keys = [_strip_ext(f"{name}/lib/{rest}"), _strip_ext(f"lib/{rest}")]
            found = next((self.by_stem[k] for k in keys if k in self.by_stem), None) or next(
                (found for k in keys if (found := [p for stem, paths in self.by_stem.items()
                                                   if ("/" + stem).endswith("/" + k) for p in paths])), [])
            return sorted(dict.fromkeys(found))  # a pub package's (package:flutter/...): none
        if m.startswith("."):
            if "/" in m:
                key = posixpath.normpath(posixpath.join(posixpath.dirname(from_path), m))
            else:  # python relative: from .config import x / from ..pkg import y
                dots = len(m) - len(m.lstrip("."))
                base = posixpath.dirname(from_path)
                for _ in range(dots - 1):
                    base = posixpath.dirname(base)
                rest = m.lstrip(".").replace(".", "/")
                key = posixpath.join(base, rest) if rest else base
            keys = [key, _strip_ext(key)]
        elif "/" in m or m.endswith((".h", ".hpp", ".hh")):
            keys = [m, _strip_ext(m)]
        elif m.startswith(("self::", "super::")):  # Rust: from the file's module (`a/b.rs`, `a/b/mod.rs`: a::b)
            parts, stem = m.split("::"), _strip_ext(from_path)
            mod = posixpath.dirname(stem) if posixpath.basename(stem) in ("mod", "lib", "main") else stem
            while parts and parts[0] in ("self", "super"):
                mod = posixpath.dirname(mod) if parts.pop(0) == "super" else mod
            keys = [posixpath.join(mod, *parts[:i]) for i in range(len(parts), -1, -1)]
            keys += [posixpath.join(mod, "lib"), posixpath.join(mod, "main")]  # up to the crate root
        elif m.startswith("crate::"):  # Rust: a module, or an item in one
            parts = [p for p in m.split("::")[1:] if p not in ("self", "super")]
            keys = ["/".join(parts[:i]) for i in range(len(parts), 0, -1)]
            keys += ["lib", "main"]  # `use crate::Error`: the crate root's
        else:
            keys = [m.replace(".", "/").replace("::", "/"), m.replace("::", "/")]
        found: list[str] = []
        for key in dict.fromkeys(k.lstrip("/") for k in keys):  # keys come best first: `ldo.h` before `ldo`
            found = self.by_stem.get(key) or ([key] if key in self.module_of else [])
            if found:
                break
        # suffix match: 'mathutil' in 'gosrc/mathutil.go', 'shapes/Shape' anywhere, 'flask.cli' in src/flask/cli.py
        for key in dict.fromkeys(keys) if not found else ():
            tail = "/" + key.lstrip("/")
            found = [p for stem, paths in self.by_stem.items() if ("/" + stem).endswith(tail) for p in paths]
            if found:
                break
        package, _, last = m.rpartition(".")
        if not found and package and "/" not in m and last[:1].isupper():
            # Kotlin's `import store.Cache`, Cache defined in store/Store.kt: the files of its package's folder
            folder = "/" + package.replace(".", "/")
            found = [p for p in self.module_of if ("/" + posixpath.dirname(p)).endswith(folder)]
        if not found and "/" in keys[0]:
            folder = keys[0].rstrip("/").rsplit("/", 1)[-1]
            found = [p for p in self.module_of if posixpath.basename(posixpath.dirname(p)) == folder]
        return sorted(dict.fromkeys(found))

    def resolve(self, name: str, kind: str, from_path: str, imports: dict[str, str], receiver: str = "",
                source: str = "", typed: str = "", guess: bool = True) -> dict | None:
        """The symbol a name used in ``from_path`` (by the symbol whose qualname is ``source``) refers to, or
        None. ``receiver`` is what a called method is looked up on (``Ref.receiver``), ``typed`` the class it
        is known to hold (``Ref.typed``); ``guess=False``: a method on a receiver of unknown type is None, not
        the one its name suggests."""
        lang = self.language_of(from_path)
        own = lang.resolve(self, name, kind, from_path, imports, receiver, source, typed)
        if own is not COMMON:  # Terraform's addresses, SQL's names, a GraphQL schema, ...: the language's own way
            return own
        typed_in, typed_imports = from_path, imports  # where the class name `typed` is written
        if kind == "calls" and HOLDS in typed:  # `s.store.Save()`, `s.open().Save()`: along the chain
            typed, held_in = self._follow(typed, from_path, imports, source)
            if typed and held_in != from_path:
                typed_in, typed_imports = held_in, self.file_imports.get(held_in, {})
        elif kind == "calls" and not typed:  # `self.store.save()` where a base class assigns self.store
            typed, held_in = self._inherited_attribute(receiver, source)
            if typed:
                typed_in, typed_imports = held_in, self.file_imports.get(held_in, {})
        if kind == "calls" and typed:
            known, hit = self._of_class(name, typed, typed_in, typed_imports, source)
            if known:
                return hit
        if kind == "calls" and receiver:
            return self._method(name, receiver, from_path, imports, source, guess)
        if kind == "calls" and EXTENSIONS.get(posixpath.splitext(from_path)[1]) in IMPLICIT_THIS_CALLS:
            owner = owner_of(source)  # `reload()` in a method is `this.reload()`: the class's, then an outer one's
            while owner:
                hit = self._in_hierarchy(owner, name, from_path)
                # `new Foo()` in Foo names the class, as it does anywhere else, not its constructor
                if hit is not None and name != owner_of(hit["qualname"]).rpartition(".")[2]:
                    return hit
                owner = owner_of(owner)
        want = CLASSY if kind in ("extends", "implements") else CALLABLE

        def pick(cands: list[dict]) -> dict | None:
            if kind in ("extends", "implements"):  # `class Request < Base::Request`: never the class itself
                cands = [c for c in cands if c["qualname"] != source]
            good = [c for c in cands if c["kind"] in want]
            # C#'s class Store before its namespace Store, a class before its Scala companion or Swift extension
            good.sort(key=lambda c: (c["kind"] == "namespace", c["kind"] == "impl"))
            return (good or cands or [None])[0]

        hit = pick(self.by_file_name.get((from_path, name), []))
        if hit is not None:
            return hit
        if name in imports:  # only where the import leads: a library's name is never guessed
            # Rust's `use a::B as C`, PHP's `use A\\B as C`: the name the module defines
            real = re.split(r"::|\\", imports[name])[-1] if re.search(r"::|\\", imports[name]) else name
            return pick(self._exported(real, self.module_files(imports[name], from_path)))
        if (only := lang.bare_names(self, name)) is not None:  # Lua's: a local, an import or a global function
            return pick(only)
        hit = pick(self._starred(name, from_path))
        if hit is not None:
            return hit
        folder = posixpath.dirname(from_path)
        found = self.by_name.get(name, [])
        language = EXTENSIONS.get(posixpath.splitext(from_path)[1])
        if kind == "calls" and language in BARE_CALLS_NAME_NO_MEMBER:
            found = [s for s in found if self.by_file_qual.get((s["path"], owner_of(s["qualname"])), {}).get(
                "kind") not in _TYPES]
        if kind == "calls" and language in IMPLICIT_THIS_CALLS:
            # a bare call its class's hierarchy has not answered is no other class's method (`print(x)` in a
            # Dart mixin is not Receipt.print): a function's, or a class's constructor
            found = [s for s in found if not owner_of(s["qualname"]) or self.by_file_qual.get(
                (s["path"], owner_of(s["qualname"])), {}).get("kind") == "namespace"]  # C++'s `ns::helper`
        hit = pick([s for s in found if posixpath.dirname(s["path"]) == folder])
        if hit is not None:
            return hit
        if kind == "calls" and _is_component(from_path) and len(self.components.get(name, ())) == 1:
            return self.components[name][0]  # `<NavBar />` of a globally registered Vue component
        return pick(found)

    def implicit_member(self, name: str, from_path: str, source: str) -> dict | None:
        """What a bare name used in ``source`` names among methods: its class's (its bases', an outer class's),
        else a top-level function of its file; None for anything else (a local, a parameter)."""
        owner = owner_of(source)
        while owner:
            hit = self._in_hierarchy(owner, name, from_path)
            if hit is not None:
                return hit
            owner = owner_of(owner)
        return next((s for s in self.by_file_name.get((from_path, name), [])
                     if s["kind"] in CALLABLE and not owner_of(s["qualname"])), None)

    def _method(self, name: str, receiver: str, from_path: str, imports: dict[str, str],
                source: str, guess: bool = True) -> dict | None:
        if receiver in SELF_RECEIVERS or receiver == "super":
            owner = owner_of(source)
            if owner:  # a method of a type: the type's own hierarchy, or nothing (an external base's method)
                return self._in_hierarchy(owner, name, from_path, skip_first=receiver == "super")
            return self._by_receiver_name(name, receiver, from_path) if guess else None
        root, _, rest = receiver.partition(".")
        own = self.language_of(from_path).resolve_method(self, name, receiver, imports)
        if own is not COMMON:  # a Lua module's function
            return own
        if root in imports and not self._module_files_of(root, imports[root], from_path) \
                and (not root[:1].isupper() or root not in self.by_name) and not project_path(imports[root]):
            return None  # a library module's function (os.path.join), a library class's (Build.MODEL.contains)
        last = rest.rsplit(".", 1)[-1] if rest else root  # self.runner.invoke(): a method of what runners are
        if last == EXPRESSION or not IDENT_RE.fullmatch(last) or last in SELF_RECEIVERS:
            return self._by_receiver_name(name, last, from_path) if guess else None
        typ = self.resolve(last, "extends", from_path, imports)
        # Foo.create(), Foo::new(), and Rust's `use a::Kind as Sort` then `Sort::plain()`
        if typ is not None and typ["kind"] in CLASSY and (typ["name"] == last or last in imports):
            hit = self._in_hierarchy(type_key(typ["qualname"]), name, typ["path"])
            if hit is not None:
                return hit
            if name == "new" and typ["kind"] in CALLABLE:  # Ruby's Foo.new builds a Foo, as Python's Foo()
                return typ
        elif re.fullmatch(r"[A-Z]\w*[a-z]\w*", last) and last.lower().replace("_", "") not in self.types_by_flat:
            return None  # a type from elsewhere (Vec::new(), Promise.all(), Math.max())
        elif not rest and root in imports:  # a module (its function or type, never a method), or a name from one
            files = self._module_files_of(root, imports[root], from_path)
            hit = self._in_module(name, files) if files else None
            if hit is not None:
                return hit
            if not files and not root[:1].isupper():  # a project path the files do not show (_project_path)
                top = self._functions(name)
                return top[0] if len(top) == 1 else None
        return self._by_receiver_name(name, last, from_path) if guess else None

    def _module_files_of(self, bound: str, module: str, from_path: str) -> list[str]:
        """The project files of the module an import bound to ``bound`` (``from . import types`` binds the
        module ``.types``), or none when it is a library's."""
        sub = module + ("" if module.endswith(".") else ".") + bound
        return self.module_files(sub, from_path) or self.module_files(module, from_path)

    def _by_receiver_name(self, name: str, receiver: str, from_path: str) -> dict | None:
        """The method ``name`` on a receiver of unknown type: of the one type named like the receiver, else of
        the one type whose name it resembles, else of the one type defining it, else the only definition.
        Where several types define it and one is a base of all the others (Graph, DiGraph, MultiGraph), the
        base's: what overrides of it are called through, as an IDE's usages of the base method include them."""
        flat = receiver.lower().replace("_", "")
        types = {type_key(t["qualname"]) for t in self.types_by_flat.get(flat, [])}
        if len(types) == 1:  # `group.parse_args()` with one type Group: its member, or an inherited one
            hit = self._in_hierarchy(next(iter(types)), name, self.types_by_flat[flat][0]["path"])
            if hit is not None:
                return hit
        cands = [s for s in self.by_name.get(name, []) if s["kind"] in CALLABLE]
        if not self.language_of(from_path).guesses_functions:  # a Lua local is reached by its file only
            cands = [c for c in cands if owner_of(c["qualname"])]
        members = [c for c in cands if owner_of(c["qualname"])]
        exact = [c for c in members if owner_of(c["qualname"]).rsplit(".", 1)[-1].lower().replace("_", "") == flat]
        like = [c for c in members if resembles(receiver, owner_of(c["qualname"]))]
        # each group holds the one before, so the first with one owner is the narrowest unambiguous answer
        for group in (exact, like, members, cands):
            owners = {owner_of(c["qualname"]) for c in group}
            if len(owners) > 1:
                owners = {o for o in owners if owners - {o} <= self._descendants(o)}
                group = [c for c in group if owner_of(c["qualname"]) in owners]
            if len(owners) == 1:
                return next((c for c in group if c["path"] == from_path), group[0])
        return None

    def _ancestors(self, typ: str) -> Iterator[str]:
        """A type, then its bases in the project, nearest first (breadth first, at most 32 types)."""
        queue, seen = [typ], {typ}
        for t in queue:
            yield t
            for base in self.bases.get(t, []):
                if base not in seen and len(seen) < 32:
                    seen.add(base)
                    queue.append(base)

    def _descendants(self, typ: str) -> set[str]:
        """Every type that has ``typ`` among its bases, at any depth."""
        if self._subtypes is None:
            self._subtypes = defaultdict(set)
            for sub, bases in self.bases.items():
                for b in bases:
                    self._subtypes[b].add(sub)
        out: set[str] = set()
        stack = [typ]
        while stack:
            for sub in self._subtypes.get(stack.pop(), ()):
                if sub not in out:
                    out.add(sub)
                    stack.append(sub)
        return out

    def _functions(self, name: str) -> list[dict]:
        """Top-level functions and types called ``name`` (no methods)."""
        return [s for s in self.by_name.get(name, []) if s["kind"] in CALLABLE and not owner_of(s["qualname"])]

    def _in_module(self, name: str, files: list[str]) -> dict | None:
        """A function or type ``name`` of a project module (not a method), through its re-exports."""
        return next((s for s in self._exported(name, files) if not owner_of(s["qualname"])), None)

    def _exported(self, name: str, files: list[str], depth: int = 0) -> list[dict]:
        """The symbols called ``name`` that these project files define (or the component a Vue or Svelte file
        is) or, failing that, import from another project module (a package's ``__init__`` re-exporting it), up
        to three re-exports deep."""
        found = [s for f in files for s in self.by_file_name.get((f, name), [])]
        # `import NavBar from './NavBar.vue'`, `export { default as NavBar } from ...`: the file is the component
        found = found or [self.module_of[f] for f in files if _is_component(f)]
        if found or depth >= 3:
            return found
        for f in files:
            module = self.file_imports.get(f, {}).get(name)
            if module:
                found = self._exported(name, self.module_files(module, f), depth + 1)
                if found:
                    return found
        for f in files:
            found = self._starred(name, f, depth)
            if found:
                return found
        return []

    def _starred(self, name: str, path: str, depth: int = 0) -> list[dict]:
        """The symbols called ``name`` that the star imports of ``path`` (``from m import *``) bring in."""
        key = (name, path, depth)
        if key not in self._star_cache:  # a package's __init__ stars dozens of modules, asked for every name
            self._star_cache[key] = []
            for imported, module in self.file_imports.get(path, {}).items():
                if imported.startswith(STAR):
                    found = self._exported(name, self.module_files(module, path), depth + 1)
                    if found:
                        self._star_cache[key] = found
                        break
        return self._star_cache[key]

    def _in_hierarchy(self, owner: str, name: str, near_path: str, skip_first: bool = False) -> dict | None:
        """The member ``name`` of type ``owner`` or of its nearest base type that has one; for Java's
        ``getTitle()`` and ``setTitle()`` with no such method, the Kotlin property ``title`` they reach."""
        prop = kotlin_property(name)
        for wanted in (name, prop) if prop else (name,):
            for typ in self._ancestors(owner):
                found = self.members.get((typ, wanted), []) if not (skip_first and typ == owner) else []
                if wanted != name:
                    found = [s for s in found if s["kind"] == "attribute" and s["path"].endswith((".kt", ".kts"))]
                if found:
                    return next((s for s in found if s["path"] == near_path), found[0])
        return None


def resolve_edges(project: str, symbols: list[dict], files: dict[str, dict], package: str = "",
                  aliases: Iterable[Alias] = ()) -> list[dict]:
    """Every edge of a project: contains (parent -> member), calls, imports, extends, implements.

    symbols: rows with id, path, name, qualname, kind, parent, start_line. files: path -> {"refs": [[source
    qualname, kind, name, line, receiver, typed], ...], "imports": {name: module}}; a ``holds`` ref is no edge
    but a class's attribute and the class assigned to it. package: the project folder's name, under which its
    modules may import each other. aliases: module aliases of its tsconfig.json files (codebase.tsconfig).
    """
    resolver = Resolver(symbols, package, aliases)
    resolver.file_imports = {path: info.get("imports") or {} for path, info in files.items()}
    for path, info in files.items():  # Terraform's `module "vpc" { source = "./modules/vpc" }`
        resolver.language_of(path).prepare(resolver, path, info.get("refs") or [])
    edges: dict[str, dict] = {}

    def add(path: str, source: str, kind: str, name: str, target: str, line: int) -> None:
        eid = edge_id(project, source, kind, name, target)
        if eid not in edges:
            edges[eid] = {"id": eid, "project": project, "path": path, "source": source, "target": target,
                          "target_name": name, "kind": kind, "line": int(line)}

    for s in symbols:
        if s["kind"] == "module":
            continue
        parent = resolver.by_file_qual.get((s["path"], s["parent"] or ""))
        if parent is not None:
            add(s["path"], parent["id"], "contains", s["name"], s["id"], s["start_line"])
    # base types first: method calls on self and super are resolved through them
    order = {"extends": 0, "implements": 0, "holds": 0}
    refs = sorted(((order.get(ref[1], 1), path, ref) for path, info in files.items() for ref in info.get("refs") or []),
                  key=lambda t: (t[0], t[1]))
    for _, path, ref in refs:
        source_qual, kind, name, line = ref[:4]
        if kind == "holds":
            if len(ref) > 5 and ref[5]:
                resolver.held[type_key(source_qual)][name] = (ref[5], path)
            continue
        receiver = ref[4] if len(ref) > 4 else ""  # refs stored before receivers were recorded have none
        typed = ref[5] if len(ref) > 5 else ""
        imports = files[path].get("imports") or {}
        src = resolver.by_file_qual.get((path, source_qual)) or resolver.module_of.get(path)
        if src is None or not name:
            continue
        if kind == "reads":  # Scala's `cart.total`: a call of a method without parentheses, never a guessed one
            hit = resolver.resolve(name, "calls", path, imports, receiver, source_qual, typed, guess=False) \
                if receiver else resolver.implicit_member(name, path, source_qual)
            if hit is not None and hit["kind"] in ("function", "method"):
                add(path, src["id"], "calls", name, hit["id"], line)
            continue
        if (answers := answering(kind)) is not None:  # gql`...` in code: what the project's schema defines
            if (hit := answers.answer(resolver, kind, name, receiver, path)) is not None:
                add(path, src["id"], "calls", name, hit["id"], line)
            continue
        if kind == "imports":
            targets = resolver.module_files(name, path)
            if len(targets) > 1 and last_ident(name)[:1].isupper():  # `import store.Cache`: a package folder's
                targets = [t for t in targets if resolver._in_module(last_ident(name), [t])] or targets
            target = resolver.module_of[targets[0]]["id"] if targets else ""
            add(path, src["id"], kind, name, target, line)
            continue
        hit = resolver.resolve(name, kind, path, imports, receiver, source_qual, typed)
        if hit is not None and kind in order and type_key(hit["qualname"]) != type_key(source_qual):
            resolver.bases[type_key(source_qual)].append(type_key(hit["qualname"]))
        add(path, src["id"], kind, name, hit["id"] if hit is not None else "", line)
    return list(edges.values())
