"""Symbol lookup for symbol_graph: overloads, names several symbols share, members inherited from a base."""

from __future__ import annotations

import textwrap

import pytest

from codebase import index_project
from memory_graph import Config, Engine
from memory_graph.errors import NotFoundError


def write(root, files: dict[str, str]):
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text))


def test_overloads_are_asked_as_one_symbol(engine, tmp_path):
    root = tmp_path / "lib"
    root.mkdir()
    (root / "core.py").write_text(textwrap.dedent("""
        from typing import overload

        class Context:
            @overload
            def invoke(self, f: int) -> int: ...
            @overload
            def invoke(self, f: str) -> str: ...
            def invoke(self, f):
                return prepare(f)

        def prepare(f):
            return f

        def run(ctx):
            return ctx.invoke(1)
        """))
    index_project(engine, root, project="lib")
    # calls resolve to the first definition of a name and the body is the last one's: together they are whole
    callers = engine.symbol_graph("Context.invoke", "callers", project="lib")
    callees = engine.symbol_graph("Context.invoke", "callees", project="lib")
    assert [r["qualname"] for r in callers["results"]] == ["run"]
    assert [r["qualname"] for r in callees["results"]] == ["prepare"]
    assert [o["start_line"] for o in callees["overloads"]] == [7, 9]
    assert "overloads" not in engine.symbol_graph("prepare", "callers", project="lib")


SHOP = {
    "base.py": """
        class Store:
            def save(self, item):
                return persist(item)

            def load(self):
                return None

            def go(self):
                return 1

        def persist(item):
            return item
        """,
    "cache.py": """
        from base import Store

        class Cache(Store):
            def load(self):
                return self.save(1)

            def go(self):
                return 2

        class Deeper(Cache):
            pass

        def save(path):
            return path
        """,
    "tests/test_cache.py": """
        def save():
            return 0
        """}


@pytest.fixture
def shop(engine, tmp_path):
    write(tmp_path / "shop", SHOP)
    index_project(engine, tmp_path / "shop", project="shop")
    return engine


def test_a_member_asked_through_a_subclass_is_found_in_its_nearest_base(shop):
    inherited = shop.symbol_graph("Cache.save", "callers", project="shop")
    assert inherited["symbol"]["qualname"] == "Store.save" and inherited["inherited_by"] == "Cache"
    assert [r["qualname"] for r in inherited["results"]] == ["Cache.load"]
    two_up = shop.symbol_graph("deeper.SAVE", "callees", project="shop")  # names are case-insensitive
    assert two_up["symbol"]["qualname"] == "Store.save" and two_up["inherited_by"] == "Deeper"
    assert [r["qualname"] for r in two_up["results"]] == ["persist"]
    # Cache overrides load: the nearest definition is the one a call on a Deeper reaches
    assert shop.symbol_graph("Deeper.load", "callees", project="shop")["symbol"]["qualname"] == "Cache.load"
    defined = shop.symbol_graph("Cache.load", "callees", project="shop")
    assert "inherited_by" not in defined and "others" not in defined
    [found] = shop.find_symbols("Deeper.save", project="shop")  # search_symbols agrees with symbol_graph
    assert found["qualname"] == "Store.save" and not shop.find_symbols("Deeper.save", kind="class")
    assert not shop.find_symbols("Deeper.drop", project="shop")
    with pytest.raises(NotFoundError, match="Cache and its bases in the project define no 'drop'"):
        shop.symbol_graph("Cache.drop", "callers", project="shop")
    with pytest.raises(NotFoundError, match="search_symbols finds"):
        shop.symbol_graph("Nowhere.save", "callers", project="shop")


def test_a_shared_name_answers_for_one_symbol_and_lists_the_others(shop):
    res = shop.symbol_graph("save", "callers", project="shop")
    # code before tests, then a whole qualified name (the function) before a member's name
    assert (res["symbol"]["qualname"], res["symbol"]["path"]) == ("save", "cache.py")
    assert [(o["qualname"], o["path"]) for o in res["others"]] == [("Store.save", "base.py"),
                                                                  ("save", "tests/test_cache.py")]
    assert res["others_total"] == 2
    # search_symbols orders them alike: code before tests among equal matches
    assert [(r["qualname"], r["path"]) for r in shop.find_symbols("save", project="shop")] == [
        ("save", "cache.py"), ("Store.save", "base.py"), ("save", "tests/test_cache.py")]
    again = shop.symbol_graph(res["others"][0]["id"], "callers", project="shop")
    assert [r["qualname"] for r in again["results"]] == ["Cache.load"] and "others" not in again
    assert "others" not in shop.symbol_graph("persist", "callers", project="shop")


