"""LanceDB tables: the source of truth for every record, and the vector leg's store."""

from __future__ import annotations

import json
import logging
import os
import time
import warnings
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Iterable, Iterator

import numpy as np
import pyarrow as pa

from ..config import Config
from ..errors import MemoryGraphError, ReadOnlyError, StoreError
from .lancedb_import import import_lancedb
from .sql import sql_in
from .remote import shown

log = logging.getLogger("memory_graph")

# every compaction of a table with a vector index made LanceDB warn on stderr that its index statistics will
# stop including the IVF centroids; nothing here reads them, so take that behaviour now (a user's value wins)
os.environ.setdefault("LANCE_INCLUDE_VECTOR_CENTROIDS", "false")

SCHEMA_VERSION = "1"
#: the change log: one row per write of memories, entities, mentions or relations, so that another process
#: brings its graph up to date by the ids a write touched instead of reloading it whole
CHANGES = "changes"
#: the file, beside the tables, that names the tables an open write touches and their versions before it: a
#: process killed mid-write leaves it, and the next writer restores those tables (``LanceStore.recover``)
INTENT = "write-intent.json"


def _vec(dim: int) -> pa.Field:
    return pa.field("vector", pa.list_(pa.float32(), dim))


def schemas(dim: int) -> dict[str, pa.Schema]:
    """The schema of every table, for an embedding dimension."""
    s, f, ts = pa.string(), pa.float64(), pa.float64()
    return {
        "memories": pa.schema([
            ("id", s), ("content", s), ("memory_type", s), ("title", s), ("tags", pa.list_(s)),
            ("importance", pa.int32()), ("project", s), ("source", s), ("metadata", s),
            ("created_at", ts), ("updated_at", ts), ("valid_from", ts), ("valid_until", ts),
            ("superseded_by", s), ("invalidation_reason", s), ("content_hash", s), _vec(dim),
        ]),
        "entities": pa.schema([
            ("id", s), ("name", s), ("name_norm", s), ("entity_type", s), ("description", s),
            ("aliases", pa.list_(s)), ("created_at", ts), _vec(dim),
        ]),
        "relations": pa.schema([
            ("id", s), ("source", s), ("target", s), ("relation_type", s), ("weight", f),
            ("valid_from", ts), ("valid_until", ts), ("created_at", ts),
        ]),
        "mentions": pa.schema([("id", s), ("memory_id", s), ("entity_id", s), ("weight", f), ("kind", s)]),
        "meta": pa.schema([("key", s), ("value", s)]),
        # derived: the vectors of a long memory's later passages (Config.max_passages), id "<memory id>#<n>"
        "passages": pa.schema([("id", s), ("memory_id", s), _vec(dim)]),
        CHANGES: pa.schema([("seq", pa.int64()), ("at", ts), ("memories", pa.list_(s)), ("entities", pa.list_(s)),
                            ("relations", pa.list_(s)), ("full", pa.bool_())]),
    }


#: tables whose vectors the engine also holds in process memory, up to ``Config.vector_copy_max_rows`` rows
COPIED = ("memories", "passages")
#: columns that lookups by id filter on, besides the vector tables' id (whose index comes with the ANN index):
#: another process's catch-up reads a memory's mentions and passages by memory_id, which scanned 500,000
#: mention rows at 100,000 memories
LOOKUP_COLUMNS = {"mentions": ("memory_id",), "relations": ("id",), "passages": ("memory_id",)}


def vector_matrix(rows: pa.Table | pa.RecordBatch, column: str = "vector") -> np.ndarray:
    """A float32 (rows, dim) matrix of a fixed-size vector column, without a Python list per row."""
    col = rows.column(column)
    col = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    if col.null_count:
        raise StoreError(f"{col.null_count} row(s) have no {column}", hint="re-embed them with Engine.reembed()")
    return col.flatten().to_numpy().astype(np.float32, copy=False).reshape(rows.num_rows, -1)


