"""The code half of the Engine: storage of chunks, symbols, edges and files, and code search.

The ``codebase`` package reads repositories and calls these methods; nothing here touches the file system
outside the data directory.
"""

from __future__ import annotations

import json
import re
from pathlib import PurePosixPath
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

import numpy as np
import pyarrow as pa

from .blas import holding_blas
from .errors import NotFoundError, ValidationError
from .graph import CHUNK, DEFINES, SYMBOL, Graph
from .linking import EntityIndex
from .models import MODES, Filters, Hits
from .paths import is_package_file
from .retrieval.density import current_lists, density, update_neighbours
from .runs import keep_runs_out, notes_runs
from .symbols import SYMBOL_RELATIONS
from .store.lance import vector_matrix
from .store.sql import sql_in, sql_quote
from .text import dotted_names
from .validation import check_filter, check_limit, check_name, check_names, check_query
from .writes import Writes

if TYPE_CHECKING:
    from .config import Config
    from .store import LanceStore, TextIndex
    from .views import CodeView

CODE_TABLES = ("code_chunks", "symbols", "symbol_edges", "files", "chunk_neighbours")
#: what a chunk's node holds: code search's filters and each candidate's description, read without LanceDB
CHUNK_NODE_COLUMNS = ["id", "project", "path", "language", "chunk_type", "symbol_id", "start_line", "end_line",
                      "name", "breadcrumb"]
#: symbol kinds of bindings (module-level variables and constants, class attributes): no chunk of their own, the
#: chunk of their scope on their lines defines them
BINDING_KINDS = frozenset({"variable", "constant", "attribute", "macro", "typedef"})
def code_schemas(dim: int) -> dict[str, pa.Schema]:
    s, i, f = pa.string(), pa.int32(), pa.float64()
    return {
        "code_chunks": pa.schema([
            ("id", s), ("project", s), ("path", s), ("language", s), ("start_line", i), ("end_line", i),
            ("chunk_type", s), ("name", s), ("breadcrumb", s), ("signature", s), ("content", s),
            ("content_hash", s), ("symbol_id", s), ("created_at", f),
            pa.field("vector", pa.list_(pa.float32(), dim)),
        ]),
        "symbols": pa.schema([
            ("id", s), ("project", s), ("path", s), ("name", s), ("qualname", s), ("kind", s), ("signature", s),
            ("start_line", i), ("end_line", i), ("parent", s), ("language", s),
        ]),
        "symbol_edges": pa.schema([
            ("id", s), ("project", s), ("path", s), ("source", s), ("target", s), ("target_name", s), ("kind", s),
            ("line", i),
        ]),
        # derived from code_chunks' vectors (update_neighbours), kept for the vector leg's localized centering
        "chunk_neighbours": pa.schema([
            ("id", s), ("project", s), ("path", s), ("neighbours", pa.list_(s)), ("sims", pa.list_(pa.float32())),
        ]),
        "files": pa.schema([
            ("id", s), ("project", s), ("path", s), ("language", s), ("content_hash", s), ("size", pa.int64()),
            ("mtime", f), ("indexed_at", f), ("chunks", i), ("refs", s), ("imports", s), ("root", s),
            ("status", s),
        ]),
    }


#: changes whenever chunk_embed_text does: a data directory that recorded another one re-embeds its code at open.
#: 3 = a signature below a doc comment or decorators is not read twice.
CODE_TEXT_VERSION = "3"


def chunk_embed_text(path: str, breadcrumb: str, signature: str, content: str, layout: str = CODE_TEXT_VERSION) -> str:
    """What the model reads for a code chunk: the scopes enclosing a nested definition ("class Foo" for a
    method), the signature when the window lacks it, then the code; the path only for a chunk with no scope
    (module-level code, plain text). A leading path lowered dense MRR on CoSQA's 500 dev queries from 0.541
    to 0.531 with all-MiniLM-L6-v2 (``python -m benchmarks.probes.cosqa_probe``); BM25 and the path filter still see
    the path. ``layout``: an older CODE_TEXT_VERSION's text, to re-embed only the chunks whose text changed."""
    scopes = breadcrumb.split(" > ")
    head = [" > ".join(scopes[:-1])] if len(scopes) > 1 else ([] if breadcrumb else [path])
    shown = content.lstrip().startswith(signature[:20]) if layout == "2" else shows_signature(content, signature)
    if signature and not shown:
        head.append(signature)
    return "\n".join([*head, content])


