"""Entity extraction and name matching without any model."""

from hypothesis import given
from hypothesis import strategies as st

from memory_graph.linking import EntityIndex, extract, norm
from memory_graph.text import identifier_terms, query_terms, split_identifier


def names(text):
    return {c.name for c in extract(text)}


def test_extracts_identifiers_paths_and_names():
    found = names("Fixed getUserById in src/app/users.py; `MAX_RETRIES` and os.path.join. "
                  "Caroline flew to New York. The billing-api uses AWS.")
    assert {"getUserById", "src/app/users.py", "MAX_RETRIES", "os.path.join", "Caroline", "New York",
            "billing-api", "AWS"} <= found


def test_function_words_are_not_entities():
    assert names("What does this do? The answer is yes. Thanks!") == set()


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
