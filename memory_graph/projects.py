"""The indexed projects: their roots, counts and index runs, and the scopes a code question may name
(``Projects``)."""

from __future__ import annotations

import posixpath
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from .errors import NotFoundError, ValidationError
from .runs import describe, running
from .store.sql import sql_quote

if TYPE_CHECKING:
    from .config import Config
    from .store import LanceStore


class Projects:
    """What is indexed, read from LanceDB's files table: which projects, from which roots, with how many files,
    chunks, symbols and edges; which runs are indexing them (``data_dir``); and whether a project or a path a
    question names is indexed. ``generation()`` changes whenever the data may have: a count kept between calls
    is read again then."""

    def __init__(self, config: Config, lance: LanceStore, data_dir: Path, generation: Callable[[], int]) -> None:
        self.config, self.lance, self.data_dir, self._generation = config, lance, data_dir, generation
        self._chunk_ratio: tuple[int, dict[str | None, float]] = (-1, {})  # generation, chunks per file by project

    def has_code(self, project: str | None) -> bool:
        """Whether a project has a code index (one cheap count; for every search_code call)."""
        return bool(project) and self.lance.count("files", f"project = {sql_quote(project)}") > 0

    def indexing(self, project: str | None = None) -> list[dict[str, Any]]:
        """The index runs in progress on this data directory, in any process (or one project's)."""
        return running(self.data_dir, project)

    def index_note(self, project: str | None) -> str | None:
        """A note for answers about a project being indexed (for None: about any project being indexed)."""
        return "; ".join(describe(r) for r in self.indexing(project)) or None

    def check_project(self, project: str | None) -> None:
        """Raise NotFoundError, naming the indexed projects, when a project is given and has no code index
        (and no run is indexing it: its first files are not written yet)."""
        if project and not self.has_code(project) and not self.indexing(project):
            names = sorted(self.roots())
            known = f"the indexed projects are {', '.join(names)}" if names else "no project is indexed yet"
            raise NotFoundError("project", [project], hint=f"{known}; index_project indexes a folder")

    def check_scope(self, project: str | None, path_prefix: str | None) -> None:
        """Raise NotFoundError when the project is not indexed or no indexed file's path has the prefix."""
        self.check_project(project)
        if path_prefix:
            where = (f"project = {sql_quote(project)} AND " if project else "") + \
                f"starts_with(path, {sql_quote(path_prefix)})"
            if not self.lance.count("files", where):
                raise NotFoundError("path", [path_prefix], message=f"no indexed file's path starts with "
                                    f"{path_prefix!r}", hint="paths are relative to the project's root; "
                                    "search_symbols with a file's name finds where it is")

    def code_projects(self, project: str | None = None) -> list[dict[str, Any]]:
        """Indexed projects (or one) with their counts and the time of the last indexed file."""
        where = f"project = {sql_quote(project)}" if project else None
        rows = self.lance.query("files", where, ["project", "root", "indexed_at", "chunks"]).to_pylist()
        out: dict[str, dict] = {}
        for r in rows:
            p = out.setdefault(r["project"], {"project": r["project"], "root": r["root"], "files": 0,
                                              "chunks": 0, "last_indexed": 0.0})
            p["files"] += 1
            p["chunks"] += r["chunks"] or 0
            p["last_indexed"] = max(p["last_indexed"], r["indexed_at"] or 0.0)
        for p in out.values():
            where = f"project = {sql_quote(p['project'])}"
            p["symbols"] = self.lance.count("symbols", where)
            p["edges"] = self.lance.count("symbol_edges", where)
            p["unresolved_edges"] = self.lance.count("symbol_edges", f"{where} AND target = ''")
        return sorted(out.values(), key=lambda p: p["project"])

    def path_scope(self, path_prefix: str | None, project: str | None) -> tuple[str | None, str | None]:
        """A path_prefix as paths are stored (relative to the project's root, "/"-separated), and the project.

        ``./src/`` and an absolute path under an indexed root (as an editor or a traceback has it) name the
        folder ``src/`` names; an absolute path also picks the project whose root holds it.
        Raises ValidationError for an absolute path under no indexed project's root (the error lists them)."""
        if not path_prefix:
            return None, project
        wanted = posixpath.normpath(path_prefix) + ("/" if path_prefix.endswith("/") else "")
        if not wanted.startswith("/"):
            if wanted.split("/")[0] == "..":
                raise ValidationError(f"path_prefix {path_prefix} leads out of the project's root",
                                      hint="give a path relative to the project's root, such as src/")
            return (None if wanted in (".", "./") else wanted), project
        roots = self.roots(project)
        for name, root in sorted(roots.items(), key=lambda nr: -len(nr[1])):  # nested roots: the deepest one
            root = root.rstrip("/")
            if wanted.rstrip("/") == root:
                return None, name
            if wanted.startswith(root + "/"):
                return wanted[len(root) + 1:], name
        if project:
            self.check_project(project)
        listed = ", ".join(f"{r} ({n})" for n, r in sorted(roots.items())) or "none"
        raise ValidationError(f"path_prefix {path_prefix} is under no indexed project's root (roots: {listed})",
                              hint="give a path relative to the project's root, such as src/")

    def roots(self, project: str | None = None) -> dict[str, str]:
        """Each indexed project's root folder (a row per file is read: for errors and absolute paths only)."""
        where = f"project = {sql_quote(project)}" if project else None
        return {r["project"]: r["root"] for r in self.lance.query("files", where, ["project", "root"]).to_pylist()}

    def chunks_per_file(self, project: str | None) -> float:
        """Chunks per indexed file of a project (or of every project): a repository's files hold several
        definitions, a collection of snippets one each. Counted once per change of the data."""
        generation = self._generation()
        if self._chunk_ratio[0] != generation:
            self._chunk_ratio = (generation, {})
        known = self._chunk_ratio[1]
        if project not in known:  # each project's kept: questions about several repositories take turns
            where = f"project = {sql_quote(project)}" if project else None
            files = self.lance.count("files", where)
            known[project] = self.lance.count("code_chunks", where) / files if files else 0.0
        return known[project]

    def project_root(self, project: str) -> str | None:
        """The folder a project was indexed from, or None."""
        rows = self.lance.query("files", f"project = {sql_quote(project)}", ["root"], limit=1).to_pylist()
        return rows[0]["root"] if rows else None
