"""Finding and mending rows a write left torn or dangling: ``memory-graph check`` and ``check --repair``.

Every write is one transaction (``LanceStore.transaction``), and a write a killed process left half done is
undone by the next writer, so a data directory written by this version holds neither. These checks find what
older versions, or a store damaged by hand, left behind, and mend it from the rows that are whole.
"""

from __future__ import annotations

import logging
from contextlib import nullcontext
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc

from .records import embed_text, memory_from_row, passage_rows

if TYPE_CHECKING:  # pragma: no cover
    from .engine import Engine

log = logging.getLogger("memory_graph")


def _column(lance, table: str, column: str) -> pa.Array:
    col = lance.query(table, None, [column]).column(column)
    return col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col


def _ids_where_missing(rows: pa.Table, checks: list[tuple[str, pa.Array]]) -> list[str]:
    """Ids of rows whose value in any of these columns is not among the given ids."""
    if rows.num_rows == 0:
        return []
    bad = None
    for column, present in checks:
        missing = pc.invert(pc.is_in(rows.column(column), value_set=present))
        bad = missing if bad is None else pc.or_(bad, missing)
    return rows.filter(bad).column("id").to_pylist()


def dangling(lance) -> dict[str, list[str]]:
    """Rows that point at a record that is not there, by table (their ids): mentions of a missing memory or
    entity, passages of a missing memory, relations with a missing end, and code rows of a file the project
    no longer has (chunks, symbols, edges, neighbour lists). Reads only id columns."""
    memories, entities = _column(lance, "memories", "id"), _column(lance, "entities", "id")
    either = pa.concat_arrays([memories, entities.cast(memories.type)])
    out = {
        "mentions": _ids_where_missing(lance.query("mentions", None, ["id", "memory_id", "entity_id"]),
                                       [("memory_id", memories), ("entity_id", entities)]),
        "passages": _ids_where_missing(lance.query("passages", None, ["id", "memory_id"]),
                                       [("memory_id", memories)]),
        "relations": _ids_where_missing(lance.query("relations", None, ["id", "source", "target"]),
                                        [("source", either), ("target", either)]),
    }
    if lance.has_table("files"):
        files = lance.query("files", None, ["project", "path"])
        known = pc.binary_join_element_wise(files.column("project"), files.column("path"), "\x00")
        for table in ("code_chunks", "symbols", "symbol_edges", "chunk_neighbours"):
            rows = lance.query(table, None, ["id", "project", "path"])
            keyed = rows.append_column("key", pc.binary_join_element_wise(rows.column("project"),
                                                                          rows.column("path"), "\x00"))
            out[table] = _ids_where_missing(keyed, [("key", known)])
        chunks = _column(lance, "code_chunks", "id")
        neighbours = lance.query("chunk_neighbours", None, ["id"])
        out["chunk_neighbours"] = sorted(set(out["chunk_neighbours"]) | set(_ids_where_missing(
            neighbours, [("id", chunks)])))
    return {table: ids for table, ids in out.items() if ids}


def torn_memories(engine: "Engine") -> dict[str, list[str]]:
    """Memories a write left half written: with fewer or more passage vectors than their text has
    ("passages"), or with no entity links where linking them finds some ("links"). Embeds nothing; splitting
    texts into passages needs the model's tokenizer."""
    lance = engine.lance
    rows = lance.query("memories", None, ["id", "title", "content", "memory_type", "tags", "importance",
                                          "project", "source", "metadata", "created_at", "updated_at",
                                          "valid_from", "valid_until", "superseded_by", "invalidation_reason",
                                          "content_hash"]).to_pylist()
    counts: dict[str, int] = {}
    for mid in _column(lance, "passages", "memory_id").to_pylist():
        counts[mid] = counts.get(mid, 0) + 1
    split, c = getattr(engine.embedder, "passages", None), engine.config
    wrong_passages = []
    if split is not None and c.max_passages > 0:
        wrong_passages = [r["id"] for r in rows if counts.get(r["id"], 0) != len(split(
            embed_text(r["title"], r["content"]), c.passage_tokens, c.passage_stride, c.max_passages))]
    linked = set(_column(lance, "mentions", "memory_id").to_pylist())
    unlinked = []
    with engine._graph_lock:
        for r in rows:
            if r["id"] not in linked:
                links, _, _ = engine.entities.link([(memory_from_row(r), [])], engine._now(),
                                                embed=False)
                if links:
                    unlinked.append(r["id"])
    return {"passages": wrong_passages, "links": unlinked}