_TRIPLE_QUOTED = re.compile(r'"""[\s\S]*?"""')
_SPACE = re.compile(r"\s+")


def shows_signature(content: str, signature: str) -> bool:
    """Whether a chunk's text holds its definition's signature: below a doc comment or decorators too, over
    several lines, around a GraphQL argument's description. Read twice, it had weighed the signature over the
    words documenting it: reading it once took requests' questions from MRR@10 0.786 to 0.809 and rich's from
    0.603 to 0.617, Django's from 0.571 to 0.563 (``python -m benchmarks.probes.repo_probe``, README)."""
    return _SPACE.sub("", signature)[:20] in _SPACE.sub("", _TRIPLE_QUOTED.sub("", content))


def unchanged_vectors(old: pa.Table, chunks: list[dict]) -> list[str]:
    """The ids of ``chunks`` that ``old`` (id and vector columns) holds with the same vector."""
    if not old.num_rows or not chunks:
        return []
    row = {i: r for r, i in enumerate(old.column("id").to_pylist())}
    mat = vector_matrix(old)
    return [c["id"] for c in chunks if c["id"] in row and
            np.array_equal(mat[row[c["id"]]], np.asarray(c["vector"], dtype=mat.dtype))]


def index_symbol(index: EntityIndex, s: dict) -> None:
    """Add a symbol to the in-memory name index by its name and qualified name; a module by the name code
    imports it by (its file's stem, its folder's for ``__init__.py``, ``index.js`` or ``mod.rs``), which only
    dotted names in code queries look up (``timezone.now``): a module never seeds the graph leg itself."""
    name, aliases = s["name"], [s["qualname"]] if s["qualname"] != s["name"] else []
    if s["kind"] == "module":
        path = PurePosixPath(s["path"])
        name, aliases = (path.parent.name if is_package_file(path) else path.stem), []
    # a short module name is kept: only dotted names look modules up (``db.connection``), so it matches no prose
    if len(name) >= 3 or s["kind"] == "module":
        index.add(s["id"], name, s["kind"], aliases)


def link_bindings(graph: Graph, bindings: list[dict], chunks: list[dict], scopes: dict[tuple, str]) -> None:
    """"defines" edges to bindings (``BINDING_KINDS``) from the chunks (or windows) of their scope (a file's
    module code, a namespace, a class) on their first line, so that a query naming one reaches its definition
    as it reaches a function's.

    scopes: (project, path, qualname) -> id of the symbols that may hold bindings.
    """
    spans: dict[str, list[dict]] = {}
    for c in chunks:
        spans.setdefault(c["symbol_id"], []).append(c)
    for s in bindings:
        for c in spans.get(scopes.get((s["project"], s["path"], s["parent"]), ""), ()):
            if c["start_line"] <= s["start_line"] <= c["end_line"]:
                graph.add_edge(c["id"], s["id"], DEFINES, 1.0, key=DEFINES)


