"""A weak BM25 match stays weak, identifier parts count less, no one-letter residue matches (real Tantivy and
LanceDB on a temporary directory; fake embedder)."""

from __future__ import annotations

import pytest

from memory_graph.models import Filters
from memory_graph.retrieval import convex
from memory_graph.text import query_terms, whole_identifiers

NOTES = ["We moved the session store from Redis to PostgreSQL because Redis evictions dropped logins.",
         "search-indexer drops documents larger than 10 MB without logging anything.",
         "The nightly export writes one CSV per warehouse.", "Lena reviews every release of the app.",
         "Staging runs in its own cluster.", "Deploys go through Argo CD.", "Tests need the compose stack up.",
         "The tax provider is Avalara.", "Coupons are validated by a regex.", "Alerts page the on-call engineer."]


def test_convex_with_a_scale_keeps_a_weak_only_match_weak():
    legs = {"vector": (["right", "weak"], [0.62, 0.40]), "bm25": (["weak"], [0.7])}
    w = {"vector": 1.0, "bm25": 1.0}
    plain = convex(legs, w, complete={"bm25"})
    scaled = convex(legs, w, complete={"bm25"}, scales={"bm25": 3.0})
    assert plain["weak"] > plain["right"]  # max-normalised, BM25's only match counts as a full match
    assert scaled["right"] > scaled["weak"]
    strong = convex({"vector": legs["vector"], "bm25": (["weak"], [4.0])}, w, complete={"bm25"}, scales={"bm25": 3.0})
    assert strong["weak"] > strong["right"]  # a match above the scale is a full one again


def test_a_single_stem_collision_does_not_outrank_the_vector_legs_answer(engine):
    ids = [engine.store(t) for t in NOTES]
    query = "why did users get logged out unexpectedly?"
    bm25 = engine.search(query, mode="bm25")
    assert [h.id for h in bm25] == [ids[1]]  # "logged" / "logging": BM25's one match
    hit = engine.search(query, limit=10)
    weak = next(h for h in hit if h.id == ids[1])
    assert weak.explanation.leg_scores["bm25"] > 0
    # its BM25 part counts for what the query's words are worth, not as a full match
    engine.config = engine.config.with_(bm25_reference_share=0.0)
    plain = next(h for h in engine.search(query, limit=10) if h.id == ids[1])
    assert weak.explanation.fused < plain.explanation.fused


def test_no_one_letter_residue_is_searched():
    assert "s" not in query_terms("What's in the s3 bucket?", 64)
    assert query_terms("What's the status?", 64) == ["status"]


def test_identifier_parts_weigh_less_than_a_word_of_the_text(engine):
    part = engine.store("Set enable_usage_billing in the dbt profile.")
    word = engine.store("Usage of the API is billed per request.")
    for t in NOTES:
        engine.store(t)
    hits = engine.search("usage", mode="bm25")
    assert [h.id for h in hits][:2] == [word, part]
    whole = engine.search("enable_usage_billing", mode="bm25")
    assert whole[0].id == part
    assert whole_identifiers("set enable_usage_billing and retryBackoff") == "set enableusagebilling and retrybackoff"


def test_reference_score_grows_with_the_querys_words(engine):
    for t in NOTES:
        engine.store(t)
    one = engine.text.reference_score("Redis")
    two = engine.text.reference_score("Redis evictions")
    assert 0 < one < two
    assert engine.text.reference_score("the of and") > 0  # function words alone are still searched
    assert engine.text.search("Redis", Filters(), 0, 5)[1][0] > 0


def test_confidence_is_the_stronger_of_the_two_signals():
    from memory_graph.retrieval.confidence import confidence

    assert confidence({"vector": 0.3, "bm25": 0.2}, 0.35, 0.65, 0.4) == 0.0
    assert confidence({"vector": 0.5, "bm25": 0.2}, 0.35, 0.65, 0.4) == pytest.approx(0.5)
    assert confidence({"vector": 0.3, "bm25": 1.0}, 0.35, 0.65, 0.4) == 1.0  # an identifier found whole
    assert confidence({}, 0.35, 0.65, 0.4) == 1.0


def test_an_empty_search_notes_that_nothing_matches(engine):
    engine.store("The tax provider is Avalara.")
    hits = engine.search("zzzz qqqq", mode="bm25")
    assert list(hits) == [] and hits.note == "nothing matches"


