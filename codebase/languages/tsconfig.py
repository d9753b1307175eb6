"""Module aliases that TypeScript and JavaScript projects declare in tsconfig.json or jsconfig.json
(``compilerOptions.paths``: ``"@core/*": ["src/core/*"]``), so that ``import { Store } from "@core/store"``
leads to ``src/core/store.ts``."""

from __future__ import annotations

import json
import logging
import posixpath
import re
from pathlib import Path

log = logging.getLogger("memory_graph.codebase")

#: (folder of the config, relative to the project root; pattern; project-relative targets), nearest config first
Alias = tuple[str, str, tuple[str, ...]]

_MAX_CONFIGS = 500
_MAX_BYTES = 1_000_000
#: a string, or a comment (what JSON with comments, as tsconfig.json is, allows beside JSON)
_JSONC = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.S)


def loads_jsonc(text: str) -> object:
    """Parse JSON with comments and trailing commas, as TypeScript reads its config files."""
    bare = _JSONC.sub(lambda m: m.group(0) if m.group(0).startswith('"') else "", text)
    bare = re.sub(r",(\s*[}\]])", r"\1", bare)
    return json.loads(bare)


def path_aliases(root: str | Path, configs: list[str]) -> list[Alias]:
    """Every ``paths`` entry of these tsconfig*.json and jsconfig*.json files (paths relative to the project
    folder, as ``scan`` finds them), with its targets made project-relative (from ``baseUrl`` when the
    config sets one, else from the config's folder); a config without ``paths`` has those of the one it
    ``extends``. A config that cannot be read is skipped with a warning."""
    read: dict[str, tuple[str, list | None, str | None]] = {}  # path -> (folder, aliases, extended path)
    for name in sorted(configs)[:_MAX_CONFIGS]:
        path, rel = Path(root) / name, posixpath.dirname(name)
        try:
            if path.stat().st_size > _MAX_BYTES:
                continue
            config = loads_jsonc(path.read_text(encoding="utf-8-sig"))
            options = config.get("compilerOptions") or {}
            base = posixpath.normpath(posixpath.join(rel, options.get("baseUrl") or "."))
            own = None
            if isinstance(options.get("paths"), dict):
                own = []
                for pattern, targets in options["paths"].items():
                    made = [_inside(posixpath.join(base, t)) for t in targets if isinstance(t, str)]
                    own.append((pattern, tuple(t for t in made if t is not None)))
            ext = config.get("extends")
            ext = posixpath.normpath(posixpath.join(rel, ext if ext.endswith(".json") else ext + ".json")) \
                if isinstance(ext, str) and ext.startswith(".") else None
            read[name] = (rel, own, ext)
        except (OSError, ValueError, AttributeError, TypeError) as exc:
            log.warning("could not read the module aliases of %s: %s", path, exc)
    out: list[Alias] = []
    for folder, own, ext in read.values():
        seen: set[str] = set()
        while own is None and ext in read and ext not in seen:
            seen.add(ext)
            _, own, ext = read[ext]
        out += [(folder, pattern, targets) for pattern, targets in own or () if targets]
    return list(dict.fromkeys(out))


def _inside(target: str) -> str | None:
    """A config's target as a project-relative path, or None when it leads out of the project."""
    norm = posixpath.normpath(target)
    return None if norm == ".." or norm.startswith("../") else ("" if norm == "." else norm)


def alias_targets(module: str, from_path: str, aliases: list[Alias]) -> list[str]:
    """Project-relative paths (without extension) an aliased module may be, best first: by the configs in the
    importing file's folder and those above it, nearest first, and in each by the pattern with the longest
    prefix, as TypeScript picks it. Empty when no alias matches."""
    here = posixpath.dirname(from_path)
    governing = [a for a in aliases if a[0] == "" or here == a[0] or here.startswith(a[0] + "/")]
    out: list[str] = []
    for _, pattern, targets in sorted(governing, key=lambda a: (-len(a[0]), -len(a[1].split("*")[0]))):
        prefix, star, suffix = pattern.partition("*")
        if star and module.startswith(prefix) and module.endswith(suffix) and \
                len(module) >= len(prefix) + len(suffix):
            rest = module[len(prefix):len(module) - len(suffix)]
            out += [t.replace("*", rest, 1) for t in targets]
        elif not star and module == pattern:
            out += list(targets)
    return list(dict.fromkeys(posixpath.normpath(t) for t in out if t))
