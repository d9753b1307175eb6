"""Entities and relations: explicit creation, automatic linking of memories, graph queries (``Entities``)."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Callable, Iterable

from .errors import NotFoundError, ValidationError
from .linking import GUESSED_TYPES, EntityIndex, aliases, extract, norm
from .models import Entity, Memory, Relation, new_id
from .records import entity_from_row, entity_text, relation_from_row
from .store import sql_in, sql_quote
from .validation import check_name, parse_time
from .writes import Writes

if TYPE_CHECKING:
    from .config import Config
    from .store import LanceStore
    from .views import MemoryView

#: weight of a memory's link to an entity, by how the link was made.
LINK_WEIGHTS = {"explicit": 1.0, "auto": 1.0, "tag": 0.5, "project": 0.3}
DIRECTIONS = ("out", "in", "both")


class Entities:
    """Entities and relations: memories linked to what they name, explicit entities and relations, and the
    graph's queries; over the memory graph and entity index of ``view`` (read and changed under ``graph_lock``)
    and LanceDB.

    Built by the Engine with the stores, the view, ``embedder()`` (the model, loaded lazily) and its write
    interface (``writes``); every write runs in ``writes.section()``.
    """

    def __init__(self, config: Config, lance: LanceStore, view: MemoryView, graph_lock: threading.RLock,
                 embedder: Callable[[], Any], writes: Writes) -> None:
        self.config, self.lance, self.view, self.writes = config, lance, view, writes
        self._graph_lock, self._embedder = graph_lock, embedder

    # ---- linking --------------------------------------------------------
    def _new_row(self, name: str, entity_type: str, now: float, description: str = "",
                        aliases: Iterable[str] = ()) -> dict:
        return {"id": new_id("ent"), "name": name, "name_norm": norm(name), "entity_type": entity_type,
                "description": description, "aliases": list(aliases), "created_at": now, "vector": None}

    def link(self, items: list[tuple[Memory, list[str]]], now: float,
                   embed: bool = True) -> tuple[list[dict], list[dict], list[dict]]:
        """Mentions for each memory, the entities they need that do not exist yet (with vectors, unless
        ``embed`` is false), and existing entities given a new alias (rows to write back).

        A memory links to: entities named explicitly, entities whose name or alias its text contains,
        names extracted from its text (identifiers, paths, proper names), its tags and its project. A
        definition in its text ("Falcon is the internal name of search-indexer", ``linking.aliases``) makes
        the alias a second name of the entity it names, unless the alias already names an entity.
        """
        new: dict[tuple[str, str], dict] = {}
        changed: dict[str, dict] = {}
        pending = EntityIndex()  # aliases defined in this batch, for the memories after their definition
        first_of_norm: dict[str, tuple[str, str]] = {}  # normal form -> key of the first new entity with it
        mentions: dict[str, dict] = {}

        def entity(name: str, etype: str, any_type: bool = False) -> str:
            eid = self.view.index.find(name, None if any_type else etype) or (pending.find(name) if any_type
                                                                                 else None)
            if eid:
                return eid
            n = norm(name)
            key = (n, "" if any_type else etype)
            if key not in new and any_type:
                key = first_of_norm.get(n, key)
            if key not in new:
                new[key] = self._new_row(name, etype, now)
                first_of_norm.setdefault(n, key)
            return new[key]["id"]

        for m, explicit in items:
            links: dict[str, tuple[float, str]] = {}
            for ref in explicit:
                eid = ref if ref in self.view.index.names else entity(check_name(ref, "entity"), "concept",
                                                                        any_type=True)
                links[eid] = (LINK_WEIGHTS["explicit"], "explicit")
            text = f"{m.title}\n{m.content}"
            for alias, name in aliases(text):
                if self.view.index.by_norm.get(norm(alias)) or pending.by_norm.get(norm(alias)):
                    continue
                eid = entity(name, "identifier" if not name[:1].isupper() else "name", any_type=True)
                row = next((r for r in new.values() if r["id"] == eid), None)
                if row is None:
                    row = changed.get(eid) or self._row(eid)
                    changed[eid] = row
                row["aliases"] = [*row["aliases"], alias]
                pending.add(eid, row["name"], row["entity_type"], row["aliases"])
            found = {**pending.mentioned_in(text, common_lowercase=False),
                     **self.view.index.mentioned_in(text, skip_types=("project", "tag"), common_lowercase=False)}
            for eid, w in found.items():
                links.setdefault(eid, (w, "auto"))
            for cand in extract(text):
                links.setdefault(entity(cand.name, cand.entity_type, any_type=True), (LINK_WEIGHTS["auto"], "auto"))
            for tag in m.tags:
                links.setdefault(entity(tag, "tag"), (LINK_WEIGHTS["tag"], "tag"))
            if m.project:
                links.setdefault(entity(m.project, "project"), (LINK_WEIGHTS["project"], "project"))
            for eid, (w, kind) in links.items():
                mentions[f"{m.id}|{eid}"] = {"id": f"{m.id}|{eid}", "memory_id": m.id, "entity_id": eid,
                                             "weight": float(w), "kind": kind}
        rows = list(new.values())
        if rows and embed:
            vectors = self._embedder().encode([entity_text(r) for r in rows])
            for r, v in zip(rows, vectors):
                r["vector"] = [float(x) for x in v]
        return list(mentions.values()), rows, list(changed.values())

    def _row(self, eid: str) -> dict:
        """An entity's stored row (every column)."""
        rows = self.lance.by_ids("entities", [eid]).to_pylist()
        if not rows:
            raise NotFoundError("entity", [eid])
        return rows[0]

    def explicit_of(self, memory_id: str) -> list[str]:
        rows = self.lance.query("mentions", f"memory_id = {sql_quote(memory_id)} AND kind = 'explicit'",
                                ["entity_id"]).to_pylist()
        return [r["entity_id"] for r in rows]

    # ---- entities -------------------------------------------------------
    def create(self, name: str, entity_type: str = "concept", description: str = "",
                      aliases: Iterable[str] | None = None) -> Entity:
        """Create an entity, or return (and enrich) the one with the same name and type.

        A name extraction found in memories and typed by its shape ("name", "identifier"), or one a memory's
        ``entities`` or a relation named and left a "concept", never described, becomes this entity (its type,
        description and aliases): one thing keeps one node and its mentions.
        """
        name = check_name(name, "name")
        entity_type = check_name(entity_type, "entity_type", 40).lower()
        if not isinstance(description, str) or len(description) > 5_000:
            raise ValidationError("description must be a string of at most 5,000 characters")
        aliases = [check_name(a, "alias") for a in (aliases or [])]
        with self.writes.section():
            eid = self.view.index.find(name, entity_type) or self._guessed_namesake(name)
            now = self.writes.now()
            if eid:
                old = self.get(eid)
                merged = list(dict.fromkeys([*old.aliases, *aliases]))
                if (merged == old.aliases and (not description or description == old.description)
                        and old.entity_type == entity_type):
                    return old
                row = self.lance.by_ids("entities", [eid]).to_pylist()[0]
                retyped = {"name": name, "entity_type": entity_type} if old.entity_type != entity_type else {}
                row.update(aliases=merged, description=description or old.description, **retyped)
            else:
                row = self._new_row(name, entity_type, now, description, aliases)
            row["vector"] = [float(x) for x in self._embedder().encode([entity_text(row)])[0]]
            with self.lance.transaction(["entities"]):
                self.lance.upsert("entities", [row])
                self.writes.log_change(entities=[row["id"]])
            with self._graph_lock:
                self.view.graph.add_entity(row["id"], row["name"], row["entity_type"])
                self.view.index.add(row["id"], row["name"], row["entity_type"], row["aliases"])
            self.writes.after_write()
            return entity_from_row(row)

    def _guessed_namesake(self, name: str) -> str | None:
        """An entity of this name that only extraction or a mention made: typed by a guess or left a "concept"
        (a memory's ``entities``, a relation's new end), with no description or alias."""
        for eid in sorted(self.view.index.by_norm.get(norm(name), ())):
            if self.view.index.names[eid][1] in (*GUESSED_TYPES, "concept"):
                row = self.lance.by_ids("entities", [eid], ["description", "aliases"]).to_pylist()
                if row and not row[0]["description"] and not row[0]["aliases"]:
                    return eid
        return None

    def get(self, ref: str) -> Entity:
        """An entity by id or by name (any type)."""
        eid = self.resolve(ref)
        rows = self.lance.by_ids("entities", [eid]).to_pylist()
        if not rows:
            raise NotFoundError("entity", [ref])
        return entity_from_row(rows[0])

    def of_type(self, entity_type: str | None = None, limit: int = 100) -> list[Entity]:
        """Entities, of one type if given."""
        where = f"entity_type = {sql_quote(entity_type)}" if entity_type else None
        return [entity_from_row(r) for r in self.lance.query("entities", where, limit=limit).to_pylist()]

    def projects(self) -> list[str]:
        """The projects that hold memories (each has a project entity that its memories mention), sorted."""
        self.writes.catch_up()
        return self.project_names()

    def project_names(self) -> list[str]:
        with self._graph_lock:
            # a project whose last memory moved or went keeps its entity: it is no longer a project with memories
            return sorted(name for eid, (name, etype) in self.view.index.names.items()
                          if etype == "project" and self.view.graph.mention_count(eid))

    def project_hint(self, project: str | None) -> str | None:
        """For a search scoped to ``project``: None if it holds memories (or no project was given),
        else a note that only global memories can match, naming the projects that exist (a misspelt name
        would otherwise look like a project with nothing relevant in it). Meant for just after that search,
        which has caught up with other processes' writes, so it does not check for them again."""
        if not project:
            return None
        known = self.project_names()
        if project in known:
            return None
        # a project is named exactly: "Acme-Shop" does not reach the memories of "acme-shop"
        meant = [p for p in known if norm(p) == norm(project)]
        if meant:
            return (f"no memory is in project {project!r}, so only global memories can match; did you mean "
                    f"{' or '.join(repr(p) for p in meant)}?")
        listed = ", ".join(known[:20]) + (f" and {len(known) - 20} more" if len(known) > 20 else "")
        return (f"no memory is in project {project!r}, so only global memories can match; "
                f"projects with memories: {listed or 'none'}")

    def resolve(self, ref: str) -> str:
        """A node id from an id (entity or memory) or an entity name.

        Raises NotFoundError if there is none.
        """
        node = self.lookup(ref)
        if node is None:
            raise NotFoundError("entity", [ref], hint="create it with create_entity, or pass an existing id")
        return node

    def lookup(self, ref: str) -> str | None:
        """The node an id or entity name refers to; None for a name no entity has yet.

        Raises NotFoundError for an unknown id (mem_, ent_ or rel_), which no write may turn into a name.
        """
        ref = check_name(ref, "id or name")
        if ref in self.view.graph:
            return ref
        namesakes = self.view.index.by_norm.get(norm(ref), ())
        if namesakes:  # of several, the one written exactly so, then the most connected
            return min(namesakes, key=lambda e: (self.view.index.names[e][0] != ref, -self.view.graph.degree(e), e))
        if ref.startswith(("mem_", "ent_", "rel_")):
            kind = {"mem_": "memory", "ent_": "entity", "rel_": "relation"}[ref[:4]]
            raise NotFoundError(kind, [ref], hint="an id comes from search_memory, list_memories or get_related; "
                                                  "a name that no entity has yet is created by create_entity")
        return None

    # ---- relations ------------------------------------------------------
    def create_relation(self, source: str, target: str, relation_type: str = "related_to",
                        weight: float = 1.0, valid_from=None, valid_until=None) -> Relation:
        """Link two entities or memories (ids, or entity names; a new name becomes an entity)."""
        relation_type = check_name(relation_type, "relation_type", 60).lower().replace(" ", "_")
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0 < weight <= 100:
            raise ValidationError("weight must be a number in (0, 100]")
        vf, vu = parse_time(valid_from, "valid_from"), parse_time(valid_until, "valid_until")
        source, target = check_name(source, "source"), check_name(target, "target")
        with self.writes.section():
            src, dst = self.lookup(source), self.lookup(target)
            if (src or norm(source)) == (dst or norm(target)):
                raise ValidationError("a relation needs two different ends")
            now = self.writes.now()
            # a name no entity has yet becomes one, in the relation's own transaction: a failed write leaves
            # neither behind
            new = [self._new_row(ref, "concept", now) for ref, node in ((source, src), (target, dst))
                   if node is None]
            for r, vec in zip(new, self._embedder().encode([entity_text(r) for r in new]) if new else []):
                r["vector"] = [float(x) for x in vec]
            ids = iter(r["id"] for r in new)
            src, dst = src or next(ids), dst or next(ids)
            row = dict(id=new_id("rel"), source=src, target=dst, relation_type=relation_type,
                       weight=float(weight), valid_from=vf, valid_until=vu, created_at=now)
            with self.lance.transaction(["entities", "relations"]):
                if new:
                    self.lance.add("entities", new)
                self.lance.add("relations", [row])
                self.writes.log_change(entities=[r["id"] for r in new], relations=[row["id"]])
            with self._graph_lock:
                for r in new:
                    self.view.graph.add_entity(r["id"], r["name"], r["entity_type"])
                    self.view.index.add(r["id"], r["name"], r["entity_type"], r["aliases"])
                self.view.graph.add_relation(row["id"], src, dst, relation_type, float(weight))
            self.writes.after_write()
            return relation_from_row(row)

    def related(self, ref: str, depth: int = 1, direction: str = "both",
                    relation_types: Iterable[str] | None = None, limit: int = 100) -> list[dict]:
        """Neighbours of an entity or memory within ``depth`` hops (1-3), with names and titles."""
        if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= self.config.max_graph_depth:
            raise ValidationError(f"depth must be an integer from 1 to {self.config.max_graph_depth}")
        if direction not in DIRECTIONS:
            raise ValidationError(f"direction must be one of {', '.join(DIRECTIONS)}")
        node = self.resolve(ref)
        with self._graph_lock:
            out = self.view.graph.related(node, depth, direction, relation_types, limit=limit)
        for r in out:
            a = self.view.graph.attrs(r["id"])
            r["name"] = a.get("name") or a.get("title", "")
            if r["kind"] == "entity":  # a project, a tag and a concept may share a name
                r["entity_type"] = a.get("entity_type")
            r["via"] = self.node_label(r["via"])
        return out

    def node_label(self, node: str) -> str:
        """An entity's name, else the node's id (a memory's)."""
        names = self.view.index.names
        return names[node][0] if node in names else node

    def delete(self, ref: str) -> dict:
        """Delete an entity (with its mentions and relations) or a relation (by its rel_ id)."""
        ref = check_name(ref, "id")
        with self.writes.section():
            if ref.startswith("rel_"):
                if not self.lance.count("relations", f"id = {sql_quote(ref)}"):
                    raise NotFoundError("relation", [ref])
                with self.lance.transaction(["relations"]):
                    self.lance.delete("relations", f"id = {sql_quote(ref)}")
                    self.writes.log_change(relations=[ref])
                with self._graph_lock:
                    self.view.graph.remove_relation(ref)
                self.writes.after_write()
                return {"deleted": ref, "kind": "relation"}
            eid = self.resolve(ref)
            if self.view.graph.kind(eid) != "entity":
                raise ValidationError(f"{ref} is a memory, not an entity", hint="use delete_memory for memories")
            self.drop([eid])
            return {"deleted": eid, "kind": "entity"}

    def drop(self, ids: list[str]) -> None:
        """Delete entities with their mentions and relations, in one transaction (under the write lock)."""
        with self.lance.transaction(["entities", "mentions", "relations"]):
            for i in range(0, len(ids), 500):
                part = ids[i:i + 500]
                self.lance.delete("entities", sql_in("id", part))
                self.lance.delete("mentions", sql_in("entity_id", part))
                self.lance.delete("relations", f"{sql_in('source', part)} OR {sql_in('target', part)}")
            self.writes.log_change(entities=ids)
        with self._graph_lock:
            for eid in ids:
                self.view.graph.remove_node(eid)
                self.view.index.remove(eid)
        self.writes.after_write()

    def prune(self, apply: bool = False) -> list[Entity]:
        """Extracted names that extraction would not create today, such as "Friends" from "Friends are the
        best!" in a store written before words that only open a sentence stopped becoming entities.

        A candidate is an entity of type "name" with no description, alias, relation or explicit mention,
        linked to at least one memory, none of whose texts yields that name today. apply: delete them and
        their mentions; otherwise only list them.
        """
        with self.writes.section():
            rows = self.lance.query("entities", "entity_type = 'name'",
                                    ["id", "name", "name_norm", "entity_type", "description", "aliases",
                                     "created_at"]).to_pylist()
            rows = {r["id"]: r for r in rows if not r["description"] and not r["aliases"]}
            rels = self.lance.query("relations", None, ["source", "target"])
            related = set(rels.column("source").to_pylist()) | set(rels.column("target").to_pylist())
            mentions = self.lance.by_ids("mentions", [e for e in rows if e not in related],
                                         ["memory_id", "entity_id", "kind"], column="entity_id").to_pylist()
            explicit = {mn["entity_id"] for mn in mentions if mn["kind"] != "auto"}
            linked: dict[str, set[str]] = {}
            for mn in mentions:
                if mn["entity_id"] not in explicit:
                    linked.setdefault(mn["entity_id"], set()).add(mn["memory_id"])
            texts = self.lance.by_ids("memories", set().union(*linked.values()), ["id", "title", "content"])
            found = {r["id"]: {norm(c.name) for c in extract(f"{r['title']}\n{r['content']}")}
                     for r in texts.to_pylist()}
            gone = sorted(e for e, mids in linked.items()
                          if not any(rows[e]["name_norm"] in found.get(m, ()) for m in mids))
            if apply and gone:
                self.drop(gone)
        return [entity_from_row(rows[e]) for e in gone]

    def communities(self, min_size: int = 2, top: int = 5) -> list[dict]:
        """Louvain communities of the entity graph, each with its best-connected members by name."""
        with self._graph_lock:
            out = self.view.graph.communities(min_size=min_size, top=top)
        for c in out:
            c["members"] = [{"id": e, "name": self.node_label(e), "type": self.view.graph.attrs(e).entity_type}
                            for e in c["members"]]
        return out
