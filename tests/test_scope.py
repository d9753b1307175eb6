"""A code question's scope: a project that is not indexed and a path under no indexed file are errors that say
so (not searches that found nothing), and a path_prefix may be written as an editor or a traceback has it."""

import pytest

from codebase import index_project
from memory_graph.errors import NotFoundError, ValidationError

from conftest import write_files


@pytest.fixture
def two(engine, tmp_path):
    """Two indexed projects, the second's root inside the first's folder (a nested checkout)."""
    outer = write_files(tmp_path / "outer", {"src/app/views.py": "def render_page():\n    return 1\n",
                                             "lib/util.py": "def render_util():\n    return 2\n"})
    inner = write_files(tmp_path / "outer" / "vendor" / "inner", {"src/app/views.py": "def render_vendor():\n"
                                                                                      "    return 3\n"})
    index_project(engine, outer, project="outer")
    index_project(engine, inner, project="inner")
    return engine, outer, inner


def test_an_unknown_project_is_an_error_naming_the_indexed_ones(two):
    eng, _, _ = two
    for ask in (lambda: eng.search_code("render", project="outr"),
                lambda: eng.find_symbols("render", project="outr"),
                lambda: eng.symbol_graph("render_page", project="outr"),
                lambda: eng.check_project("outr")):
        with pytest.raises(NotFoundError) as e:
            ask()
        assert "unknown project: outr" in str(e.value) and "inner, outer" in e.value.hint
    # a known project with no match stays an empty answer
    assert eng.find_symbols("nothing_like_this", project="outer") == []
    assert [p["project"] for p in eng.code_projects("inner")] == ["inner"]


def test_a_path_prefix_no_indexed_file_has_is_an_error(two):
    eng, _, _ = two
    with pytest.raises(NotFoundError, match="no indexed file's path starts with 'source/'"):
        eng.search_code("render", project="outer", path_prefix="source/")
    with pytest.raises(NotFoundError, match="starts with 'source/'"):
        eng.find_symbols("render", project="outer", path_prefix="source/")
    # lib/ holds a file, just no symbol of that name
    assert eng.find_symbols("render_page", project="outer", path_prefix="lib/") == []


@pytest.mark.parametrize("prefix", ["lib/", "./lib/", "lib//", "src/../lib/", "LIB_ABS", "LIB_ABS/", "LIB_ABS/x/.."])
def test_a_path_prefix_may_be_dotted_or_absolute(two, prefix):
    eng, outer, _ = two
    prefix = prefix.replace("LIB_ABS", str(outer / "lib"))
    want = "lib/" if prefix.endswith("/") else "lib"  # without its slash it would also match lib2/
    assert eng.path_scope(prefix, None) == (want, "outer" if prefix.startswith("/") else None)
    assert {h.record["path"] for h in eng.search_code("render", project="outer", path_prefix=prefix)} == \
        {"lib/util.py"}
    assert [s["name"] for s in eng.find_symbols("render", path_prefix=prefix)] == ["render_util"]


def test_an_absolute_path_picks_the_deepest_project_holding_it(two):
    eng, outer, inner = two
    assert eng.path_scope(str(inner / "src"), None) == ("src", "inner")
    assert eng.path_scope(str(outer / "src"), None) == ("src", "outer")
    assert eng.path_scope(str(inner), None) == (None, "inner")
    assert eng.path_scope(".", "outer") == (None, "outer")
    # searching every project, an absolute path keeps to the one that holds it
    assert {(h.record["project"], h.record["path"]) for h in
            eng.search_code("render", path_prefix=str(inner / "src") + "/")} == {("inner", "src/app/views.py")}
    # with the project given, its root alone counts
    assert eng.path_scope(str(inner / "src"), "outer") == ("vendor/inner/src", "outer")


def test_a_path_outside_every_root_is_refused_naming_the_roots(two, tmp_path):
    eng, outer, _ = two
    with pytest.raises(ValidationError) as e:
        eng.search_code("render", path_prefix="/etc/")
    assert "under no indexed project's root" in str(e.value) and f"{outer} (outer)" in str(e.value)
    assert "relative to the project's root" in e.value.hint
    with pytest.raises(ValidationError, match="leads out of the project's root"):
        eng.find_symbols("render", path_prefix="../elsewhere")
    with pytest.raises(NotFoundError, match="unknown project: nope"):
        eng.path_scope("/etc/", "nope")
