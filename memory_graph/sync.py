"""Keeping this process's views in step with LanceDB (``Sync``): building them, logging what a write changed,
catching up with what other processes wrote, and keeping the BM25 index and its stamp level with the records."""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable

from filelock import FileLock

from .errors import MemoryGraphError
from .graph import Graph
from .heap import release_freed_memory, settle_heap
from .linking import EntityIndex
from .lock import write_lock
from .records import NODE_COLUMNS, node_attrs
from .store.lance import CHANGES, vector_matrix
from .store.text_index import REV_FIELDS, TEXT_LAYOUT, rev_of
from .store.vectors import VectorCache

if TYPE_CHECKING:
    from .config import Config
    from .store import LanceStore, TextIndex
    from .views import CodeView, MemoryView

log = logging.getLogger("memory_graph")

GRAPH_TABLES = ("memories", "entities", "relations", "mentions")
CODE_GRAPH_TABLES = ("code_chunks", "symbols", "symbol_edges", "chunk_neighbours")
DERIVED_FROM = GRAPH_TABLES + CODE_GRAPH_TABLES
#: the tables whose versions tell that another process wrote something the derived stores must follow
WATCHED = DERIVED_FROM + (CHANGES,)
#: the file in the data directory that every write replaces (``Sync.mark_changed``)
CHANGE_MARKER = ".changed"
ALL_TABLES = WATCHED + ("files", "passages")
#: the tables a change in the log speaks of: read anew after the log on object storage (``LanceStore.latest``)
LOGGED = tuple(t for t in ALL_TABLES if t != CHANGES)
#: table of the BM25 documents of each kind
TEXT_KINDS = {"memory": "memories", "code": "code_chunks"}
#: the file in the data directory that records the LanceDB versions the BM25 index and the views last matched
STAMP = "derived.json"
BATCH = 500


