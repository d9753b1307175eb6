"""The Engine: one facade over the stores, the graph and the retrieval pipeline."""

from __future__ import annotations

import logging
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Iterator

import numpy as np
from filelock import FileLock

from .blas import holding_blas
from .code import CodeMixin, CodeStore
from .code_search import CodeSearch
from .config import Config, default_data_dir
from .embedding import Embedder, SentenceTransformerEmbedder
from .entities import Entities
from .errors import NotFoundError, ReadOnlyError, ValidationError
from .heap import thaw_heap
from .legs_runner import LegRunner
from .memories import Memories
from .memory_search import MemorySearch
from .lock import write_lock
from .maintenance import Progress, Upkeep
from .models import MODES, Entity, Hit, Memory, Relation
from .store import LanceStore, TextIndex
from .store.remote import local_dir
from .projects import Projects
from .symbols import Symbols
from .sync import Sync
from .views import CodeView, MemoryView
from .writes import Writes
from .transfer import Transfer
from .validation import check_filters, check_ids, check_limit, check_query

log = logging.getLogger("memory_graph")



def _view_field(view: str, name: str, doc: str) -> property:
    """An Engine attribute that reads and sets a field of one of its derived views."""
    return property(lambda self: getattr(getattr(self, view), name),
                    lambda self, value: setattr(getattr(self, view), name, value), doc=doc)


