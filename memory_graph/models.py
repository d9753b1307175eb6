"""Records (built at the edge), the filter set pushed into every store, and the one pipeline result type."""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from typing import Any

#: a search's legs: all of them fused, or one alone
MODES = ("hybrid", "vector", "bm25", "graph")
MEMORY_TYPES = ("episodic", "semantic", "procedural", "decision", "bugfix", "preference", "note", "fact")
#: what the CLI's `store --type` and the MCP tool say about types (Config.evergreen_types are the ageless ones)
TYPES_HELP = ("episodic (what happened), semantic or fact, procedural (how to), decision, preference (how the user "
              "wants things), bugfix, note, ...; all but the facts, procedures, decisions and preferences count "
              "slightly less with age, so recency breaks ties")


def content_hash(text: str) -> str:
    """Stable hash of a text (sha256, hex, 32 chars)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def iso(ts: float | None) -> str | None:
    """Epoch seconds to an ISO 8601 UTC string (None stays None)."""
    if ts is None:
        return None
    return datetime.fromtimestamp(ts, tz=timezone.utc).isoformat()


@dataclass
class Memory:
    id: str
    content: str
    memory_type: str = "episodic"
    title: str = ""
    tags: list[str] = field(default_factory=list)
    importance: int = 5
    project: str = ""
    source: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    created_at: float = 0.0
    updated_at: float = 0.0
    valid_from: float | None = None
    valid_until: float | None = None
    superseded_by: str = ""
    invalidation_reason: str = ""
    content_hash: str = ""

    def ended(self, at: float) -> bool:
        """Whether its validity had ended by ``at`` (epoch seconds)."""
        return self.valid_until is not None and self.valid_until <= at

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict with ISO dates (no vector)."""
        d = asdict(self)
        for key in ("created_at", "updated_at", "valid_from", "valid_until"):
            d[key] = iso(d[key])
        return d


@dataclass
class Entity:
    id: str
    name: str
    entity_type: str = "concept"
    description: str = ""
    aliases: list[str] = field(default_factory=list)
    created_at: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["created_at"] = iso(d["created_at"])
        return d


@dataclass
class Relation:
    id: str
    source: str
    target: str
    relation_type: str = "related_to"
    weight: float = 1.0
    valid_from: float | None = None
    valid_until: float | None = None
    created_at: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        for key in ("valid_from", "valid_until", "created_at"):
            d[key] = iso(d[key])
        return d


@dataclass(frozen=True)
class Filters:
    """Filters pushed down into every leg (LanceDB where, Tantivy query, graph node predicate).

    project: None searches every project; a name searches that project (plus global memories
    when include_global). as_of: judge validity at that time instead of now.
    """

    project: str | None = None
    include_global: bool = True
    types: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    created_after: float | None = None
    created_before: float | None = None
    as_of: float | None = None
    include_invalid: bool = False
    # code-only filters
    path_prefix: str | None = None
    languages: tuple[str, ...] = ()
    chunk_types: tuple[str, ...] = ()


@dataclass
class Explanation:
    """Why a result is where it is: each stage's contribution."""

    ranks: dict[str, int | None] = field(default_factory=dict)
    leg_scores: dict[str, float] = field(default_factory=dict)
    weights: dict[str, float] = field(default_factory=dict)
    #: how the legs were fused (convex or rrf) and the fused score in [0, 1]
    fusion: str = "convex"
    fused: float = 0.0
    ppr_factor: float = 1.0
    decay_factor: float = 1.0
    #: the candidate's prior (Candidate.prior): a memory's importance; for code, below 1 in test files and prose
    prior_factor: float = 1.0
    pre_mmr_rank: int | None = None
    final_rank: int | None = None
    mmr_moved: int = 0
    graph_path: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Hits(list):
    """A search's hits, best first (a list of Hit), with how sure the search is that they answer the query.

    ``confidence`` in [0, 1] (retrieval/confidence.py); ``note`` says so in words when it is low, or when
    nothing matched; ``signals`` are what it was read from (the top cosine, the BM25 coverage).
    """

    def __init__(self, hits=(), confidence: float = 1.0, signals: dict | None = None, note: str | None = None):
        super().__init__(hits)
        self.confidence, self.signals, self.note = confidence, dict(signals or {}), note


@dataclass
class Hit:
    """The one result type that flows through the pipeline: an id, its score and its explanation."""

    id: str
    score: float
    explanation: Explanation = field(default_factory=Explanation)
    title: str = ""
    kind: str = "memory"
    record: dict[str, Any] | None = None

    def to_dict(self, explain: bool = False) -> dict[str, Any]:
        d: dict[str, Any] = {"id": self.id, "score": round(self.score, 6), "title": self.title, "kind": self.kind}
        if self.record is not None:
            d.update({k: v for k, v in self.record.items() if k not in d})
        if explain:
            d["explain"] = self.explanation.to_dict()
        return d


def new_id(prefix: str) -> str:
    """A new record id: the table's prefix (mem, ent, rel) and 20 random hex digits."""
    return f"{prefix}_{uuid.uuid4().hex[:20]}"
