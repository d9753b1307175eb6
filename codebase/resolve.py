"""Turn the names a file uses into symbol edges: same file, then imports, then same folder, then the project.

What cannot be resolved (a library call, a builtin, an external base class) is kept as an edge with an empty
target and the name, so `callees` can still say what a function calls.
"""

from __future__ import annotations

import hashlib
import posixpath
from collections import defaultdict
from typing import Iterable

CLASSY = frozenset({"class", "interface", "struct", "enum", "trait", "impl", "object", "record", "type",
                    "module", "namespace"})
CALLABLE = frozenset({"function", "method", "class", "struct", "record", "object"})


def edge_id(project: str, source: str, kind: str, name: str, target: str) -> str:
    raw = f"{project}\x00{source}\x00{kind}\x00{name}\x00{target}".encode()
    return "edge_" + hashlib.sha1(raw).hexdigest()[:24]


def _strip_ext(path: str) -> str:
    base, ext = posixpath.splitext(path)
    return base if ext else path


class Resolver:
    """Indexes a project's symbols once, then resolves names from any of its files."""

    def __init__(self, symbols: Iterable[dict]) -> None:
        self.by_file_name: dict[tuple[str, str], list[dict]] = defaultdict(list)
        self.by_name: dict[str, list[dict]] = defaultdict(list)
        self.by_file_qual: dict[tuple[str, str], dict] = {}
        self.module_of: dict[str, dict] = {}
        self.by_stem: dict[str, list[str]] = defaultdict(list)   # path without extension -> paths
        for s in symbols:
            self.by_file_qual[(s["path"], s["qualname"])] = s
            if s["kind"] == "module":
                self.module_of[s["path"]] = s
                stem = _strip_ext(s["path"])
                self.by_stem[stem].append(s["path"])
                if stem.endswith(("/__init__", "/index", "/mod")):
                    self.by_stem[stem.rsplit("/", 1)[0]].append(s["path"])
                continue
            self.by_file_name[(s["path"], s["name"])].append(s)
            self.by_name[s["name"]].append(s)
        for lst in self.by_name.values():
            lst.sort(key=lambda s: (s["path"], s["start_line"]))

    def module_files(self, module: str, from_path: str) -> list[str]:
        """Project files a module string names ('app.config', './format', 'stdio.h', 'pkg/mathutil')."""
        m = module.strip()
        if not m:
            return []
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
        else:
            keys = [m.replace(".", "/").replace("::", "/"), m.replace("::", "/")]
        found: list[str] = []
        for key in dict.fromkeys(k.lstrip("/") for k in keys):
            if key in self.by_stem:
                found += self.by_stem[key]
            elif key in self.module_of:
                found.append(key)
        if not found:  # suffix match: 'mathutil' in 'gosrc/mathutil.go', 'shapes/Shape' anywhere
            tail = "/" + keys[-1].lstrip("/")
            found = [p for stem, paths in self.by_stem.items() if ("/" + stem).endswith(tail) for p in paths]
            if not found and "/" in keys[0]:
                folder = keys[0].rstrip("/").rsplit("/", 1)[-1]
                found = [p for p in self.module_of if posixpath.basename(posixpath.dirname(p)) == folder]
        return sorted(dict.fromkeys(found))

    def resolve(self, name: str, kind: str, from_path: str, imports: dict[str, str]) -> dict | None:
        """The symbol a name used in ``from_path`` refers to, or None."""
        want = CLASSY if kind in ("extends", "implements") else CALLABLE

        def pick(cands: list[dict]) -> dict | None:
            good = [c for c in cands if c["kind"] in want]
            return (good or cands or [None])[0]

        hit = pick(self.by_file_name.get((from_path, name), []))
        if hit is not None:
            return hit
        if name in imports:
            files = self.module_files(imports[name], from_path)
            cands = [s for f in files for s in self.by_file_name.get((f, name), [])]
            return pick(cands)  # imported from outside the project: unresolved, never guessed
        folder = posixpath.dirname(from_path)
        same_dir = [s for s in self.by_name.get(name, []) if posixpath.dirname(s["path"]) == folder]
        hit = pick(same_dir)
        if hit is not None:
            return hit
        return pick(self.by_name.get(name, []))


def resolve_edges(project: str, symbols: list[dict], files: dict[str, dict]) -> list[dict]:
    """Every edge of a project: contains (parent -> member), calls, imports, extends, implements.

    symbols: rows with id, path, name, qualname, kind, parent, start_line. files: path -> {"refs": [[source
    qualname, kind, name, line], ...], "imports": {name: module}}.
    """
    resolver = Resolver(symbols)
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
    for path, info in sorted(files.items()):
        imports = info.get("imports") or {}
        for source_qual, kind, name, line in info.get("refs") or []:
            src = resolver.by_file_qual.get((path, source_qual)) or resolver.module_of.get(path)
            if src is None or not name:
                continue
            if kind == "imports":
                targets = resolver.module_files(name, path)
                target = resolver.module_of[targets[0]]["id"] if targets else ""
                add(path, src["id"], kind, name, target, line)
                continue
            hit = resolver.resolve(name, kind, path, imports)
            add(path, src["id"], kind, name, hit["id"] if hit is not None else "", line)
    return list(edges.values())