def test_code_search_takes_a_dotted_name_through_a_subclass_for_the_inherited_member(shop):
    """`Deeper.save` names Store.save alone, not the class Deeper and every `save` its words name."""
    graph = shop.search_code("Deeper.save", mode="graph", project="shop")
    found = [(h.record["path"], h.title) for h in graph]
    assert found[0] == ("base.py", "class Store > def save")
    assert ("cache.py", "def save") not in found and ("tests/test_cache.py", "def save") not in found
    hybrid = shop.search_code("Deeper.save", project="shop", limit=3)
    assert hybrid[0].record["path"] == "base.py" and hybrid[0].title == "class Store > def save"
    assert hybrid[0].explanation.ranks["graph"] == 1
    # a name the type defines itself is the index's own qualified-name match, as before
    own = shop.search_code("Cache.load", mode="graph", project="shop")
    assert own[0].title == "class Cache > def load"
    # a name too short for the index's qualified names (`go`) still means the type's own member first
    short = shop.search_code("Cache.go", mode="graph", project="shop")
    assert short[0].title == "class Cache > def go"


WEB = {
    "app.py": """
        class Response:
            pass

        class App:
            response_class = Response
            name: str = "app"

            def make_response(self, body):
                return self.response_class(body)

            def describe(self):
                return name()

        class Child(App):
            def reply(self):
                return self.response_class("ok")
        """,
    "util.py": """
        def name():
            return "util"
        """}


def test_a_class_attribute_is_found_called_inherited_and_searched_as_its_class(engine, embedder, tmp_path):
    write(tmp_path / "web", WEB)
    index_project(engine, tmp_path / "web", project="web")
    [attr] = engine.find_symbols("response_class", project="web")
    assert (attr["qualname"], attr["kind"], attr["start_line"], attr["signature"]) == \
        ("App.response_class", "attribute", 6, "response_class = Response")
    callers = engine.symbol_graph("Child.response_class", "callers", project="web")
    assert callers["symbol"]["id"] == attr["id"] and callers["inherited_by"] == "Child"
    assert sorted(r["qualname"] for r in callers["results"]) == ["App.make_response", "Child.reply"]
    members = engine.symbol_graph("App", "members", project="web")["results"]
    assert {r["qualname"] for r in members} >= {"App.response_class", "App.name", "App.make_response"}
    # a bare name is never a class attribute: `name()` is util.name, not App.name
    [callee] = engine.symbol_graph("App.describe", "callees", project="web")["results"]
    assert (callee["qualname"], callee["path"]) == ("name", "util.py")
    # the graph leg reaches the class chunk that defines it, in this process and in one that loads the graph
    reopened = type(engine)(engine.data_dir, config=engine.config, embedder=embedder)
    try:
        for eng in (engine, reopened):
            top = eng.search_code("response_class", mode="graph", project="web")[0]
            assert (top.title, top.explanation.graph_path[0]) == ("class App", "App.response_class")
    finally:
        reopened.close()


def test_a_write_links_class_attributes_before_the_run_reloads_the_code_graph(engine, tmp_path, monkeypatch):
    """A search during an index run sees each written batch's attributes defined by their class's chunk (the
    whole code graph is loaded again only at the run's end)."""
    monkeypatch.setattr(engine.code_store, "load", lambda vectors=True: None)
    write(tmp_path / "web", WEB)
    index_project(engine, tmp_path / "web", project="web")
    top = engine.search_code("response_class", mode="graph", project="web")[0]
    assert (top.title, top.explanation.graph_path[0]) == ("class App", "App.response_class")


def test_code_search_finds_the_definition_of_a_hub_it_names(tmp_path, embedder):
    """A method so called that the graph leg expands none of its links (here: more than 2) still ranks the
    chunk that defines it when a query names it."""
    eng = Engine(tmp_path / "data", config=Config(graph_hub_degree=2), embedder=embedder)
    try:
        write(tmp_path / "shop", SHOP)
        index_project(eng, tmp_path / "shop", project="shop")
        assert eng.code_graph.degree(eng.find_symbols("Store.save")[0]["id"]) > 2
        graph = eng.search_code("Store.save", mode="graph", project="shop")
        assert [(h.record["path"], h.title) for h in graph] == [("base.py", "class Store > def save")]
    finally:
        eng.close()