class CodeStore:
    """Code chunks, symbols, edges and files: their writes (called by ``codebase.Indexer`` through the Engine)
    and the derived code graph, symbol index and densities of ``view`` (changed under ``graph_lock``).

    Built by the Engine with the stores, the view and its write interface (``writes``); ``copy_vectors()``
    reads the chunks' vectors into an in-process copy, ``keep_chunk_vectors(old, new)`` keeps that copy up to
    date, ``settle()`` freezes a new graph's objects out of the garbage collector's way, and index runs of
    other processes are found in ``data_dir``.
    """

    def __init__(self, config: Config, lance: LanceStore, text: TextIndex, view: CodeView,
                 graph_lock: threading.RLock, writes: Writes, data_dir: Path, copy_vectors: Callable[[], Any],
                 keep_chunk_vectors: Callable[[list[str], list[dict]], None], settle: Callable[[], None]) -> None:
        self.config, self.lance, self.text, self.view, self.writes = config, lance, text, view, writes
        self._graph_lock, self.data_dir = graph_lock, data_dir
        self._copy_vectors, self._keep_chunk_vectors, self._settle = copy_vectors, keep_chunk_vectors, settle

    # ---- loading the derived code graph ------------------------------------
    def load(self, vectors: bool = True) -> None:
        """Build the code graph, the symbol index and the chunks' densities from LanceDB; with ``vectors``, also
        the in-process copy of the chunks' vectors (without, the copy is kept: the chunks did not change)."""
        graph, index = Graph(bridge=SYMBOL), EntityIndex()
        columns = ["id", "name", "qualname", "kind", "project", "path", "start_line", "end_line", "parent"]
        bindings, scopes = [], {}
        for r in self.lance.query("symbols", None, columns).to_pylist():
            if r["kind"] in BINDING_KINDS:
                bindings.append(r)
            else:
                scopes[(r["project"], r["path"], r["qualname"])] = r["id"]
            graph.add_node(r["id"], SYMBOL, name=r["qualname"] or r["name"], project=r["project"],
                           path=r["path"], symbol_kind=r["kind"], lines=(r["start_line"], r["end_line"]))
            index_symbol(index, r)
        holders = {scopes.get((s["project"], s["path"], s["parent"])) for s in bindings}
        scope_chunks = []
        for r in self.lance.query("code_chunks", None, CHUNK_NODE_COLUMNS).to_pylist():
            self.add_chunk_node(graph, r)
            if r["symbol_id"] in holders:
                scope_chunks.append(r)
        link_bindings(graph, bindings, scope_chunks, scopes)
        edges = self.lance.query("symbol_edges", "target != ''", ["source", "target", "kind"])
        for u, v, k in zip(*(edges.column(c).to_pylist() for c in ("source", "target", "kind"))):
            graph.add_edge(u, v, k, 1.0, key=k)
        rows = self.lance.query("chunk_neighbours", None, ["id", "sims"])
        densities = {i: density(s) for i, s in zip(rows.column("id").to_pylist(), rows.column("sims").to_pylist())}
        copy = self._copy_vectors() if vectors else self.view.vectors
        with self._graph_lock:
            self.view.graph, self.view.index, self.view.density = graph, index, densities
            self.view.vectors = copy
        self._settle()

    @staticmethod
    def add_chunk_node(graph: Graph, r: dict) -> None:
        graph.add_node(r["id"], CHUNK, project=r["project"], path=r["path"], language=r["language"],
                       chunk_type=r["chunk_type"], symbol_id=r["symbol_id"], start_line=r["start_line"],
                       end_line=r["end_line"], name=r["name"], breadcrumb=r["breadcrumb"])
        if r["symbol_id"]:
            graph.add_edge(r["id"], r["symbol_id"], DEFINES, 1.0, key=DEFINES)

    # ---- writes (called by codebase.Indexer) --------------------------------
    def files(self, project: str) -> dict[str, dict]:
        """The indexed files of a project: path -> hash, size, mtime, status."""
        rows = self.lance.query("files", f"project = {sql_quote(project)}",
                                ["path", "content_hash", "size", "mtime", "status", "chunks"]).to_pylist()
        return {r["path"]: r for r in rows}

    def vectors(self, project: str, paths: Iterable[str]) -> dict[str, np.ndarray]:
        """The stored vectors of these files' chunks, by the text the model read for each (chunk_embed_text),
        so that re-indexing a changed file embeds only the chunks whose text changed."""
        where = f"project = {sql_quote(project)} AND {sql_in('path', sorted(set(paths)))}"
        rows = self.lance.query("code_chunks", where, ["path", "breadcrumb", "signature", "content", "vector"])
        texts = [chunk_embed_text(*r) for r in zip(*(rows.column(c).to_pylist()
                                                     for c in ("path", "breadcrumb", "signature", "content")))]
        return dict(zip(texts, vector_matrix(rows))) if texts else {}

    def write(self, project: str, files: list[dict], chunks: list[dict], symbols: list[dict],
                   remove_paths: Iterable[str] = ()) -> None:
        """Replace what is stored for some files of a project in one write; remove other paths entirely.

        ``files`` rows are written last in each table order, so an interrupted run re-does these files.
        Raises StoreError (nothing changed) if a store fails.
        """
        paths = sorted({f["path"] for f in files} | set(remove_paths))
        with self.writes.section():
            where = f"project = {sql_quote(project)} AND {sql_in('path', paths)}" if paths else "false"
            old = self.lance.query("code_chunks", where, ["id", "vector"])
            old_chunks = old.column("id").to_pylist()
            old_symbols = self.lance.query("symbols", where, ["id"]).column("id").to_pylist()
            # a chunk cut again with the same id and vector (a chunker upgrade, a file touched back) keeps its
            # neighbour list: recomputing every list of a re-cut repository is most of such a run's time
            same = unchanged_vectors(old, chunks)
            # these files' edges go now and come back when the project is resolved again: until then its edges'
            # stamp says none is current, so that a run interrupted before resolving (or a --force run, whose
            # files keep their hashes) leaves the next run to resolve
            stale_edges = bool(paths) and self.lance.get_meta().get(f"edges:{project}", "") != ""
            with self.lance.transaction([*CODE_TABLES, "meta"]):
                if stale_edges:
                    self.lance.set_meta({f"edges:{project}": ""})
                for name in CODE_TABLES:
                    if paths:
                        keep = f" AND NOT {sql_in('id', same)}" if name == "chunk_neighbours" and same else ""
                        self.lance.delete(name, where + keep)
                self.lance.add("code_chunks", chunks)
                self.lance.add("symbols", symbols)
                self.lance.add("files", files)
                new_ids = {c["id"] for c in chunks}
                self.text.write(upserts=[(c, "code") for c in chunks],
                                deletes=[i for i in old_chunks if i not in new_ids], kind="code")
            with self._graph_lock:
                for node in old_chunks + old_symbols:
                    self.view.graph.remove_node(node)
                    self.view.index.remove(node)
                self._keep_chunk_vectors(old_chunks, chunks)
                for s in symbols:
                    self.view.graph.add_node(s["id"], SYMBOL, name=s["qualname"] or s["name"], project=project,
                                             path=s["path"], symbol_kind=s["kind"],
                                             lines=(s["start_line"], s["end_line"]))
                    index_symbol(self.view.index, s)
                for c in chunks:
                    self.add_chunk_node(self.view.graph, c)
                link_bindings(self.view.graph, [s for s in symbols if s["kind"] in BINDING_KINDS], chunks,
                              {(project, s["path"], s["qualname"]): s["id"] for s in symbols
                               if s["kind"] not in BINDING_KINDS})
            self.writes.after_write()

    def touch(self, project: str, stats: dict[str, tuple[int, float]]) -> None:
        """Record a new size and mtime for files whose content did not change."""
        if not stats:
            return
        with self.writes.section():
            where = f"project = {sql_quote(project)} AND {sql_in('path', stats)}"
            rows = self.lance.query("files", where).to_pylist()
            for r in rows:
                r["size"], r["mtime"] = stats[r["path"]]
            with self.lance.transaction(["files"]):
                self.lance.upsert("files", rows)
            self.writes.after_write()

    def replace_edges(self, project: str, edges: list[dict], stamp: str) -> None:
        """Replace every symbol edge of a project (edges are re-resolved as a whole after each run)."""
        with self.writes.section():
            with self.lance.transaction(["symbol_edges", "meta"]):
                self.lance.delete("symbol_edges", f"project = {sql_quote(project)}")
                self.lance.add("symbol_edges", edges)
                self.lance.set_meta({f"edges:{project}": stamp})
            self.load(vectors=False)
            self.writes.after_write()

    def refresh_density(self, project: str) -> int:
        """Bring the project's chunk neighbour lists (and so each chunk's density) up to date with its chunks;
        only new chunks and lists that named a removed one are computed over the whole project. Returns the
        number of lists written (0 when all are current: then only the ids and the lists are read)."""
        where = f"project = {sql_quote(project)}"
        k = self.config.code_density_k
        with self.writes.section():
            ids = self.lance.query("code_chunks", where, ["id"]).column("id").to_pylist()
            rows = self.lance.query("chunk_neighbours", where, ["id", "neighbours", "sims"]).to_pylist()
            previous = {r["id"]: (r["neighbours"], r["sims"]) for r in rows}
            present = set(ids)
            gone = [i for i in previous if i not in present]
            if not gone and current_lists(ids, previous, k) == present:
                return 0
            chunks = self.lance.query("code_chunks", where, ["id", "path", "vector"])
            ids, paths = chunks.column("id").to_pylist(), chunks.column("path").to_pylist()
            mat = vector_matrix(chunks) if chunks.num_rows else np.zeros((0, 1), np.float32)
            mat = mat / np.linalg.norm(mat, axis=1, keepdims=True).clip(1e-12)
            del chunks  # its vectors (twice the matrix's size) are not needed while the lists are computed
            lists = update_neighbours(ids, mat, previous, k)
            path_of = dict(zip(ids, paths))
            out = [{"id": i, "project": project, "path": path_of[i], "neighbours": n, "sims": v}
                   for i, (n, v) in lists.items()]
            with self.lance.transaction(["chunk_neighbours"]):
                stale = gone + [i for i in lists if i in previous]
                for start in range(0, len(stale), 500):
                    self.lance.delete("chunk_neighbours", f"{where} AND {sql_in('id', stale[start:start + 500])}")
                self.lance.add("chunk_neighbours", out)
            with self._graph_lock:
                for i in gone:
                    self.view.density.pop(i, None)
                self.view.density.update({i: density(v) for i, (_, v) in lists.items()})
            self.writes.after_write()
        return len(out)

    def symbols_and_refs(self, project: str) -> tuple[list[dict], dict[str, dict]]:
        """What the resolver needs: every symbol of a project and each file's references and imports."""
        where = f"project = {sql_quote(project)}"
        symbols = self.lance.query("symbols", where, ["id", "path", "name", "qualname", "kind", "parent",
                                                      "start_line", "signature"]).to_pylist()
        files = {r["path"]: {"refs": json.loads(r["refs"] or "[]"), "imports": json.loads(r["imports"] or "{}")}
                 for r in self.lance.query("files", where, ["path", "refs", "imports"]).to_pylist()}
        return symbols, files

    def delete_project(self, project: str, wait: float = 1.0) -> dict[str, int]:
        """Drop a project's code index (chunks, symbols, edges, files). Memories are kept.

        Raises BusyError if an index run of the project (in any process) does not end within ``wait``
        seconds: what it wrote next would bring part of the project back."""
        project = check_name(project, "project")
        where = f"project = {sql_quote(project)}"
        runs = keep_runs_out(self.data_dir, project, wait, doing="deleted")
        try:
            with self.writes.section():
                counts = {name: self.lance.count(name, where) for name in CODE_TABLES}
                if not counts["files"] and not counts["code_chunks"]:
                    raise NotFoundError("project", [project], hint="project_status lists the indexed projects")
                ids = self.lance.query("code_chunks", where, ["id"]).column("id").to_pylist()
                with self.lance.transaction([*CODE_TABLES, "meta"]):
                    for name in CODE_TABLES:
                        self.lance.delete(name, where)
                    self.lance.set_meta({f"edges:{project}": ""})
                    self.text.write(deletes=ids, kind="code")
                self.load()
                self.writes.after_write()
        finally:
            runs.release()
        return counts


