"""A code query that is a name finds what is spelt that way first: its case and underscores count, every
definition of it outranks a longer name containing it, and a name that is also an English word still names."""

from __future__ import annotations

import pytest

from codebase import index_project
from memory_graph import Config, Engine
from memory_graph.linking import prefer_exact
from memory_graph.retrieval import GraphHit
from memory_graph.text import one_name

from conftest import HashEmbedder, write_files

FORMS = {"cls": ("Request", "Request"), "fn": ("request", "request"), "bar": ("ProgressBar", "ProgressBar"),
         "priv": ("_get_text_stdout", "_get_text_stdout"), "pub": ("get_text_stdout", "get_text_stdout"),
         "split": ("split_cells", "Segment.split_cells"), "_split": ("_split_cells", "Segment._split_cells"),
         "echo": ("echo", "echo")}


def test_prefer_exact_keeps_the_spelling_asked_for():
    both = {"cls": 1.0, "fn": 1.0}
    assert prefer_exact(both, FORMS, "Request", 0.5) == {"cls": 1.0, "fn": 0.5}
    assert prefer_exact(both, FORMS, "request", 0.5) == {"cls": 0.5, "fn": 1.0}
    assert prefer_exact({"priv": 1.0, "pub": 1.0}, FORMS, "_get_text_stdout", 0.5) == {"priv": 1.0, "pub": 0.5}
    # a qualified name spelt whole picks its own member; a module's prefix (click.echo) spells the name too
    assert prefer_exact({"split": 1.0, "_split": 1.0}, FORMS, "Segment._split_cells", 0.25) == \
        {"split": 0.25, "_split": 1.0}
    assert prefer_exact({"echo": 1.0}, FORMS, "click.echo", 0.5) == {"echo": 1.0}


def test_prefer_exact_leaves_a_match_no_spelling_competes_with():
    # nothing is spelt "Progressbar": the loose match is all there is, and keeps its weight
    assert prefer_exact({"bar": 1.0}, FORMS, "Progressbar", 0.5) == {"bar": 1.0}
    # each name of the query is judged on its own: "Request" being spelt exactly does not demote ProgressBar
    assert prefer_exact({"cls": 1.0, "fn": 1.0, "bar": 0.9}, FORMS, "Request Progressbar", 0.5) == \
        {"cls": 1.0, "fn": 0.5, "bar": 0.9}
    assert prefer_exact({"cls": 1.0, "fn": 1.0}, FORMS, "Request", 1.0) == {"cls": 1.0, "fn": 1.0}


@pytest.mark.parametrize("query,expected", [
    ("echo", True), ("Context.invoke", True), ("`get()`", True), ("Foo::bar", True), ("_split_cells", True),
    ("echo text", False), ("where is echo defined", False), ("a.b c", False), ("", False), ("42", False),
])
def test_one_name(query, expected):
    assert one_name(query) is expected


def test_a_looser_seed_scores_less_at_the_same_hop():
    exact, loose = GraphHit("a", 1, seeds={"s": 1.0}), GraphHit("b", 1, seeds={"t": 0.5})
    assert exact.score == pytest.approx(1.1) and loose.score == pytest.approx(0.6)
    # one more seed still adds, and a second hop halves the match's part
    assert GraphHit("c", 1, seeds={"s": 1.0, "t": 0.5}).score == pytest.approx(1.2)
    assert GraphHit("d", 2, seeds={"s": 1.0}).score == pytest.approx(0.6)


CONVERTERS = "".join(f"class {n}Type:\n    def convert(self, value):\n        return {n.lower()}(value)\n\n\n"
                     for n in ("Int", "Float", "Bool", "Path", "Choice", "Date", "Uuid", "Tuple", "File", "Time", "Enum",
                               "Url", "Email", "Json", "Range", "Bytes"))


@pytest.fixture(scope="module")
def names_engine(tmp_path_factory):
    root = tmp_path_factory.mktemp("names")
    write_files(root / "repo", {
        "src/api.py": "def request(method, url):\n    \"\"\"Send a request.\"\"\"\n    return Request(method, url)\n\n\n"
                      "def get(url):\n    \"\"\"Send a GET request.\"\"\"\n    return request('get', url)\n",
        "src/models.py": "class Request:\n    \"\"\"A user-created request.\"\"\"\n\n    def __init__(self, method, url):\n"
                         "        self.method = method\n        self.url = url\n\n\n"
                         "def get_thing(store, key):\n    \"\"\"Get a thing: get it from the store, get its copy.\"\"\"\n"
                         "    return store.get(key)\n",
        "src/types.py": CONVERTERS,
        "src/images.py": "def convert_flip(image):\n    return image.flip()\n\n\n"
                         "def convert_type(value, kind):\n    return kind(value)\n",
        "src/compat.py": "def _get_text_stdout(buffer):\n    return wrap(buffer)\n\n\n"
                         "def get_text_stdout(buffer):\n    return _get_text_stdout(buffer)\n",
    })
    eng = Engine(root / "data", config=Config(), embedder=HashEmbedder())
    index_project(eng, root / "repo", project="names")
    yield eng
    eng.close()


def first(eng: Engine, query: str, n: int = 1) -> list[str]:
    return [h.title for h in eng.search_code(query, limit=10)][:n]


@pytest.mark.parametrize("query,title", [
    ("Request", "class Request"), ("request", "def request"),
    ("_get_text_stdout", "def _get_text_stdout"), ("get_text_stdout", "def get_text_stdout"),
])
def test_the_spelling_asked_for_comes_first(names_engine, query, title):
    assert first(names_engine, query) == [title]


def test_every_definition_of_a_common_name_outranks_a_longer_name(names_engine):
    top = first(names_engine, "convert", 10)
    assert all(t.endswith("> def convert") for t in top), top


def test_a_name_that_is_also_a_function_word(names_engine):
    # "get" is a function word for memories ("get", "update", "set"), but as a code query it is a name
    assert first(names_engine, "get") == ["def get"]


def test_a_name_defined_in_more_places_than_a_leg_returns(tmp_path):
    # 60 classes define check(): more chunks than the 50 candidates a leg returns for limit 10
    checks = "".join(f"class Rule{i}:\n    def check(self, value):\n        return value > {i}\n\n\n"
                     for i in range(60))
    write_files(tmp_path / "repo", {
        "src/rules.py": checks,
        "src/registry.py": "class CheckRegistry:\n    def run_checks(self, check, checks):\n"
                           "        return [check(c) for c in checks]\n\n\n"
                           "def check_thing(check):\n    return check\n",
    })
    for definitions, all_checks in ((500, True), (1, False)):
        eng = Engine(tmp_path / f"data{definitions}", config=Config(code_name_definitions=definitions),
                     embedder=HashEmbedder())
        try:
            index_project(eng, tmp_path / "repo", project="rules")
            top = first(eng, "check", 10)
        finally:
            eng.close()
        # cut at 50 among ties, the leg gave every other chunk its lowest score too, and ranked nothing
        assert all(t.endswith("> def check") for t in top) is all_checks, (definitions, top)