class Sync:
    """This process's views (``memory``, ``code``) and BM25 index (``text``), kept in step with LanceDB.

    Built by the Engine with the stores, the views, its locks (``lock``: this process's, for a reader's
    catch-up; ``graph_lock``: the views'; ``file_lock``: the data directory's) and callables: ``load_code(vectors)``
    builds the code view (``CodeStore.load``), ``forget_reads()`` drops what searches keep between writes. It
    implements the write interface's ``log_change``, ``after_write`` and ``catch_up`` (``Writes``).
    """

    def __init__(self, config: Config, lance: LanceStore, text: TextIndex, data_dir: Path, memory: MemoryView,
                 code: CodeView, lock: threading.RLock, graph_lock: threading.RLock, file_lock: FileLock,
                 load_code: Callable[[bool], None], forget_reads: Callable[[], None]) -> None:
        self.config, self.lance, self.text, self.data_dir, self.memory, self.code = (config, lance, text, data_dir,
                                                                                    memory, code)
        self._lock, self._graph_lock, self._file_lock = lock, graph_lock, file_lock
        self._load_code, self._forget_reads = load_code, forget_reads
        self.known_versions: dict | None = None  # the LanceDB versions the views last matched
        self._seen_change = 0  # the last change of the log applied
        self._applied_changes: set[tuple] = set()  # on object storage: (seq, at) of the changes applied
        self._seen_passages = None  # the passages' table version the copy of their vectors matched
        self._settled_size = 0  # the memory graph's size when its objects were last frozen (heap.settle_heap)
        self._marker_seen: tuple = (None, float("-inf"))  # the change marker at the last version check, and when
        self._versions_print: tuple | None = None  # the version folders' times then (LanceStore.settled_fingerprint)
        self._stamped_at = -1  # this process's LanceDB commit count when it last stamped the versions it wrote

    # ---- the graph ------------------------------------------------------
    def load_graph(self) -> None:
        """Build the memory graph, the entity name index and the code graph from LanceDB."""
        self.load_memory_graph()
        self._load_code()

    def load_memory_graph(self) -> None:
        # changes logged from here on are applied again by the next catch-up (applying one twice is harmless)
        self._seen_change = self.lance.last_change()
        if self.lance.uri:
            self._applied_changes = {(c["seq"], c["at"]) for c in self._recent_changes()}
            self.lance.latest(LOGGED)  # at least the writes the log named
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
        memory_vectors, passage_vectors = self.copy_vectors("memories"), self.copy_vectors("passages")
        with self._graph_lock:
            self.memory.graph, self.memory.index = graph, index
            self.memory.vectors, self.memory.passages = memory_vectors, passage_vectors
        release_freed_memory()  # the rows read to build them, tens of MB at 100,000 memories
        self.settle()

    def settle(self) -> None:
        """Freeze the objects alive now out of the garbage collector's walks (``Config.gc_freeze``)."""
        if self.config.gc_freeze:
            settle_heap()
            self._settled_size = self.memory.graph.size()

    def settle_if_grown(self) -> None:
        """Freeze the memory graph's objects again once it has doubled since they last were: what writes added
        is walked by the garbage collector until then (so a large import costs a handful of collections)."""
        if self.memory.graph.size() >= 2 * max(self._settled_size, 1_000):
            self.settle()

    def copy_vectors(self, table: str) -> VectorCache | None:
        """An in-process copy of a table's vectors, if it has at most ``vector_copy_max_rows`` rows."""
        rows = self.lance.count(table)
        if not 0 < self.config.vector_copy_max_rows >= rows:
            return None
        c = self.config
        copy = VectorCache(self.lance.table(table).schema.field("vector").type.list_size, c.partition_min_rows,
                           c.partition_rows, c.partition_probes, c.partition_retrain_growth)
        copy.reserve(rows)
        passages = table == "passages"
        # a memory's or chunk's project is its group: a search scoped to one project reads its rows alone
        for batch in self.lance.batches(table, ["id", "memory_id", "vector"] if passages else
                                        ["id", "project", "vector"]):
            copy.put(batch.column("id").to_pylist(), vector_matrix(batch),
                     batch.column("memory_id").to_pylist() if passages else None, partition=False,
                     groups=None if passages else batch.column("project").to_pylist())
        copy.refresh_partitions()
        return copy

    def keep_vectors(self, memories: list[dict], passages: list[dict] = ()) -> None:
        """Put the vectors of memory and passage rows into the in-process copies; drop a copy that would
        outgrow ``vector_copy_max_rows`` (the next whole reload decides again). Hold the graph lock."""
        for attr, rows in (("vectors", memories), ("passages", passages)):
            copy = getattr(self.memory, attr)
            if copy is None or not rows:
                continue
            if len(copy) + len(rows) > self.config.vector_copy_max_rows:
                setattr(self.memory, attr, None)
            else:
                copy.put([r["id"] for r in rows], [r["vector"] for r in rows],
                         [r["memory_id"] for r in rows] if attr == "passages" else None,
                         groups=[r["project"] for r in rows] if attr == "vectors" else None)

    def keep_chunk_vectors(self, removed: list[str], chunks: list[dict]) -> None:
        """Follow a write of code chunks in the in-process copy of their vectors, or drop a copy that would
        outgrow ``vector_copy_max_rows``. Hold the graph lock."""
        copy = self.code.vectors
        if copy is None:
            return
        copy.remove(removed)
        if len(copy) + len(chunks) > self.config.vector_copy_max_rows:
            self.code.vectors = None
        elif chunks:
            copy.put([c["id"] for c in chunks], [c["vector"] for c in chunks], groups=[c["project"] for c in chunks])

    def log_change(self, memories: Iterable[str] = (), entities: Iterable[str] = (),
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

    def catch_up_graph(self) -> None:
        """Apply the changes other processes logged since this one's graph was built, by id; reload the graph
        whole after a gap in the log, a ``full`` change or more than ``sync_max_ids`` ids."""
        if self.lance.uri:  # by the changes not applied yet, as numbers may repeat (_recent_changes)
            changes = [c for c in self._recent_changes() if (c["seq"], c["at"]) not in self._applied_changes]
        else:
            changes = self.lance.changes_since(self._seen_change)
        if not changes:
            if self.lance.last_change() < self._seen_change:  # the log was cleared: nothing to go by
                self.load_memory_graph()
            return
        ids = {k: set().union(*(c[k] or () for c in changes)) for k in ("memories", "entities", "relations")}
        gap = changes[0]["seq"] > self._seen_change + 1 if self.lance.uri else changes[0]["seq"] != self._seen_change + 1
        if gap or any(c["full"] for c in changes) or sum(map(len, ids.values())) > self.config.sync_max_ids:
            self.load_memory_graph()
            return
        # read before the rows: a later write of passages then shows as a newer version next time
        passages_version = self.lance.versions(["passages"])["passages"]
        self.refresh_graph(ids["memories"], ids["entities"], ids["relations"],
                            passages=passages_version != self._seen_passages)
        self._seen_passages = passages_version
        self._seen_change = max(self._seen_change, changes[-1]["seq"])
        if self.lance.uri:
            self._applied_changes |= {(c["seq"], c["at"]) for c in changes}
            floor = self._seen_change - self.config.store_change_slack
            self._applied_changes = {k for k in self._applied_changes if k[0] >= floor}

    def refresh_graph(self, memories: set[str], entities: set[str], relations: set[str],
                       passages: bool = True) -> None:
        """Make these nodes and relations of the graph (and the entity index) what LanceDB holds now;
        ``passages=False`` keeps the copy of the passages' vectors, for when their table has not moved."""
        with self._graph_lock:
            self._refresh_graph_locked(memories, entities, relations, passages)

    def _refresh_graph_locked(self, memories: set[str], entities: set[str], relations: set[str],
                              passages: bool = True) -> None:
        graph, index = self.memory.graph, self.memory.index
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
        columns = NODE_COLUMNS + ["vector"] if self.memory.vectors is not None else NODE_COLUMNS
        rows = {r["id"]: r for r in self.lance.by_ids("memories", memories, columns).to_pylist()}
        for mid in sorted(memories):
            if mid not in rows:
                graph.remove_node(mid)
                continue
            graph.remove_mentions_of(mid)
            graph.add_memory(mid, node_attrs(rows[mid]))
        if self.memory.vectors is not None:
            self.memory.vectors.remove([m for m in memories if m not in rows])
        # a write that added or removed passages moved their table; one that did not (a short memory, a
        # change of tags) left them as they are, and this saves a LanceDB lookup per catch-up
        passage_rows = []
        if passages and self.memory.passages is not None:
            self.memory.passages.remove_owned(memories)
            passage_rows = self.lance.by_ids("passages", list(rows), ["id", "memory_id", "vector"],
                                             column="memory_id").to_pylist()
        self.keep_vectors(list(rows.values()) if self.memory.vectors is not None else [], passage_rows)
        mentions = self.lance.by_ids("mentions", list(rows), ["memory_id", "entity_id", "weight"], column="memory_id")
        for mid, eid, w in zip(*(mentions.column(c).to_pylist() for c in ("memory_id", "entity_id", "weight"))):
            graph.add_mention(mid, eid, w)
        for rid in sorted(relations):
            graph.remove_relation(rid)
        for r in self.lance.by_ids("relations", relations,
                                   ["id", "source", "target", "relation_type", "weight"]).to_pylist():
            graph.add_relation(r["id"], r["source"], r["target"], r["relation_type"], r["weight"])

    # ---- the text index -------------------------------------------------
    def stamp(self) -> dict:
        # with the document layout: an index written by another layout is re-stamped record by record
        return {"lance": self.lance.versions(WATCHED), "text_layout": TEXT_LAYOUT}

    def read_stamp(self) -> dict | None:
        try:
            return json.loads((self.data_dir / STAMP).read_text())
        except (OSError, ValueError):
            return None

    def write_stamp(self) -> None:
        stamp = self.stamp()
        tmp = self.data_dir / (STAMP + ".tmp")
        tmp.write_text(json.dumps(stamp))
        os.replace(tmp, self.data_dir / STAMP)
        self.known_versions = stamp["lance"]
        self._stamped_at = self.lance.commits
        self._forget_reads()

    def catch_up(self) -> None:
        """``_sync_with_others`` for a reader: under this process's lock, without the write lock."""
        with self._lock:
            self.with_others(locked=False)

    def with_others(self, locked: bool) -> None:
        """Pick up other processes' writes when LanceDB moved on: apply their logged changes to the graph,
        reload the code graph if code changed, and reopen the BM25 reader.

        Under the write lock the BM25 index is reconciled too; without it, only read.
        """
        self.lance.release_pins()  # an unfinished write another process has since undone
        marker = self.change_marker()
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
        known = self.known_versions or {}
        if self.lance.uri:
            # every write on object storage logs a change as its last step (Engine._writing): one request instead
            # of nine, and when the log moved, every table is read anew after it, so that each shows at least
            # the writes the log names
            if not known or self.lance.versions([CHANGES]) != {CHANGES: known[CHANGES]}:
                self.lance.latest(LOGGED)
            elif not locked:
                self._marker_seen = (marker, time.monotonic())
                return
        current = self.lance.versions(WATCHED)
        if current == known:
            self._marker_seen = (marker, time.monotonic())
            self._versions_print = prints
            return
        log.info("data directory changed by another process; catching up")
        self._forget_reads()
        if any(current[t] != known.get(t) for t in (*GRAPH_TABLES, CHANGES)):
            self.catch_up_graph()
        if any(current[t] != known.get(t) for t in CODE_GRAPH_TABLES):
            self._load_code(vectors=current["code_chunks"] != known.get("code_chunks"))
        if self.lance.uri and not locked:
            # this machine's text index is written by no other machine: bring it up to the store's records now
            c = self.config
            with write_lock(self._file_lock, self.data_dir, c.lock_notice_seconds, c.lock_timeout_seconds):
                self.reconcile_text()
        self.text.reload()
        if locked:
            if not self.reconcile_text()["in_sync"]:
                self.load_graph()
        else:
            self.known_versions = current
            self._marker_seen = (marker, time.monotonic())
            self._versions_print = prints

    def change_marker(self) -> tuple[int, int] | None:
        """The identity of the marker file every write replaces (None when there is none yet)."""
        try:
            st = os.stat(self.data_dir / CHANGE_MARKER)
        except OSError:
            return None
        return st.st_ino, st.st_mtime_ns

    def mark_changed(self) -> None:
        """Replace the change marker, so other processes' searches know to look (``_sync_with_others``).

        Called at the end of a write, under the write lock. When the write stamped the versions it left and
        committed nothing after (``write_stamp``), the views match them and no other process could write since:
        this process's next search takes the new marker as seen, instead of asking LanceDB for nine tables'
        versions (each opens its table).
        """
        tmp = self.data_dir / f"{CHANGE_MARKER}.{os.getpid()}.tmp"
        try:
            tmp.write_bytes(os.urandom(8))
            os.replace(tmp, self.data_dir / CHANGE_MARKER)
        except OSError as exc:  # a read-only or full disk: others fall back to asking LanceDB's versions
            log.debug("could not replace the change marker: %s", exc)
            return
        if self.known_versions is not None and self._stamped_at == self.lance.commits:
            self._marker_seen = (self.change_marker(), time.monotonic())

    def text_docs_expected(self) -> int:
        return sum(self.lance.count(table) for table in TEXT_KINDS.values())

    def reconcile_text(self, force: bool = False) -> dict:
        """Make Tantivy hold exactly LanceDB's memories and code chunks (after a crash or another process)."""
        stamp, previous = self.stamp(), self.read_stamp()
        in_sync = previous == stamp and self.text.num_docs() == self.text_docs_expected()
        if in_sync and not force:
            self.known_versions = stamp["lance"]
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
                self.log_change(full=True)
        self.write_stamp()
        release_freed_memory()  # both sides' revisions of every record, read to compare
        return {"added": added, "removed": removed, "in_sync": False}

    def after_write(self) -> None:
        """Upkeep after a committed write: the write stands whatever happens here, so a failure (a full disk)
        is logged, not raised; a caller that saw an error would retry and store it twice."""
        try:
            self.lance.optimize(ALL_TABLES)
            self.write_stamp()
        except (MemoryGraphError, OSError, ValueError) as exc:
            log.warning("the write is stored, but upkeep after it failed (%s); the next write retries", exc)
