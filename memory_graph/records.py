"""Conversions between LanceDB rows and records (the edge of the pipeline)."""

from __future__ import annotations

import json

from .config import Config
from .graph import MemoryNode
from .models import Entity, Memory, Relation
from .retrieval import Candidate, importance_factor, is_evergreen
from .retrieval.updates import says_change
from .text import derive_title

MEMORY_COLUMNS = ["id", "content", "memory_type", "title", "tags", "importance", "project", "source", "metadata",
                  "created_at", "updated_at", "valid_from", "valid_until", "superseded_by",
                  "invalidation_reason", "content_hash"]
#: a memory's node is built from these (the content only to say whether it says that something changed)
NODE_COLUMNS = ["id", "memory_type", "tags", "project", "created_at", "valid_from", "valid_until", "title",
                "source", "importance", "content"]


def memory_from_row(row: dict) -> Memory:
    meta = row.get("metadata") or "{}"
    return Memory(
        id=row["id"], content=row["content"], memory_type=row["memory_type"], title=row["title"],
        tags=list(row.get("tags") or []), importance=int(row["importance"]), project=row["project"],
        source=row["source"], metadata=json.loads(meta), created_at=row["created_at"],
        updated_at=row["updated_at"], valid_from=row["valid_from"], valid_until=row["valid_until"],
        superseded_by=row["superseded_by"], invalidation_reason=row["invalidation_reason"],
        content_hash=row["content_hash"],
    )


def memory_to_row(m: Memory, vector) -> dict:
    return {
        "id": m.id, "content": m.content, "memory_type": m.memory_type, "title": m.title, "tags": list(m.tags),
        "importance": m.importance, "project": m.project, "source": m.source,
        "metadata": json.dumps(m.metadata, ensure_ascii=False, sort_keys=True), "created_at": m.created_at,
        "updated_at": m.updated_at, "valid_from": m.valid_from, "valid_until": m.valid_until,
        "superseded_by": m.superseded_by, "invalidation_reason": m.invalidation_reason,
        "content_hash": m.content_hash, "vector": [float(x) for x in vector],
    }


def node_attrs(row: dict) -> MemoryNode:
    """A memory's node in the graph, from its row: what the filters and the late stages read."""
    return MemoryNode(row["memory_type"], row.get("tags") or (), row["project"], row["created_at"], row["valid_from"],
                      row["valid_until"], row.get("title", ""), row.get("source", ""), int(row.get("importance", 5)),
                      says_change(f"{row.get('title') or ''}\n{row['content']}"))


def candidate(r: dict, vector, config: Config) -> Candidate:
    """A memory as the late stages see it, from its row or its graph node's attributes."""
    return Candidate(
        created_at=r["created_at"],
        evergreen=is_evergreen(r["memory_type"], r["tags"] or [], r["source"], config.evergreen_types,
                               config.evergreen_tags, config.evergreen_sources),
        vector=vector, words=set(), title=r["title"],
        # (epoch seconds: the search writes it as ISO 8601 for its hits alone, not for each candidate)
        summary={"memory_type": r["memory_type"], "project": r["project"], "created_at": r["created_at"]},
        prior=importance_factor(r["importance"], config.importance_weight))


def entity_text(row: dict) -> str:
    """What an entity's vector embeds: its name, and its description when it has one."""
    return f"{row['name']}: {row['description']}".rstrip(": ")


def entity_from_row(row: dict) -> Entity:
    return Entity(id=row["id"], name=row["name"], entity_type=row["entity_type"],
                  description=row["description"], aliases=list(row.get("aliases") or []),
                  created_at=row["created_at"])


def relation_from_row(row: dict) -> Relation:
    return Relation(id=row["id"], source=row["source"], target=row["target"], relation_type=row["relation_type"],
                    weight=row["weight"], valid_from=row["valid_from"], valid_until=row["valid_until"],
                    created_at=row["created_at"])


def embed_text(title: str, content: str) -> str:
    """What the model reads for a memory: the content, led by its title when the title says something new."""
    return content if not title or title == derive_title(content) else f"{title}\n{content}"


def passage_rows(embedder, config: Config, memories: list[tuple[str, str]]) -> list[dict]:
    """Rows of the passages table for (memory id, embed text) pairs: one vector per window of a text past what
    the model reads (none for short texts, or for an embedder without ``passages``)."""
    split = getattr(embedder, "passages", None)
    if split is None or config.max_passages <= 0:
        return []
    owners, texts = [], []
    for memory_id, text in memories:
        for n, part in enumerate(split(text, config.passage_tokens, config.passage_stride, config.max_passages), 1):
            owners.append((f"{memory_id}#{n}", memory_id))
            texts.append(part)
    if not texts:
        return []
    vectors = embedder.encode(texts)
    return [{"id": pid, "memory_id": mid, "vector": [float(x) for x in v]} for (pid, mid), v in zip(owners, vectors)]