class Engine(CodeMixin):
    """Long-term memory over LanceDB (truth), Tantivy (BM25) and a networkx graph.

    A facade: it validates, scopes, keeps the stores and views consistent across writes and processes, and hands
    each question to the component built here to answer it (``MemorySearch``, ``CodeSearch``, ``Symbols``).

    data_dir: where everything lives (default ``$MEMORY_GRAPH_HOME`` or the user data dir); with
    ``config.store_uri`` (s3://, gs://, az://) the records live there, and the data directory keeps the rest.
    config: every tunable (default ``Config.from_env()``). embedder: any object with ``encode``,
    ``encode_query``, ``name`` and ``dimension`` (default: the packaged all-MiniLM-L6-v2, loaded lazily).
    """

    def __init__(self, data_dir: str | Path | None = None, config: Config | None = None,
                 embedder: Embedder | None = None, *, load_model_in_background: bool = False) -> None:
        self.config = config or Config.from_env()
        c = self.config
        self.data_dir, self.store_uri = local_dir(Path(data_dir).expanduser() if data_dir else default_data_dir(),
                                                  c.store_uri, c.store_conditional_writes, c.store_single_writer)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.embedder = embedder or SentenceTransformerEmbedder(
            self.config.embedding_model, self.config.embedding_batch_size, self.config.embedding_cache_size,
            self.config.query_cache_size, self.config.embedding_backend, self.config.embedding_batch_tokens)
        if load_model_in_background and hasattr(self.embedder, "start_loading"):
            self.embedder.start_loading()
        self._lock = threading.RLock()
        # held while the graphs or entity indexes change in place and while a search walks them: a write or
        # a catch-up in one thread must not change a dict another thread is iterating
        self._graph_lock = threading.RLock()
        self._file_lock = FileLock(str(self.data_dir / ".write.lock"))
        self.lance = LanceStore(self.data_dir / "lance", self.config, uri=self.store_uri)
        self.text = TextIndex(self.data_dir / "bm25", self.config.max_query_terms)
        self.memory_view, self.code_view = MemoryView(), CodeView()  # derived: filled by Upkeep.open
        self.legs = LegRunner(c.search_timeout_seconds)
        self.sync = Sync(c, self.lance, self.text, self.data_dir, self.memory_view, self.code_view, self._lock,
                         self._graph_lock, self._file_lock, lambda vectors=True: self.code_store.load(vectors),
                         self._forget_reads)
        self.writes = Writes(self._writing, self.sync.log_change, self.sync.after_write, self._now, self.sync.catch_up)
        self.entities = Entities(c, self.lance, self.memory_view, self._graph_lock, lambda: self.embedder, self.writes)
        self.memories = Memories(c, self.lance, self.text, self.memory_view, self._graph_lock, lambda: self.embedder,
                                 self.entities, self.writes, self.sync.keep_vectors, self.sync.settle_if_grown,
                                 lambda *args: self.memory_search.nearest_memories(*args))
        self.code_store = CodeStore(c, self.lance, self.text, self.code_view, self._graph_lock, self.writes,
                                    self.data_dir, lambda: self.sync.copy_vectors("code_chunks"),
                                    self.sync.keep_chunk_vectors, self.sync.settle)
        self.upkeep = Upkeep(c, self.lance, self.text, self.memory_view, self.code_view, lambda: self.embedder,
                             self.sync, self.code_store, self.writes, self.data_dir, self.store_uri, self._file_lock,
                             lambda: self._read_only, self._forget_reads)
        self.projects = Projects(c, self.lance, self.data_dir, lambda: self._generation)
        self.symbols = Symbols(c, self.lance, self.code_view, self._graph_lock, self.sync.catch_up,
                               self.projects.check_project)
        self.memory_search = MemorySearch(c, self.lance, self.text, self.memory_view, self._graph_lock,
                                          self._embed_query, self.legs.collect)
        self.transfer = Transfer(c, self.lance, self.text, lambda: self.embedder, self._writing,
                                 lambda: self.sync.log_change(full=True), self._after_import)
        self.code_search = CodeSearch(c, self.lance, self.text, self.code_view, self.symbols, self._graph_lock,
                                      self._embed_query, self.legs.collect, self.projects.chunks_per_file)
        self._generation = 0  # bumped whenever the data may change; a read that spans a bump is not cached
        self._read_only: ReadOnlyError | None = None  # why this engine can only read, if it can
        try:
            with self._writing():
                self.upkeep.open()
        except ReadOnlyError as exc:  # a read-only directory, a full disk holding an unfinished write
            self._read_only = exc
            self.upkeep.open_for_reading(exc)

    @property
    def config(self) -> Config:
        """Every tunable; setting it (a benchmark's variant) sets it for the components too."""
        return self._config

    @config.setter
    def config(self, value: Config) -> None:
        self._config = value
        for part in ("symbols", "code_search", "memory_search", "transfer", "entities", "code_store", "memories",
                     "sync", "upkeep", "projects"):
            if part in self.__dict__:
                getattr(self, part).config = value
        if "legs" in self.__dict__:
            self.legs.timeout_seconds = value.search_timeout_seconds
        if "code_search" in self.__dict__:  # what searches keep was read under the old settings
            self._forget_reads()

    # ---- the derived views, by the names the CLI, the server and the tests read ----------------
    graph = _view_field("memory_view", "graph", "the memory graph (``MemoryView.graph``)")
    entity_index = _view_field("memory_view", "index", "the entities' name index")
    memory_vectors = _view_field("memory_view", "vectors", "the in-process copy of the memories' vectors, or None")
    passage_vectors = _view_field("memory_view", "passages", "the in-process copy of the passages' vectors, or None")
    code_graph = _view_field("code_view", "graph", "the code graph (``CodeView.graph``)")
    symbol_index = _view_field("code_view", "index", "the symbols' name index")
    chunk_vectors = _view_field("code_view", "vectors", "the in-process copy of the code chunks' vectors, or None")
    chunk_density = _view_field("code_view", "density", "code chunk id -> its neighbourhood density")

    # ---- plumbing -------------------------------------------------------
    @contextmanager
    def _writing(self) -> Iterator[None]:
        """Serialise writers: threads of this process, and other processes on the same data directory."""
        c = self.config
        if self._read_only is not None:
            raise ReadOnlyError(f"{self.data_dir} was opened for reading only: {self._read_only.message}",
                                hint="once it can be written, open it again (restart the server)")
        with self._lock, write_lock(self._file_lock, self.data_dir, c.lock_notice_seconds, c.lock_timeout_seconds):
            if self.text.unwritable is not None:
                raise ReadOnlyError(f"the text index cannot be opened for writing: {self.text.unwritable}")
            self.lance.recover()
            if self.sync.known_versions is not None:
                self.sync.with_others(locked=True)
            self._forget_reads()
            commits = self.lance.commits
            try:
                yield
            finally:
                if self.lance.unlogged_since(commits):  # a code write, on object storage (unlogged_since)
                    try:
                        self.sync.log_change()
                    except Exception as exc:  # committed all the same: others see it at the next change
                        log.warning("could not log a change for other machines: %s", exc)
                self._forget_reads()
                self.sync.mark_changed()

    def _forget_reads(self) -> None:
        """Drop what searches keep between writes (called when this or another process changes the data)."""
        self._generation += 1
        self.memory_search.forget_reads()
        self.code_search.forget_reads()

    def close(self) -> None:
        self.legs.close()
        if self.config.gc_freeze:
            thaw_heap()

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @staticmethod
    def _now() -> float:
        return time.time()

    # ---- memories: writes -----------------------------------------------
    def store(self, content: str, memory_type: str = "episodic", title: str | None = None,
              tags: Iterable[str] | str | None = None, importance: int = 5, project: str | None = None,
              source: str | None = None, metadata: dict | None = None, entities: Iterable[str] | None = None,
              valid_from=None, valid_until=None, created_at=None) -> str:
        """Store one memory; returns its id. Raises ValidationError on bad input (nothing is written)."""
        return self.store_many([dict(content=content, memory_type=memory_type, title=title, tags=tags,
                                     importance=importance, project=project, source=source, metadata=metadata,
                                     entities=entities, valid_from=valid_from, valid_until=valid_until,
                                     created_at=created_at)])[0]

    def store_many(self, items: list[dict], _vectors=None) -> list[str]:
        """Store many memories in one write (one embedding batch, one commit per store). Returns their ids.

        Either every memory is stored or, on any error, none is (``Memories.store_many``).
        """
        return self.memories.store_many(items, _vectors)

    def update(self, memory_id: str, *, content: str | None = None, title: str | None = None,
               memory_type: str | None = None, tags=None, importance: int | None = None,
               project: str | None = None, source: str | None = None, metadata: dict | None = None,
               valid_from=None, valid_until=None) -> Memory:
        """Change fields of a memory; re-embeds and re-links only if content (or title) changed."""
        return self.memories.update(memory_id, content=content, title=title, memory_type=memory_type, tags=tags,
                                    importance=importance, project=project, source=source, metadata=metadata,
                                    valid_from=valid_from, valid_until=valid_until)

    def invalidate(self, memory_id: str, at=None, reason: str = "", superseded_by: str | None = None) -> Memory:
        """End a memory's validity (now, or at ``at``), with a reason and the id of what replaces it
        (``Memories.invalidate``)."""
        return self.memories.invalidate(memory_id, at, reason, superseded_by)

    def delete(self, memory_ids: str | list[str]) -> int:
        """Hard-delete memories with their mentions, relations and index entries. Returns how many."""
        return self.memories.delete(memory_ids)

    # ---- memories: reads ------------------------------------------------
    def get(self, memory_ids: str | list[str], strict: bool = True) -> list[Memory]:
        """Full records in the order asked. strict: raise NotFoundError naming any unknown id."""
        return self.memories.get(memory_ids, strict)

    def duplicates(self, memory_id: str, limit: int = 5) -> list[str]:
        """Up to ``limit`` other memories of the same project with exactly the same content, oldest first."""
        return self.memories.duplicates(memory_id, limit)

    def may_update(self, memory_id: str, limit: int = 3) -> list[tuple[str, float]]:
        """Older facts of the same project that this memory probably updates (``MemorySearch.may_update``),
        most alike first: for the caller to retire with ``invalidate(old, superseded_by=new)``."""
        check_ids([memory_id])
        self.sync.catch_up()
        return self.memory_search.may_update(memory_id, self._now(), limit)

    def similar(self, memory_id: str) -> list[tuple[str, float]]:
        """Current memories of the same project that say much the same as this one, most alike first
        (``Memories.similar``)."""
        return self.memories.similar(memory_id)

    def list(self, project: str | None = None, memory_type: str | Iterable[str] | None = None, tags=None,
             created_after=None, created_before=None, valid_at=None, include_invalid: bool = True,
             limit: int = 20, offset: int = 0, order_by: str = "created_at",
             descending: bool = True) -> tuple[list[Memory], int]:
        """Memories matching the filters, one page at a time. Returns (page, total matching)."""
        return self.memories.page(project, memory_type, tags, created_after, created_before, valid_at,
                                  include_invalid, limit, offset, order_by, descending)

    def timeline(self, anchor_id: str | None = None, query: str | None = None, before: int = 3,
                 after: int = 3, project: str | None = None) -> dict[str, Any]:
        """Chronological neighbours of an anchor memory (or of the top hit of a query) in its project."""
        for n, v in (("before", before), ("after", after)):
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 100:
                raise ValidationError(f"{n} must be an integer from 0 to 100")
        if anchor_id is None:
            if not query:
                raise ValidationError("give an anchor id or a query")
            hits = self.search(query, limit=1, project=project)
            if not hits:
                raise NotFoundError("memory", [], hint="try another query",
                                    message=f"no memory matches {query[:40]!r} to anchor the timeline")
            anchor_id = hits[0].id
        return self.memories.timeline(anchor_id, before, after)

    # ---- entities and relations (``Entities``) ---------------------------
    def create_entity(self, name: str, entity_type: str = "concept", description: str = "",
                      aliases: Iterable[str] | None = None) -> Entity:
        """Create an entity, or return (and enrich) the one of that name and type (``Entities.create``)."""
        return self.entities.create(name, entity_type, description, aliases)

    def get_entity(self, ref: str) -> Entity:
        """An entity by id or by name (any type)."""
        return self.entities.get(ref)

    def list_entities(self, entity_type: str | None = None, limit: int = 100) -> list[Entity]:
        return self.entities.of_type(entity_type, limit)

    def memory_projects(self) -> list[str]:
        """The projects that hold memories, sorted."""
        return self.entities.projects()

    def project_hint(self, project: str | None) -> str | None:
        """After a search scoped to ``project``: a note when it holds no memory (``Entities.project_hint``)."""
        return self.entities.project_hint(project)

    def create_relation(self, source: str, target: str, relation_type: str = "related_to", weight: float = 1.0,
                        valid_from=None, valid_until=None) -> Relation:
        """Link two entities or memories (ids, or entity names; a new name becomes an entity)."""
        return self.entities.create_relation(source, target, relation_type, weight, valid_from, valid_until)

    def get_related(self, ref: str, depth: int = 1, direction: str = "both",
                    relation_types: Iterable[str] | None = None, limit: int = 100) -> list[dict]:
        """Neighbours of an entity or memory within ``depth`` hops, with names and titles."""
        return self.entities.related(ref, depth, direction, relation_types, limit)

    def delete_entity(self, ref: str) -> dict:
        """Delete an entity (with its mentions and relations) or a relation (by its rel_ id)."""
        return self.entities.delete(ref)

    def prune_entities(self, apply: bool = False) -> list[Entity]:
        """Extracted names that extraction would not create today (``Entities.prune``); apply: delete them."""
        return self.entities.prune(apply)

    def communities(self, min_size: int = 2, top: int = 5) -> list[dict]:
        """Louvain communities of the entity graph, each with its best-connected members by name."""
        return self.entities.communities(min_size, top)

    # ---- search ---------------------------------------------------------
    @holding_blas
    def search(self, query: str, limit: int = 10, mode: str = "hybrid", project: str | None = None,
               include_global: bool = True, types=None, tags=None, created_after=None, created_before=None,
               as_of=None, include_invalid: bool = False, min_score: float | None = None,
               use_ppr: bool = True, use_decay: bool = True, use_mmr: bool = True,
               timings: dict[str, float] | None = None) -> list[Hit]:
        """Search memories through the full pipeline. Every hit carries its explanation.

        mode: hybrid (all three legs), vector, bm25 or graph. project: one project plus global memories
        (include_global), or None for all. as_of: judge validity and decay at that time.
        min_score: absolute floor on the [0, 1] score (besides the relative floor in the config).
        timings: a dict that receives the seconds of each stage (embed, each leg, fusion, ppr, decay, mmr).
        """
        query = check_query(query, self.config)
        check_limit(limit, self.config)
        if mode not in MODES:
            raise ValidationError(f"mode={mode!r} is not one of {', '.join(MODES)}")
        if min_score is not None and (isinstance(min_score, bool) or not isinstance(min_score, (int, float))
                                      or not 0 <= min_score <= 1):
            raise ValidationError("min_score must be a number in [0, 1]")
        filters = check_filters(self.config, project, types, tags, created_after, created_before, as_of, include_invalid,
                                include_global)
        self.sync.catch_up()
        return self.memory_search.search(query, limit, mode, filters, self._now(), min_score, use_ppr, use_decay,
                                         use_mmr, timings)

    def _embed_query(self, query: str, timings: dict[str, float] | None = None) -> np.ndarray:
        """The question's vector (of its first 4,000 characters), embedded on the caller's thread before the
        legs run; its seconds go in ``timings["embed"]``. Beside the legs, in a thread of the pool, it gained
        nothing on two cores, which the model's threads and the legs' share, and cost two hand-offs between
        threads."""
        t = time.perf_counter()
        vec = self.embedder.encode_query(query[:4_000])
        if timings is not None:
            timings["embed"] = time.perf_counter() - t
        return vec

    # ---- upkeep (``Upkeep``) ---------------------------------------------
    def rebuild(self, progress: Progress | None = None) -> dict:
        """Rebuild the BM25 index, the graph and the code chunks' neighbour lists from LanceDB (the source of
        truth), once the rows a write of an older version left torn or dangling are mended."""
        from .integrity import mend

        return self.upkeep.rebuild(progress, mend=lambda: mend(self))

    def deferred_index_rebuilds(self, check: tuple[str, ...] = ("code_chunks",)):
        """A block whose writes rebuild no ANN index until it ends (``Upkeep.deferred_index_rebuilds``)."""
        return self.upkeep.deferred_index_rebuilds(check)

    def optimize(self, keep_versions_seconds: float | None = None) -> None:
        """Compact the tables, prune old versions and build or refresh the ANN index now."""
        self.upkeep.optimize(keep_versions_seconds)

    def reembed(self, progress: Progress | None = None,
                tables: tuple[str, ...] = ("memories", "entities", "code_chunks"), since: str = "") -> int:
        """Re-embed every memory, entity and code chunk (or only ``tables``) with the current model."""
        return self.upkeep.reembed(progress, tables, since)

    def check(self, repair: bool = False) -> dict:
        """Torn or dangling rows and the BM25 index's state (``integrity.check``); ``repair`` mends them."""
        from .integrity import check

        return check(self, repair)

    def stats(self) -> dict:
        """Counts, health of the derived indexes and of the rows (dangling ones), model and disk use."""
        return self.upkeep.stats()

    def export(self, path: str | Path, progress: Progress | None = None) -> dict:
        """Write the memories, entities, relations and mentions (vectors included) to a JSON Lines file
        (``Transfer.export``); returns counts per kind."""
        return self.transfer.export(path, progress)

    def import_(self, path: str | Path, progress: Progress | None = None) -> dict:
        """Load a file written by export, in one write (``Transfer.import_``): records whose id exists are
        skipped; vectors are reused when the file's model is this engine's, else the texts are re-embedded."""
        return self.transfer.import_(path, progress)

    def _after_import(self) -> None:
        """This process's derived state after an import: the graphs rebuilt, the tables compacted, stamped."""
        self.sync.load_graph()
        self.lance.optimize(("memories", "entities", "relations", "mentions"), force=True)
        self.sync.write_stamp()
