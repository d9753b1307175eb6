"""Entity extraction and name matching without any model."""

from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memory_graph.linking import STOPWORDS, TECH_NAMES, EntityIndex, common_words, extract, norm, opens_sentence
from memory_graph.text import identifier_terms, query_terms, split_identifier


def names(text):
    return {c.name for c in extract(text)}


def test_extracts_identifiers_paths_and_names():
    found = names("Fixed getUserById in src/app/users.py; `MAX_RETRIES` and os.path.join. "
                  "Caroline flew to New York. The billing-api uses AWS.")
    assert {"getUserById", "src/app/users.py", "MAX_RETRIES", "os.path.join", "Caroline", "New York",
            "billing-api", "AWS"} <= found


def test_a_host_name_with_hyphens_is_one_name():
    found = names("Staging is postgres on db-staging.internal:5432; the cache is redis-cache.internal, "
                  "and pre-commit runs ruff-lsp.")
    assert found == {"db-staging.internal", "redis-cache.internal", "pre-commit", "ruff-lsp"}


def test_paths_keep_a_leading_dot_and_paired_function_words_are_no_path():
    found = {c.name: c.entity_type for c in extract(
        "Run ./scripts/run.sh, then ../lib/x.py and `.env` and/or docs/api; he/she said yes/no.")}
    assert found == {"./scripts/run.sh": "file", "../lib/x.py": "file", ".env": "identifier", "docs/api": "file"}


def test_function_words_are_not_entities():
    assert names("What does this do? The answer is yes. Thanks!") == set()


def test_contractions_of_function_words_and_chat_interjections_are_no_names():
    assert names("It'll be fun! How've you been? What'd he say? Woah, Woohoo and Oof. Nah, ttyl!") == set()
    # a name's possessive and a name with an apostrophe stay names
    assert names("Caroline's talk was at O'Brien's pub.") == {"Caroline", "O'Brien"}


def test_a_common_word_that_opens_a_sentence_is_no_name():
    found = names("Decided to use Postgres. Friends are the best! Recently moved.\n- Remember: rotate keys.\n"
                  '"Tests pass," said Melanie.')
    assert found == {"Postgres", "Melanie"}


def test_names_that_open_a_sentence_or_are_common_words_mid_sentence_stay():
    assert names("Orion is the codename for the billing-api rewrite.") == {"Orion", "billing-api"}
    # "Python" is a common word and a name in the lexicon, so it stays a name wherever it stands
    assert names("Python is slow here.") == {"Python"}
    assert names("We watched Friends again.") == {"Friends"}
    assert names("Friends Forever is on tonight.") == {"Friends Forever"}


def test_technology_names_that_are_common_words_stay_names_when_they_open_a_sentence():
    assert names("Rust is used for the parser. React renders twice in dev.\n- Celery retries the job.") == \
        {"Rust", "React", "Celery"}
    # the list only exempts words the lexicon would otherwise drop
    assert TECH_NAMES <= common_words()
    # words whose ordinary sense often opens a sentence are not exempt
    assert names("Go ahead and merge. Make sure the tests pass.") == set()


def test_days_and_months_are_no_names_but_names_containing_them_stay():
    assert names("Joanna: I finished my screenplay last Friday.") == {"Joanna"}
    assert names("Last Friday, Nate won. See you on Mondays, or Next Tue. Back in Early July, Orion shipped.") == {
        "Nate", "Orion"}
    assert names("Deploy freeze from December to January at Acme") == {"Acme"}
    # a title or a place named after a day is a name
    assert names("I read the Sunday Times on Good Friday in Rome") >= {"Sunday Times", "Good Friday", "Rome"}
    assert names("We quoted Theresa May and August Wilson") == {"Theresa May", "August Wilson"}


def test_a_verb_that_opens_a_note_is_no_part_of_the_name_after_it():
    assert names("Pinned Poetry to 1.8 because 1.9 broke CI.") == {"Poetry", "CI"}
    assert names("Upgraded React to 18.3.\nVisited The Louvre.") == {"React", "Louvre"}
    assert names("Watched Breaking Bad again.") == {"Breaking Bad"}
    # left whole: the word after it alone would be no name, and a heading in capitals is no verb
    assert names("United States law applies. SETTING AND PATIENTS: adults.") == {"United States",
                                                                                  "SETTING AND PATIENTS"}
    # mid-sentence nothing is stripped
    assert names("Since then Kelly Pinned Poetry to 1.8.") == {"Kelly Pinned Poetry"}


def test_words_in_capitals_are_not_acronyms_each():
    assert names("Large migrations must use CREATE INDEX CONCURRENTLY.") == {"CREATE INDEX CONCURRENTLY"}
    assert names("METHODS AND FINDINGS We measured TNF.") == {"METHODS AND FINDINGS", "TNF"}
    # acronyms that are no common word stay, in a run of capitals or alone
    assert names("Serve it from AWS S3 behind a REST API.") == {"AWS S3", "AWS", "S3", "REST API"}
    # units and generic acronyms are words of a note, not what it is about
    assert names("The export is 10 MB of JSON over HTTP with a TTL of 1 day.") == set()