def disk_hint(exc: BaseException, where: Path) -> str:
    """How to fix a failed write, by its cause: a full disk, a permission, or something else."""
    text = str(exc)
    if "No space left" in text or "os error 28" in text or getattr(exc, "errno", None) == 28:
        return f"the disk holding {where} is full: free space, then retry"
    if "ermission denied" in text or "os error 13" in text or "Read-only file system" in text:
        return f"{where} cannot be written: check its permissions and whether its file system is read-only"
    return f"check disk space and permissions of {where}"


class LanceStore:
    """The LanceDB database of one data directory."""

    def __init__(self, path: Path, config: Config, intent_path: Path | None = None, uri: str = "") -> None:
        """path: the local folder of the tables, or, with ``uri`` (a store on object storage), the local folder
        that stands for it in messages."""
        lancedb = import_lancedb()

        self.path = path
        self.uri = uri
        self.intent_path = intent_path or path.parent / INTENT
        self._intent: dict[str, int] | None = None  # the open transaction's tables and their versions before it
        # on object storage, the versions the open transaction committed, by table: another machine's commit may
        # come between two of them, and undoing the write must not undo that one (``_undoable``)
        self._ours: dict[str, list[int]] = {}
        self._pinned: dict[str, int] = {}  # tables read at an older version (``pin``)
        self.commits = 0  # made by this process
        self._logged_at = 0  # ``commits`` when this process last logged a change
        self.config = config
        # read_consistency_interval=0: every read sees other processes' committed writes. On object storage each
        # such look is a request: there reads may be store_refresh_seconds stale (a write looks first).
        fresh = timedelta(seconds=config.store_refresh_seconds) if uri else timedelta(0)
        try:
            self.db = lancedb.connect(uri or str(path), read_consistency_interval=fresh)
        except Exception as exc:
            if not uri:
                raise
            raise StoreError(f"the store {shown(uri)} cannot be opened: {str(exc).split(', /')[0]}",
                             hint="check its credentials, region and endpoint: AWS_ACCESS_KEY_ID, "
                                  "AWS_SECRET_ACCESS_KEY, AWS_REGION, AWS_ENDPOINT_URL (and AWS_ALLOW_HTTP=true "
                                  "for an http:// endpoint)") from None
        self._tables: dict = {}
        self._empty_schemas: dict[str, pa.Schema] = {}  # for reads of no ids (``by_ids``)
        self.rows_since_optimize = 0
        self._commits_since_optimize: dict[str, int] = {}  # per table: each commit leaves a fragment or a deletion
        self._fragments_checked = False  # (``_fragmented``)
        # inside deferred_rebuilds(): the tables whose ANN index passed ann_max_deltas meanwhile
        self._deferring = 0
        self._deferred: set[str] = set()

    # ---- tables -------------------------------------------------------
    def table_names(self) -> list[str]:
        result = self.db.list_tables()
        names = getattr(result, "tables", result)
        return list(names)

    def ensure_tables(self, dim: int, extra: dict[str, pa.Schema] | None = None) -> None:
        wanted = {**schemas(dim), **(extra or {})}
        existing = set(self.table_names())
        for name, schema in wanted.items():
            if name not in existing:
                self.db.create_table(name, schema=schema, exist_ok=True)
            self._tables[name] = self.db.open_table(name)

    def open_tables(self) -> None:
        """Open every table there is, creating none (a data directory that cannot be written)."""
        for name in self.table_names():
            self._tables[name] = self.db.open_table(name)

    def table(self, name: str):
        if name not in self._tables:
            self._tables[name] = self.db.open_table(name)
        return self._tables[name]

    def has_table(self, name: str) -> bool:
        return name in self._tables or name in self.table_names()

    def versions(self, names: Iterable[str]) -> dict[str, int]:
        return {n: self.table(n).version for n in names}

    def latest(self, names: Iterable[str]) -> None:
        """On object storage, read these open tables (not pinned ones) at their latest versions from now on, in
        this order. Each table's reads are refreshed on its own clock there (``store_refresh_seconds``): a table
        read a moment ago may still show itself as it was before a commit that a table refreshed since shows."""
        if self.uri:
            for n in names:
                if n in self._tables and n not in self._pinned:
                    self._tables[n].checkout_latest()

    def settled_fingerprint(self, names: Iterable[str], quiet_seconds: float = 2.0) -> tuple | None:
        """The modification times of the tables' version folders, where every commit adds a manifest: equal
        fingerprints mean no commit in between, read with a few ``stat`` calls where ``versions`` opens every
        table. None (ask ``versions``) when a folder is missing or changed in the last
        ``quiet_seconds``: on a file system whose times are coarse, a second commit within the same tick would
        leave the time as it was."""
        if self.uri:  # no folder to look at: ask LanceDB
            return None
        try:
            times = tuple(os.stat(self.path / f"{n}.lance" / "_versions").st_mtime_ns for n in names)
        except OSError:
            return None
        return times if time.time_ns() - max(times, default=0) > quiet_seconds * 1e9 else None

    # ---- meta ---------------------------------------------------------
    def get_meta(self) -> dict[str, str]:
        if not self.has_table("meta"):
            return {}
        rows = self.table("meta").search().limit(None).to_arrow().to_pylist()
        return {r["key"]: r["value"] for r in rows}

    def set_meta(self, values: dict[str, str]) -> None:
        data = pa.table({"key": list(values), "value": [str(v) for v in values.values()]},
                        schema=schemas(1)["meta"])
        for attempt in range(5):
            try:
                self.table("meta").merge_insert("key").when_matched_update_all().when_not_matched_insert_all() \
                    .execute(data)
                return
            except RuntimeError as exc:
                # machines that create a new store at once: LanceDB turns the second creation of a table into an
                # overwrite, which a write read before it cannot follow. Each writes the same settings: again.
                if "Incompatible transaction" not in str(exc) or attempt == 4:
                    raise
                self.table("meta").checkout_latest()
                time.sleep(0.05 * (attempt + 1))

    # ---- writes -------------------------------------------------------
    @contextmanager
    def transaction(self, names: Iterable[str]) -> Iterator[None]:
        """Make the block's commits to the named tables (and the change log) one write: if it raises, restore
        the tables to their versions before it; if the process dies inside, the intent file it leaves makes
        the next writer do so (``recover``). A block inside another adds its tables to the outer one's intent."""
        names = list(dict.fromkeys([*names, CHANGES]))
        for n in names:
            self.table(n).checkout_latest()
        before = self.versions(names)
        outer = self._intent is None
        if outer:
            self._intent, self._ours = {}, {}
        new = {n: v for n, v in before.items() if n not in self._intent}
        if new:
            self._intent.update(new)
            self._write_intent(self._intent)
        try:
            yield
        except BaseException as exc:
            failed = self._restore(before, self._ours)
            if outer:
                self._intent = None
                if failed is None:
                    self._clear_intent()
            if failed is not None:
                # the intent stays: reads show the tables as they were, and the next writer undoes the rest
                self.pin(before)
                raise StoreError(f"write failed, and undoing it failed too: {exc}",
                                 hint=f"{disk_hint(exc, self.path.parent)}; until then reads show the data as "
                                      "it was before this write, and the next write undoes it") from exc
            if isinstance(exc, Exception) and not isinstance(exc, MemoryGraphError):
                raise StoreError(f"write failed and was rolled back, nothing was stored: {exc}",
                                 hint=disk_hint(exc, self.path.parent)) from exc
            raise
        if outer:
            self._intent = None
            self._clear_intent()

    def _restore(self, versions: dict[str, int], ours: dict[str, list[int]] | None = None) -> Exception | None:
        """Bring tables back to these versions (a new version equal to the old one); the first error, if one
        failed (then the intent stays, and the next writer tries again). On object storage, a table another
        machine committed to since is left as it is (``_undoable``)."""
        failed = None
        for n, version in versions.items():
            tbl = self.table(n)
            try:
                tbl.checkout_latest()
                if tbl.version != version and self._undoable(n, version, tbl.version, (ours or {}).get(n, [])):
                    tbl.restore(version)
            except Exception as exc:
                log.warning("could not roll back table %s to version %s: %s", n, version, exc)
                failed = failed or exc
        return failed

    def _undoable(self, name: str, before: int, latest: int, ours: list[int]) -> bool:
        """Whether restoring ``name`` to ``before`` undoes only this write: always on the local disk (the write
        lock keeps others out); on object storage only when every version since is one this write committed.
        Else its rows stay, and a warning says so: restoring would drop another machine's commit."""
        if not self.uri or ours == list(range(before + 1, latest + 1)):
            return True
        log.warning("not undoing the unfinished write to table %s: another writer committed to it since "
                    "(versions %s to %s, this write's %s)", name, before + 1, latest, ours or "unknown")
        return False

    def _committed(self, name: str) -> None:
        """Count a commit; of the open transaction on object storage, note the version it made in the intent
        file, so that the next writer after a kill knows which versions were the killed write's."""
        self.commits += 1
        self._commits_since_optimize[name] = self._commits_since_optimize.get(name, 0) + 1
        if self.uri and self._intent is not None:
            self._ours.setdefault(name, []).append(self.table(name).version)
            self._write_intent(self._intent)

    def pin(self, versions: dict[str, int]) -> None:
        """Read these tables at these versions until ``unpin``: the state before a write that could not be
        undone yet (an unfinished write on a full disk), so that no reader sees half of it."""
        for n, version in versions.items():
            if n != CHANGES and self.has_table(n):
                self.table(n).checkout(version)
                self._pinned[n] = version

    def release_pins(self) -> None:
        """Read the latest versions again once no unfinished write is left (another process undid it)."""
        if self._pinned and not self.intent_path.exists():
            self.unpin()

    def unpin(self) -> None:
        for n in self._pinned:
            self.table(n).checkout_latest()
        self._pinned = {}

    def _write_intent(self, versions: dict[str, int]) -> None:
        tmp = self.intent_path.with_name(f"{self.intent_path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"pid": os.getpid(), "at": time.time(), "tables": versions, "ours": self._ours}))
        os.replace(tmp, self.intent_path)  # whole or absent: a kill cannot leave half of it

    def _clear_intent(self) -> None:
        try:
            self.intent_path.unlink()
        except FileNotFoundError:
            pass

    def pending_intent(self) -> dict[str, int] | None:
        """The tables a killed write left half written, with their versions before it (None when none)."""
        try:
            return {str(k): int(v) for k, v in json.loads(self.intent_path.read_text())["tables"].items()}
        except FileNotFoundError:
            return None
        except (ValueError, KeyError, TypeError, AttributeError, OSError) as exc:
            raise StoreError(f"the write intent {self.intent_path} cannot be read: {exc}",
                             hint="run `memory-graph check --repair`") from exc

    def _pending_ours(self) -> dict[str, list[int]]:
        try:
            ours = json.loads(self.intent_path.read_text()).get("ours") or {}
            return {str(k): [int(v) for v in vs] for k, vs in ours.items()}
        except (OSError, ValueError, TypeError, AttributeError):
            return {}

    def recover(self) -> dict[str, int]:
        """Undo the write a killed process left half done (under the write lock): restore every table its
        intent names to the version before it, then log a full change so that every process reloads. The
        change log itself is not restored: it only grows, and a change naming rows that are gone is harmless,
        while a sequence number used twice would hide the next change from a process that saw the first.
        Returns the tables restored ({} when there was nothing to undo)."""
        intent = None if self._intent is not None else self.pending_intent()  # (not this process's open write)
        if intent is None:
            self.release_pins()
            return {}
        todo = {n: v for n, v in intent.items() if n != CHANGES and self.has_table(n)}
        for n in todo:
            self.table(n).checkout_latest()
        moved = {n: v for n, v in todo.items() if self.table(n).version != v}
        failed = self._restore(moved, self._pending_ours())
        if failed is not None:
            self.pin(todo)
            raise ReadOnlyError(f"an unfinished write in {self.path.parent} could not be undone: {failed}",
                                hint=f"{disk_hint(failed, self.path.parent)}; until then the data can be read as "
                                     "it was before that write, and not changed")
        self.unpin()
        if moved:
            log.warning("undid a write a killed process left half done (tables %s)", ", ".join(sorted(moved)))
        self.log_change(self.last_change() + 1, full=True)
        self._clear_intent()
        return moved

    def add(self, name: str, rows: list[dict] | pa.Table) -> None:
        if isinstance(rows, list):
            if not rows:
                return
            rows = pa.Table.from_pylist(rows, schema=self.table(name).schema)
        if rows.num_rows == 0:
            return
        self.table(name).add(rows)
        self._committed(name)
        self.rows_since_optimize += rows.num_rows

    def upsert(self, name: str, rows: list[dict], on: str = "id") -> None:
        if not rows:
            return
        data = pa.Table.from_pylist(rows, schema=self.table(name).schema)
        (self.table(name).merge_insert(on).when_matched_update_all().when_not_matched_insert_all().execute(data))
        self._committed(name)
        self.rows_since_optimize += len(rows)

    def delete(self, name: str, where: str) -> None:
        self.table(name).delete(where)
        self._committed(name)
        self.rows_since_optimize += 1

    def delete_ids(self, name: str, ids: Iterable[str], column: str = "id") -> None:
        ids = list(ids)
        for i in range(0, len(ids), 500):
            self.delete(name, sql_in(column, ids[i:i + 500]))

    # ---- the change log -------------------------------------------------
    def last_change(self) -> int:
        """The sequence number of the newest change (0 for none)."""
        seqs = self.query(CHANGES, None, ["seq"]).column("seq").to_pylist()
        return max(seqs, default=0)

    def log_change(self, seq: int, memories: Iterable[str] = (), entities: Iterable[str] = (),
                   relations: Iterable[str] = (), full: bool = False) -> tuple[int, float]:
        """Append change number ``seq`` (under the write lock, as the last step of a transaction). Returns its
        key, (seq, at)."""
        at = time.time()
        self.add(CHANGES, [dict(seq=seq, at=at, memories=sorted(set(memories)),
                                entities=sorted(set(entities)), relations=sorted(set(relations)), full=full)])
        self._logged_at = self.commits
        return seq, at

    def unlogged_since(self, commits: int) -> bool:
        """On object storage, whether this process committed since ``commits`` without logging a change (a
        code write): other machines look at the change log's version alone to know whether anything moved."""
        return bool(self.uri) and self.commits > commits and self._logged_at <= commits

    def changes_since(self, seq: int) -> list[dict]:
        """The changes numbered after ``seq``, oldest first."""
        return sorted(self.query(CHANGES, f"seq > {int(seq)}").to_pylist(), key=lambda r: r["seq"])

    def prune_changes(self, keep: int) -> None:
        """Keep only the newest ``keep`` changes (a process further behind reloads its graph whole)."""
        last = self.last_change()
        if last > keep:
            self.table(CHANGES).delete(f"seq <= {last - keep}")

    # ---- reads --------------------------------------------------------
    def query(self, name: str, where: str | None = None, columns: list[str] | None = None,
              limit: int | None = None) -> pa.Table:
        q = self.table(name).search()
        if where:
            q = q.where(where)
        if columns:
            q = q.select(columns)
        return q.limit(limit).to_arrow()

    def batches(self, name: str, columns: list[str], size: int = 8_192) -> Iterator[pa.RecordBatch]:
        """Every row of a table, ``size`` rows at a time: a whole table read at once would hold it twice."""
        yield from self.table(name).search().select(columns).limit(None).to_batches(size)

    def by_ids(self, name: str, ids: Iterable[str], columns: list[str] | None = None,
               column: str = "id") -> pa.Table:
        ids = list(ids)
        parts = [self.query(name, sql_in(column, ids[i:i + 500]), columns) for i in range(0, len(ids), 500)]
        if not parts:  # no query for no ids: a query costs milliseconds even when it matches nothing
            schema = self._empty_schemas.get(name)
            if schema is None or any(c not in schema.names for c in columns or ()):
                # (each schema is a round trip to LanceDB's loop: a catch-up asks for two tables' empty reads)
                schema = self._empty_schemas[name] = self.table(name).schema
            return (pa.schema([schema.field(c) for c in columns]) if columns else schema).empty_table()
        return pa.concat_tables(parts) if len(parts) > 1 else parts[0]

    def count(self, name: str, where: str | None = None) -> int:
        return self.table(name).count_rows(where) if where else self.table(name).count_rows()

    def vector_search(self, name: str, vector: np.ndarray, where: str | None, limit: int,
                      columns: list[str], prefilter: bool = True) -> tuple[list[str], list[float]]:
        """Cosine nearest neighbours; returns ids and similarities (1 - cosine distance).

        prefilter=False filters the ``limit`` nearest afterwards, so fewer may come back.
        """
        # refined: the similarities are exact cosines with an ANN index too (see Config.ann_refine_factor)
        q = (self.table(name).search(vector.astype(np.float32)).metric("cosine")
             .refine_factor(self.config.ann_refine_factor).ef(max(self.config.ann_ef, limit)))
        if where:
            q = q.where(where, prefilter=prefilter)
        rows = q.limit(limit).select([*columns, "_distance"]).to_arrow()
        ids = rows.column("id").to_pylist()
        sims = [1.0 - float(d) for d in rows.column("_distance").to_pylist()]
        return ids, sims

    # ---- maintenance --------------------------------------------------
    def has_vector_index(self, name: str) -> bool:
        return any("vector" in list(ix.columns) for ix in self.table(name).list_indices())

    def optimize(self, names: Iterable[str], force: bool = False, keep_versions_seconds: float | None = None) -> None:
        """Compact fragments, prune old versions (older than ``keep_versions_seconds``, by default the
        config's), refresh (or create) the ANN index."""
        keep = self.config.keep_versions_seconds if keep_versions_seconds is None else keep_versions_seconds
        if not force and self.rows_since_optimize < self.config.optimize_every_rows and not self._fragmented():
            return
        self._commits_since_optimize.clear()
        for name in names:
            tbl = self.table(name)
            try:
                if name == CHANGES:
                    self.prune_changes(self.config.change_log_rows)
                if "vector" in tbl.schema.names:
                    self.ensure_ann_index(name)
                for column in LOOKUP_COLUMNS.get(name, ()):
                    self.ensure_scalar_index(name, column)
                with warnings.catch_warnings():  # LanceDB's warning on 0 is what the caller asked for
                    warnings.simplefilter("ignore", UserWarning)
                    tbl.optimize(cleanup_older_than=timedelta(seconds=keep))
            except Exception as exc:
                raise StoreError(f"optimizing table {name} failed: {exc}") from exc
        self.rows_since_optimize = 0

    def _fragmented(self) -> bool:
        """Whether a table lies in more than ``store_compact_fragments`` small fragments: this process committed
        that many times to one table since it last optimized, or, at its first upkeep, the memories table has
        that many (``Config.store_compact_fragments``)."""
        if max(self._commits_since_optimize.values(), default=0) >= self.config.store_compact_fragments:
            return True
        if self._fragments_checked or not self.has_table("memories"):
            return False
        self._fragments_checked = True
        stats = self.table("memories").stats()
        fragments = stats["fragment_stats"] if isinstance(stats, dict) else stats.fragment_stats
        small = fragments["num_small_fragments"] if isinstance(fragments, dict) else fragments.num_small_fragments
        return small > self.config.store_compact_fragments

    def ensure_scalar_index(self, name: str, column: str) -> bool:
        """A B-tree on a column that lookups filter by, once the table has ``ann_min_rows`` rows (below
        that a scan is as fast). ``optimize`` folds later rows into it. Returns whether it built."""
        tbl = self.table(name)
        if tbl.count_rows() < self.config.ann_min_rows or self._has_index(name, column):
            return False
        tbl.create_scalar_index(column)
        return True

    def _has_index(self, name: str, column: str) -> bool:
        return any(list(ix.columns) == [column] for ix in self.table(name).list_indices())

    @contextmanager
    def deferred_rebuilds(self) -> Iterator[None]:
        """Optimizes inside leave the ``ann_max_deltas`` rebuilds for ``take_deferred`` (the table's growth
        still rebuilds at once): each batch of an index run adds a delta, and a rebuild between batches would
        be outdated by the next ones."""
        self._deferring += 1
        try:
            yield
        finally:
            self._deferring -= 1

    def take_deferred(self) -> list[str]:
        """The tables whose rebuild ``deferred_rebuilds`` put off, once no such block is open (then forgotten)."""
        if self._deferring:
            return []
        names, self._deferred = sorted(self._deferred), set()
        return names

    def ann_deltas(self, name: str) -> int:
        """How many indices the vector index of a table is made of (0 without one): its build plus one delta
        for each optimize that found rows it did not cover."""
        tbl = self.table(name)
        index = next((ix.name for ix in tbl.list_indices() if "vector" in list(ix.columns)), None)
        return tbl.index_stats(index).num_indices if index else 0

    def over_delta_limit(self, name: str) -> bool:
        """Whether a table's vector index is made of more than ``ann_max_deltas`` indices."""
        return self.ann_deltas(name) > self.config.ann_max_deltas  # 0 without an index

    def ensure_ann_index(self, name: str) -> bool:
        """Create the ANN index (and a B-tree on id, for the lookups of each search) once the table is large
        enough for flat search to be slow; rebuild it once the table has grown ``ann_rebuild_growth`` times
        since (meta ``ann_rows:<table>`` holds the rows at the last build) or holds more than
        ``ann_max_deltas`` delta indices. Returns whether it built."""
        tbl = self.table(name)
        rows = tbl.count_rows()
        key = f"ann_rows:{name}"
        if name in COPIED and rows <= self.config.vector_copy_max_rows:
            # the engine's in-process copy serves these searches: an index would cost a build (48 s at
            # 100,000 rows, stalling a write) that nothing reads; the B-tree on id still serves lookups
            if rows >= self.config.ann_min_rows and not self._has_index(name, "id"):
                tbl.create_scalar_index("id")
            return False
        if self.has_vector_index(name):
            built = self.get_meta().get(key)
            if built is None:  # an index from before the growth rule: count from now
                self.set_meta({key: rows})
                built = rows
            deltas_over = self.over_delta_limit(name)
            if deltas_over and self._deferring:
                self._deferred.add(name)
                deltas_over = False
            if rows < self.config.ann_rebuild_growth * int(built) and not deltas_over:
                return False
        elif rows < self.config.ann_min_rows:
            return False
        if not self._has_index(name, "id"):
            tbl.create_scalar_index("id")
        log.info("building %s vector index on %s (%d rows)", self.config.ann_index_type, name, rows)
        tbl.create_index(metric="cosine", index_type=self.config.ann_index_type, vector_column_name="vector",
                         replace=True)
        self.set_meta({key: rows})
        return True

    def disk_bytes(self) -> int:
        """Bytes of the tables on the local disk (0 for a store on object storage)."""
        if self.uri:
            return 0
        return sum(p.stat().st_size for p in self.path.rglob("*") if p.is_file())
