"""Opening, reconciling and rebuilding the derived indexes from LanceDB; re-embedding; statistics."""

from __future__ import annotations

import json
import logging
import os
import time
from contextlib import contextmanager
from typing import Callable, Iterable, Iterator

from filelock import Timeout

from .errors import ConfigError, MemoryGraphError, ValidationError
from .graph import Graph
from .code import CODE_TEXT_VERSION, code_schemas
from .linking import EntityIndex
from .records import NODE_COLUMNS, embed_text, entity_text, node_attrs, passage_rows
from .store.lance import CHANGES, SCHEMA_VERSION, vector_matrix
from .lock import write_lock
from .store.remote import shown
from .heap import release_freed_memory, settle_heap
from .store.vectors import VectorCache
from .store.text_index import REV_FIELDS, TEXT_LAYOUT, rev_of

log = logging.getLogger("memory_graph")

Progress = Callable[[int, int], None]
GRAPH_TABLES = ("memories", "entities", "relations", "mentions")
CODE_GRAPH_TABLES = ("code_chunks", "symbols", "symbol_edges", "chunk_neighbours")
DERIVED_FROM = GRAPH_TABLES + CODE_GRAPH_TABLES
#: the tables whose versions tell that another process wrote something the derived stores must follow
WATCHED = DERIVED_FROM + (CHANGES,)
#: the file in the data directory that every write replaces (``_mark_changed``)
CHANGE_MARKER = ".changed"
ALL_TABLES = WATCHED + ("files", "passages")
#: meta "passages": memories stored before passage vectors existed get theirs when the engine opens
PASSAGES_VERSION = "1"
#: table of the BM25 documents of each kind
TEXT_KINDS = {"memory": "memories", "code": "code_chunks"}
BATCH = 500


