"""Code navigation over the symbol graph: find symbols by name, and their callers, callees, imports and types."""

from __future__ import annotations

import re
import threading
from itertools import chain
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any, Callable, Iterator

from .errors import NotFoundError
from .graph import SYMBOL
from .linking import norm
from .paths import is_package_file, is_test_path
from .store.sql import sql_in, sql_quote
from .text import IDENT_RE, WORD_RE, dotted_names
from .symbol_names import (_ABSTRACT, _ALIAS, _DECLARATIONS, _FILE_MENTION, _FRAME, _SHORT_NAME, _TYPES,
                           _like, _member_name, _same_file, _top_level, raises_not_implemented)
from .validation import check_filter, check_name

if TYPE_CHECKING:
    from .config import Config
    from .store import LanceStore
    from .views import CodeView

SYMBOL_RELATIONS = {
    # relation -> (edge kind, direction from the symbol asked about)
    "callers": ("calls", "in"), "callees": ("calls", "out"),
    "imports": ("imports", "out"), "imported_by": ("imports", "in"),
    "subclasses": ("extends|implements", "in"), "superclasses": ("extends|implements", "out"),
    "members": ("contains", "out"), "container": ("contains", "in"),
}
SYMBOL_COLUMNS = ["id", "project", "path", "name", "qualname", "kind", "signature", "start_line", "end_line",
                  "language"]
#: what a symbol's kind may be, for the help of the tools and commands that filter by it
KINDS_HELP = ("function, method, class, attribute (a class attribute or field), variable, constant, interface, "
              "struct, enum, ...")
#: how a symbol may be named to the tools and commands that take one
SYMBOL_HELP = ("Symbol name, qualified name (Class.method, module.function; Rack::Utils and Request#params too), "
               "dotted path (pkg.module.Class.method), file path with a name or line (pkg/module.py:name, "
               "pkg/module.py:88) or id.")
#: what an alias may rename (``_alias_target``)
_CALLABLE_KINDS = frozenset({"function", "class", "method"})
#: the fields of a symbol in a symbol_graph answer
_SHOWN = ("id", "name", "qualname", "kind", "path", "start_line", "signature")
#: how many other symbols of an ambiguous name a symbol_graph answer lists
MAX_OTHERS = 20


