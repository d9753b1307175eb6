"""A memory's validity and its changes: spans that end before they start, empty updates and repeated or
self-referring invalidations are refused or kept as history, and nothing changes on a refusal."""

from __future__ import annotations

import time

import pytest

from conftest import snapshot
from memory_graph import ValidationError

DAY = 86_400.0


def test_a_span_that_ends_before_it_starts_is_refused(engine):
    mid = engine.store("The staging cluster runs Kubernetes 1.29")
    engine.update(mid, valid_from="2025-06-01")
    before = snapshot(engine)
    with pytest.raises(ValidationError, match=r"valid_until \(2025-01-01T00:00:00Z\) must be later than valid_from"):
        engine.update(mid, valid_from="2026-01-01", valid_until="2025-01-01")
    with pytest.raises(ValidationError, match="must be later than valid_from"):  # against the stored start
        engine.update(mid, valid_until="2025-01-01")
    with pytest.raises(ValidationError, match="nothing to change"):
        engine.update(mid)
    assert engine.get([mid])[0].valid_until is None
    for ask in (engine.search, engine.list):
        args = ("kubernetes",) if ask == engine.search else ()
        with pytest.raises(ValidationError, match="created_before .* must be later than created_after"):
            ask(*args, created_after="2026-12-01", created_before="2026-01-01")
    assert snapshot(engine) == before


def test_invalidating_again_keeps_when_it_ended_and_adds_what_is_new(engine):
    now = time.time()
    old = engine.store("Deploys go through ArgoCD", created_at=now - 5 * DAY)
    new = engine.store("Deploys go through Flux", created_at=now - DAY)
    with pytest.raises(ValidationError, match="cannot supersede itself"):
        engine.invalidate(old, superseded_by=old)
    first = engine.invalidate(old, reason="moved to Flux", at=now - DAY)
    again = engine.invalidate(old, superseded_by=new)
    assert again.valid_until == first.valid_until == pytest.approx(now - DAY)
    assert (again.invalidation_reason, again.superseded_by) == ("moved to Flux", new)
    engine.invalidate(old, reason="Flux since v2")
    m = engine.get([old])[0]
    assert (m.valid_until, m.invalidation_reason, m.superseded_by) == (first.valid_until, "Flux since v2", new)
    supersedes = engine.get_related(new, relation_types=["supersedes"])
    assert [r["id"] for r in supersedes] == [old]  # one relation, not one per call
    # an explicit time still moves the end
    assert engine.invalidate(old, at=now - 2 * DAY).valid_until == pytest.approx(now - 2 * DAY)


def test_a_store_without_validity_spans_answers_as_of_a_past_time_with_what_was_stored_by_then(engine):
    """While no memory has a span, no leg filters validity; as of a time before a memory was stored, still no
    leg returns it, and once a memory has a span each leg filters validity again."""
    now = time.time()
    early = engine.store("The deploy freeze starts on Friday", created_at=now - 10 * DAY)
    late = engine.store("The deploy freeze moved to Monday", created_at=now - 2 * DAY)
    graph = engine.memory_search.view.graph
    assert graph.always_valid(None) and graph.always_valid(now) and not graph.always_valid(now - 5 * DAY)
    for mode in ("hybrid", "vector", "bm25"):
        assert [h.id for h in engine.search("deploy freeze", as_of=now - 5 * DAY, mode=mode)] == [early], mode
        assert {h.id for h in engine.search("deploy freeze", mode=mode)} == {early, late}, mode
    engine.invalidate(early, at=now - DAY)
    assert not graph.always_valid(None)
    for mode in ("hybrid", "vector", "bm25"):
        assert [h.id for h in engine.search("deploy freeze", mode=mode)] == [late], mode
    engine.delete(early)
    assert graph.always_valid(None)
