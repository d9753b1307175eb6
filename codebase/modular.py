"""Calls in languages whose names lead through modules and files rather than classes: Elixir's modules, Lua's
tables, Zig's files and containers (``std.mem.eql``, ``self.list.append``). A mixin of the Resolver."""

from __future__ import annotations

from .languages import zig
from .languages.lua import is_global
from .receivers import owner_of, type_key
from .refs import EXPRESSION, STAR
from .typed import HOLDS

#: what a Zig path leads to: ("file", path) or ("symbol", a symbol row)
Place = tuple[str, object]
_CONTAINERS = frozenset({"struct", "enum", "type"})
_ZIG_DEPTH = 12  # aliases of aliases: a cycle (`const a = b; const b = a;`) ends here


class ModuleLanguages:
    """Resolves names through modules; the Resolver gives the indexes (members, by_file_name, file_imports...)."""

    def _elixir(self, name: str, kind: str, receiver: str, imports: dict[str, str], source: str) -> dict | None:
        """What an Elixir name refers to (the chunker has made aliases full names): a behaviour or protocol by
        its name; ``Shop.Price.check()`` the function of that module; a bare ``check()`` its own module's (an
        outer module's does not count), else an imported module's; None for Kernel's and libraries'."""
        if kind != "calls":
            return self.elixir_modules.get(name)
        if receiver:
            owners = [receiver]
        else:
            own = type_key(source)
            while own and own not in self.elixir_modules:
                own = own.rpartition(".")[0]
            owners = ([own] if own else []) + [m for bound, m in imports.items() if bound.startswith(STAR)]
        return next((s for owner in owners for s in self.members.get((owner, name), [])
                     if s["kind"] in ("function", "method")), None)

    def _lua_path(self, name: str, receiver: str, imports: dict[str, str]) -> dict | None:
        """A Lua function called through a module: an imported one's (``utils.raise``, ``List.new``), a
        submodule's of an imported package (``pl.utils.raise``), a global table's where the project is that
        module (Neovim's runtime calls ``vim.lsp.util.f``), a global function (``GLOBAL``); None for what the
        project does not define by that name (``table.insert``, ``log.warn`` set in a loop): never guessed."""
        root, _, rest = receiver.partition(".")
        if root == "_G" and not rest:  # a name no local binds: a global function, or a builtin
            return next((s for s in self.by_name.get(name, []) if is_global(s)), None)
        module = imports[root] + ("." + rest if rest else "") if root in imports else receiver
        files = self._lua_module(module) if "." in module or root in imports else []
        found = self._exported(name, files) if files else []
        # a module's function, else the method of the one class a module returns (`List.new`)
        return next((s for s in found if not owner_of(s["qualname"])), None) or (
            found[0] if len({owner_of(s["qualname"]) for s in found}) == 1 else None)

    def _lua_module(self, module: str) -> list[str]:
        """The project files of a Lua module path (``vim.lsp.util``: ``lua/vim/lsp/util.lua``), if any."""
        key = (module, "\0lua")  # apart from module_files' keys, whose second part is a folder or a path
        if key not in self._module_cache:
            tail = "/" + module.replace(".", "/")
            self._module_cache[key] = [p for stem, paths in self.by_stem.items() if ("/" + stem).endswith(tail)
                                       for p in paths if p.endswith(".lua")]
        return self._module_cache[key]

    def _zig(self, name: str, kind: str, receiver: str, typed: str, from_path: str, source: str) -> dict | None:
        """What a Zig call names: through what the receiver is declared to hold (``self: *Self``, ``l:
        std.ArrayList(u8)``), else the receiver's path (``std.mem``: the file std.zig imports as mem), else a
        bare name in the scopes it is written in (the function's, its containers', the file's); None for what
        the project does not define (a builtin, a library's) or what only runs know."""
        if kind != "calls" or receiver == EXPRESSION:
            return None
        scopes = _zig_scopes(source)
        path = typed or receiver
        if not path:
            place = self._zig_path(name, from_path, scopes, 0)
        else:
            # `node.next.f()`: Node's field next (Node@next); `it.next()`, `it = map.iterator()`: Map@=iterator()
            base, *steps = path.split(HOLDS)
            place = self._zig_path(base, from_path, scopes, 0)
            for step in [*steps, name]:
                place = self._zig_step(place, step.removeprefix("="), 0) if place is not None else None
        hit = place[1] if place is not None and place[0] == "symbol" else None
        return hit if hit is not None and hit["kind"] in ("function", "method", "struct") else None

    def _zig_path(self, dotted: str, path: str, scopes: list[str], depth: int) -> Place | None:
        """Where a dotted path written in ``path`` within ``scopes`` (innermost first, "" the file) leads."""
        head, *rest = dotted.split(".")
        bare, call = head.removesuffix("()"), head.endswith("()")
        if head == zig.THIS:  # `self: *@This()`: the container the scope is in, else the file
            own = next((s for s in scopes if s and self.by_file_qual.get((path, s), {}).get("kind") in _CONTAINERS), "")
            place = self._zig_value(zig.THIS + own, path, scopes, depth + 1)
        else:  # Zig forbids shadowing: the innermost scope naming it is the only one
            place = next((p for scope in scopes if (p := self._zig_name(path, scope, bare, depth)) is not None), None)
        place = self._zig_called(place, depth + 1) if call and place is not None else place
        for part in rest:
            place = self._zig_step(place, part, depth + 1) if place is not None else None
        return place

    def _zig_step(self, place: Place, part: str, depth: int) -> Place | None:
        """One step along a path: a file's top-level name or import, a container's member, a field's type."""
        if depth > _ZIG_DEPTH:
            return None
        bare, call = part.removesuffix("()"), part.endswith("()")
        where, what = place
        if where == "symbol" and what["kind"] == "attribute":  # a field: what its declared type is
            typ = zig.field_type(what["signature"])
            owner = owner_of(what["qualname"])
            place = self._zig_path(typ, what["path"], _zig_scopes(owner), depth + 1) if typ else None
            return self._zig_step(place, part, depth + 1) if place is not None else None
        place = self._zig_name(what if where == "file" else what["path"],
                               "" if where == "file" else type_key(what["qualname"]), bare, depth)
        return self._zig_called(place, depth + 1) if call and place is not None else place

    def _zig_name(self, path: str, scope: str, name: str, depth: int) -> Place | None:
        """What a name means in a container of a file (scope "": the file): its member, or where its binding
        (``const mem = std.mem;``, keyed ``scope.name``) leads."""
        found = self._zig_member(path, scope, name)
        if found is not None:
            return "symbol", found
        value = self.file_imports.get(path, {}).get(f"{scope}.{name}" if scope else name)
        return self._zig_value(value, path, _zig_scopes(scope), depth + 1) if value else None

    def _zig_member(self, path: str, scope: str, name: str) -> dict | None:
        """What a file's container (or the file, scope "") defines by a name, a field too; never a test."""
        qual = f"{scope}.{name}" if scope else name
        for mark in ("", "'", "''"):  # a test may have the name first (`test isAligned` above isAligned)
            found = self.by_file_qual.get((path, qual + mark))
            if found is None or found["kind"] != "test":
                return found
        return None

    def _zig_value(self, value: str, path: str, scopes: list[str], depth: int) -> Place | None:
        """Where a Zig binding's value (codebase.zig.bound) leads: a file, a container, an aliased path."""
        if depth > _ZIG_DEPTH:
            return None
        if value.startswith(zig.THIS):
            own = value[len(zig.THIS):]
            return ("file", path) if not own else ("symbol", self.by_file_qual[(path, own)]) \
                if (path, own) in self.by_file_qual else None
        if value.startswith(zig.ALIAS):
            return self._zig_path(value[len(zig.ALIAS):], path, scopes, depth + 1)
        module, _, fields = value.partition(zig.FIELDS)
        files = self.module_files(module, path)
        place: Place | None = ("file", files[0]) if files else None
        for part in fields.split(".") if fields else ():
            place = self._zig_step(place, part, depth + 1) if place is not None else None
        return place

    def _zig_called(self, place: Place, depth: int) -> Place | None:
        """What calling a thing gives, where its signature says: a type function's type (``ArrayList(u8)``), a
        function's declared result (``Point.origin()``, ``fn origin() Self``)."""
        if place[0] != "symbol" or place[1]["kind"] not in ("struct", "function", "method") or depth > _ZIG_DEPTH:
            return None
        what = place[1]
        if what["kind"] == "struct":  # a type function's own struct, or the one it returns (`return HashMap(K, V)`)
            other = self.file_imports.get(what["path"], {}).get(what["qualname"] + "()")
            return self._zig_value(other, what["path"], _zig_scopes(what["qualname"]), depth + 1) if other else place
        typ = zig.returns(what["signature"])
        return self._zig_path(typ, what["path"], _zig_scopes(owner_of(what["qualname"])), depth + 1) if typ else None


def _zig_scopes(qualname: str) -> list[str]:
    """The scopes a name is looked up in from a symbol, innermost first: itself, its containers, the file ("")."""
    scopes = [qualname]
    while scopes[-1]:
        scopes.append(owner_of(scopes[-1]))
    return scopes