def test_prose_compounds_are_no_entities_and_service_names_are():
    found = {c.name for c in extract("The timed-out call left the read-only replica of cart-service out-of-stock; "
                                      "the on-call engineer paged new-address-form owners.")}
    assert found == {"cart-service", "new-address-form"}
    assert names("We chose REST.") == {"REST"}


_COMMON = sorted(w for w in common_words() if len(w) > 2 and w not in STOPWORDS | TECH_NAMES)[:: 97]


@given(st.sampled_from(_COMMON), st.sampled_from([". ", "! ", "? ", "\n", "\n- ", ': "', ". ("]))
def test_sentence_openers_are_dropped_and_the_same_word_mid_sentence_is_kept(word, sep):
    cap = word.capitalize()
    assert cap not in names(f"it rained{sep}{cap} went well")
    assert cap in names(f"it rained and {cap} went well")


def test_opens_sentence():
    text = 'One. "Two" three, (Four)\n* five'
    assert [opens_sentence(text, text.index(w)) for w in ("One", "Two", "three", "Four", "five")] == \
        [True, True, False, False, True]


def test_norm_unifies_spellings():
    assert norm("Billing-API") == norm("billing api") == norm("billing_api") == "billingapi"


def test_entity_index_finds_names_aliases_and_ngrams():
    idx = EntityIndex()
    idx.add("e1", "Billing API", "service", ["billing-svc"])
    idx.add("e2", "Orion", "project")
    assert idx.mentioned_in("the billing api is slow") == {"e1": 1.0}
    assert idx.mentioned_in("restart billing-svc please") == {"e1": 1.0}
    assert idx.mentioned_in("nothing here") == {}
    assert "e2" in idx.mentioned_in("problems with Orian", fuzzy_cutoff=0.8)
    assert idx.mentioned_in("Orion", skip_types=("project",)) == {}
    idx.remove("e2")
    assert idx.mentioned_in("Orion") == {}


def test_entities_sharing_a_name_are_found_apart_and_removed_one_at_a_time():
    idx = EntityIndex()
    idx.add("e2", "Orion", "project", ["orion", "ORION"])  # the same normal form three times: held once
    idx.add("e1", "Orion", "person")
    assert idx.mentioned_in("ask Orion") == {"e1": 1.0, "e2": 1.0}
    assert idx.find("orion") == "e1" and idx.find("Orion", "project") == "e2"
    idx.remove("e1")
    assert idx.mentioned_in("ask Orion") == {"e2": 1.0} and idx.find("orion") == "e2"
    idx.remove("e2")
    assert idx.find("orion") is None and "orion" not in idx.by_norm
    assert idx.mentioned_in("ask Orian", fuzzy_cutoff=0.8) == {}  # no name left to be close to


def test_fuzzy_matches_follow_names_added_and_removed():
    """A query word's close names are kept between queries, and forgotten when a name comes or goes."""
    idx = EntityIndex()
    idx.add("e1", "Orion", "project")
    assert idx.mentioned_in("ask Oriun", fuzzy_cutoff=0.75) == {"e1": 0.8}
    idx.add("e2", "Oriun", "person")  # a name now matches exactly: the fuzzy match of the word is not needed
    assert idx.mentioned_in("ask Oriun", fuzzy_cutoff=0.75) == {"e2": 1.0}
    idx.add("e3", "Orionx", "service")
    assert set(idx.mentioned_in("ask Orionz", fuzzy_cutoff=0.75)) == {"e1", "e3"}
    idx.remove("e3")
    assert idx.mentioned_in("ask Orionz", fuzzy_cutoff=0.75) == {"e1": pytest.approx(0.909, abs=0.001)}


_NAMES = st.sampled_from(["Orion", "orion", "Vega", "vega-api", "parse_config", "ParseConfig", "Rigel"])


@given(st.lists(st.one_of(
    st.tuples(st.just("add"), st.sampled_from("abcd"), _NAMES, st.lists(_NAMES, max_size=2)),
    st.tuples(st.just("remove"), st.sampled_from("abcde"), st.none(), st.none())), max_size=20))
def test_removing_leaves_the_index_an_index_of_the_rest_would_be(ops):
    idx, alive = EntityIndex(), {}
    for op, eid, name, aliases in ops:
        if op == "add":
            idx.add(eid, name, "name", aliases)
            names_, _ = alive.get(eid, ((), None))
            alive[eid] = ((*names_, name, *aliases), name)
        else:
            idx.remove(eid)
            alive.pop(eid, None)
    fresh = EntityIndex()
    for eid, (every, last) in alive.items():
        fresh.add(eid, last, "name", list(every))
    assert {k: set(v) for k, v in idx.by_norm.items()} == {k: set(v) for k, v in fresh.by_norm.items()}
    assert idx.names == fresh.names