def test_a_module_qualified_name_means_the_module_member(engine, tmp_path):
    """`helpers.fmt` (and a package's `pkg.run`) is the function the module defines, as code calls it, not the
    class Fmt beside it nor the code that mentions the name."""
    write(tmp_path / "mods", {
        "helpers.py": """
            class Fmt:
                pass

            def fmt(x):
                return x
            """,
        "pkg/__init__.py": """
            def run():
                return 1
            """,
        "main.py": """
            import helpers
            import pkg

            def go(v=helpers.fmt):
                return helpers.fmt(pkg.run())
            """})
    index_project(engine, tmp_path / "mods", project="mods")
    found = engine.find_symbols("helpers.fmt", project="mods")
    assert [(r["qualname"], r["path"]) for r in found] == [("fmt", "helpers.py"), ("go", "main.py")]
    callers = engine.symbol_graph("helpers.fmt", "callers", project="mods")
    assert callers["symbol"]["path"] == "helpers.py" and "inherited_by" not in callers
    assert [r["qualname"] for r in callers["results"]] == ["go"]
    assert engine.symbol_graph("pkg.run", "callers", project="mods")["symbol"]["path"] == "pkg/__init__.py"
    for query, title, path in [("helpers.fmt", "def fmt", "helpers.py"), ("pkg.run", "def run", "pkg/__init__.py")]:
        top = engine.search_code(query, mode="graph", project="mods")[0]
        assert (top.title, top.record["path"]) == (title, path)
    assert engine.search_code("helpers", mode="graph", project="mods") == []  # a module alone seeds nothing


def test_a_query_that_is_a_short_name_reaches_its_definition(engine, tmp_path):
    """`Q` (Django's query object) is too short for the in-memory name index; a query that is only that name
    still seeds the graph leg with the symbols of exactly that name, and prose with a short word does not."""
    write(tmp_path / "orm", {
        "query_utils.py": """
            class Q:
                def __init__(self, **kwargs):
                    self.children = list(kwargs.items())
            """,
        "views.py": """
            from query_utils import Q

            def active(users):
                return users.filter(Q(active=True))

            def q(x):
                return x
            """})
    index_project(engine, tmp_path / "orm", project="orm")
    for query in ("Q", "`Q`", " Q "):
        top = engine.search_code(query, mode="graph", project="orm")
        assert [(h.record["path"], h.title) for h in top][:1] == [("query_utils.py", "class Q")], query
    assert engine.search_code("q", mode="graph", project="orm")[0].title == "def q"  # the name as written
    assert engine.search_code("a Q", mode="graph", project="orm") == []
    write(tmp_path / "other", {"util.py": "def helper():\n    return 1\n"})
    index_project(engine, tmp_path / "other", project="elsewhere")
    assert engine.search_code("Q", mode="graph", project="elsewhere") == []


def test_a_short_package_name_reaches_its_members_and_submodules(engine, tmp_path):
    """`db.connection` is what Django's django/db/__init__.py binds and `db.transaction` its module
    transaction.py (a package's folder `tx/`, too): a package named in two characters is looked up as any
    other, and of two packages named `db` the less nested one (not contrib/gis/db) answers."""
    write(tmp_path / "site", {
        "app/db/__init__.py": """
            connection = object()
            """,
        "app/db/transaction.py": """
            def atomic():
                return connection
            """,
        "app/db/tx/__init__.py": """
            def begin():
                return 1
            """,
        "app/contrib/gis/db/__init__.py": """
            backend = 'postgis'
            """,
        "app/contrib/gis/db/transaction.py": """
            def atomic():
                return 2
            """})
    index_project(engine, tmp_path / "site", project="site")
    first = {name: engine.find_symbols(name, project="site")[0] for name in ("db.connection", "db.transaction",
                                                                              "db.tx", "db.backend")}
    assert (first["db.connection"]["qualname"], first["db.connection"]["path"]) == ("connection",
                                                                                  "app/db/__init__.py")
    assert (first["db.transaction"]["kind"], first["db.transaction"]["path"]) == ("module", "app/db/transaction.py")
    assert first["db.tx"]["path"] == "app/db/tx/__init__.py"
    assert first["db.backend"]["path"] == "app/contrib/gis/db/__init__.py"  # the other `db` when only it has one
    top = engine.search_code("db.transaction", mode="graph", project="site")[0]
    assert top.record["path"] == "app/db/transaction.py"
    assert engine.search_code("transaction.atomic", mode="graph", project="site")[0].record["path"] == \
        "app/db/transaction.py"


