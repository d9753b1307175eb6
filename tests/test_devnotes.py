"""The hand-written devnotes data set holds what the benchmark needs of it, and its padding is reproducible."""

from __future__ import annotations

from datetime import datetime, timezone

from benchmarks.devnotes import FOLDER, load_devnotes, load_notes, padding


def test_the_notes_span_projects_and_months_and_every_question_names_real_notes():
    ds = load_devnotes(answerable_only=False)
    notes = [d for d in ds.docs]
    assert len(notes) >= 250
    assert len({d.group for d in notes if d.group}) >= 4
    months = {datetime.fromtimestamp(d.created_at, timezone.utc).strftime("%Y-%m") for d in notes}
    assert len(months) >= 6
    cats = {q.category for q in ds.queries}
    assert {"paraphrase", "identifier", "multi-hop", "knowledge-update", "temporal", "project-scoped",
            "no-answer"} <= cats
    assert len(ds.queries) >= 90 and sum(q.category == "multi-hop" for q in ds.queries) >= 40
    ids = {d.id for d in notes}
    for q in ds.queries:
        assert q.relevant <= ids
        assert (not q.relevant) == (q.category == "no-answer")
    answerable = load_devnotes()
    assert answerable.unanswerable and not any(q.category == "no-answer" for q in answerable.queries)


def test_padding_is_reproducible_and_fills_the_store_to_its_size():
    a, b = padding(50, seed=1), padding(50, seed=1)
    assert [d.text for d in a] == [d.text for d in b] and len({d.id for d in a}) == 50
    ds = load_devnotes(pad_to=1_000)
    assert len(ds.docs) == 1_000 and ds.name == "devnotes-1k"


def test_labels_cover_150_notes():
    labelled = [ln.split("|")[0].strip() for ln in (FOLDER / "entities.txt").read_text().splitlines()
                if ln.strip() and not ln.startswith("#")]
    assert len(labelled) >= 150 and set(labelled) <= {d.id for d in load_notes()}
    pairs = [ln.split() for ln in (FOLDER / "updates.txt").read_text().splitlines()
             if ln.strip() and not ln.startswith("#")]
    dates = {d.id: d.created_at for d in load_notes()}
    assert all(dates[old] < dates[new] for old, new in pairs)