def test_a_longest_match_leaves_the_words_inside_it_alone():
    idx = EntityIndex()
    idx.add("s1", "invoke", "method", ["Context.invoke"])
    idx.add("s2", "invoke", "method", ["CliRunner.invoke"])
    idx.add("s3", "Context", "class")
    # each word also names something: by default every reading counts, with longest only the whole name
    assert idx.mentioned_in("Context.invoke") == {"s1": 1.0, "s2": 1.0, "s3": 1.0}
    assert idx.mentioned_in("Context.invoke", longest=True) == {"s1": 1.0}
    assert idx.mentioned_in("Context.invoke or Context", longest=True) == {"s1": 1.0, "s3": 1.0}


def test_split_identifier():
    assert split_identifier("getHTTPResponse_code") == ["get", "http", "response", "code"]
    assert "getuserbyid" in identifier_terms("call getUserById now").split()


@given(st.text(max_size=300))
def test_query_terms_never_carry_syntax(text):
    for t in query_terms(text, 64):
        assert t and all(ch.isalnum() or ch == "_" for ch in t)
        assert t == t.lower()


def test_query_terms_drop_operators_and_fields():
    assert query_terms('title:foo AND (bar OR "baz*") NOT -qux~2', 64) == [
        "title", "foo", "bar", "baz", "qux", "2"]
    assert query_terms("AND OR NOT", 64) == ["and", "or", "not"]
    assert query_terms("What does the Orion team do?", 64) == ["orion", "team"]


NAME = st.text(alphabet="abc", min_size=2, max_size=9)  # few letters: many names share a key's first two


@pytest.mark.parametrize("counted", [1, 10_000])  # a prefix's names read through their counts, or one by one
@given(names=st.lists(NAME, min_size=1, max_size=25, unique=True), key=NAME,
       cutoff=st.sampled_from([0.5, 0.75, 0.88]))
def test_fuzzy_names_are_those_whose_ratio_to_the_key_reaches_the_cutoff(counted, names, key, cutoff):
    """The three best names sharing the key's first two characters, within two of its length, whose difflib
    ratio (key first) reaches the cutoff: as a plain loop computes it, whichever way the bound is taken."""
    import difflib

    index = EntityIndex()
    for i, name in enumerate(names):
        index.add(f"e{i}", name, "concept")
    want = sorted(((r, k) for k in index.by_norm if k[:2] == key[:2] and abs(len(k) - len(key)) <= 2
                   and (r := difflib.SequenceMatcher(None, key, k).ratio()) >= cutoff), reverse=True)[:3]
    with mock.patch("memory_graph.linking.COUNTED_MIN_NAMES", counted):
        assert index._closest(key, cutoff) == want


_WIDE = "".join(chr(c) for c in range(0x3b1, 0x3c9)) + "".join(chr(c) for c in range(0x430, 0x460))  # 72 letters


@given(first=st.lists(NAME, min_size=1, max_size=20, unique=True), later=st.lists(NAME, max_size=8, unique=True),
       gone=st.sets(st.integers(0, 19), max_size=6), keys=st.lists(NAME, min_size=1, max_size=4),
       cutoff=st.sampled_from([0.5, 0.75, 0.88]))
def test_fuzzy_names_follow_the_names_added_and_removed_after_a_first_lookup(first, later, gone, keys, cutoff):
    """A lookup keeps each prefix's names with their character counts; names added and removed after it are
    matched as a plain loop over the current names would match them."""
    import difflib

    index = EntityIndex()
    for i, name in enumerate(first):
        index.add(f"e{i}", name, "concept")
    with mock.patch("memory_graph.linking.COUNTED_MIN_NAMES", 1):
        for key in keys:
            index._closest(key, cutoff)
        for i, name in enumerate(later):
            index.add(f"n{i}", name, "concept")
        for i in gone:
            index.remove(f"e{i}")
        for key in keys:
            want = sorted(((r, k) for k in index.by_norm if k[:2] == key[:2] and abs(len(k) - len(key)) <= 2
                           and (r := difflib.SequenceMatcher(None, key, k).ratio()) >= cutoff), reverse=True)[:3]
            assert index._closest(key, cutoff) == want
            assert index._bucket(key[:2])[2] is not None or len(index._bucket(key[:2])[0]) == 0


def test_a_prefix_whose_names_hold_many_characters_is_matched_without_counts():
    """Past 64 characters in one prefix's names the counts are not kept: the names are still found."""
    index = EntityIndex()
    for i in range(0, len(_WIDE), 3):
        index.add(f"e{i}", "ab" + _WIDE[i:i + 3], "concept")
    index.add("x", "abxyzq", "concept")
    assert index._bucket("ab")[2] is None
    assert index._closest("abxyz", 0.8) == [(pytest.approx(2 * 5 / 11), "abxyzq")]
    assert index.mentioned_in("ask abxyzw", fuzzy_cutoff=0.8) == {"x": pytest.approx(2 * 5 / 12)}