def test_a_dotted_path_reaches_its_symbol_package_by_package(engine, tmp_path):
    """`shop.db.transaction.atomic` and `shop.db.Model.save` as a traceback or an import names them: each part
    a member, submodule or re-export (`from .base import Model`) of the one before, so the path decides between
    namesakes; a project indexed at its package's own folder takes its name as the first part."""
    write(tmp_path / "site", {
        "shop/__init__.py": "",
        "shop/db/__init__.py": """
            from ..api import helper
            from .base import Model
            """,
        "shop/db/base.py": """
            class Model:
                def save(self):
                    return 1
            """,
        "shop/db/child.py": """
            from .base import Model

            class Child(Model):
                pass

            def store(c):
                return c.save()
            """,
        "shop/db/transaction.py": """
            def atomic():
                return 1
            """,
        "shop/contrib/__init__.py": "",
        "shop/contrib/db/__init__.py": "",
        "shop/contrib/db/transaction.py": """
            def atomic():
                return 2
            """,
        "shop/api.py": """
            class Model:
                def save(self):
                    return 3

            def helper():
                return 4
            """})
    index_project(engine, tmp_path / "site", project="site")
    index_project(engine, tmp_path / "site" / "shop", project="shop")

    def first(name: str, project: str = "site") -> tuple[str, str]:
        found = engine.find_symbols(name, project=project)
        return (found[0]["qualname"], found[0]["path"]) if found else ("", "")

    assert first("shop.db.transaction.atomic") == ("atomic", "shop/db/transaction.py")
    assert first("shop.contrib.db.transaction.atomic") == ("atomic", "shop/contrib/db/transaction.py")
    assert first("shop.db.transaction")[1] == "shop/db/transaction.py"
    assert first("shop.db.Model") == ("Model", "shop/db/base.py")
    assert first("shop.db.Model.save") == ("Model.save", "shop/db/base.py")
    assert first("shop.db.Model.save", project="shop") == ("Model.save", "db/base.py")
    assert first("shop.api.helper", project="shop") == ("helper", "api.py")
    assert first("shop.nothing.atomic") == ("", "")
    callers = engine.symbol_graph("shop.db.child.Child.save", "callers", project="site")
    assert (callers["symbol"]["qualname"], callers["inherited_by"]) == ("Model.save", "Child")
    assert "inherited_by" not in engine.symbol_graph("shop.db.Model.save", "callers", project="site")
    with pytest.raises(NotFoundError):
        engine.symbol_graph("shop.db.Model.load", project="site")
    top = engine.search_code("shop.contrib.db.transaction.atomic", mode="graph", project="site")[0]
    assert (top.title, top.record["path"]) == ("def atomic", "shop/contrib/db/transaction.py")