def test_the_first_results_are_the_same_whatever_limit_is_asked(engine):
    import random

    rng = random.Random(3)
    vocab = "redis session deploy cache timeout login billing queue worker retry index search alpha beta gamma " \
            "delta".split()
    engine.store_many([{"content": " ".join(rng.choice(vocab) for _ in range(rng.randint(2, 12))) + f" note{i}"}
                       for i in range(600)])
    queries = ["retry search redis", "gamma redis gamma", "billing index index", "index timeout index"]
    for query in queries:
        ten = [h.id for h in engine.search(query, limit=10)]
        hundred = [h.id for h in engine.search(query, limit=100)]
        assert len(ten) == 10 and len(hundred) > 10
        assert hundred[:10] == ten
    engine.config = engine.config.with_(stable_results=0)  # without it, the larger page ranked differently
    assert any([h.id for h in engine.search(q, limit=100)][:10] != [h.id for h in engine.search(q, limit=10)]
               for q in queries)


CLI_CODE = '''package cli

func OnlyValidArgs(cmd *Command, args []string) error {
	for _, v := range args {
		if !stringInSlice(v, cmd.ValidArgs) {
			return fmt.Errorf("invalid argument %q for %q", v, cmd.CommandPath())
		}
	}
	return nil
}

func rpad(s string, padding int) string {
	return fmt.Sprintf(fmt.Sprintf("%%-%ds", padding), s)
}
'''


def test_coverage_is_the_share_of_the_question_a_chunk_holds(tmp_path, engine):
    from codebase import index_project
    from memory_graph.text import literal_phrases

    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "args.go").write_text(CLI_CODE)
    index_project(engine, tmp_path / "src", project="p")
    chunks = {r["name"]: r["id"] for r in engine.lance.query("code_chunks", None, ["id", "name"]).to_pylist()}
    valid, pad = chunks["OnlyValidArgs"], chunks["rpad"]
    assert engine.text.coverage("valid args string slice", valid) == 1.0
    assert engine.text.coverage("valid args string slice", pad) < engine.text.coverage("pad string", pad) == 1.0
    # a pasted message holds values the code never does ("purple"): its fixed text, word for word, counts
    message = 'Error: invalid argument "purple" for "paint"'
    phrases = literal_phrases(message)
    assert engine.text.coverage(message, valid, phrases=phrases) == 1.0
    assert engine.text.coverage(message, valid) < 1.0 and engine.text.coverage(message, pad, phrases=phrases) < 0.5


def test_coverage_of_a_long_question_asks_its_words_in_several_searches_and_weighs_each_by_idf(tmp_path):
    """More words (and identifier parts and phrases) than one search can ask of a document (HELD_PER_SEARCH):
    each is still found held or not, and the share is the held words' idf over all of theirs."""
    import math

    from memory_graph.store.text_index import HELD_PER_SEARCH, TextIndex

    words = [f"word{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(40)]
    assert 2 * len(words) > 2 * HELD_PER_SEARCH  # a body and an identifier clause a word: three searches
    text = TextIndex(tmp_path / "bm25")
    chunk = {"project": "p", "path": "a.py", "language": "python", "chunk_type": "function", "name": "f"}
    text.write([({**chunk, "id": "all", "content": " ".join(words)}, "code"),
                ({**chunk, "id": "even", "content": " ".join(words[::2]) + " parseBoolFlag"}, "code"),
                ({**chunk, "id": "odd", "content": " ".join(words[1::2])}, "code")])
    question = " ".join(words)
    assert text.coverage(question, "all") == 1.0
    # every word is in two of the three chunks: one idf for all, so the share is the share of words
    assert text.coverage(question, "even") == pytest.approx(0.5) == text.coverage(question, "odd")
    # a word held only as an identifier's part counts ("bool" of parseBoolFlag), and weighs its own idf
    idf = {w: math.log(1 + (3 - df + 0.5) / (df + 0.5)) for w, df in (("bool", 1), ("wordaa", 2), ("wordab", 2))}
    assert text.coverage("wordaa wordab bool", "even") == pytest.approx(
        (idf["wordaa"] + idf["bool"]) / sum(idf.values()))
    assert text.coverage("wordaa wordab bool", "nothing-by-this-id") == 0.0
    # phrases count word for word and in order, past the first search's clauses too
    phrases = [" ".join(words[i:i + 2]) for i in range(0, 40, 2)]
    assert text.coverage(question, "all", phrases=phrases) == 1.0
    assert text.coverage(question, "even", phrases=phrases) == pytest.approx(0.5)
