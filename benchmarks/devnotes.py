"""The devnotes data set: developer notes and questions written by hand (benchmarks/devnotes/), searched at
their own size or padded with generated notes about unrelated services to a given store size."""

from __future__ import annotations

import random
from datetime import datetime, timezone
from pathlib import Path

from .data import Dataset, Doc, Query

FOLDER = Path(__file__).with_name("devnotes")
#: when the questions are asked: the day after the last note
ASKED_AT = datetime(2026, 7, 1, tzinfo=timezone.utc).timestamp()


def _epoch(day: str) -> float:
    return datetime.strptime(day, "%Y-%m-%d").replace(hour=12, tzinfo=timezone.utc).timestamp()


def _rows(path: Path) -> list[list[str]]:
    return [[f.strip() for f in ln.split("|")] for ln in path.read_text().splitlines()
            if ln.strip() and not ln.startswith("#")]


def load_notes(folder: Path = FOLDER) -> list[Doc]:
    """The hand-written notes; Doc.group is a note's project ("" for global notes)."""
    docs, project = [], ""
    for ln in (folder / "notes.txt").read_text().splitlines():
        if ln.startswith("@project"):
            project = ln.split()[1].replace("-", "")
        elif ln.strip() and not ln.startswith("#"):
            nid, day, mtype, text = (f.strip() for f in ln.split("|", 3))
            docs.append(Doc(nid, text, group=project, created_at=_epoch(day), kind=mtype))
    return docs


def load_devnotes(folder: Path = FOLDER, pad_to: int | None = None, seed: int = 0,
                  answerable_only: bool = True) -> Dataset:
    """Notes and questions; ``pad_to`` adds generated notes until the store holds that many.

    A question scoped to a project searches only that project's notes (Query.group); an unscoped one
    searches everything. Questions nothing answers are left out unless ``answerable_only`` is false (no
    ranking metric is defined for them; ``benchmarks.quality`` judges them by confidence instead).
    """
    docs = load_notes(folder)
    known = {d.id for d in docs}
    queries, unanswerable = [], []
    for qid, cat, scope, text, rel in _rows(folder / "questions.txt"):
        relevant = set(rel.split())
        if not relevant <= known:
            raise ValueError(f"{qid} names notes that do not exist: {sorted(relevant - known)}")
        if relevant or not answerable_only:
            queries.append(Query(qid, text, relevant, scope, cat))
        else:
            unanswerable.append(Query(qid, text, relevant, scope, cat))
    notes = [f"{len(docs)} hand-written notes over {len({d.group for d in docs})} projects, asked on 2026-07-01"]
    if pad_to and pad_to > len(docs):
        docs += padding(pad_to - len(docs), seed)
        notes.append(f"padded to {pad_to} notes with generated notes about unrelated services")
    name = f"devnotes-{pad_to // 1000}k" if pad_to and pad_to >= 1000 else "devnotes"
    return Dataset(name, "memory", docs, queries, ("ndcg@10", "recall@10", "mrr@10"), notes, asked_at=ASKED_AT,
                   unanswerable=unanswerable)


# ---- padding: notes about services, teams and tools that no question asks about --------------------------------
_SERVICES = """warehouse-scanner label-printer hr-portal loyalty-points geo-lookup fraud-score review-moderation
returns-portal supplier-feed pricing-engine courier-tracker invoice-archive contract-signer payroll-export
ticket-router sso-bridge asset-registry carbon-report translation-memory survey-collector""".split()
_TEAMS = "logistics growth people supply finance-ops support legal sustainability".split()
_PEOPLE = """Amara Lindqvist, Bruno Salgado, Chiara Neri, Dmitri Volkov, Elif Demir, Farah Haddad, Gustavo Reyes,
Hana Novak, Ivo Petrov, Julia Kowalski, Kenji Mori, Layla Rahimi, Mateo Ruiz, Nadia Sorensen, Olu Adeyemi,
Pia Hoffmann, Quentin Moreau, Rosa Ferreira, Sven Aalto, Tariq Aziz""".replace("\n", " ").split(", ")
_TECH = """PostgreSQL, MySQL, Redis, RabbitMQ, Kafka, SQS, DynamoDB, MongoDB, Elasticsearch, S3, Celery, Sidekiq,
Node.js, Spring Boot, FastAPI, Rails, Go, Rust, nginx, Envoy""".replace("\n", " ").split(", ")
_PROBLEMS = ["timed out under load", "returned stale data after a deploy", "leaked file handles",
             "sent duplicate emails", "rejected valid requests", "lost messages during a restart",
             "used too much memory", "logged personal data by mistake", "failed its health checks",
             "ran a slow query on every request", "mixed up time zones", "dropped messages over 256 KB",
             "exhausted its connection pool", "crashed on empty input", "skipped records with unicode names"]
_CAUSES = ["a missing index", "a race between two workers", "an expired credential", "a wrong default",
           "an unbounded cache", "a retry without backoff", "a dependency upgrade", "a misconfigured proxy",
           "a schema change upstream", "clock skew between hosts", "a full disk", "a typo in the config map"]
_FIXES = ["added a unique constraint", "pinned the library version", "moved the job to a queue",
          "added a circuit breaker", "capped the page size at 200", "turned on request tracing",
          "split the batch into chunks of 1,000", "added an alert on the error rate", "rotated the credentials",
          "wrote a regression test", "raised the worker count to 8", "switched to streaming reads"]
_FACTS = ["{svc} is written in {tech} and deployed by the {team} team",
          "{person} owns {svc} and reviews its releases", "{svc} stores its data in {tech}",
          "{svc} exposes a REST API under /api/v{n}", "{svc} runs {n} replicas in each zone",
          "the {team} team's stand-up is at 9:{n}0", "{svc} publishes events to {tech}",
          "{svc}'s dashboards are in the {team} folder", "{person} is the contact for {svc} contracts",
          "{svc} must answer within {n}00 ms at p95"]


def padding(n: int, seed: int = 0) -> list[Doc]:
    """``n`` generated notes in the style of the real ones (facts, incidents, fixes) about other services."""
    rng = random.Random(seed)
    start, span = _epoch("2026-01-01"), _epoch("2026-06-30") - _epoch("2026-01-01")
    out = []
    for i in range(n):
        svc, team, person, tech = (rng.choice(_SERVICES), rng.choice(_TEAMS), rng.choice(_PEOPLE),
                                   rng.choice(_TECH))
        kind = rng.random()
        if kind < 0.4:
            text = rng.choice(_FACTS).format(svc=svc, team=team, person=person, tech=tech, n=rng.randint(1, 9))
            text = text[0].upper() + text[1:] + "."
            mtype = "semantic"
        elif kind < 0.75:
            text = f"{svc} {rng.choice(_PROBLEMS)} because of {rng.choice(_CAUSES)}."
            mtype = "episodic"
        else:
            text = f"After {svc} {rng.choice(_PROBLEMS)}, {person.split()[0]} {rng.choice(_FIXES)}."
            mtype = "decision"
        out.append(Doc(f"pad{i:05d}", text, group=team.replace("-", ""),
                       created_at=start + rng.random() * span, kind=mtype))
    return out
