"""Latest first and asked periods: the stages alone, and through a real engine (LanceDB, Tantivy, networkx on a
temporary directory; fake embedder)."""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np
import pytest

from memory_graph.retrieval import Candidate
from memory_graph.retrieval.updates import latest_first, says_change, update_pairs
from memory_graph.retrieval.when import asked_period, period_factors

DAY = 86_400.0


SUBJECTS: dict[str, frozenset] = {}  # what each candidate of the test names, asked through `named`


def cand(t: float, vec, subjects=("e1",), evergreen=True) -> Candidate:
    c = Candidate(created_at=t, evergreen=evergreen, vector=np.asarray(vec, dtype=np.float32), words=set())
    SUBJECTS[id(c)] = frozenset(subjects)
    return c


def pairs_of(info: dict[str, Candidate], marked: float, asked: list | None = None):
    """update_pairs over the candidates, their subjects read from what cand was given (and noted in asked)."""
    def named(ids):
        (asked if asked is not None else []).append(list(ids))
        return {i: SUBJECTS[id(info[i])] for i in ids}
    return update_pairs(info, marked, named)


def test_a_newer_fact_about_the_same_subject_trades_places_with_the_older():
    info = {"old": cand(1 * DAY, [1, 0]), "new": cand(2 * DAY, [0.9, 0.1]), "other": cand(3 * DAY, [0, 1])}
    pairs = pairs_of(info, 0.5)
    assert [(a, b) for a, b, _ in pairs] == [("old", "new")]
    scores, replaced = latest_first({"old": 0.9, "new": 0.8, "other": 0.5}, pairs, 0.8, {})
    assert scores == {"old": 0.8, "new": 0.9, "other": 0.5} and replaced == {"old": "new"}


def test_of_a_chain_the_latest_comes_first():
    info = {f"v{i}": cand(i * DAY, [1, 0.01 * i]) for i in range(3)}
    pairs = pairs_of(info, 0.5)
    scores, replaced = latest_first({"v0": 0.9, "v1": 0.8, "v2": 0.7}, pairs, 0.8, {})
    assert sorted(scores, key=scores.get, reverse=True) == ["v2", "v1", "v0"]
    assert replaced == {"v0": "v2", "v1": "v2"}


def test_no_update_without_a_shared_subject_an_older_fact_or_enough_likeness():
    no_subject = {"old": cand(DAY, [1, 0], ("a",)), "new": cand(2 * DAY, [1, 0], ("b",))}
    episode = {"old": cand(DAY, [1, 0], evergreen=False), "new": cand(2 * DAY, [1, 0])}
    unlike = {"old": cand(DAY, [1, 0]), "new": cand(2 * DAY, [0, 1])}
    for info in (no_subject, episode, unlike):
        asked: list = []
        assert pairs_of(info, 0.5, asked) == []
        # the entities are read only of a pair close enough: not of an episode's, nor of two unlike notes
        assert asked == ([["new", "old"]] if info is no_subject else [])


def test_a_looser_likeness_counts_only_when_the_new_one_says_something_changed():
    info = {"old": cand(DAY, [1, 0]), "new": cand(2 * DAY, [0.6, 0.8])}  # cosine 0.6
    pairs = pairs_of(info, 0.5)
    same, _ = latest_first({"old": 0.9, "new": 0.8}, pairs, 0.8, {"new": False})
    moved, _ = latest_first({"old": 0.9, "new": 0.8}, pairs, 0.8, {"new": True})
    assert same["old"] > same["new"] and moved["new"] > moved["old"]
    assert says_change("Sessions now live in PostgreSQL") and says_change("CI moved from Jenkins to Actions")
    assert not says_change("Sessions live in Redis with a TTL of 14 days")
    # whatever the case: a heading, a shouted word
    assert says_change("NOW: sessions live in PostgreSQL") and says_change("Moved From v1.2 To v2.0 last week")
    assert not says_change("NOWHERE ELSE; KNOWN ISSUES")


def test_a_newer_memory_the_query_tells_apart_keeps_its_place():
    info = {"old": cand(DAY, [1, 0]), "new": cand(2 * DAY, [1, 0])}
    scores, replaced = latest_first({"old": 0.9, "new": 0.3}, pairs_of(info, 0.5), 0.8, {}, min_ratio=0.8)
    assert scores == {"old": 0.9, "new": 0.3} and replaced == {}


NOW = datetime(2026, 7, 1, tzinfo=timezone.utc).timestamp()


@pytest.mark.parametrize("query,start", [
    ("What did prod-eu-1 run in April?", "2026-04-01"), ("incidents in December", "2025-12-01"),
    ("what changed last month", "2026-06-01"), ("deploys on 2026-03-05", "2026-03-05"),
    ("What happened in May 2025?", "2025-05-01")])
def test_a_past_period_is_read_from_the_query(query, start):
    period = asked_period(query, NOW)
    assert period is not None
    assert datetime.fromtimestamp(period[0], timezone.utc).date().isoformat() == start


@pytest.mark.parametrize("query", ["what may break the build", "Sessions live where?", "what changed this month"])
def test_no_period_where_none_is_asked(query):
    assert asked_period(query, NOW) is None


def test_period_factors_favour_memories_written_in_it():
    period = asked_period("in April", NOW)
    april, june = datetime(2026, 4, 2, tzinfo=timezone.utc).timestamp(), NOW - DAY
    assert period_factors({"a": april, "j": june}, period, 0.3) == {"a": 1.3, "j": 1.0}


def _store(engine, text, day, mtype="semantic"):
    return engine.store(text, memory_type=mtype, created_at=datetime(2026, *day, tzinfo=timezone.utc).isoformat())


def test_an_update_outranks_what_it_replaces_unless_the_past_is_asked_for(engine):
    old = _store(engine, "Payment webhooks use a retry backoff of retry_backoff_ms = 200.", (1, 15))
    new = _store(engine, "Payment webhooks now use retry_backoff_ms = 1500.", (5, 6))
    for i in range(5):
        _store(engine, f"Unrelated note {i} about the office coffee machine", (2, 1 + i), "episodic")
    hits = engine.search("What retry backoff do payment webhooks use?", as_of="2026-07-01T00:00:00+00:00")
    order = [h.id for h in hits]
    assert order.index(new) < order.index(old)
    assert next(h for h in hits if h.id == old).record["updated_by"] == new
    past = [h.id for h in engine.search("What retry backoff did payment webhooks use in January?",
                                        as_of="2026-07-01T00:00:00+00:00")]
    assert past.index(old) < past.index(new)
    engine.config = engine.config.with_(update_min_cosine=2, update_marked_cosine=2)
    plain = [h.id for h in engine.search("What retry backoff do payment webhooks use?",
                                         as_of="2026-07-01T00:00:00+00:00")]
    assert plain.index(old) < plain.index(new)  # without the stage the older one, closer in words, led


def test_storing_an_update_names_the_fact_it_probably_replaces(engine):
    old = _store(engine, "Payment webhooks use a retry backoff of retry_backoff_ms = 200.", (1, 15))
    other = _store(engine, "Refund emails are sent by billing-api in the customer's language.", (2, 1))
    new = _store(engine, "Payment webhooks now use retry_backoff_ms = 1500.", (5, 6))
    assert [i for i, _ in engine.may_update(new)] == [old]
    assert engine.may_update(other) == [] and engine.may_update(old) == []  # nothing older to update
    unmarked = _store(engine, "Payment webhooks use retry_backoff_ms = 1500.", (5, 7), "episodic")
    engine.config = engine.config.with_(update_marked_cosine=2.0)
    assert engine.may_update(unmarked) == []
