"""How age and filters bear on a memory's score: recency breaks near-ties, never buries the answer; a filter
admits documents without changing how the BM25 leg scores them."""

from __future__ import annotations

import time

import pytest

from memory_graph import Config, Engine
from memory_graph.models import Filters

DAY = 86_400.0
ANSWER = "Deploy to staging failed: migration 0007 locked the invoices table for four minutes"
NOISE = ["Release process: tag the commit on main and staging syncs by itself",
         "Staging runs on the new cluster since October",
         "Postgres 17 was installed on staging with pg_upgrade"]


def _store_history(engine: Engine) -> str:
    now = time.time()
    answer = engine.store(ANSWER, created_at=now - 150 * DAY)
    for i, text in enumerate(NOISE):
        engine.store(text, created_at=now - i * DAY)
    return answer


def test_an_old_memory_that_answers_outranks_recent_ones_that_share_a_word(engine):
    answer = _store_history(engine)
    hits = engine.search("why did the deploy to staging fail", use_mmr=False)
    assert hits[0].id == answer
    # at most decay_weight of a score goes with age: 150 days is five half-lives
    assert hits[0].explanation.decay_factor == pytest.approx(0.95 + 0.05 * 0.5 ** 5, rel=1e-3)


def test_design_formula_buries_the_same_answer(tmp_path, embedder):
    """decay_weight = 1 is DESIGN.md's 0.5 ^ (age / half_life): the answer keeps 3% of its score."""
    with Engine(tmp_path / "d", config=Config(decay_weight=1.0), embedder=embedder) as eng:
        answer = _store_history(eng)
        hits = eng.search("why did the deploy to staging fail", use_mmr=False)
        assert answer not in [h.id for h in hits[:3]]
        undecayed = eng.search("why did the deploy to staging fail", use_mmr=False, use_decay=False)
        assert undecayed[0].id == answer


def test_recency_breaks_a_tie_and_spares_evergreen_types(engine):
    now = time.time()
    old = engine.store("the test database listens on port 5433", created_at=now - 90 * DAY)
    recent = engine.store("the test database listens on port 5433", created_at=now - DAY)
    hits = engine.search("test database port", use_mmr=False)
    assert [h.id for h in hits][:2] == [recent, old]
    assert hits[1].explanation.decay_factor == pytest.approx(0.95 + 0.05 * 0.5 ** 3, rel=1e-3)
    assert [h.explanation.decay_factor for h in engine.search("test database port", use_decay=False)] == [1.0, 1.0]
    for kind in ("preference", "fact", "procedural"):
        kept = engine.store(f"{kind}: the test database port is set in .env", memory_type=kind,
                            created_at=now - 365 * DAY)
        top = engine.search("test database port", use_mmr=False)
        assert next(h for h in top if h.id == kept).explanation.decay_factor == 1.0


def test_filters_do_not_change_bm25_scores(engine):
    """Fusion divides each leg's scores by its top one: a filter that added its own score to every hit (a
    project's term adds its idf) would flatten the BM25 leg, more so the more projects the store holds."""
    now = time.time()
    for p in ("orion", "vega", "lyra"):
        engine.store(f"{p} deploy pipeline uses blue green switching", project=p, memory_type="procedural")
        engine.store(f"{p} deploy failed because the health check timed out", project=p,
                     created_at=now - 3 * DAY)
    engine.store("orion deploy notes", project="orion", tags=["ops"], memory_type="note")
    query, now = "deploy health check", time.time()
    base_ids, base_scores = engine.text.search(query, Filters(project="orion", include_invalid=True), now, 10)
    assert len(base_ids) == 3
    for f in (Filters(project="orion"), Filters(project="orion", as_of=now),
              Filters(project="orion", types=("episodic", "procedural", "note"), include_invalid=True),
              Filters(project="orion", created_after=now - 30 * DAY, include_invalid=True)):
        ids, scores = engine.text.search(query, f, now, 10)
        assert ids == base_ids and scores == pytest.approx(base_scores, rel=1e-6), f
    ids, _ = engine.text.search(query, Filters(project="orion", tags=("ops",)), now, 10)
    assert len(ids) == 1


def test_importance_breaks_a_tie_and_does_not_bury_a_better_answer(tmp_path, embedder):
    """Two equally relevant memories: the more important one leads. A clear answer marked unimportant still
    beats a loosely related one marked critical."""
    now = time.time()
    with Engine(tmp_path / "i", embedder=embedder) as eng:
        plain = eng.store("the billing service retries webhooks five times", created_at=now)
        marked = eng.store("the billing service retries webhooks five times", created_at=now, importance=9)
        hits = eng.search("billing webhook retries", use_mmr=False)
        assert [h.id for h in hits[:2]] == [marked, plain]
        assert hits[0].explanation.prior_factor == pytest.approx(1.08)
        assert hits[1].explanation.prior_factor == 1.0
        eng.update(plain, importance=10)  # the graph's copy of the memory changes with it
        assert eng.search("billing webhook retries", use_mmr=False)[0].id == plain
        answer = eng.store(ANSWER, importance=1, created_at=now)
        eng.store("Staging has a deploy dashboard", importance=10, created_at=now)
        top = eng.search("why did the deploy to staging fail", use_mmr=False)[0]
        assert top.id == answer and top.explanation.prior_factor == pytest.approx(0.92)
    with Engine(tmp_path / "i", config=Config(importance_weight=0.0), embedder=embedder) as eng:
        hits = eng.search("billing webhook retries", use_mmr=False)
        assert {h.explanation.prior_factor for h in hits} == {1.0}


@pytest.mark.parametrize("copy_rows", [0, 1000])
def test_importance_reaches_another_process(tmp_path, embedder, copy_rows):
    """A second engine on the same directory sees an importance changed by the first, whether it describes
    candidates from its graph and vector copy or (with no copy) from LanceDB."""
    cfg = Config(vector_copy_max_rows=copy_rows)
    with Engine(tmp_path / "j", config=cfg, embedder=embedder) as a, \
            Engine(tmp_path / "j", config=cfg, embedder=embedder) as b:
        low = a.store("the invoice PDF renderer uses WeasyPrint", importance=2)
        high = a.store("the invoice PDF renderer uses WeasyPrint", importance=7)
        assert [h.id for h in b.search("invoice PDF renderer", use_mmr=False)][:2] == [high, low]
        a.update(low, importance=10)
        hits = b.search("invoice PDF renderer", use_mmr=False)
        assert hits[0].id == low and hits[0].explanation.prior_factor == pytest.approx(1.1)