class Symbols:
    """Symbol lookup over the code graph and LanceDB's symbols table: symbols by name, by a dotted path or by a
    file's path and line, and a symbol's relations (callers, callees, bases, ...).

    It reads the code graph through ``view`` (replaced whole by a reload) under ``graph_lock``; ``sync``
    brings the graph up to other processes' index runs, and ``check_project`` raises NotFoundError for a
    project that has no code. Arguments come validated and scoped by the Engine.
    """

    def __init__(self, config: Config, lance: LanceStore, view: CodeView, graph_lock: threading.RLock,
                 sync: Callable[[], None], check_project: Callable[[str | None], None]) -> None:
        self.config, self.lance, self.view = config, lance, view
        self._graph_lock, self._sync, self._check_project = graph_lock, sync, check_project

    def find(self, name: str, project: str | None, kind: str | None, path_prefix: str | None,
             limit: int) -> list[dict]:
        """Symbols by name or signature: exact name first, then prefix, then substring (case-insensitive), code
        before tests within each; ``Type.member``, ``module.member`` or a dotted path (``pkg.module.Type.member``)
        that is no qualified name puts the member it means first (inherited from Type's nearest base that has
        one, or defined, imported or a submodule in the module); so does a file's path with a member or line
        (``transaction.py:atomic``, ``registry.py:88``), and a path alone puts the modules of its files first.
        ``name`` is dotted (``text.dotted_names``)."""
        needle = name.lower()
        pattern = sql_quote("%" + _like(needle) + "%")
        rows = self._symbol_rows(project, kind, path_prefix, f"(lower(name) LIKE {pattern} ESCAPE '\\' OR "
                                 f"lower(qualname) LIKE {pattern} ESCAPE '\\' OR "
                                 f"lower(signature) LIKE {pattern} ESCAPE '\\')")
        rows = [r for r in rows if r["kind"] != "module" or needle in r["name"].lower()]
        firsts: list[str] = []
        if "." in name.strip(".") and not any(needle in (r["name"].lower(), r["qualname"].lower()) for r in rows):
            self._sync()  # the code graph, which holds the bases, may lag another process's index run
            file = _FILE_MENTION.fullmatch(name.strip())
            if file and not (file.group(2) or file.group(3)):  # `base.py`: every file of that name
                with self._graph_lock:
                    firsts = self._file_modules(file.group(1), project)
            if not firsts and (member := self._dotted_member(name, project) or self._namespaced(name, project)):
                firsts = [member[0]]
        if firsts:  # `timezone.now`, `Deeper.save`: the member it names, before the text that mentions it
            first = self._symbol_rows(project, kind, path_prefix, sql_in("id", firsts))
            rows = first + [r for r in rows if r["id"] not in firsts]
        at = {i: n for n, i in enumerate(firsts)}

        def order(r: dict) -> tuple:
            n, q = r["name"].lower(), r["qualname"].lower()
            return (0 if r["id"] in at else 1 if needle in (n, q) else
                    2 if n.startswith(needle) or q.startswith(needle) else 3 if needle in n or needle in q else 4,
                    at.get(r["id"], 0), is_test_path(r["path"]), name not in (r["name"], r["qualname"]),
                    len(r["qualname"]), r["path"], r["start_line"])

        return sorted(rows, key=order)[:limit]

    def _symbol_rows(self, project: str | None, kind: str | None, path_prefix: str | None,
                     condition: str) -> list[dict]:
        parts = []
        project, kind, path_prefix = (check_filter(project, "project"), check_filter(kind, "kind"),
                                      check_filter(path_prefix, "path_prefix"))
        if project:
            parts.append(f"project = {sql_quote(project)}")
        if kind:
            parts.append(f"kind = {sql_quote(kind)}")
        if path_prefix:
            parts.append(f"starts_with(path, {sql_quote(path_prefix)})")
        return self.lance.query("symbols", " AND ".join([*parts, condition]), SYMBOL_COLUMNS).to_pylist()

    def short_name_seeds(self, query: str, project: str | None) -> dict[str, float]:
        """A code query that is one name of one or two characters (Django's ``Q`` and ``F``): the symbols of
        exactly that name, as graph seeds. The in-memory index leaves such names out, since they would match
        words of prose, so the symbols table is asked: only for such a query."""
        m = _SHORT_NAME.fullmatch(query.strip())
        if not m:
            return {}
        rows = self._symbol_rows(project, None, None, f"name = {sql_quote(m.group(1))}")
        with self._graph_lock:
            return {r["id"]: 1.0 for r in sorted(rows, key=lambda r: r["id"])
                    if r["kind"] != "module" and r["id"] in self.view.graph}

    def _named(self, name: str, project: str | None) -> list[dict]:
        """Symbols whose name or qualified name is ``name`` (case-insensitive): code before tests, then a
        whole qualified name before a member's name, the name's own case first (Go's ``gauge.Set`` before
        ``Gauge.Set``), a definition before a declaration file's (TypeScript's ``schema.d.ts``, Python's
        ``.pyi`` stub: neither has a body to call anything), then shorter qualified names, then the one more
        code calls."""
        needle = name.lower()
        rows = self._symbol_rows(project, None, None, f"(lower(name) = {sql_quote(needle)} OR "
                                 f"lower(qualname) = {sql_quote(needle)})")
        g = self.view.graph
        with self._graph_lock:
            callers = {r["id"]: sum(1 for *_, d in (g.neighbors(r["id"], "in", ["calls"]) if r["id"] in g else ())
                                    if d == "in") for r in rows} if len(rows) > 1 else {}
        return sorted(rows, key=lambda r: (is_test_path(r["path"]), r["qualname"].lower() != needle,
                                           name not in (r["qualname"], r["name"]),
                                           r["path"].endswith(_DECLARATIONS), len(r["qualname"]),
                                           -callers.get(r["id"], 0), r["project"], r["path"], r["start_line"]))

    def _file_modules(self, path: str, project: str | None) -> list[str]:
        """The modules of the indexed files a path names (``transaction.py``, ``db/transaction.py``, an absolute
        path that ends in one), code before tests, then the least nested first."""
        g, want = self.view.graph, PurePosixPath(path)
        name = want.parent.name if is_package_file(want) else want.stem
        found = [i for i in self.view.index.by_norm.get(norm(name), ()) if i in g and
                 g.attrs(i).get("symbol_kind") == "module" and (project is None or g.attrs(i).get("project") == project)
                 and _same_file(str(g.attrs(i).get("path")), path)]
        return sorted(found, key=self._nesting)

    def _file_member(self, mention: re.Match, project: str | None, guess: bool = False) -> str | None:
        """What a ``_FILE_MENTION`` names: the member after its path (``:atomic``, ``::TestApp::test_run``) in
        the first of the files the path may be that has it, else the innermost definition on its line
        (``:88``), else the file's module when the path is one file's (or, to ``guess``, the first of several);
        None when nothing matches. Call with the graph lock held."""
        g, modules = self.view.graph, self._file_modules(mention.group(1), project)
        members = list(filter(None, re.split(r"[:#.]+", mention.group(2))))
        if members:
            for module in modules:
                hit: str | None = module
                for part in members:
                    hit = hit and self._base_member(hit, part)
                if hit:
                    return hit
            return None
        if len(modules) != 1:
            return modules[0] if modules and guess and not mention.group(3) else None
        line, level, hit = int(mention.group(3) or 0), [modules[0]], modules[0]
        while level and line:  # down the definitions whose lines hold it, to the innermost
            level = [m for t in level for m, *_ in g.neighbors(t, "out", ["contains"])
                     if (span := g.attrs(m).get("lines")) and span[0] <= line <= span[1]]
            hit = level[0] if level else hit
        return hit

    def lines_named(self, at_lines: dict[tuple, tuple[str, int]], named: dict) -> dict[tuple, tuple[str, int]]:
        """The lines of ``file_mentions`` that the names beside them agree with: every name is the definition on
        the line or one containing it (Java's `at shop.Ledger.reconcile(Ledger.java:88)`). A name that is not
        (a PHP frame's `Table.php(5): Table->render()`, whose line is the caller's) says what is meant, and
        the line is dropped. Call with the graph lock held."""
        def enclosing(symbol: str) -> set[str]:
            out, level = {symbol}, [symbol]
            while level:
                level = [u for t in level for u, *_ in self.view.graph.neighbors(t, "in", ["contains"])
                         if u not in out]
                out.update(level)
            return out

        return {f: at for f, at in at_lines.items() if set(named) <= enclosing(at[0])}

    def _definitions_named(self, module: str, words: list[str]) -> dict[str, str]:
        """word -> the definition of a file (or a member of one: a class's method) that it names, the file's own
        and the same case first."""
        g, exact, loose = self.view.graph, {}, {}
        level = [module]
        for _ in range(2):
            level = [m for t in level for m, *_ in g.neighbors(t, "out", ["contains"])]
            for m in level:
                exact.setdefault(_member_name(str(g.attrs(m).get("name", ""))), m)
        for n, m in exact.items():
            loose.setdefault(n.lower(), m)
        return {w: h for w in words if (h := exact.get(w) or loose.get(w.lower()))}

    def file_mentions(self, query: str, project: str | None) -> tuple[str, dict[str, float], dict[tuple, tuple]]:
        """Files a code query names (``django/db/transaction.py``, ``transaction.py:atomic``): the query without
        them, and as graph seeds what ``_file_member`` finds, or for a path alone the definitions (or their
        members) of its file that the query's other words name ("atomic in transaction.py"), else the file's
        module. A file name several files share, with other words beside it ("the save method in base.py"),
        is left to the other legs. A path with a line (``sessions.py:40``) also gives (project, path) -> (the
        innermost definition holding the line, the line), for ``line_prior``. Call with the graph lock held."""
        seeds, files, lines = [], [], {}
        query = _FRAME.sub(" ", query)  # a traceback's `File "` names no symbol called File
        alone = len(WORD_RE.findall(_FILE_MENTION.sub(" ", query))) == 0

        def swap(m: re.Match) -> str:
            hit = self._file_member(m, project, guess=alone)  # "models.py" alone: the least nested
            if hit is None:
                return m.group(0)
            a = self.view.graph.attrs(hit)
            if m.group(3) and not m.group(2):
                lines[(a.get("project"), a.get("path"))] = (hit, int(m.group(3)))
            (files if a.get("symbol_kind") == "module" else seeds).append(hit)
            return " "

        rest = _FILE_MENTION.sub(swap, query)
        words = WORD_RE.findall(rest)
        # a traceback's frame names the function its line is in ("line 62, in __call__"): not every __call__
        named_here = {w for h in seeds for w in WORD_RE.findall(_member_name(str(self.view.graph.attrs(h).get(
            "name", ""))))}
        used = named_here.intersection(words)
        for module in files:
            named = self._definitions_named(module, words)
            used.update(named)
            seeds.extend(named.values() or [module])
        if used:  # words that named a file's definition name nothing more
            rest = WORD_RE.sub(lambda w: " " if w.group(0) in used else w.group(0), rest)
        return rest, dict.fromkeys(seeds, 1.0), lines

    def _dotted_member(self, name: str, project: str | None) -> tuple[str, str | None] | None:
        """``Type.member`` where the member is defined in a base of Type (nearest base first), or
        ``module.member`` (``timezone.now``, also for a package's ``__init__``), or a file's path with or
        without a member (``django/db/transaction.py:atomic``): its id and the type it was asked through (None
        for a module's)."""
        mention = _FILE_MENTION.fullmatch(name.strip())
        if mention:
            with self._graph_lock:
                hit = self._file_member(mention, project, guess=True)
            if hit:
                return hit, None
        owner, _, member = name.rpartition(".")
        if not owner or not member:
            return None
        named = self._named(owner, project)
        with self._graph_lock:
            # own members too: `_named` misses those of a type nested in another or in a namespace
            # (`Utils.escape` for Rack.Utils.escape) and those of a module or of a type reached by a dotted path
            seen = {t["id"] for t in named}
            for sid in chain((t["id"] for t in named),
                             (i for i in self._owners(owner, project, modules_only=True) if i not in seen)):
                found = self._base_member(sid, member)
                if found:
                    inherited = self.view.graph.attrs(sid).get("symbol_kind") != "module" and found not in {
                        m for m, *_ in self.view.graph.neighbors(sid, "out", ["contains"])}
                    return found, self.view.graph.attrs(sid).get("name") if inherited else None
        return None

    def _namespaced(self, name: str, project: str | None) -> tuple[str, str | None] | None:
        """What a dotted name means without its leading parts, when they are a namespace or package that
        the index holds as folders rather than symbols (PHP's ``Symfony\\Component\\Console\\Application``,
        Java's ``com.example.app.Store.save``): the longest tail of two or more parts that names a symbol, or
        one part naming a type. Asked only once the whole name has found nothing."""
        parts = name.split(".")
        for i in range(1, len(parts)):
            tail = ".".join(parts[i:])
            # a lone last part must name a type as written: `attrs.define` is no test's `class Define`
            named = [r for r in self._named(tail, project)
                     if i < len(parts) - 1 or (r["kind"] in _TYPES and tail in (r["name"], r["qualname"]))]
            if named:
                return named[0]["id"], None
            if i < len(parts) - 1 and (member := self._dotted_member(tail, project)):
                return member
        return None

    def _base_member(self, type_id: str, member: str) -> str | None:
        """The member ``member`` of a type or module, else of its nearest base that defines one;
        case-insensitive, but one of the same case first (the function ``transaction.atomic``, not the class
        ``transaction.Atomic``)."""
        g, seen = self.view.graph, {type_id}
        if len(member) >= 3 and norm(member) not in self.view.index.by_norm:  # no symbol has that name
            return None

        def up(types: list[str]) -> list[str]:
            bases = [b for t in types for b, *_ in g.neighbors(t, "out", ["extends", "implements"])]
            bases = [b for b in dict.fromkeys(bases) if b not in seen]
            seen.update(bases)
            return bases

        with self._graph_lock:
            frontier = [type_id]
            while frontier:  # breadth first: the nearest definition is the one a call reaches
                loose = None
                for typ in frontier:
                    for m, *_ in g.neighbors(typ, "out", ["contains"]):
                        name = _member_name(str(g.attrs(m).get("name", "")))
                        if name == member:
                            return m
                        if loose is None and name.lower() == member.lower():
                            loose = m
                if loose is not None:
                    return loose
                frontier = up(frontier)
            return self._submodule(type_id, member) or self._reexported(type_id, member)

    def _submodule(self, package_id: str, member: str) -> str | None:
        """The module ``member`` of a package (``db.transaction``: django/db/transaction.py, or a folder's
        ``__init__.py``) when ``package_id`` is the package's own module, else None."""
        g, index = self.view.graph, self.view.index
        attrs = g.attrs(package_id)
        path = PurePosixPath(attrs.get("path") or "")
        if attrs.get("symbol_kind") != "module" or not is_package_file(path):
            return None
        for i in sorted(index.by_norm.get(norm(member), ())):
            a = g.attrs(i) if i in g else {}
            p = PurePosixPath(a.get("path") or "")
            if a.get("symbol_kind") == "module" and a.get("project") == attrs.get("project") and (
                    (p.parent == path.parent and p.stem == member) or
                    (is_package_file(p) and p.parent.parent == path.parent and p.parent.name == member)):
                return i
        return None

    def _reexported(self, package_id: str, member: str) -> str | None:
        """A top-level definition ``member`` of one of the project's modules that a package's module imports
        (``models.Model``: django/db/models/__init__.py imports it from base.py), up to three imports deep
        and breadth first, when ``package_id`` is a package's module, else None. The package's own folder is
        searched first, then the rest of the project (attrs/__init__.py re-exports ``define`` from
        attr/_next_gen.py)."""
        g, attrs = self.view.graph, self.view.graph.attrs(package_id)
        if attrs.get("symbol_kind") != "module" or not is_package_file(PurePosixPath(attrs.get("path") or "")):
            return None
        folder = str(PurePosixPath(attrs.get("path") or "").parent) + "/"

        def in_project(i: str) -> bool:
            return (g.attrs(i) if i in g else {}).get("project") == attrs.get("project")

        def in_folder(i: str) -> bool:
            return in_project(i) and str(g.attrs(i).get("path") or "").startswith(folder)

        # most names a package is asked for are defined nowhere in it: the name index says so at once
        if len(member) >= 3 and not any(in_project(i) for i in self.view.index.by_norm.get(norm(member), ())):
            return None
        for inside in (in_folder, in_project):
            found = self._imported_member([package_id], member, inside)
            if found:
                return found
        return None

    def _imported_member(self, modules: list[str], member: str, inside=lambda i: True,
                         own: bool = False, kinds: frozenset[str] | None = None) -> str | None:
        """A member named ``member`` of a module the given ones import (``own``: of those first), up to three
        imports deep and breadth first, through the modules ``inside`` admits; ``kinds``: only symbols of these."""
        g = self.view.graph

        def defined_in(module: str) -> str | None:
            for m, *_ in g.neighbors(module, "out", ["contains"]):
                a = g.attrs(m)
                if _member_name(str(a.get("name", ""))) == member and (kinds is None or a.get("symbol_kind") in kinds):
                    return m
            return None

        seen, frontier = set(modules), list(modules)
        if own and (hit := next((h for m in frontier if (h := defined_in(m))), None)):
            return hit
        for _ in range(3):
            imported = [m for f in frontier for m, *_ in g.neighbors(f, "out", ["imports"])
                        if m not in seen and inside(m)]
            frontier = sorted(dict.fromkeys(imported), key=lambda m: (g.attrs(m).get("path") or "", m))
            seen.update(frontier)
            if hit := next((h for m in frontier if (h := defined_in(m))), None):
                return hit
        return None

    def _alias_target(self, row: dict) -> str | None:
        """The definition a module-level binding only renames (``s = attributes = attrs`` in attr/__init__.py,
        ``export const fetch = request``): the function or class of that name in its module, or in a module
        it imports; None for any other binding, or a name the project does not define."""
        if row.get("kind") not in ("variable", "constant"):
            return None
        m = _ALIAS.fullmatch((row.get("signature") or "").strip())
        if m is None or m.group(1) == row["name"]:
            return None
        g = self.view.graph
        with self._graph_lock:
            modules = [u for u, *_ in g.neighbors(row["id"], "in", ["contains"])] if row["id"] in g else []
            return self._imported_member(modules, m.group(1), own=True, kinds=_CALLABLE_KINDS)

    def _nesting(self, symbol_id: str) -> tuple:
        """Sort key of namesake modules or types: code before tests, then the least nested, then by path."""
        path = self.view.graph.attrs(symbol_id).get("path") or ""
        return is_test_path(path), path.count("/"), path, symbol_id

    def _owners(self, owner: str, project: str | None, modules_only: bool = False) -> Iterator[str]:
        """Types and modules the in-memory index names ``owner``, in code before tests, then the least nested
        first (``db`` is django/db before django/contrib/gis/db); for a dotted path (``django.db.models.Model``,
        any kind) those it reaches part by part, each part a member, submodule or re-export of the one before,
        where the first part may also be a project indexed at its package's own folder (``networkx.utils`` in
        a project "networkx" whose paths start at utils/). A path reaches one symbol, through the first owner of
        each part that has the next (as an import resolves), and lazily: Django has 211 modules named
        ``models``. Call with the graph lock held."""
        g, index = self.view.graph, self.view.index
        head, _, last = owner.rpartition(".")
        if head:
            hit = next((h for o in self._owners(head, project) if (h := self._base_member(o, last))), None)
            if hit:
                yield hit
            elif "." not in head:
                yield from (i for i in self._owners(last, project, modules_only=True)
                            if str(g.attrs(i).get("project", "")).lower() == head.lower() and
                            _top_level(g.attrs(i).get("path") or ""))
            return
        found = [i for i in index.by_norm.get(norm(owner), ()) if i in g and
                 (project is None or g.attrs(i).get("project") == project) and
                 (not modules_only or index.names[i][1] == "module")]
        yield from sorted(found, key=self._nesting)

    def dotted_mentions(self, text: str, project: str | None) -> tuple[str, dict[str, float]]:
        """Dotted names in a code query that name a member through a subclass (``ModelAdmin.get_queryset``,
        BaseModelAdmin's) or a module (``timezone.now``): the text without them, and their members as graph
        seeds. As a whole such a name means that member, not every type and member its words name (as a
        qualified name does in ``EntityIndex.mentioned_in``). Uses only the in-memory index and graph: it runs
        on every search."""
        index, found = self.view.index, {}

        def swap(m: re.Match) -> str:
            owner, _, member = m.group(0).rpartition(".")
            if not owner or norm(m.group(0)) in index.by_norm:  # no dot, or a name the type defines itself
                return m.group(0)
            with self._graph_lock:
                hit = next((h for t in self._owners(owner, project) if (h := self._base_member(t, member))), None)
            if hit is None:
                return _known_tail(m.group(0))
            found[hit] = 1.0
            return " "

        def _known_tail(name: str) -> str:
            # a namespace the index holds as folders (PHP's Symfony.Component.Console.Helper.Table.render): the
            # longest tail that is a qualified name, for the entity index to find as one
            parts = name.split(".")
            if parts[0] in ("self", "this", "cls") or norm(parts[0]) in index.by_norm:
                return name
            return next((t for i in range(1, len(parts) - 1) if norm(t := ".".join(parts[i:])) in index.by_norm),
                        name)

        return IDENT_RE.sub(swap, text), found

    def _resolve_symbol(self, symbol: str, project: str | None) -> tuple[str, list[dict], str | None]:
        """The symbol a question names: its id, the other symbols of that name, and the subtype it was asked
        through when it is an inherited member (``Engine.search_code`` for ``CodeMixin.search_code``)."""
        symbol = check_name(symbol, "symbol", max_len=300)
        if symbol in self.view.graph and self.view.graph.kind(symbol) == SYMBOL:
            return symbol, [], None
        symbol = dotted_names(symbol)
        named = self._named(symbol, project)
        if named:
            target = self._alias_target(named[0])  # `s = attributes = attrs`: what attr.s is
            if target is not None:
                return target, named, None
            return named[0]["id"], named[1:], None
        inherited = self._dotted_member(symbol, project) or self._namespaced(symbol, project)
        if inherited:
            row = self.lance.by_ids("symbols", [inherited[0]], SYMBOL_COLUMNS).to_pylist()
            target = self._alias_target(row[0]) if row else None
            if target is not None:
                return target, row, None
            return inherited[0], [], inherited[1]
        self._check_project(project)
        owner, _, member = symbol.rpartition(".")
        if owner and member and self._named(owner, project):
            raise NotFoundError("symbol", [symbol], hint=f"{owner} and its bases in the project define no "
                                f"{member!r}; searching symbols for '{owner}.' lists what {owner} defines")
        raise NotFoundError("symbol", [symbol], hint="search_symbols finds a symbol's exact name or id")

    def relations(self, symbol: str, relation: str, depth: int, project: str | None, limit: int) -> dict[str, Any]:
        """Callers, callees, imports, subclasses (and more, see SYMBOL_RELATIONS) of a symbol, depth-limited.

        Unresolved names (library calls, external bases) are listed separately for callees and superclasses.
        Callers of a method are followed by those of the methods it overrides or implements, callees that
        are an interface's or abstract method by the methods implementing them, each with ``through``.
        A name that several symbols share answers for the first (code before tests, then a whole qualified
        name, then the shortest) and lists the rest under ``others``, to ask again by qualified name or id.
        ``truncated`` is set when there are more than ``limit`` results.
        """
        kinds, direction = SYMBOL_RELATIONS[relation]
        start, others, through = self._resolve_symbol(symbol, project)
        starts = [start, *self._overloads(start)]
        others = [o for o in others if o["id"] not in starts]
        with self._graph_lock:
            # one past the limit tells that there are more
            found = self.view.graph.related(starts, depth=depth, direction=direction, types=kinds.split("|"),
                                            limit=limit + 1)
            # a call through a method this one overrides or implements may reach it: listed after the direct
            # ones, with the method it went through (`Saver.Save` for `Disk.Save`)
            bases = self._kin(start, "out") if relation == "callers" else []
            seen = {*starts, *(f["id"] for f in found)}
            for base in bases:
                for f in self.view.graph.related(base, depth=depth, direction="in", types=["calls"],
                                                 limit=limit + 1):
                    if f["id"] not in seen and len(found) <= limit:
                        seen.add(f["id"])
                        found.append({**f, "through": base})
        if relation == "callees":
            self._add_implementations(found, seen, limit)
        truncated, found = len(found) > limit, found[:limit]
        ids = [f["id"] for f in found]
        info = {r["id"]: r for r in self.lance.by_ids("symbols", ids + starts + bases, [
            "id", "name", "qualname", "kind", "path", "start_line", "signature"]).to_pylist()}
        results = [{**{k: info[f["id"]][k] for k in _SHOWN}, "distance": f["distance"], "edge": f["edge_type"],
                    **({"through": info[f["through"]]["qualname"]} if f.get("through") in info else {})}
                   for f in found if f["id"] in info]
        unresolved: list[str] = []
        if direction == "out":
            where = (f"{sql_in('source', starts)} AND target = '' AND "
                     f"{sql_in('kind', kinds.split('|'))}")
            unresolved = sorted(set(self.lance.query("symbol_edges", where, ["target_name"])
                                    .column("target_name").to_pylist()))
        s = info[start]
        out = {"symbol": {k: s[k] for k in _SHOWN},
               "relation": relation, "results": results, "unresolved": unresolved}
        if truncated:
            out["truncated"] = True
        if through:
            out["inherited_by"] = through
        if len(starts) > 1:
            out["overloads"] = [{k: info[i][k] for k in ("id", "qualname", "start_line", "signature")}
                                for i in starts[1:] if i in info]
        if others:
            out["others"] = [{k: o[k] for k in ("id", "name", "qualname", "kind", "project", "path", "start_line")}
                             for o in others[:MAX_OTHERS]]
            out["others_total"] = len(others)
        return out

    def _add_implementations(self, found: list[dict], seen: set[str], limit: int) -> None:
        """Append to ``found`` (callees) the methods implementing each direct callee that is an interface's or
        abstract method, marked ``through`` it (`Disk.Save` through `Saver.Save`): such a call runs one of
        them. A concrete method's overrides are not added (`super().save()` runs the base's own)."""
        called = [f["id"] for f in found if f["distance"] == 1]
        rows = self.lance.by_ids("symbols", called, ["id", "signature", "language"]).to_pylist() if called else []
        declared = {r["id"] for r in rows if _ABSTRACT.search(r["signature"])}
        # Python's other way to say it: a body that only raises NotImplementedError
        python = [r["id"] for r in rows if r["language"] == "python" and r["id"] not in declared]
        declared |= {r["symbol_id"] for r in self.lance.by_ids(
            "code_chunks", python, ["symbol_id", "content"], column="symbol_id").to_pylist()
            if raises_not_implemented(r["content"])}
        with self._graph_lock:
            for c in [c for c in called if c in self.view.graph and (c in declared or self._in_interface(c))]:
                for m in self._kin(c, "in"):
                    if m not in seen and len(found) <= limit:  # one past the limit tells that there are more
                        seen.add(m)
                        found.append({"id": m, "distance": 1, "edge_type": "calls", "through": c})

    def _in_interface(self, method_id: str) -> bool:
        """Whether a method is a member of an interface or a trait (Rust's, Go's, Java's, Kotlin's, C#'s,
        TypeScript's): it only declares what its implementations do. Call with the graph lock held."""
        g = self.view.graph
        return any(g.attrs(u).get("symbol_kind") in ("interface", "trait")
                   for u, *_ in g.neighbors(method_id, "in", ["contains"]))

    def _kin(self, method_id: str, toward: str) -> list[str]:
        """The methods of the same name in the bases (``toward="out"``: those it overrides or implements) or
        in the subtypes (``"in"``: those that override or implement it) of the types that hold a method,
        nearest first. Call with the graph lock held."""
        g = self.view.graph
        name = _member_name(str(g.attrs(method_id).get("name", "")))
        seen = {u for u, *_ in g.neighbors(method_id, "in", ["contains"])}
        frontier, out = sorted(seen), []
        while frontier:
            frontier = [b for t in frontier for b, *_ in g.neighbors(t, toward, ["extends", "implements"])]
            frontier = [b for b in dict.fromkeys(frontier) if b not in seen]
            seen.update(frontier)
            out += [m for t in frontier for m, *_ in g.neighbors(t, "out", ["contains"])
                    if _member_name(str(g.attrs(m).get("name", ""))) == name and m != method_id]
        return list(dict.fromkeys(out))

    def _overloads(self, symbol_id: str) -> list[str]:
        """The other definitions of a symbol's qualified name in its scope (``@overload`` stubs and the
        implementation, Java's or C++'s overloads): calls name all of them alike, so they are asked as one."""
        g = self.view.graph
        with self._graph_lock:
            base = str(g.attrs(symbol_id).get("name", "")).rstrip("'")
            containers = [u for u, *_ in g.neighbors(symbol_id, "in", ["contains"])]
            return [n for c in containers[:1] for n, *_ in g.neighbors(c, "out", ["contains"])
                    if n != symbol_id and str(g.attrs(n).get("name", "")).rstrip("'") == base]
