"""Loaders for the public benchmark data sets; every path is an argument, so other splits drop in."""

from __future__ import annotations

import csv
import json
import random
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path


@dataclass
class Doc:
    id: str
    text: str
    title: str = ""
    group: str = ""            # LoCoMo: the conversation a turn belongs to (queries search only their own)
    created_at: float | None = None
    #: the memory type a system that has types stores it as (devnotes: decision, episodic, ...)
    kind: str = ""

    @property
    def full_text(self) -> str:
        """Title and text, as every system embeds and indexes a document."""
        return f"{self.title}\n{self.text}" if self.title else self.text


@dataclass
class Query:
    id: str
    text: str
    relevant: set[str]
    group: str = ""
    category: str = "all"


@dataclass
class Dataset:
    name: str
    kind: str                  # "memory" or "code"
    docs: list[Doc]
    queries: list[Query]
    metrics: tuple[str, ...]
    notes: list[str] = field(default_factory=list)
    #: the metric the systems are compared on
    main_metric: str = ""
    #: when every question is asked (validity and decay are judged then); None: at each group's last document
    asked_at: float | None = None
    #: questions nothing answers (no ranking metric): judged by whether the search says so (its note)
    unanswerable: list[Query] = field(default_factory=list)
    #: a folder every system searches as memory-graph's indexer chunks it (the repository data sets): documents
    #: and relevant sets come from the chunks once it is indexed
    source: Path | None = None
    #: each query's answering definitions by name (repository data sets)
    answer_names: dict[str, list[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.main_metric = self.main_metric or self.metrics[0]


def load_scifact(corpus: Path, queries: Path, qrels: Path, max_queries: int | None = None,
                 distractors: int | None = None, seed: int = 0) -> Dataset:
    """BEIR SciFact: claims -> abstracts. ``distractors`` keeps only the judged docs plus that many others."""
    qrel: dict[str, set[str]] = {}
    with open(qrels, newline="") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            if int(row["score"]) > 0:
                qrel.setdefault(row["query-id"], set()).add(row["corpus-id"])
    qs = [json.loads(line) for line in open(queries)]
    qs = [Query(q["_id"], q["text"], qrel[q["_id"]]) for q in qs if q["_id"] in qrel]
    rng = random.Random(seed)
    if max_queries and len(qs) > max_queries:
        qs = rng.sample(qs, max_queries)
    docs = [Doc(d["_id"], d["text"], d["title"]) for d in map(json.loads, open(corpus))]
    notes = []
    if distractors is not None:
        judged = set().union(*(q.relevant for q in qs))
        others = [d for d in docs if d.id not in judged]
        keep = judged | {d.id for d in rng.sample(others, min(distractors, len(others)))}
        docs = [d for d in docs if d.id in keep]
        notes.append(f"quick: {len(docs)} of the corpus docs (judged + {distractors} random distractors)")
    return Dataset("scifact", "memory", docs, qs, ("ndcg@10", "recall@10", "recall@100", "mrr@10"), notes)


def _locomo_time(text: str) -> float | None:
    """'1:56 pm on 8 May, 2023' -> epoch seconds (UTC)."""
    m = re.search(r"(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})", text or "", re.I)
    if not m:
        return None
    hour, minute, ampm, day, month, year = m.groups()
    hour = int(hour) % 12 + (12 if ampm.lower() == "pm" else 0)
    dt = datetime.strptime(f"{day} {month} {year} {hour}:{minute}", "%d %B %Y %H:%M")
    return dt.replace(tzinfo=timezone.utc).timestamp()


LOCOMO_CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}


def load_locomo(path: Path, max_queries: int | None = None, seed: int = 0) -> Dataset:
    """LoCoMo: each turn is a memory dated by its session; a question's relevant docs are its evidence turns."""
    samples = json.load(open(path))
    docs: list[Doc] = []
    queries: list[Query] = []
    for s in samples:
        sid = s["sample_id"]
        conv = s["conversation"]
        ids = set()
        for key in sorted(k for k in conv if re.fullmatch(r"session_\d+", k)):
            when = _locomo_time(conv.get(f"{key}_date_time", ""))
            for turn in conv[key]:
                text = f"{turn['speaker']}: {turn['text']}"
                if turn.get("blip_caption"):
                    text += f" [shares a photo of {turn['blip_caption']}]"
                did = f"{sid}:{turn['dia_id']}"
                ids.add(did)
                docs.append(Doc(did, text, group=sid, created_at=when))
        for n, qa in enumerate(s["qa"]):
            ev = {f"{sid}:{e}" for raw in qa.get("evidence", []) for e in re.split(r"[;\s,]+", raw) if e}
            ev &= ids
            if ev:
                queries.append(Query(f"{sid}:q{n}", qa["question"], ev, sid,
                                     LOCOMO_CATEGORIES.get(qa.get("category"), str(qa.get("category")))))
    if max_queries and len(queries) > max_queries:
        queries = random.Random(seed).sample(queries, max_queries)
    return Dataset("locomo", "memory", docs, queries, ("recall@5", "recall@10", "ndcg@10"), main_metric="ndcg@10")


def load_cosqa(code_map: Path, split: Path, max_queries: int | None = None, seed: int = 0) -> Dataset:
    """CoSQA: web queries -> Python functions; the code map is the corpus, one gold function per query."""
    cb = json.load(open(code_map))
    docs = [Doc(str(idx), code) for code, idx in cb.items()]
    qs = [Query(str(r["idx"]), r["doc"], {str(r["retrieval_idx"])}) for r in json.load(open(split))]
    if max_queries and len(qs) > max_queries:
        qs = random.Random(seed).sample(qs, max_queries)
    return Dataset("cosqa", "code", docs, qs, ("mrr", "recall@1", "recall@5", "recall@10"))