class MaintenanceMixin:
    """Keeps the derived stores in step with LanceDB (mixed into the Engine)."""

    STAMP = "derived.json"

    def _open_stores(self) -> None:
        """Open the tables (creating them in a new directory), bring what is stored up to the model and text
        layout of this version, build the graphs and reconcile the BM25 index (under the write lock)."""
        meta = self.lance.get_meta()
        if meta and meta.get("schema_version") != SCHEMA_VERSION:
            raise ConfigError(
                f"{self.data_dir} was written by schema version {meta.get('schema_version')}; this memory-graph "
                f"reads version {SCHEMA_VERSION}",
                hint="export it with the version that wrote it, then import into a new data directory")
        dim = int(meta["dimension"]) if meta else self.embedder.dimension
        self.lance.ensure_tables(dim, extra=code_schemas(dim))
        if not meta:
            self.lance.set_meta({"schema_version": SCHEMA_VERSION, "model": self.embedder.name,
                                 "dimension": str(dim), "code_text": CODE_TEXT_VERSION,
                                 "passages": PASSAGES_VERSION})
        elif meta.get("model") != self.embedder.name:
            log.warning("embedding model changed from %s to %s: re-embedding", meta.get("model"), self.embedder.name)
            self.reembed()
        elif meta.get("code_text") != CODE_TEXT_VERSION:
            if self.lance.count("code_chunks"):
                log.warning("code chunks were embedded from an older text layout: re-embedding them")
                self.reembed(tables=("code_chunks",), since=meta.get("code_text", ""))
            else:
                self.lance.set_meta({"code_text": CODE_TEXT_VERSION})
        if meta and meta.get("passages") != PASSAGES_VERSION:
            self._embed_passages()
        self._load_graph()
        try:
            self.text.collect_garbage()
            self._reconcile_text()
        except (MemoryGraphError, OSError, ValueError) as exc:  # a full disk: searches use the index as it is
            log.warning("the text index could not be brought up to date with LanceDB (%s); BM25 searches use it "
                        "as it is until a write succeeds", exc)
            self._known_versions = self.lance.versions(WATCHED)

    def _open_for_reading(self, why: Exception) -> None:
        """Open a data directory that cannot be written now (read-only, or a full disk with an unfinished
        write): no lock, nothing created or reconciled; every write raises ReadOnlyError until it can."""
        meta = self.lance.get_meta()
        if not meta:
            raise ConfigError(f"{self.data_dir} holds no memory-graph data and cannot be written", hint=str(why))
        if meta.get("schema_version") != SCHEMA_VERSION or meta.get("model") != self.embedder.name:
            raise ConfigError(f"{self.data_dir} needs upgrading to this version or model, and cannot be written",
                              hint=str(why))
        log.warning("%s opened for reading only: %s", self.data_dir, why)
        self.lance.open_tables()
        unfinished = self.lance.pending_intent()
        if unfinished:  # a write that could not be undone yet: read the tables as they were before it
            self.lance.pin(unfinished)
        if not self.text.open_copy_if_unwritable():
            self._fill_text()
        self._load_graph()
        self._known_versions = self.lance.versions(WATCHED)

    # ---- the graph ------------------------------------------------------
    def _load_graph(self) -> None:
        """Build the memory graph, the entity name index and the code graph from LanceDB."""
        self._load_memory_graph()
        self._load_code_graph()

    def _load_memory_graph(self) -> None:
        # changes logged from here on are applied again by the next catch-up (applying one twice is harmless)
        self._seen_change = self.lance.last_change()
        if self.lance.uri:
            self._applied_changes = {(c["seq"], c["at"]) for c in self._recent_changes()}
        self._seen_passages = self.lance.versions(["passages"])["passages"]
        graph, index = Graph(), EntityIndex()
        for r in self.lance.query("entities", None, ["id", "name", "entity_type", "aliases"]).to_pylist():
            graph.add_entity(r["id"], r["name"], r["entity_type"])
            index.add(r["id"], r["name"], r["entity_type"], r["aliases"] or [])
        for batch in self.lance.batches("memories", NODE_COLUMNS):
            for r in batch.to_pylist():
                graph.add_memory(r["id"], node_attrs(r))
        for batch in self.lance.batches("mentions", ["memory_id", "entity_id", "weight"]):
            for mid, eid, w in zip(*(batch.column(c).to_pylist() for c in ("memory_id", "entity_id", "weight"))):
                graph.add_mention(mid, eid, w)
        for r in self.lance.query("relations", None, ["id", "source", "target", "relation_type", "weight"]).to_pylist():
            graph.add_relation(r["id"], r["source"], r["target"], r["relation_type"], r["weight"])
        memory_vectors, passage_vectors = self._copy_vectors("memories"), self._copy_vectors("passages")
        with self._graph_lock:
            self.graph, self.entity_index = graph, index
            self.memory_vectors, self.passage_vectors = memory_vectors, passage_vectors
        release_freed_memory()  # the rows read to build them, tens of MB at 100,000 memories
        self._settle()

    def _settle(self) -> None:
        """Freeze the objects alive now out of the garbage collector's walks (``Config.gc_freeze``)."""
        if self.config.gc_freeze:
            settle_heap()
            self._settled_size = self.graph.size()

    def _settle_if_grown(self) -> None:
        """Freeze the memory graph's objects again once it has doubled since they last were: what writes added
        is walked by the garbage collector until then (so a large import costs a handful of collections)."""
        if self.graph.size() >= 2 * max(self._settled_size, 1_000):
            self._settle()

    def _copy_vectors(self, table: str) -> VectorCache | None:
        """An in-process copy of a table's vectors, if it has at most ``vector_copy_max_rows`` rows."""
        rows = self.lance.count(table)
        if not 0 < self.config.vector_copy_max_rows >= rows:
            return None
        c = self.config
        copy = VectorCache(self.lance.table(table).schema.field("vector").type.list_size, c.partition_min_rows,
                           c.partition_rows, c.partition_probes, c.partition_retrain_growth)
        copy.reserve(rows)
        passages = table == "passages"
        for batch in self.lance.batches(table, ["id", "memory_id", "vector"] if passages else ["id", "vector"]):
            copy.put(batch.column("id").to_pylist(), vector_matrix(batch),
                     batch.column("memory_id").to_pylist() if passages else None, partition=False)
        copy.refresh_partitions()
        return copy

    def _keep_vectors(self, memories: list[dict], passages: list[dict] = ()) -> None:
        """Put the vectors of memory and passage rows into the in-process copies; drop a copy that would
        outgrow ``vector_copy_max_rows`` (the next whole reload decides again). Hold the graph lock."""
        for attr, rows in (("memory_vectors", memories), ("passage_vectors", passages)):
            copy = getattr(self, attr)
            if copy is None or not rows:
                continue
            if len(copy) + len(rows) > self.config.vector_copy_max_rows:
                setattr(self, attr, None)
            else:
                copy.put([r["id"] for r in rows], [r["vector"] for r in rows],
                         [r["memory_id"] for r in rows] if attr == "passage_vectors" else None)

    def _keep_chunk_vectors(self, removed: list[str], chunks: list[dict]) -> None:
        """Follow a write of code chunks in the in-process copy of their vectors, or drop a copy that would
        outgrow ``vector_copy_max_rows``. Hold the graph lock."""
        copy = self.chunk_vectors
        if copy is None:
            return
        copy.remove(removed)
        if len(copy) + len(chunks) > self.config.vector_copy_max_rows:
            self.chunk_vectors = None
        elif chunks:
            copy.put([c["id"] for c in chunks], [c["vector"] for c in chunks])

    def _log_change(self, memories: Iterable[str] = (), entities: Iterable[str] = (),
                    relations: Iterable[str] = (), full: bool = False) -> None:
        """Record what a write touched, as its transaction's last step, for other processes' graphs.

        Under the write lock the sync at its start has read every change there is, so the next number is
        known without reading the log (a scan of it cost 20 ms a write, growing until compaction).
        """
        key = self.lance.log_change(self._seen_change + 1, memories, entities, relations, full)
        self._seen_change += 1
        if self.lance.uri:
            self._applied_changes.add(key)

    def _recent_changes(self) -> list[dict]:
        """On object storage, the changes numbered within ``store_change_slack`` of the last one seen, or later:
        machines that write at once may log under one number, or one below a number already read, as each
        numbers its change by the log it read before its commit."""
        return self.lance.changes_since(self._seen_change - self.config.store_change_slack)

    def _catch_up_graph(self) -> None:
        """Apply the changes other processes logged since this one's graph was built, by id; reload the graph
        whole after a gap in the log, a ``full`` change or more than ``sync_max_ids`` ids."""
        if self.lance.uri:  # by the changes not applied yet, as numbers may repeat (_recent_changes)
            changes = [c for c in self._recent_changes() if (c["seq"], c["at"]) not in self._applied_changes]
        else:
            changes = self.lance.changes_since(self._seen_change)
        if not changes:
            if self.lance.last_change() < self._seen_change:  # the log was cleared: nothing to go by
                self._load_memory_graph()
            return
        ids = {k: set().union(*(c[k] or () for c in changes)) for k in ("memories", "entities", "relations")}
        gap = changes[0]["seq"] > self._seen_change + 1 if self.lance.uri else changes[0]["seq"] != self._seen_change + 1
        if gap or any(c["full"] for c in changes) or sum(map(len, ids.values())) > self.config.sync_max_ids:
            self._load_memory_graph()
            return
        # read before the rows: a later write of passages then shows as a newer version next time
        passages_version = self.lance.versions(["passages"])["passages"]
        self._refresh_graph(ids["memories"], ids["entities"], ids["relations"],
                            passages=passages_version != self._seen_passages)
        self._seen_passages = passages_version
        self._seen_change = max(self._seen_change, changes[-1]["seq"])
        if self.lance.uri:
            self._applied_changes |= {(c["seq"], c["at"]) for c in changes}
            floor = self._seen_change - self.config.store_change_slack
            self._applied_changes = {k for k in self._applied_changes if k[0] >= floor}

    def _refresh_graph(self, memories: set[str], entities: set[str], relations: set[str],
                       passages: bool = True) -> None:
        """Make these nodes and relations of the graph (and the entity index) what LanceDB holds now;
        ``passages=False`` keeps the copy of the passages' vectors, for when their table has not moved."""
        with self._graph_lock:
            self._refresh_graph_locked(memories, entities, relations, passages)

    def _refresh_graph_locked(self, memories: set[str], entities: set[str], relations: set[str],
                              passages: bool = True) -> None:
        graph, index = self.graph, self.entity_index
        rows = {r["id"]: r for r in self.lance.by_ids("entities", entities,
                                                       ["id", "name", "entity_type", "aliases"]).to_pylist()}
        # sorted: the ids come in sets, and the graph's order must not vary from one process to the next
        for eid in sorted(entities):
            if eid in index.names:
                index.remove(eid)
            r = rows.get(eid)
            if r is None:
                graph.remove_node(eid)
                continue
            graph.add_entity(eid, r["name"], r["entity_type"])
            index.add(eid, r["name"], r["entity_type"], r["aliases"] or [])
        columns = NODE_COLUMNS + ["vector"] if self.memory_vectors is not None else NODE_COLUMNS
        rows = {r["id"]: r for r in self.lance.by_ids("memories", memories, columns).to_pylist()}
        for mid in sorted(memories):
            if mid not in rows:
                graph.remove_node(mid)
                continue
            graph.remove_mentions_of(mid)
            graph.add_memory(mid, node_attrs(rows[mid]))
        if self.memory_vectors is not None:
            self.memory_vectors.remove([m for m in memories if m not in rows])
        # a write that added or removed passages moved their table; one that did not (a short memory, a
        # change of tags) left them as they are, and this saves a LanceDB lookup per catch-up
        passage_rows = []
        if passages and self.passage_vectors is not None:
            self.passage_vectors.remove_owned(memories)
            passage_rows = self.lance.by_ids("passages", list(rows), ["id", "memory_id", "vector"],
                                             column="memory_id").to_pylist()
        self._keep_vectors(list(rows.values()) if self.memory_vectors is not None else [], passage_rows)
        mentions = self.lance.by_ids("mentions", list(rows), ["memory_id", "entity_id", "weight"], column="memory_id")
        for mid, eid, w in zip(*(mentions.column(c).to_pylist() for c in ("memory_id", "entity_id", "weight"))):
            graph.add_mention(mid, eid, w)
        for rid in sorted(relations):
            graph.remove_relation(rid)
        for r in self.lance.by_ids("relations", relations,
                                   ["id", "source", "target", "relation_type", "weight"]).to_pylist():
            graph.add_relation(r["id"], r["source"], r["target"], r["relation_type"], r["weight"])

    # ---- the text index -------------------------------------------------
    def _stamp(self) -> dict:
        # with the document layout: an index written by another layout is re-stamped record by record
        return {"lance": self.lance.versions(WATCHED), "text_layout": TEXT_LAYOUT}

    def _read_stamp(self) -> dict | None:
        try:
            return json.loads((self.data_dir / self.STAMP).read_text())
        except (OSError, ValueError):
            return None

    def _write_stamp(self) -> None:
        stamp = self._stamp()
        tmp = self.data_dir / (self.STAMP + ".tmp")
        tmp.write_text(json.dumps(stamp))
        os.replace(tmp, self.data_dir / self.STAMP)
        self._known_versions = stamp["lance"]
        self.memory_search.forget_reads()

    def _sync_locked(self) -> None:
        """``_sync_with_others`` for a reader: under this process's lock, without the write lock."""
        with self._lock:
            self._sync_with_others(locked=False)

    def _sync_with_others(self, locked: bool) -> None:
        """Pick up other processes' writes when LanceDB moved on: apply their logged changes to the graph,
        reload the code graph if code changed, and reopen the BM25 reader.

        Under the write lock the BM25 index is reconciled too; without it, only read.
        """
        self.lance.release_pins()  # an unfinished write another process has since undone
        marker = self._change_marker()
        # on object storage other machines replace no marker here: LanceDB is asked each sync_check_seconds
        if not locked and (marker is not None or self.lance.uri) and marker == self._marker_seen[0] and \
                time.monotonic() - self._marker_seen[1] < self.config.sync_check_seconds:
            return  # no write since the last look (each replaces the marker)
        # read before the versions, so that a commit after it shows next time
        prints = self.lance.settled_fingerprint(WATCHED)
        if not locked and marker is not None and marker == self._marker_seen[0] and \
                prints is not None and prints == self._versions_print:
            # past the marker's interval, the version folders' times tell a commit that left no marker
            self._marker_seen = (marker, time.monotonic())
            return
        known = getattr(self, "_known_versions", None) or {}
        if self.lance.uri and not locked and known and self.lance.versions([CHANGES]) == {CHANGES: known[CHANGES]}:
            # every write on object storage logs a change (Engine._writing): one request instead of nine
            self._marker_seen = (marker, time.monotonic())
            return
        current = self.lance.versions(WATCHED)
        if current == known:
            self._marker_seen = (marker, time.monotonic())
            self._versions_print = prints
            return
        log.info("data directory changed by another process; catching up")
        self.memory_search.forget_reads()
        self._forget_reads()
        if any(current[t] != known.get(t) for t in (*GRAPH_TABLES, CHANGES)):
            self._catch_up_graph()
        if any(current[t] != known.get(t) for t in CODE_GRAPH_TABLES):
            self._load_code_graph(vectors=current["code_chunks"] != known.get("code_chunks"))
        if self.lance.uri and not locked:
            # this machine's text index is written by no other machine: bring it up to the store's records now
            c = self.config
            with write_lock(self._file_lock, self.data_dir, c.lock_notice_seconds, c.lock_timeout_seconds):
                self._reconcile_text()
        self.text.reload()
        if locked:
            if not self._reconcile_text()["in_sync"]:
                self._load_graph()
        else:
            self._known_versions = current
            self._marker_seen = (marker, time.monotonic())
            self._versions_print = prints

    def _change_marker(self) -> tuple[int, int] | None:
        """The identity of the marker file every write replaces (None when there is none yet)."""
        try:
            st = os.stat(self.data_dir / CHANGE_MARKER)
        except OSError:
            return None
        return st.st_ino, st.st_mtime_ns

    def _mark_changed(self) -> None:
        """Replace the change marker, so other processes' searches know to look (``_sync_with_others``)."""
        tmp = self.data_dir / f"{CHANGE_MARKER}.{os.getpid()}.tmp"
        try:
            tmp.write_bytes(os.urandom(8))
            os.replace(tmp, self.data_dir / CHANGE_MARKER)
        except OSError as exc:  # a read-only or full disk: others fall back to asking LanceDB's versions
            log.debug("could not replace the change marker: %s", exc)

    def _text_docs_expected(self) -> int:
        return sum(self.lance.count(table) for table in TEXT_KINDS.values())

    def _reconcile_text(self, force: bool = False) -> dict:
        """Make Tantivy hold exactly LanceDB's memories and code chunks (after a crash or another process)."""
        stamp, previous = self._stamp(), self._read_stamp()
        in_sync = previous == stamp and self.text.num_docs() == self._text_docs_expected()
        if in_sync and not force:
            self._known_versions = stamp["lance"]
            return {"added": 0, "removed": 0, "in_sync": True}
        added = removed = 0
        for kind, table in TEXT_KINDS.items():
            # every field the stamp reads that the table has: one left out would make every record look stale
            names = self.lance.table(table).schema.names
            columns = ["id", *(f for f in REV_FIELDS if f in names)]
            # a batch at a time: a whole table's rows as dicts, 100,000 of them, would stay in the heap
            truth = {r["id"]: rev_of(r) for batch in self.lance.batches(table, columns) for r in batch.to_pylist()}
            indexed = self.text.revisions(kind)
            stale = [i for i, rev in truth.items() if indexed.get(i) != rev]
            extra = [i for i in indexed if i not in truth]
            for start in range(0, max(len(stale), 1), BATCH):
                part = stale[start:start + BATCH]
                rows = self.lance.by_ids(table, part).to_pylist() if part else []
                self.text.write(upserts=[(r, kind) for r in rows], deletes=extra if start == 0 else (), kind=kind)
            added, removed = added + len(stale), removed + len(extra)
        if added or removed:
            log.warning("text index reconciled with LanceDB: %d added or updated, %d removed", added, removed)
        # every finished write leaves the stamp of the versions it wrote, so another stamp can mean a writer
        # died mid-write, perhaps before logging its change: every process reloads its graph whole
        if previous is not None:  # (a new directory has no stamp yet)
            with self.lance.transaction([]):
                self._log_change(full=True)
        self._write_stamp()
        release_freed_memory()  # both sides' revisions of every record, read to compare
        return {"added": added, "removed": removed, "in_sync": False}

    def _after_write(self) -> None:
        """Upkeep after a committed write: the write stands whatever happens here, so a failure (a full disk)
        is logged, not raised; a caller that saw an error would retry and store it twice."""
        try:
            self.lance.optimize(ALL_TABLES)
            self._write_stamp()
        except (MemoryGraphError, OSError, ValueError) as exc:
            log.warning("the write is stored, but upkeep after it failed (%s); the next write retries", exc)

    # ---- public maintenance ---------------------------------------------
    def rebuild(self, progress: Progress | None = None) -> dict:
        """Rebuild the BM25 index, the graph and the code chunks' neighbour lists from LanceDB (the source of truth)."""
        from .integrity import mend

        with self._writing():
            mend(self)  # rows a write of an older version left torn or dangling, mended from what is whole
            self.text.clear()
            self._fill_text(progress)
            self._load_graph()
            self._refresh_all_densities()
            self._write_stamp()
            return {"memories": self.lance.count("memories"), "code_chunks": self.lance.count("code_chunks"),
                    "chunk_neighbours": self.lance.count("chunk_neighbours"),
                    "graph_nodes": self.graph.number_of_nodes(), "graph_edges": self.graph.number_of_edges(),
                    "code_graph_nodes": self.code_graph.number_of_nodes(),
                    "code_graph_edges": self.code_graph.number_of_edges()}

    def _fill_text(self, progress: Progress | None = None) -> None:
        """Write every memory and code chunk of LanceDB into the (empty) BM25 index."""
        total, done = self._text_docs_expected(), 0
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
            with self._writing():
                self.lance.optimize(pending, force=True)
                self._write_stamp()  # else the next sync would take this process's rebuild for another's write

    def optimize(self, keep_versions_seconds: float | None = None) -> None:
        """Compact the tables, prune old versions and build or refresh the ANN index now.

        keep_versions_seconds: prune only versions older than this (default ``Config.keep_versions_seconds``);
        0 keeps only the latest, which a reader in another process may still need: use it when none runs.
        """
        if keep_versions_seconds is not None and (isinstance(keep_versions_seconds, bool) or not isinstance(
                keep_versions_seconds, (int, float)) or not keep_versions_seconds >= 0):
            raise ValidationError("keep_versions_seconds must be a number of seconds, 0 or more")
        with self._writing():
            self.lance.optimize(ALL_TABLES, force=True, keep_versions_seconds=keep_versions_seconds)
            self._write_stamp()

    def reembed(self, progress: Progress | None = None,
                tables: tuple[str, ...] = ("memories", "entities", "code_chunks"), since: str = "") -> int:
        """Re-embed every memory, entity and code chunk (or only ``tables``) with the current model; ``since``:
        the code text layout (CODE_TEXT_VERSION) the chunks were embedded from, when only it changed and is
        still known (2): only the chunks whose text it changed are embedded again."""
        import pyarrow as pa

        from .code import chunk_embed_text
        from .store.lance import schemas

        with self._writing():
            dim = self.embedder.dimension
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
                    for r, v in zip(part, self.embedder.encode([text_of(r) for r in part])):
                        r["vector"] = [float(x) for x in v]
                    n += len(part)
                    if progress:
                        progress(n, len(todo))
                data = pa.Table.from_pylist(rows, schema=all_schemas[name])
                self.lance._tables[name] = self.lance.db.create_table(name, data, mode="overwrite")
                if name == "memories":
                    self._embed_passages()
            self.lance.set_meta({"model": self.embedder.name, "dimension": str(dim), "code_text": CODE_TEXT_VERSION})
            if "memories" in tables:  # (re-embedding the passages logged a full change for other processes)
                self._load_memory_graph()
            if "code_chunks" in tables:
                self._refresh_all_densities()
            return n

    def _refresh_all_densities(self) -> None:
        """Recompute every project's chunk neighbour lists from the stored vectors (after a re-embedding or a
        rebuild; an index run keeps them current otherwise)."""
        with self.lance.transaction(["chunk_neighbours"]):
            self.lance.delete("chunk_neighbours", "true")
        self.chunk_density = {}
        projects = set(self.lance.query("code_chunks", None, ["project"]).column("project").to_pylist())
        for project in sorted(projects):
            self.code_refresh_density(project)

    def _log_full_change(self) -> None:
        """Make every other process reload its graph and its copies of the vectors (they hold old ones)."""
        with self.lance.transaction([]):
            self.lance.log_change(self.lance.last_change() + 1, full=True)

    def _embed_passages(self, progress: Progress | None = None) -> int:
        """Replace every memory's passage vectors (for data written before them, or by another model)."""

        rows = self.lance.query("memories", None, ["id", "title", "content"]).to_pylist()
        with self.lance.transaction(["passages"]):
            self.lance.delete("passages", "true")
            for start in range(0, len(rows), BATCH):
                part = rows[start:start + BATCH]
                self.lance.add("passages", passage_rows(self.embedder, self.config,
                                                        [(r["id"], embed_text(r["title"], r["content"]))
                                                         for r in part]))
                if progress:
                    progress(start + len(part), len(rows))
        self.lance.set_meta({"passages": PASSAGES_VERSION})
        self.memory_search.forget_reads()
        self._log_full_change()
        return self.lance.count("passages")

    def check(self, repair: bool = False) -> dict:
        """Torn or dangling rows and the BM25 index's state (``integrity.check``); ``repair`` mends them."""
        from .integrity import check

        return check(self, repair)

    def _writer_active(self) -> bool:
        """Whether another process holds the write lock now: its intent file is a write in progress, not one
        a killed process left."""
        if self._read_only is not None:
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
        pending = self.lance.pending_intent() is not None and not self._writer_active()
        return {
            "data_dir": str(self.data_dir),
            "store": shown(self.store_uri) if self.store_uri else str(self.data_dir / "lance"),
            "counts": counts,
            "text_index_docs": text_docs,
            "graph": {"nodes": self.graph.number_of_nodes(), "edges": self.graph.number_of_edges()},
            "model": {"name": self.embedder.name, "dimension": self.embedder.dimension,
                      "loaded": bool(getattr(self.embedder, "loaded", True)),
                      "runtime": getattr(self.embedder, "runtime", None)},
            # how the vector leg searches memories: a copy in process memory (whole, or by partitions), LanceDB's
            # ANN index, or its flat scan
            "vector_index": ("in-process, partitioned" if self.memory_vectors.partitions else "in-process")
                            if self.memory_vectors is not None else
                            "ann" if self.lance.has_vector_index("memories") else "flat",
            "code_graph": {"nodes": self.code_graph.number_of_nodes(),
                           "edges": self.code_graph.number_of_edges()},
            # rows that point at a missing record, and a write a killed process left for the next writer to undo
            "dangling": broken,
            "unfinished_write": pending,
            "healthy": text_docs == counts["memories"] + counts["code_chunks"] and not broken and not pending,
            "disk_bytes": self.lance.disk_bytes(),
        }
