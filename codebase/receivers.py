"""What a call's receiver holds, for ``codebase.resolve``: the class a variable, attribute or chain
(``Ref.typed``) names, through declared types, attributes a class assigns (``holds``), what a function's declared
result gives (awaited, entered with ``with``, unwrapped with Rust's ``?``), and whether a library's type ends it.
"""

from __future__ import annotations

import posixpath
import re
from functools import lru_cache

from .languages import EXTENSIONS, LIBRARY_RESULTS, STATIC_TYPES
from .refs import SELF_RECEIVERS
from .typed import (ASSIGNED, AWAITED, ENTERED, HOLDS, RETURNED, awaited_type, class_name, declared_type, extension_of,
                    kotlin_property, result_type, rust_type, rust_unwrapped)

CLASSY = frozenset({"class", "interface", "struct", "enum", "trait", "impl", "object", "record", "type",
                    "module", "namespace"})
#: what a generator-based context manager's annotation says it yields: Iterator[Store] -> Store
_YIELDED = re.compile(r"(?:[\w.]+\.)?(?:Iterator|Generator|AsyncIterator|AsyncGenerator|ContextManager|"
                      r"AbstractContextManager|AbstractAsyncContextManager)\[\s*([^,\[\]]+?)\s*(?:,.*)?\]")


@lru_cache(maxsize=65_536)
def type_key(qualname: str) -> str:
    """A type's qualname as its members name it: no generic arguments or overload marks, and a Rust impl
    block (``impl Display for Wrapper<T>``) as the type it is for (``Wrapper``)."""
    q = re.sub(r"^impl\b.*?\bfor\s+|^impl\s+", "", qualname)
    prev = ""
    while prev != q:  # innermost arguments first: Foo<Vec<u8>>
        prev, q = q, re.sub(r"<[^<>]*>", "", q)
    return q.replace("'", "").strip()


@lru_cache(maxsize=65_536)
def owner_of(qualname: str) -> str:
    """The type_key of the type a member belongs to ("" for a top-level name)."""
    head, dot, _ = type_key(qualname).rpartition(".")
    return head if dot else ""


def project_path(module: str) -> bool:
    """Whether a module string the project's files do not show may still be the project's own: a path
    (Go's module paths) or a Rust path from the crate."""
    return "/" in module or module.startswith(("crate::", "self::", "super::"))