def test_a_file_path_names_its_file_and_what_follows_it(engine, tmp_path):
    """`app/db/transaction.py:atomic`, pytest's `::` node ids and a traceback's `File "...", line N` name one
    definition; words beside a path name the file's definitions; a file name that several files share, beside
    other words, seeds nothing, and alone lists them all."""
    write(tmp_path / "site", {
        "app/db/transaction.py": """
            def atomic(using=None):
                return Atomic(using)


            class Atomic:
                def __init__(self, using):
                    self.using = using

                def __enter__(self):
                    return self.using
            """,
        "app/db/base.py": """
            class Model:
                def save(self):
                    return 1
            """,
        "app/other/base.py": """
            class Other:
                def save(self):
                    return 2
            """,
        "tests/test_tx.py": """
            from app.db.transaction import atomic


            class TestTx:
                def test_atomic(self):
                    assert atomic() is not None
            """})
    index_project(engine, tmp_path / "site", project="site")

    def top(query: str) -> tuple[str, str] | None:
        hits = engine.search_code(query, mode="graph", project="site")
        return (hits[0].title, hits[0].record["path"]) if hits else None

    atomic, enter = ("def atomic", "app/db/transaction.py"), ("class Atomic > def __enter__", "app/db/transaction.py")
    assert top("app/db/transaction.py:atomic") == atomic
    assert top("atomic in app/db/transaction.py") == atomic
    assert top("transaction.py::Atomic.__enter__") == enter
    assert top('File "/home/me/src/site/app/db/transaction.py", line 11, in __enter__') == enter
    assert top('File "/home/me/src/site/app/db/transaction.py", line 3') == atomic
    assert top("base.py")[1] == "app/db/base.py"  # a file name alone: the least nested of its files
    assert top("the save method in app/db/base.py") == ("class Model > def save", "app/db/base.py")
    assert top("the save method in base.py") is None  # two files of that name: left to the other legs
    assert top("transaction.py:nothing") is None
    assert [(r["kind"], r["path"]) for r in engine.find_symbols("base.py", project="site")] == [
        ("module", "app/db/base.py"), ("module", "app/other/base.py")]
    assert [r["path"] for r in engine.find_symbols("/abs/site/app/other/base.py", project="site")][:1] == [
        "app/other/base.py"]
    assert engine.find_symbols("app/db/transaction.py:3", project="site")[0]["qualname"] == "atomic"
    assert engine.find_symbols("nothere.py", project="site") == []
    with pytest.raises(NotFoundError):  # not the file's module instead
        engine.symbol_graph("app/db/transaction.py:nothing", project="site")
    callees = engine.symbol_graph("tests/test_tx.py::TestTx::test_atomic", "callees", project="site")
    assert [r["qualname"] for r in callees["results"]] == ["atomic"]


def test_a_member_of_a_nested_type_and_names_written_the_ruby_way_are_found(engine, tmp_path):
    """`Utils.escape` for Rack.Utils.escape (a type in a namespace: no qualified name is `Utils.escape`), and
    `Rack::Utils.escape`, `Request#params` as Ruby writes them, in symbol_graph, find_symbols and code search."""
    write(tmp_path / "rack", {
        "lib/rack/utils.rb": """
            module Rack
              module Utils
                def self.escape(s)
                  s
                end
              end
              class Request
                def params
                  Utils.escape("a")
                end
              end
            end
            """,
        "lib/rack/other.rb": """
            module Other
              def self.escape(s)
                s
              end
            end
            """})
    index_project(engine, tmp_path / "rack", project="rack")
    for name in ("Utils.escape", "Rack::Utils.escape", "Rack::Utils::escape"):
        callers = engine.symbol_graph(name, "callers", project="rack")
        assert callers["symbol"]["qualname"] == "Rack.Utils.escape"
        assert [r["qualname"] for r in callers["results"]] == ["Rack.Request.params"]
    assert engine.symbol_graph("Request#params", "callees", project="rack")["symbol"]["qualname"] == \
        "Rack.Request.params"
    assert engine.find_symbols("Rack::Request", project="rack")[0]["qualname"] == "Rack.Request"
    top = engine.search_code("Rack::Utils.escape", mode="graph", project="rack")[0]
    assert top.record["path"] == "lib/rack/utils.rb" and top.title.endswith("escape")
    with pytest.raises(NotFoundError):
        engine.symbol_graph("Utils.nothing", "callers", project="rack")


def test_dotted_names_write_other_languages_qualifiers_as_dots():
    from memory_graph.text import dotted_names

    assert dotted_names("Rack::Utils.escape and Request#params") == "Rack.Utils.escape and Request.params"
    assert dotted_names("App\\Models\\User::find") == "App.Models.User.find"
    assert dotted_names("crate::error::Fault") == "error.Fault"  # a Rust path from its crate's root
    for kept in ("tests/test_app.py::TestApp::test_x", "x.py::A", "self.runner.invoke", "fix #12", "C# code"):
        assert dotted_names(kept) == kept


