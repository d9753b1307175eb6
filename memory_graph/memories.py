"""Memories: their writes (store, update, invalidate, delete) across LanceDB, Tantivy and the views, and
reading their records (``Memories``)."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Callable, Iterable

from .entities import Entities
from .errors import NotFoundError, ValidationError
from .models import Filters, Memory, content_hash, new_id
from .records import MEMORY_COLUMNS, embed_text, entity_text, memory_from_row, memory_to_row, node_attrs, passage_rows
from .store import sql_filter, sql_quote, vector_matrix
from .text import derive_title
from .validation import (check_content, check_filters, check_ids, check_importance, check_limit, check_offset,
                         check_optional_text, check_span, check_tags, check_type, clean_title, parse_time,
                         prepare_memory, strip_private)
from .writes import Writes

#: what a listing may be ordered by
ORDERS = ("created_at", "updated_at", "importance")

if TYPE_CHECKING:
    from .config import Config
    from .store import LanceStore, TextIndex
    from .views import MemoryView


class Memories:
    """Writes memories in one transaction across the stores (memories, passages, entities, mentions,
    relations, the BM25 index) and then the memory graph and vector copies of ``view`` (under ``graph_lock``);
    reads their records.

    Built by the Engine with the stores, the view, ``embedder()`` (the model, loaded lazily), ``entities`` (which
    links each memory to what it names) and its write interface (``writes``); ``keep_vectors(memories,
    passages)`` keeps the vector copies up to date, ``settle_if_grown()`` freezes the graph's objects once it has
    doubled. Either every memory of a write is stored or, on any error, none is.
    """

    def __init__(self, config: Config, lance: LanceStore, text: TextIndex, view: MemoryView,
                 graph_lock: threading.RLock, embedder: Callable[[], Any], entities: Entities, writes: Writes,
                 keep_vectors: Callable[[list[dict], list[dict]], None], settle_if_grown: Callable[[], None],
                 nearest: Callable[..., tuple[list[str], list[float]]]) -> None:
        self.config, self.lance, self.text, self.view, self.entities, self.writes = (config, lance, text, view,
                                                                                    entities, writes)
        self._graph_lock, self._embedder = graph_lock, embedder
        self._keep_vectors, self._settle_if_grown, self._nearest = keep_vectors, settle_if_grown, nearest

    def store_many(self, items: list[dict], _vectors=None) -> list[str]:
        """Store many memories in one write (one embedding batch, one commit per store). Returns their ids.

        Either every memory is stored or, on any error, none is.
        """
        now = self.writes.now()
        prepared = [prepare_memory(item, now, self.config) for item in items]
        if not prepared:
            return []
        ids = [m.id for m, _ in prepared]
        if len(set(ids)) != len(ids):
            raise ValidationError("duplicate ids in one batch")
        texts = [embed_text(m.title, m.content) for m, _ in prepared]
        if _vectors is None:
            # the entities these memories will probably create are embedded in the same model call, so the
            # link step under the write lock finds their vectors in the embedder's cache
            with self._graph_lock:
                _, likely, _ = self.entities.link([(m, ents) for m, ents in prepared], now, embed=False)
            vectors = self._embedder().encode(texts + [entity_text(r) for r in likely])[:len(texts)]
        else:
            vectors = _vectors
        passages = passage_rows(self._embedder(), self.config, list(zip(ids, texts)))
        given = [i for i, item in zip(ids, items) if item.get("id")]  # the others are fresh uuids
        with self.writes.section():
            taken = self.lance.by_ids("memories", given, ["id"]).column("id").to_pylist() if given else []
            if taken:
                raise ValidationError(f"memory id(s) already exist: {', '.join(taken[:5])}",
                                      hint="use update to change a stored memory")
            rows = [memory_to_row(m, v) for (m, _), v in zip(prepared, vectors)]
            links, new_entities, renamed = self.entities.link([(m, ents) for m, ents in prepared], now)
            with self.lance.transaction(["memories", "passages", "entities", "mentions"]):
                self.lance.add("memories", rows)
                self.lance.add("passages", passages)
                self.lance.add("entities", new_entities)
                if renamed:
                    self.lance.upsert("entities", renamed)
                self.lance.add("mentions", links)
                self.text.write(upserts=[(r, "memory") for r in rows])
                self.writes.log_change(memories=ids, entities=[e["id"] for e in new_entities + renamed])
            self._views_add(rows, new_entities + renamed, links, passages)
            self.writes.after_write()
        return ids

    def update(self, memory_id: str, *, content: str | None = None, title: str | None = None,
               memory_type: str | None = None, tags=None, importance: int | None = None,
               project: str | None = None, source: str | None = None, metadata: dict | None = None,
               valid_from=None, valid_until=None) -> Memory:
        """Change fields of a memory; re-embeds and re-links only if content (or title) changed."""
        if all(v is None for v in (content, title, memory_type, tags, importance, project, source, metadata,
                                   valid_from, valid_until)):
            raise ValidationError("nothing to change", hint="give the fields to change, such as content or tags")
        with self.writes.section():
            old = self.get([memory_id])[0]
            m = Memory(**{**old.__dict__})
            if content is not None:
                m.content = check_content(content, self.config)
                m.content_hash = content_hash(m.content)
                if title is None and old.title == derive_title(old.content):
                    m.title = derive_title(m.content)
            if title is not None:
                if not isinstance(title, str) or not strip_private(title).strip() or \
                        len(title) > self.config.max_title_chars:
                    raise ValidationError(f"title must be 1..{self.config.max_title_chars} characters")
                m.title = clean_title(title)
            if memory_type is not None:
                m.memory_type = check_type(memory_type)
            if tags is not None:
                m.tags = check_tags(tags, self.config)
            if importance is not None:
                m.importance = check_importance(importance)
            if project is not None:
                m.project = check_optional_text(project, "project")
            if source is not None:
                m.source = check_optional_text(source, "source")
            if metadata is not None:
                if not isinstance(metadata, dict):
                    raise ValidationError("metadata must be a JSON object")
                m.metadata = metadata
            if valid_from is not None:
                m.valid_from = parse_time(valid_from, "valid_from")
            if valid_until is not None:
                m.valid_until = parse_time(valid_until, "valid_until")
            check_span(m.valid_from, m.valid_until)
            m.updated_at = max(self.writes.now(), old.updated_at + 1e-6)
            relink = (m.content_hash, m.title, m.tags, m.project) != (old.content_hash, old.title, old.tags,
                                                                       old.project)
            reembed = embed_text(m.title, m.content) != embed_text(old.title, old.content)
            if reembed:
                vector = self._embedder().encode([embed_text(m.title, m.content)])[0]
                passages = passage_rows(self._embedder(), self.config, [(memory_id, embed_text(m.title, m.content))])
            else:
                vector = self.lance.by_ids("memories", [memory_id], ["vector"]).column("vector")[0].as_py()
            row = memory_to_row(m, vector)
            explicit = self.entities.explicit_of(memory_id) if relink else []
            links, new_entities, renamed = (self.entities.link([(m, explicit)], self.writes.now()) if relink
                                            else ([], [], []))
            with self.lance.transaction(["memories", "passages", "entities", "mentions"]):
                self.lance.upsert("memories", [row])
                if reembed:
                    self.lance.delete_ids("passages", [memory_id], column="memory_id")
                    self.lance.add("passages", passages)
                if relink:
                    self.lance.delete("mentions", f"memory_id = {sql_quote(memory_id)}")
                    self.lance.add("entities", new_entities)
                    if renamed:
                        self.lance.upsert("entities", renamed)
                    self.lance.add("mentions", links)
                self.text.write(upserts=[(row, "memory")])
                self.writes.log_change(memories=[memory_id], entities=[e["id"] for e in new_entities + renamed])
            with self._graph_lock:
                if relink:
                    self.view.graph.remove_mentions_of(memory_id)
                if reembed and self.view.passages is not None:
                    self.view.passages.remove_owned([memory_id])
                self._views_add([row], new_entities + renamed, links, passages if reembed else ())
            self.writes.after_write()
            return m

    def invalidate(self, memory_id: str, at=None, reason: str = "", superseded_by: str | None = None) -> Memory:
        """End a memory's validity (now, or at ``at``), with a reason and the id of what replaces it.

        A memory that has already ended keeps when it ended unless ``at`` is given, and its reason and
        replacement unless new ones are given."""
        when = parse_time(at, "at") or self.writes.now()
        if superseded_by == memory_id:
            raise ValidationError("a memory cannot supersede itself", hint="superseded_by is the memory replacing it")
        if superseded_by:
            self.get([superseded_by])
        if not isinstance(reason, str) or len(reason) > 2_000:
            raise ValidationError("reason must be a string of at most 2,000 characters")
        with self.writes.section():
            old = self.get([memory_id])[0]
            if at is None and old.valid_until is not None and old.valid_until <= self.writes.now():
                when = old.valid_until  # invalidated again: when it ended is history, kept
            if old.valid_from is not None and when <= old.valid_from:
                raise ValidationError("the memory is not yet valid at that time", hint="give a later time")
            m = Memory(**{**old.__dict__})
            m.valid_until, m.invalidation_reason = when, reason or old.invalidation_reason
            m.superseded_by = superseded_by or old.superseded_by
            m.updated_at = max(self.writes.now(), old.updated_at + 1e-6)
            vector = self.lance.by_ids("memories", [memory_id], ["vector"]).column("vector")[0].as_py()
            row = memory_to_row(m, vector)
            rel = None
            if superseded_by and superseded_by != old.superseded_by:
                rel = dict(id=new_id("rel"), source=superseded_by, target=memory_id, relation_type="supersedes",
                           weight=1.0, valid_from=when, valid_until=None, created_at=self.writes.now())
            with self.lance.transaction(["memories", "relations"]):
                self.lance.upsert("memories", [row])
                if rel:
                    self.lance.add("relations", [rel])
                self.text.write(upserts=[(row, "memory")])
                self.writes.log_change(memories=[memory_id], relations=[rel["id"]] if rel else [])
            with self._graph_lock:
                if memory_id in self.view.graph:
                    self.view.graph.add_memory(memory_id, node_attrs(row))
                if rel:
                    self.view.graph.add_relation(rel["id"], superseded_by, memory_id, "supersedes", 1.0)
            self.writes.after_write()
            return m

    def delete(self, memory_ids: str | list[str]) -> int:
        """Hard-delete memories with their mentions, relations and index entries. Returns how many."""
        ids = check_ids(memory_ids)
        with self.writes.section():
            self.get(ids)
            where_rel = " OR ".join(f"source = {sql_quote(i)} OR target = {sql_quote(i)}" for i in ids)
            with self.lance.transaction(["memories", "passages", "mentions", "relations"]):
                self.lance.delete_ids("memories", ids)
                self.lance.delete_ids("passages", ids, column="memory_id")
                self.lance.delete_ids("mentions", ids, column="memory_id")
                self.lance.delete("relations", where_rel)
                self.text.write(deletes=ids, kind="memory")
                self.writes.log_change(memories=ids)  # dropping a node drops the relations at it
            with self._graph_lock:
                for i in ids:
                    self.view.graph.remove_node(i)
                if self.view.vectors is not None:
                    self.view.vectors.remove(ids)
                if self.view.passages is not None:
                    self.view.passages.remove_owned(ids)
            self.writes.after_write()
        return len(ids)

    def _views_add(self, memory_rows: list[dict], entity_rows: list[dict], mentions: list[dict],
                   passages: list[dict] = ()) -> None:
        """This process's views after a write of memories: their nodes, entities, mentions and vectors."""
        with self._graph_lock:
            for e in entity_rows:
                self.view.graph.add_entity(e["id"], e["name"], e["entity_type"])
                self.view.index.add(e["id"], e["name"], e["entity_type"], e.get("aliases") or [])
            for r in memory_rows:
                self.view.graph.add_memory(r["id"], node_attrs(r))
            self._keep_vectors(memory_rows, passages)
            for mn in mentions:
                self.view.graph.add_mention(mn["memory_id"], mn["entity_id"], mn["weight"])
        self._settle_if_grown()

    def get(self, memory_ids: str | list[str], strict: bool = True) -> list[Memory]:
        """Full records in the order asked. strict: raise NotFoundError naming any unknown id."""
        ids = check_ids(memory_ids)
        rows = {r["id"]: r for r in self.lance.by_ids("memories", ids, MEMORY_COLUMNS).to_pylist()}
        missing = [i for i in ids if i not in rows]
        if missing and strict:
            raise NotFoundError("memory", missing)
        return [memory_from_row(rows[i]) for i in ids if i in rows]

    # ---- reads ------------------------------------------------------------
    def duplicates(self, memory_id: str, limit: int = 5) -> list[str]:
        """Up to ``limit`` other memories of the same project with exactly the same content, oldest first.

        Both are kept (an event can recur); store_memory tells the agent, which may delete its repeat."""
        check_ids([memory_id])
        rows = self.lance.by_ids("memories", [memory_id], ["content_hash", "project"]).to_pylist()
        if not rows:
            raise NotFoundError("memory", [memory_id])
        where = (f"content_hash = {sql_quote(rows[0]['content_hash'])} AND project = {sql_quote(rows[0]['project'])} "
                 f"AND id != {sql_quote(memory_id)}")
        rows = self.lance.query("memories", where, ["id", "created_at"]).to_pylist()
        return [r["id"] for r in sorted(rows, key=lambda r: (r["created_at"], r["id"]))[:limit]]

    def similar(self, memory_id: str) -> list[tuple[str, float]]:
        """Current memories of the same project that say much the same as this one (cosine of the stored vectors
        at least ``similar_min_cosine``; exact copies are ``duplicates``), most alike first: what a new memory
        may update, for the caller to retire with ``invalidate(old, superseded_by=new)``."""
        check_ids([memory_id])
        self.writes.catch_up()  # another process's writes reach the graph and in-process vectors first, as a search's do
        with self._graph_lock:  # store_memory calls this after each store: the graph's copy spares two reads
            node = self.view.graph.attrs(memory_id) if memory_id in self.view.graph else None
            held = self.view.vectors
            vec = held.get(memory_id) if held is not None and node is not None else None
        if vec is None:
            project = self.get([memory_id])[0].project  # NotFoundError for an unknown id
            rows = self.lance.by_ids("memories", [memory_id], ["id", "vector"])
            if not rows.num_rows:  # deleted meanwhile
                return []
            vec = vector_matrix(rows)[0]
        else:
            project = node.project
        limit = self.config.similar_limit
        if limit <= 0:
            return []
        filters, now = Filters(project=project, include_global=False), self.writes.now()
        ids, sims = self._nearest(vec, filters, sql_filter(filters, now), now, 2 * limit + 1)
        close = {i: float(s) for i, s in zip(ids, sims) if i != memory_id and s >= self.config.similar_min_cosine}
        if not close:
            return []
        read = {o.id: o for o in self.get([memory_id, *close], strict=False)}
        if memory_id not in read:  # deleted meanwhile
            return []
        others = [o for i, o in read.items() if i != memory_id and o.content_hash != read[memory_id].content_hash]
        return sorted(((o.id, close[o.id]) for o in others), key=lambda t: -t[1])[:limit]

    def page(self, project: str | None = None, memory_type: str | Iterable[str] | None = None, tags=None,
             created_after=None, created_before=None, valid_at=None, include_invalid: bool = True,
             limit: int = 20, offset: int = 0, order_by: str = "created_at",
             descending: bool = True) -> tuple[list[Memory], int]:
        """Memories matching the filters, one page at a time. Returns (page, total matching)."""
        check_limit(limit, self.config)
        check_offset(offset)
        if order_by not in ORDERS:
            raise ValidationError(f"order_by={order_by!r} is not one of {', '.join(ORDERS)}")
        f = check_filters(self.config, project, memory_type, tags, created_after, created_before,
                          valid_at, include_invalid and valid_at is None, include_global=False)
        where = sql_filter(f, self.writes.now())
        table = self.lance.query("memories", where, ["id", order_by])
        keyed = sorted(zip(table.column(order_by).to_pylist(), table.column("id").to_pylist()),
                       reverse=descending)
        page = [i for _, i in keyed[offset:offset + limit]]
        return (self.get(page) if page else []), len(keyed)

    def timeline(self, anchor_id: str, before: int, after: int) -> dict[str, Any]:
        """Chronological neighbours of an anchor memory in its project (``before`` and ``after`` checked)."""
        anchor = self.get([anchor_id])[0]
        scope = f"project = {sql_quote(anchor.project)}"
        rows = self.lance.query("memories", scope, ["id", "created_at"]).to_pylist()
        rows.sort(key=lambda r: (r["created_at"], r["id"]))
        pos = next(i for i, r in enumerate(rows) if r["id"] == anchor_id)
        earlier = [r["id"] for r in rows[max(0, pos - before):pos]]
        later = [r["id"] for r in rows[pos + 1:pos + 1 + after]]
        return {"anchor": anchor, "before": self.get(earlier) if earlier else [],
                "after": self.get(later) if later else []}
