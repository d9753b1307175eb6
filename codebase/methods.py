"""Methods defined outside their type's body: whose members they are, and the interfaces they make Go types
implement.

Go's methods (``func (r *Registry) Gather()``), C++'s out-of-class definitions (``void Disk::save() {}``) and
Rust's methods in ``impl`` blocks are contained by their file or block, so a type's members lacked them and a
method a type inherits could not be found through it; so are the methods (and fields) of a Swift extension or a
Scala companion object. Each becomes a member of its type too: the type of that
name in the same file, else in Go the one in the same folder (its package), else the one in a header of the same
file name, in the same folder or in the project.

Go has no ``implements``: a type implements every interface whose methods it has, its own or promoted from the
types it embeds. Those become ``implements`` edges, so an interface's subclasses and the callers that may reach
a method through an interface can be asked about as in languages that declare them.
"""

from __future__ import annotations

import posixpath
from collections import defaultdict

from .resolve import edge_id, owner_of

#: kinds a method's owner may have: no module, namespace or impl block
_TYPES = frozenset({"class", "struct", "interface", "enum", "trait", "object", "record", "type"})
#: Go kinds that hold methods a value has (an interface's are what it asks for)
_GO_CONCRETE = frozenset({"struct", "type"})


def _folder(symbol: dict) -> str:
    return posixpath.dirname(symbol["path"])


def _stem(path: str) -> str:
    return posixpath.splitext(posixpath.basename(path))[0]


def method_edges(project: str, symbols: list[dict], edges: list[dict]) -> list[dict]:
    """The ``contains`` edges from a type to its methods defined outside its body, and Go's ``implements``
    edges from a type to each interface of the project whose method set its own holds.

    symbols: rows with id, path, name, qualname, kind, parent, start_line; edges: those resolve_edges made.
    """
    types: dict[str, list[dict]] = defaultdict(list)  # qualname -> types of that name
    for s in symbols:
        if s["kind"] in _TYPES:
            types[s["qualname"]].append(s)
    out: dict[str, dict] = {}

    def add(source: dict, kind: str, target: dict) -> None:
        eid = edge_id(project, source["id"], kind, target["name"], target["id"])
        out.setdefault(eid, {"id": eid, "project": project, "path": source["path"], "source": source["id"],
                             "target": target["id"], "target_name": target["name"], "kind": kind,
                             "line": int(target["start_line"] if kind == "contains" else source["start_line"])})

    members: dict[str, list[dict]] = defaultdict(list)  # type id -> its methods
    # blocks that add methods to a type: Rust's `impl`, Swift's extension, a Scala companion object
    impls = {(s["path"], s["qualname"]) for s in symbols if s["kind"] == "impl"}
    for s in symbols:
        in_impl = (s["path"], s["parent"]) in impls
        owner = owner_of(s["qualname"]) if s["kind"] == "method" or s["kind"] == "attribute" and in_impl else ""
        if not owner or (s["parent"] and not s["parent"].startswith("impl ") and not in_impl):
            continue  # defined inside its type's body, which contains it already
        typ = _owner_type(types.get(owner, []), s["path"])
        if typ is not None:
            members[typ["id"]].append(s)
            add(typ, "contains", s)
    by_id = {s["id"]: s for s in symbols}
    for e in edges:  # a Go interface's methods are declared inside it
        if e["kind"] == "contains" and e["source"] in by_id and by_id[e["source"]]["kind"] == "interface" and \
                e["target"] in by_id:
            members[e["source"]].append(by_id[e["target"]])
    _go_implements(symbols, edges, members, add)
    return list(out.values())


def _owner_type(candidates: list[dict], path: str) -> dict | None:
    """The type a method defined in ``path`` belongs to, among the types of its owner's name; None when it is
    not the project's or is ambiguous."""
    same_file = [t for t in candidates if t["path"] == path]
    if same_file:
        return same_file[0]
    same_folder = [t for t in candidates if posixpath.dirname(t["path"]) == posixpath.dirname(path)]
    if path.endswith(".go"):  # a Go package is its folder
        return same_folder[0] if len(same_folder) == 1 else None
    header = [t for t in candidates if _stem(t["path"]) == _stem(path)]  # include/disk.h for src/disk.cpp
    for found in (header, same_folder, candidates):
        if len(found) == 1:
            return found[0]
    return None


def _go_implements(symbols: list[dict], edges: list[dict], members: dict[str, list[dict]], add) -> None:
    """Add an ``implements`` edge from each Go type to each Go interface of the project whose methods (with
    those of the interfaces it embeds) are among the type's own and those of the types it embeds."""
    embeds: dict[str, list[str]] = defaultdict(list)
    for e in edges:
        if e["kind"] == "extends" and e["target"] and e["path"].endswith(".go"):
            embeds[e["source"]].append(e["target"])
    method_names = {t: {m["name"] for m in ms} for t, ms in members.items()}

    def method_set(type_id: str) -> frozenset[str]:
        names, seen, stack = set(), {type_id}, [type_id]
        while stack:  # embedded types' methods are promoted, at any depth
            t = stack.pop()
            names |= method_names.get(t, set())
            for base in embeds.get(t, ()):
                if base not in seen:
                    seen.add(base)
                    stack.append(base)
        return frozenset(names)

    go = [s for s in symbols if s["path"].endswith(".go")]
    interfaces = [(s, method_set(s["id"])) for s in go if s["kind"] == "interface"]
    having: dict[str, list[tuple[dict, frozenset[str]]]] = defaultdict(list)  # method name -> types with it
    for s in go:
        if s["kind"] in _GO_CONCRETE and (names := method_set(s["id"])):
            for n in names:
                having[n].append((s, names))
    for iface, wanted in interfaces:
        if not wanted:  # `any`, or a constraint of types (`~int | ~float64`): every type, or none, has it
            continue
        rarest = min(wanted, key=lambda n: len(having.get(n, ())))
        for typ, names in having.get(rarest, ()):
            if wanted <= names and iface["id"] not in embeds.get(typ["id"], ()) and (
                    all(n[:1].isupper() for n in wanted) or _folder(typ) == _folder(iface)):  # unexported: a package's
                add(typ, "implements", iface)