def test_a_namespaced_name_as_php_writes_it_finds_the_class_its_folders_hold(engine, tmp_path):
    """A namespace the index holds as folders, not symbols (`Acme\\Console\\Helper\\Table::render`, a PHP
    trace's `Table->render()` and `Table.php(5)`), names its class and member in every lookup."""
    write(tmp_path / "console", {
        "Helper/Table.php": """<?php
            namespace Acme\\Console\\Helper;
            class Table {
                public function render() { return $this->rows(); }
                public function rows() { return 1; }
            }
            """,
        "Helper/TableStyle.php": """<?php
            namespace Acme\\Console\\Helper;
            class TableStyle { public function render() { return 2; } }
            """,
        "Helper/Helper.php": """<?php
            namespace Acme\\Console\\Helper;
            class Helper { public function width() { return 3; } }
            """})
    index_project(engine, tmp_path / "console", project="console")
    name = "Acme\\Console\\Helper\\Table::render"
    assert engine.symbol_graph(name, "callees", project="console")["symbol"]["qualname"] == "Table.render"
    assert engine.find_symbols("Acme\\Console\\Helper\\Table", project="console")[0]["qualname"] == "Table"
    with pytest.raises(NotFoundError):  # a tail of one part must be a type: `render` alone is not asked
        engine.symbol_graph("Acme\\Console\\Helper\\Nothing::render", "callers", project="console")
    for query in (name, "#0 /srv/Helper/Table.php(5): Acme\\Console\\Helper\\Table->render()"):
        found = engine.search_code(query, mode="graph", project="console")
        assert (found[0].record["path"], found[0].title) == ("Helper/Table.php", "class Table > method render")
        # the name as a whole, not the class Helper a namespace's folder is named like
        assert "Helper/Helper.php" not in {h.record["path"] for h in found}
    # a name, so BM25 (which code queries in words leave out) takes part
    assert engine.search_code(name, project="console")[0].explanation.weights["bm25"] > 0
    assert engine.symbol_graph("Helper/Table.php(5)", "callees", project="console")["symbol"]["qualname"] == \
        "Table.rows"


def test_a_name_means_the_implementation_the_definition_and_the_helper_code_calls(engine, tmp_path):
    """What attrs showed: `attrs.define` answered a test's `class Define`, since attrs/__init__.py re-exports
    `define` from another package of the project (attr/_next_gen.py); a bare `define` took the `.pyi` stub,
    which calls nothing; of two helpers of one name the one fewer places call came first; and `attr.s`, bound
    by `s = attributes = attrs`, answered for the binding, which calls nothing."""
    write(tmp_path / "proj", {
        "src/attrs/__init__.py": "from attr._next_gen import define\n",
        "src/attr/__init__.py": "from ._make import attrs\n\ns = attributes = attrs\n",
        "src/attr/__init__.pyi": "def define(maybe_cls=None): ...\n",
        "src/attr/_next_gen.py": """
            from attr._make import attrs

            def define(maybe_cls=None):
                return attrs(maybe_cls)
            """,
        "src/attr/_make.py": "def attrs(maybe_cls=None):\n    return maybe_cls\n",
        "tests/dataclass_transform_example.py": "class Define:\n    a: str\n",
        "lib/a/util.py": "def normalize(x):\n    return x\n",
        "lib/b/util.py": """
            def normalize(x):
                return x.strip()

            def one(x):
                return normalize(x)

            def two(x):
                return normalize(x)

            def three(x):
                return normalize(x)
            """,
        "lib/a/use.py": "from .util import normalize\n\ndef only(x):\n    return normalize(x)\n",
    })
    index_project(engine, tmp_path / "proj", project="proj")
    graph = engine.symbol_graph("attrs.define", "callees", project="proj")
    assert (graph["symbol"]["path"], [r["qualname"] for r in graph["results"]]) == ("src/attr/_next_gen.py",
                                                                                    ["attrs"])
    assert engine.symbol_graph("define", "callees", project="proj")["symbol"]["path"] == "src/attr/_next_gen.py"
    assert engine.symbol_graph("normalize", "callers", project="proj")["symbol"]["path"] == "lib/b/util.py"
    # an alias is followed to what it renames, and the binding passed over is named
    aliased = engine.symbol_graph("attr.s", "callers", project="proj")
    assert (aliased["symbol"]["qualname"], aliased["symbol"]["path"]) == ("attrs", "src/attr/_make.py")
    assert [o["qualname"] for o in aliased["others"]] == ["s"]
    assert [r["qualname"] for r in aliased["results"]] == ["define"]