def check(engine: "Engine", repair: bool = False) -> dict:
    """Report torn and dangling rows, and whether the BM25 index matches LanceDB; with ``repair``, mend the rows
    (``mend``), then reconcile the BM25 index and reload the graphs. Returns what was found, and whether it
    was repaired."""
    # under the write lock, which undoes an unfinished write on entering; a directory that can only be read is
    # checked as it reads
    with engine._writing() if repair or engine._read_only is None else nullcontext():
        found = _find(engine)
        report = {
            "dangling": {t: len(ids) for t, ids in found["dangling"].items()},
            "torn": {k: len(v) for k, v in found["torn"].items() if v},
            "text_index_in_sync": engine.text.num_docs() == engine.sync.text_docs_expected(),
        }
        report["ok"] = not report["dangling"] and not report["torn"] and report["text_index_in_sync"]
        if repair and not report["ok"]:
            _mend(engine, found)
            engine.sync.reconcile_text(force=True)
            engine.sync.load_graph()
            if any(t in found["dangling"] for t in ("code_chunks", "chunk_neighbours")):
                for project in sorted(set(_column(engine.lance, "files", "project").to_pylist())):
                    engine.code_refresh_density(project)  # the lists that named a removed chunk
            engine.sync.write_stamp()
            report["repaired"] = True
        return report


def mend(engine: "Engine") -> dict[str, int]:
    """Delete dangling rows and recompute the passages and links of torn memories, in one write (under the
    write lock); the derived indexes are the caller's to rebuild. Returns how many rows of each kind."""
    found = _find(engine)
    _mend(engine, found)
    return {**{t: len(ids) for t, ids in found["dangling"].items()},
            **{f"torn_{k}": len(v) for k, v in found["torn"].items() if v}}


def _find(engine: "Engine") -> dict:
    return {"dangling": dangling(engine.lance), "torn": torn_memories(engine)}


def _mend(engine: "Engine", found: dict) -> None:
    found_dangling, torn = found["dangling"], found["torn"]
    if not found_dangling and not torn["passages"] and not torn["links"]:
        return
    lance, now = engine.lance, engine._now()
    redo = sorted(set(torn["passages"]))
    relink = sorted(set(torn["links"]))
    rows = {r["id"]: r for r in lance.by_ids("memories", sorted(set(redo) | set(relink))).to_pylist()}
    passages = passage_rows(engine.embedder, engine.config,
                            [(i, embed_text(rows[i]["title"], rows[i]["content"])) for i in redo])
    with engine._graph_lock:
        links, new_entities, renamed = engine.entities.link(
            [(memory_from_row(rows[i]), []) for i in relink], now) if relink else ([], [], [])
    with lance.transaction([*found_dangling, "passages", "mentions", "entities"]):
        for table, ids in found_dangling.items():
            lance.delete_ids(table, ids)
        lance.delete_ids("passages", redo, column="memory_id")
        lance.add("passages", passages)
        lance.add("entities", new_entities)
        if renamed:
            lance.upsert("entities", renamed)
        lance.add("mentions", links)
        engine.sync.log_change(full=True)
    log.warning("mended %d dangling row(s), the passages of %d memories and the links of %d",
                sum(map(len, found_dangling.values())), len(redo), len(relink))

