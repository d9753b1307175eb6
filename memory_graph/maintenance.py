"""Opening a data directory, and the upkeep of what is stored: rebuilding the derived indexes from LanceDB,
compaction, re-embedding, statistics (``Upkeep``)."""

from __future__ import annotations

import logging
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

from filelock import Timeout

from .errors import ConfigError, MemoryGraphError, ValidationError
from .code import CODE_TEXT_VERSION, code_schemas
from .records import embed_text, entity_text, passage_rows
from .store.lance import SCHEMA_VERSION
from .store.remote import shown
from .sync import WATCHED, ALL_TABLES, TEXT_KINDS, BATCH, Sync
from .writes import Writes

if TYPE_CHECKING:
    from filelock import FileLock

    from .code import CodeStore
    from .config import Config
    from .store import LanceStore, TextIndex
    from .views import CodeView, MemoryView

log = logging.getLogger("memory_graph")

Progress = Callable[[int, int], None]
#: meta "passages": memories stored before passage vectors existed get theirs when the engine opens
PASSAGES_VERSION = "1"


class Upkeep:
    """Opens a data directory (creating its tables, or upgrading what an older model or layout wrote) and keeps
    what is stored in shape: rebuild, optimize, reembed, stats.

    Built by the Engine with the stores, both views, ``embedder()`` (the model, loaded lazily), ``sync`` (which
    builds the views and stamps them), ``code_store`` (the chunks' neighbour lists), its write interface
    (``writes``), the data directory's lock (``file_lock``), ``read_only()`` (why the directory can only be read,
    if it can) and ``forget_reads()``.
    """

    def __init__(self, config: Config, lance: LanceStore, text: TextIndex, memory: MemoryView, code: CodeView,
                 embedder: Callable[[], Any], sync: Sync, code_store: CodeStore, writes: Writes, data_dir: Path,
                 store_uri: str | None, file_lock: FileLock, read_only: Callable[[], Any],
                 forget_reads: Callable[[], None]) -> None:
        self.config, self.lance, self.text, self.memory, self.code = config, lance, text, memory, code
        self.sync, self.code_store, self.writes, self.data_dir, self.store_uri = (sync, code_store, writes,
                                                                                 data_dir, store_uri)
        self._embedder, self._file_lock, self._read_only, self._forget_reads = (embedder, file_lock, read_only,
                                                                                forget_reads)

    def open(self) -> None:
        """Open the tables (creating them in a new directory), bring what is stored up to the model and text
        layout of this version, build the graphs and reconcile the BM25 index (under the write lock)."""
        meta = self.lance.get_meta()
        if meta and meta.get("schema_version") != SCHEMA_VERSION:
            raise ConfigError(
                f"{self.data_dir} was written by schema version {meta.get('schema_version')}; this memory-graph "
                f"reads version {SCHEMA_VERSION}",
                hint="export it with the version that wrote it, then import into a new data directory")
        dim = int(meta["dimension"]) if meta else self._embedder().dimension
        self.lance.ensure_tables(dim, extra=code_schemas(dim))
        if not meta:
            self.lance.set_meta({"schema_version": SCHEMA_VERSION, "model": self._embedder().name,
                                 "dimension": str(dim), "code_text": CODE_TEXT_VERSION,
                                 "passages": PASSAGES_VERSION})
        elif meta.get("model") != self._embedder().name:
            log.warning("embedding model changed from %s to %s: re-embedding", meta.get("model"), self._embedder().name)
            self.reembed()
        elif meta.get("code_text") != CODE_TEXT_VERSION:
            if self.lance.count("code_chunks"):
                log.warning("code chunks were embedded from an older text layout: re-embedding them")
                self.reembed(tables=("code_chunks",), since=meta.get("code_text", ""))
            else:
                self.lance.set_meta({"code_text": CODE_TEXT_VERSION})
        if meta and meta.get("passages") != PASSAGES_VERSION:
            self.embed_passages()
        # read before the graphs: on object storage no lock keeps other machines from committing while they
        # load, and a commit then must show as a change at the first look
        before = self.lance.versions(WATCHED)
        self.sync.load_graph()
        try:
            self.text.collect_garbage()
            self.sync.reconcile_text()
        except (MemoryGraphError, OSError, ValueError) as exc:  # a full disk: searches use the index as it is
            log.warning("the text index could not be brought up to date with LanceDB (%s); BM25 searches use it "
                        "as it is until a write succeeds", exc)
        self.sync.known_versions = before

    def open_for_reading(self, why: Exception) -> None:
        """Open a data directory that cannot be written now (read-only, or a full disk with an unfinished
        write): no lock, nothing created or reconciled; every write raises ReadOnlyError until it can."""
        meta = self.lance.get_meta()
        if not meta:
            raise ConfigError(f"{self.data_dir} holds no memory-graph data and cannot be written", hint=str(why))
        if meta.get("schema_version") != SCHEMA_VERSION or meta.get("model") != self._embedder().name:
            raise ConfigError(f"{self.data_dir} needs upgrading to this version or model, and cannot be written",
                              hint=str(why))
        log.warning("%s opened for reading only: %s", self.data_dir, why)
        self.lance.open_tables()
        unfinished = self.lance.pending_intent()
        if unfinished:  # a write that could not be undone yet: read the tables as they were before it
            self.lance.pin(unfinished)
        if not self.text.open_copy_if_unwritable():
            self.fill_text()
        self.sync.load_graph()
        self.sync.known_versions = self.lance.versions(WATCHED)

    # ---- public maintenance ---------------------------------------------
    def rebuild(self, progress: Progress | None = None, mend: Callable[[], None] = lambda: None) -> dict:
        """Rebuild the BM25 index, the graph and the code chunks' neighbour lists from LanceDB (the source of
        truth), after ``mend()`` in the same write section."""
        with self.writes.section():
            mend()  # rows a write of an older version left torn or dangling, mended from what is whole
            self.text.clear()
            self.fill_text(progress)
            self.sync.load_graph()
            self.refresh_all_densities()
            self.sync.write_stamp()
            return {"memories": self.lance.count("memories"), "code_chunks": self.lance.count("code_chunks"),
                    "chunk_neighbours": self.lance.count("chunk_neighbours"),
                    "graph_nodes": self.memory.graph.number_of_nodes(), "graph_edges": self.memory.graph.number_of_edges(),
                    "code_graph_nodes": self.code.graph.number_of_nodes(),
                    "code_graph_edges": self.code.graph.number_of_edges()}

    def fill_text(self, progress: Progress | None = None) -> None:
        """Write every memory and code chunk of LanceDB into the (empty) BM25 index."""
        total, done = self.sync.text_docs_expected(), 0
        for kind, name in TEXT_KINDS.items():
            table = self.lance.table(name)
            for batch in table.search().limit(None).to_batches(BATCH) if self.lance.count(name) else []:
                rows = batch.to_pylist()
                self.text.write(upserts=[(r, kind) for r in rows])
                done += len(rows)
                if progress:
                    progress(done, total)

    @contextmanager
    def deferred_index_rebuilds(self, check: tuple[str, ...] = ("code_chunks",)) -> Iterator[None]:
        """Writes inside rebuild no ANN index for its many deltas (``Config.ann_max_deltas``) before the block
        ends, then once: an index run's batches each add a delta to the code chunks' index.

        check: tables whose index is rebuilt at the end when it is past the limit though nothing inside wrote
        to them: an index run that finds nothing changed thus mends a data directory from before the rule."""
        with self.lance.deferred_rebuilds():
            yield
        pending = sorted(set(self.lance.take_deferred()) | {t for t in check if self.lance.over_delta_limit(t)})
        if pending:
            with self.writes.section():
                self.lance.optimize(pending, force=True)
                self.sync.write_stamp()  # else the next sync would take this process's rebuild for another's write

    def optimize(self, keep_versions_seconds: float | None = None) -> None:
        """Compact the tables, prune old versions and build or refresh the ANN index now.

        keep_versions_seconds: prune only versions older than this (default ``Config.keep_versions_seconds``);
        0 keeps only the latest, which a reader in another process may still need: use it when none runs.
        """
        if keep_versions_seconds is not None and (isinstance(keep_versions_seconds, bool) or not isinstance(
                keep_versions_seconds, (int, float)) or not keep_versions_seconds >= 0):
            raise ValidationError("keep_versions_seconds must be a number of seconds, 0 or more")
        with self.writes.section():
            self.lance.optimize(ALL_TABLES, force=True, keep_versions_seconds=keep_versions_seconds)
            self.sync.write_stamp()

    def reembed(self, progress: Progress | None = None,
                tables: tuple[str, ...] = ("memories", "entities", "code_chunks"), since: str = "") -> int:
        """Re-embed every memory, entity and code chunk (or only ``tables``) with the current model; ``since``:
        the code text layout (CODE_TEXT_VERSION) the chunks were embedded from, when only it changed and is
        still known (2): only the chunks whose text it changed are embedded again."""
        import pyarrow as pa

        from .code import chunk_embed_text
        from .store.lance import schemas

        with self.writes.section():
            dim = self._embedder().dimension
            n = 0
            all_schemas = {**schemas(dim), **code_schemas(dim)}
            for name, text_of in (
                    ("memories", lambda r: embed_text(r["title"], r["content"])),
                    ("entities", entity_text),
                    ("code_chunks", lambda r: chunk_embed_text(r["path"], r["breadcrumb"], r["signature"],
                                                               r["content"]))):
                if name not in tables:
                    continue
                rows = self.lance.query(name).to_pylist()
                todo = rows
                if name == "code_chunks" and since == "2":
                    todo = [r for r in rows if text_of(r) != chunk_embed_text(
                        r["path"], r["breadcrumb"], r["signature"], r["content"], layout=since)]
                for start in range(0, len(todo), BATCH):
                    part = todo[start:start + BATCH]
                    for r, v in zip(part, self._embedder().encode([text_of(r) for r in part])):
                        r["vector"] = [float(x) for x in v]
                    n += len(part)
                    if progress:
                        progress(n, len(todo))
                data = pa.Table.from_pylist(rows, schema=all_schemas[name])
                self.lance._tables[name] = self.lance.db.create_table(name, data, mode="overwrite")
                if name == "memories":
                    self.embed_passages()
            self.lance.set_meta({"model": self._embedder().name, "dimension": str(dim), "code_text": CODE_TEXT_VERSION})
            if "memories" in tables:  # (re-embedding the passages logged a full change for other processes)
                self.sync.load_memory_graph()
            if "code_chunks" in tables:
                self.refresh_all_densities()
            return n

    def refresh_all_densities(self) -> None:
        """Recompute every project's chunk neighbour lists from the stored vectors (after a re-embedding or a
        rebuild; an index run keeps them current otherwise)."""
        with self.lance.transaction(["chunk_neighbours"]):
            self.lance.delete("chunk_neighbours", "true")
        self.code.density = {}
        projects = set(self.lance.query("code_chunks", None, ["project"]).column("project").to_pylist())
        for project in sorted(projects):
            self.code_store.refresh_density(project)

    def log_full_change(self) -> None:
        """Make every other process reload its graph and its copies of the vectors (they hold old ones)."""
        with self.lance.transaction([]):
            self.lance.log_change(self.lance.last_change() + 1, full=True)

    def embed_passages(self, progress: Progress | None = None) -> int:
        """Replace every memory's passage vectors (for data written before them, or by another model)."""

        rows = self.lance.query("memories", None, ["id", "title", "content"]).to_pylist()
        with self.lance.transaction(["passages"]):
            self.lance.delete("passages", "true")
            for start in range(0, len(rows), BATCH):
                part = rows[start:start + BATCH]
                self.lance.add("passages", passage_rows(self._embedder(), self.config,
                                                        [(r["id"], embed_text(r["title"], r["content"]))
                                                         for r in part]))
                if progress:
                    progress(start + len(part), len(rows))
        self.lance.set_meta({"passages": PASSAGES_VERSION})
        self._forget_reads()
        self.log_full_change()
        return self.lance.count("passages")

    def writer_active(self) -> bool:
        """Whether another process holds the write lock now: its intent file is a write in progress, not one
        a killed process left."""
        if self._read_only() is not None:
            return False
        try:
            self._file_lock.acquire(timeout=0)
        except Timeout:
            return True
        except OSError:
            return False
        self._file_lock.release()
        return False

    def stats(self) -> dict:
        """Counts, health of the derived indexes and of the rows (dangling ones), model and disk use."""
        from .integrity import dangling

        counts = {t: self.lance.count(t) for t in ALL_TABLES}
        text_docs = self.text.num_docs()
        broken = {t: len(ids) for t, ids in dangling(self.lance).items()}
        pending = self.lance.pending_intent() is not None and not self.writer_active()
        return {
            "data_dir": str(self.data_dir),
            "store": shown(self.store_uri) if self.store_uri else str(self.data_dir / "lance"),
            "counts": counts,
            "text_index_docs": text_docs,
            "graph": {"nodes": self.memory.graph.number_of_nodes(), "edges": self.memory.graph.number_of_edges()},
            "model": {"name": self._embedder().name, "dimension": self._embedder().dimension,
                      "loaded": bool(getattr(self._embedder(), "loaded", True)),
                      "runtime": getattr(self._embedder(), "runtime", None)},
            # how the vector leg searches memories: a copy in process memory (whole, or by partitions), LanceDB's
            # ANN index, or its flat scan
            "vector_index": ("in-process, partitioned" if self.memory.vectors.partitions else "in-process")
                            if self.memory.vectors is not None else
                            "ann" if self.lance.has_vector_index("memories") else "flat",
            "code_graph": {"nodes": self.code.graph.number_of_nodes(),
                           "edges": self.code.graph.number_of_edges()},
            # rows that point at a missing record, and a write a killed process left for the next writer to undo
            "dangling": broken,
            "unfinished_write": pending,
            "healthy": text_docs == counts["memories"] + counts["code_chunks"] and not broken and not pending,
            "disk_bytes": self.lance.disk_bytes(),
        }