class CodeMixin:
    """The Engine's code methods (mixed into it), each a validation and a hand-off: the writes
    ``codebase.Indexer`` calls to ``CodeStore``, projects and scopes to ``Projects``, code search and symbols to
    ``CodeSearch`` and ``Symbols``. It holds no state of its own."""

    # ---- writes (``CodeStore``) ---------------------------------------------
    def _load_code_graph(self, vectors: bool = True) -> None:
        self.code_store.load(vectors)

    def code_files(self, project: str) -> dict[str, dict]:
        return self.code_store.files(project)

    def code_vectors(self, project: str, paths: Iterable[str]) -> dict[str, np.ndarray]:
        return self.code_store.vectors(project, paths)

    def code_write(self, project: str, files: list[dict], chunks: list[dict], symbols: list[dict],
                   remove_paths: Iterable[str] = ()) -> None:
        self.code_store.write(project, files, chunks, symbols, remove_paths)

    def code_touch(self, project: str, stats: dict[str, tuple[int, float]]) -> None:
        self.code_store.touch(project, stats)

    def code_replace_edges(self, project: str, edges: list[dict], stamp: str) -> None:
        self.code_store.replace_edges(project, edges, stamp)

    def code_refresh_density(self, project: str) -> int:
        return self.code_store.refresh_density(project)

    def code_symbols_and_refs(self, project: str) -> tuple[list[dict], dict[str, dict]]:
        return self.code_store.symbols_and_refs(project)

    def delete_project(self, project: str, wait: float = 1.0) -> dict[str, int]:
        """Drop a project's code index (chunks, symbols, edges, files); memories are kept (``CodeStore``)."""
        return self.code_store.delete_project(project, wait)

    # ---- projects and scopes (``Projects``) ----------------------------------
    def has_code(self, project: str | None) -> bool:
        """Whether a project has a code index (one cheap count; for every search_code call)."""
        return self.projects.has_code(project)

    def indexing(self, project: str | None = None) -> list[dict[str, Any]]:
        """The index runs in progress on this data directory, in any process (or one project's)."""
        return self.projects.indexing(project)

    def index_note(self, project: str | None) -> str | None:
        """A note for answers about a project being indexed (for None: about any project being indexed)."""
        return self.projects.index_note(project)

    def check_project(self, project: str | None) -> None:
        """Raise NotFoundError, naming the indexed projects, when a project is given and has no code index."""
        self.projects.check_project(project)

    def check_scope(self, project: str | None, path_prefix: str | None) -> None:
        """Raise NotFoundError when the project is not indexed or no indexed file's path has the prefix."""
        self.projects.check_scope(project, path_prefix)

    def code_projects(self, project: str | None = None) -> list[dict[str, Any]]:
        """Indexed projects (or one) with their counts and the time of the last indexed file."""
        return self.projects.code_projects(project)

    def path_scope(self, path_prefix: str | None, project: str | None) -> tuple[str | None, str | None]:
        """A path_prefix as paths are stored, and the project (``Projects.path_scope``)."""
        return self.projects.path_scope(path_prefix, project)

    def project_root(self, project: str) -> str | None:
        return self.projects.project_root(project)

    @notes_runs
    @holding_blas
    def search_code(self, query: str, limit: int = 10, mode: str = "hybrid", project: str | None = None,
                    path_prefix: str | None = None, languages: Iterable[str] | str | None = None,
                    chunk_types: Iterable[str] | str | None = None, use_ppr: bool | None = None,
                    use_mmr: bool = True, timings: dict[str, float] | None = None) -> Hits:
        """Search code chunks through the full pipeline (no decay; ``CodeSearch``). Every hit carries path,
        lines and why; the list carries the search's confidence, and a note when nothing matches well.

        use_ppr: damp with PageRank from the symbols the question names (default ``Config.code_ppr``).
        timings: a dict that receives the seconds of each stage (legs, from the first step, link: the query's
        names and files; embed, fusion, describe, ppr_edges, ppr, mmr).
        """
        query = check_query(query, self.config)
        check_limit(limit, self.config)
        if mode not in MODES:
            raise ValidationError(f"mode={mode!r} is not one of {', '.join(MODES)}")
        path_prefix, project = self.path_scope(check_filter(path_prefix, "path_prefix"),
                                               check_filter(project, "project"))
        filters = Filters(project=project, include_global=False, path_prefix=path_prefix,
                          languages=check_names(languages, "languages"), chunk_types=check_names(chunk_types, "chunk_types"))
        self.sync.catch_up()
        use_ppr = self.config.code_ppr if use_ppr is None else use_ppr
        hits = self.code_search.search(query, limit, mode, filters, use_ppr, use_mmr, timings)
        if not hits:  # a misspelt project or path would otherwise look like a search that found nothing
            self.check_scope(filters.project, filters.path_prefix)
        return hits

    @notes_runs
    def find_symbols(self, name: str, project: str | None = None, kind: str | None = None,
                     path_prefix: str | None = None, limit: int = 20) -> list[dict]:
        """Symbols by name or signature (``Symbols.find``): exact name first, then prefix, then substring; a
        dotted path or a file's path with a member or line puts what it names first."""
        name = dotted_names(check_name(name, "name"))  # Rack::Utils is stored as Rack.Utils
        check_limit(limit, self.config)
        path_prefix, project = self.path_scope(check_filter(path_prefix, "path_prefix"),
                                               check_filter(project, "project"))
        found = self.symbols.find(name, project, kind, path_prefix, limit)
        if not found:
            self.check_scope(project, path_prefix)
        return found

    @notes_runs
    def symbol_graph(self, symbol: str, relation: str = "callers", depth: int = 1, project: str | None = None,
                     limit: int = 100) -> dict[str, Any]:
        """Callers, callees, imports, subclasses (and more, see ``symbols.SYMBOL_RELATIONS``) of a symbol,
        depth-limited (``Symbols.relations``)."""
        if relation not in SYMBOL_RELATIONS:
            raise ValidationError(f"relation={relation!r} is not one of {', '.join(SYMBOL_RELATIONS)}")
        if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= self.config.max_graph_depth:
            raise ValidationError(f"depth must be an integer from 1 to {self.config.max_graph_depth}")
        check_limit(limit, self.config)
        self.sync.catch_up()
        return self.symbols.relations(symbol, relation, depth, project, limit)

    def get_chunks(self, ids: str | list[str]) -> list[dict]:
        """Full code chunks (content included, vectors never) in the order asked."""
        from .validation import check_ids

        ids = check_ids(ids)
        cols = ["id", "project", "path", "language", "start_line", "end_line", "chunk_type", "name", "breadcrumb",
                "signature", "content"]
        rows = {r["id"]: r for r in self.lance.by_ids("code_chunks", ids, cols).to_pylist()}
        missing = [i for i in ids if i not in rows]
        if missing:
            raise NotFoundError("code chunk", missing)
        return [rows[i] for i in ids]