class ReceiverTypes:
    """The part of ``codebase.resolve.Resolver`` that follows what a receiver holds (a mixin: it reads the
    resolver's symbol maps and calls its ``resolve`` and ``_in_hierarchy``)."""

    def _inherited_attribute(self, receiver: str, source: str) -> tuple[str, str]:
        """(class, file) that the calling method's class, or its nearest base that does, assigns to
        ``self.attr`` (the receiver), or ("", "")."""
        first, _, attr = receiver.partition(".")
        owner = owner_of(source)
        if first not in SELF_RECEIVERS or not attr or "." in attr or not owner:
            return "", ""
        return self._held(owner, attr)

    def _held(self, owner: str, attr: str) -> tuple[str, str]:
        """(class, file) assigned to the attribute ``attr`` of type ``owner`` or of its nearest base that
        assigns it, or ("", "")."""
        queue, seen = [owner], set()
        while queue and len(seen) <= 32:
            typ = queue.pop(0)
            if typ in seen:
                continue
            seen.add(typ)
            if attr in self.held.get(typ, {}):
                return self.held[typ][attr]
            queue.extend(self.bases.get(typ, []))
        return "", ""

    def _of_class(self, name: str, cls: str, from_path: str, imports: dict[str, str],
                  source: str = "") -> tuple[bool, dict | None]:
        """A method called on an instance of ``cls`` (``Store``, ``models.Store``, or what a function returns:
        ``open_store()``): (True, the member of the project class or its nearest base) or (True, None) for a
        class imported from outside the project; (False, None) when ``cls`` is unknown here (a class defined
        in a function, a builtin, a function without a class in its annotation), so that the receiver's name
        decides."""
        known, typ = self._class_of(cls, from_path, imports, source)
        # C#'s extension methods, of a project type or a library's: `static R Borrow(this NewReference r)`
        if typ is None:
            return known, self._extension(name, {cls.rsplit(".", 1)[-1]}) if known and from_path.endswith(".cs") \
                else None
        hit = self._in_hierarchy(type_key(typ["qualname"]), name, typ["path"])
        if hit is None and typ["path"].endswith(".cs"):
            hit = self._extension(name, {t.rsplit(".", 1)[-1] for t in self._ancestors(type_key(typ["qualname"]))})
        return known, hit

    def _extension(self, name: str, types: set[str]) -> dict | None:
        """A C# extension method ``name`` of one of ``types`` (their last names), or None."""
        return next((s for s in self.by_name.get(name, []) if extension_of(s.get("signature", "")) in types), None)

    def _class_of(self, cls: str, from_path: str, imports: dict[str, str],
                  source: str = "") -> tuple[bool, dict | None]:
        """The project type ``cls`` names in ``from_path`` (see ``_of_class``): (True, its symbol), (True, None)
        for a library's, (False, None) when unknown."""
        declared = EXTENSIONS.get(posixpath.splitext(from_path)[1]) in STATIC_TYPES
        if cls.endswith(RETURNED):
            returned = self._returned(cls, from_path, imports, source)
            if returned is None:
                return self._library_result(cls, from_path), None
            cls, from_path = returned
            imports = self.file_imports.get(from_path, {})
            declared = EXTENSIONS.get(posixpath.splitext(from_path)[1]) in STATIC_TYPES
        root, _, rest = cls.partition(".")
        last = cls.rsplit(".", 1)[-1]
        if rest and root not in imports and declared:  # Java's com.acme.Store or Outer.Inner, not imported
            files = self.module_files(cls, from_path)
            if files:
                typ = self._in_module(last, files)
            else:
                typ = self.resolve(last, "extends", from_path, imports)
                typ = typ if typ is not None and ("." + typ["qualname"]).endswith("." + cls) else None
        elif rest:
            if root not in imports:
                return False, None
            files = self._module_files_of(root, imports[root], from_path)
            typ = self._in_module(last, files) if files else None
            # an imported class's nested one: `Delegate.Builder`
            typ = typ or next((t for f in files if (t := self.by_file_qual.get((f, cls))) is not None), None)
            if not files and not project_path(imports[root]):
                return True, None
        else:
            typ = self.resolve(last, "extends", from_path, imports)
            if typ is None and last in imports and not self.module_files(imports[last], from_path) and \
                    not project_path(imports[last]):
                return True, None
        if typ is None and last in imports and project_path(imports[last]):
            # the project's, along a path not followed (Rust's re-export inside a `cfg_feature! { }`): its one type
            found: dict[str, dict] = {}
            for t in self.by_name.get(last, []):
                if t["kind"] in CLASSY and (t["kind"] != "impl" or type_key(t["qualname"]) not in found):
                    found[type_key(t["qualname"])] = t
            if len(found) != 1:
                return False, None
            typ = next(iter(found.values()))
        if typ is None or typ["kind"] not in CLASSY or typ["name"] != last:
            return declared, None  # a declared type the project does not define: java.lang's, a type parameter
        return True, typ

    def _returned(self, call: str, from_path: str, imports: dict[str, str], source: str) -> tuple[str, str] | None:
        """(class, path of the function) that a project function's return annotation names (``-> Store``),
        for a variable assigned its result; under ``with``, what an ``Iterator[Store]`` or
        ``ContextManager[Store]`` yields (a ``@contextmanager``)."""
        function = call.removeprefix(ENTERED).removeprefix(AWAITED).removesuffix(RETURNED)
        receiver, _, fname = function.replace("::", ".").rpartition(".")  # Rust's `Store::open()`
        hit = self.resolve(fname, "calls", from_path, imports, receiver, source)
        return self._result_of(hit, entered=call.startswith(ENTERED), awaited=call.startswith(AWAITED)) \
            if hit is not None else None

    def _follow(self, typed: str, from_path: str, imports: dict[str, str], source: str) -> tuple[str, str]:
        """(class, file naming it) where a chained Ref.typed leads (``Server@store``, ``Store@open()@cursor()``):
        each step is an attribute the class before it assigns, or a method whose declared result it is. A
        class the project does not define ends the chain (what a library's method returns is the library's in
        a language that declares types; for a variable's ASSIGNED step, see ``_library_result``); ("", "") when
        a step cannot be followed."""
        cls, *steps = typed.split(HOLDS)
        path = from_path
        for raw in steps:
            known, typ = self._class_of(cls, path, imports if path == from_path else self.file_imports.get(path, {}),
                                        source)
            step = raw.removeprefix(ASSIGNED)
            if typ is None:  # what a library's method returns is a library's where types are declared
                library = not step.endswith(RETURNED) or (self._library_result(step, path) if raw != step else
                                                          EXTENSIONS.get(posixpath.splitext(path)[1]) in LIBRARY_RESULTS)
                return (cls, path) if known and library else ("", "")
            owner = type_key(typ["qualname"])
            if step.endswith(RETURNED):
                name = step.removeprefix(AWAITED).removeprefix(ENTERED).removesuffix(RETURNED)
                method = self._in_hierarchy(owner, name, typ["path"])
                cls, path = (self._result_of(method, entered=step.startswith(ENTERED), awaited=step.startswith(
                    AWAITED)) if method is not None else None) or ("", "")
            else:
                cls, path = self._held(owner, step)
            if not cls:
                return "", ""
        return cls, path

    def _library_result(self, call: str, from_path: str) -> bool:
        """Whether what a call marked RETURNED that reaches no project function gives is surely a library's: in
        Java, Kotlin, Go, C# or TypeScript, when no project symbol has the function's name."""
        fname = call.removesuffix(RETURNED).replace("::", ".").rpartition(".")[2].split()[-1]  # not `await `
        ours = fname in self.by_name or {fname, kotlin_property(fname)} & self.attributes
        return EXTENSIONS.get(posixpath.splitext(from_path)[1]) in LIBRARY_RESULTS and not ours

    def _result_of(self, hit: dict, entered: bool = False, awaited: bool = False) -> tuple[str, str] | None:
        """(class, path of the function) that a project function's declared result names: Python's ``-> Store``
        (under ``with``, what an ``Iterator[Store]`` yields), Java's ``Store open()``, Kotlin's ``fun open():
        Store``, TypeScript's ``open(): Store``, Go's ``func Open() (*Store, error)``; ``awaited``: what awaiting
        it gives (``Promise<Store>``, ``Task<Store>`` give Store; an ``async def``'s ``-> Store`` is that)."""
        if hit["kind"] == "attribute":  # a Kotlin property through its Java accessor: what the class assigns it
            cls, path = self._held(type_key(owner_of(hit["qualname"])), hit["name"])
            return (cls, path) if cls else None
        if hit["kind"] not in ("function", "method"):
            return None
        if EXTENSIONS.get(posixpath.splitext(hit["path"])[1]) in STATIC_TYPES:
            written = result_type(hit.get("signature", ""), hit["path"], hit["name"])
            if hit["path"].endswith(".rs"):  # `-> io::Result<Self>`: `?` takes the Self out, a method's type
                cls = rust_type(rust_unwrapped(written) if awaited else written)
                cls = owner_of(hit["qualname"]).rsplit(".", 1)[-1] if cls == "Self" else cls
                return (cls, hit["path"]) if cls else None
            cls = declared_type(awaited_type(written) if awaited else written)
            return (cls, hit["path"]) if cls else None
        if "->" not in hit.get("signature", "") or (hit["signature"].startswith("async ") and not awaited
                                                    and not entered):
            return None  # not awaited, an `async def` gives a coroutine, not what its annotation names
        ret = hit["signature"].rsplit("->", 1)[1].strip().rstrip(":").strip()
        if entered:
            m = _YIELDED.fullmatch(ret)
            if m is None and _YIELDED.fullmatch(ret + "[_]"):
                return None  # a bare `-> Iterator` says nothing of what it yields
            ret = m.group(1) if m else ret
        cls = class_name(awaited_type(ret) if awaited else ret)
        return (cls, hit["path"]) if cls else None
