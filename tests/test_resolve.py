"""Resolving calls to the symbols they reach: receivers, type hierarchies, modules (no stores involved)."""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import edges_of

from codebase.chunker import parse_file
from codebase.refs import EXPRESSION, receiver_key
from codebase.typed import class_name
from codebase.likeness import resembles
from codebase.resolve import owner_of, type_key

PY = {
    "pkg/__init__.py": "from .decorators import command\n",
    "pkg/decorators.py": "def command(f=None):\n    return f\n",
    "pkg/core.py": """
        class Context:
            def invoke(self, f):
                return f()

        class BaseCommand:
            def invoke(self, ctx):
                return ctx

            def main(self):
                ctx = Context()
                self.invoke(ctx)
                return ctx.invoke(len)

        class Command(BaseCommand):
            def run(self):
                self.invoke(None)
                return self.helper()

            def invoke(self, ctx):
                return super().invoke(ctx)
        """,
    "pkg/testing.py": """
        class CliRunner:
            def invoke(self, cli):
                return cli
        """,
    "tests/test_it.py": """
        import os
        import pkg
        from pkg import core

        def join(a, b):
            return a + b

        def test_it(runner, thing):
            runner.invoke(pkg.command)
            pkg.command()
            core.Context()
            os.path.join("a", "b")
            thing.invoke(1)
            make().invoke(2)
        """,
}


def test_a_method_call_reaches_the_type_its_receiver_names():
    edges = edges_of(PY)
    # self: the enclosing class, then its bases; super: the bases only
    assert ("BaseCommand.main", "BaseCommand.invoke") in edges
    assert ("Command.run", "Command.invoke") in edges
    assert ("Command.invoke", "BaseCommand.invoke") in edges
    # a receiver of unknown type: the one type whose name it resembles
    assert ("BaseCommand.main", "Context.invoke") in edges          # ctx -> Context
    assert ("test_it", "CliRunner.invoke") in edges                 # runner -> CliRunner
    # a module: through the package's re-export, and `from pkg import core` binds the module pkg/core.py
    assert ("test_it", "command") in edges and ("test_it", "Context") in edges
    # what cannot be known stays a name, never a guess: several types define invoke, and none is like
    # `thing` or a call's result; self.helper is in no class of the hierarchy; os is a library
    assert not {("test_it", t) for t in ("Context.invoke", "BaseCommand.invoke", "Command.invoke")} & edges
    assert ("test_it", "?invoke") in edges
    assert ("Command.run", "?helper") in edges
    assert ("test_it", "join") not in edges and ("test_it", "?join") in edges


def test_without_receivers_the_same_calls_were_guessed_wrong():
    # refs stored before receivers were recorded (four fields) still resolve, the old way
    old = edges_of(PY, strip_receivers=True)
    assert ("test_it", "CliRunner.invoke") not in old and ("test_it", "join") in old
    assert ("Command.invoke", "BaseCommand.invoke") not in old


GRAPHS = {
    "__init__.py": "from .classes import Graph\n",
    "classes/__init__.py": "from .graph import Graph, DiGraph\n",
    "classes/graph.py": """
        class Graph:
            def add_edge(self, u, v): ...
            def remove(self, u): ...

        class DiGraph(Graph):
            def add_edge(self, u, v): ...
            def remove(self, u): ...
        """,
    "classes/multi.py": """
        from .graph import Graph

        class MultiGraph(Graph):
            def remove(self, u): ...
        """,
    "io.py": """
        class Writer:
            def add_edge(self, u, v): ...
        """,
    "algo.py": """
        import mygraphs as nx

        def build(G, G2, thing):
            H = nx.Graph()
            G.add_edge(1, 2)
            G2.add_edge(2, 3)
            thing.remove(1)
            return H
        """,
}


def test_a_package_indexed_at_its_own_folder_imports_itself_by_name():
    edges = edges_of(GRAPHS, package="mygraphs")
    assert ("build", "Graph") in edges  # nx.Graph: mygraphs/__init__ -> classes/__init__ -> classes/graph
    # G and G2 are Graph's initials; remove is defined by Graph and two of its subtypes: the base's
    assert ("build", "Graph.add_edge") in edges and ("build", "Graph.remove") in edges
    assert ("build", "Writer.add_edge") not in edges
    # without the folder's name, `import mygraphs` looks like a library's: nothing of it is guessed
    assert ("build", "?Graph") in edges_of(GRAPHS)


def test_python_imports_bind_what_python_binds():
    parsed = parse_file("x.py", "import os.path\nimport networkx as nx, numpy\nimport a.b.c as abc\n", "python")
    assert parsed.imports == {"os": "os", "nx": "networkx", "numpy": "numpy", "abc": "a.b.c"}
    assert [r.name for r in parsed.refs] == ["os.path", "networkx", "numpy", "a.b.c"]


def test_receiver_key_keeps_names_and_marks_expressions():
    assert receiver_key("self.runner.") == "self.runner"
    assert receiver_key("Vec::<u8>::") == "Vec" and receiver_key("$this->") == "this"
    assert receiver_key("super().") == "super" and receiver_key("") == ""
    assert receiver_key("f().") == receiver_key('"x".') == receiver_key("a[0].") == EXPRESSION


def test_type_keys_drop_generics_overload_marks_and_impl_headers():
    assert type_key("impl Display for Wrapper<Vec<T>>") == "Wrapper"
    assert owner_of("Chain<'a>.size_hint") == "Chain" and owner_of("Context.invoke''") == "Context"
    assert owner_of("helper") == "" and owner_of("capture.Backtrace.new") == "capture.Backtrace"


IDENT = st.from_regex(r"[A-Z][a-z]{2,6}([A-Z][a-z]{2,6}){0,2}", fullmatch=True)


@given(IDENT)
def test_a_type_resembles_its_own_name_and_tail_in_any_case(name):
    assert resembles(name, name) and resembles(name.lower(), name)
    tail = name[[i for i, c in enumerate(name) if c.isupper()][-1]:]
    assert resembles(tail[0].lower() + tail[1:], name)  # runner ~ CliRunner


def _tails(camel: str) -> set[str]:
    return {camel[i:].lower() for i, c in enumerate(camel) if c.isupper()}


@given(IDENT, IDENT)
def test_resemblance_needs_a_shared_tail_or_an_abbreviation_with_the_same_first_letter(receiver, type_name):
    if resembles(receiver, type_name):
        assert _tails(receiver) & _tails(type_name) or any(t[0] == receiver[0].lower() for t in _tails(type_name))
    assert not resembles("thing", "Context") and not resembles("ctx", "Command") and resembles("ctx", "Context")


def test_star_imports_are_followed_through_packages():
    files = {
        "pkg/__init__.py": "from pkg.algorithms import *\n",
        "pkg/algorithms/__init__.py": "from pkg.algorithms.iso import *\nfrom pkg.algorithms.flow import *\n",
        "pkg/algorithms/flow.py": "def max_flow(g):\n    return g\n",
        "pkg/algorithms/iso.py": "def is_isomorphic(a, b):\n    return a == b\n",
        "pkg/tests/helpers.py": "def is_isomorphic(a, b):\n    return True\n",  # a namesake nearer the callers
        "pkg/tests/test_iso.py": """
            import pkg as nx
            from pkg.algorithms import *

            def test_nx():
                return nx.is_isomorphic(1, 1)

            def test_plain():
                return is_isomorphic(1, 1) and max_flow(2)
            """,
    }
    # where the star imports lead, not the namesake in the callers' own folder
    assert edges_of(files, package="pkg", paths=True) == {("test_nx", "pkg/algorithms/iso.py:is_isomorphic"),
                     ("test_plain", "pkg/algorithms/iso.py:is_isomorphic"),
                     ("test_plain", "pkg/algorithms/flow.py:max_flow")}


TYPED = {
    "src/shop/__init__.py": "",
    "src/shop/store.py": """
        class Base:
            def save(self):
                return 1

            def drop(self):
                return 0

        class Store(Base):
            def load(self):
                return 2

        class Cache:
            def save(self):
                return 3

            def load(self):
                return 4

            def drop(self):
                return 5

            def build(self):
                return None
        """,
    "src/shop/factory.py": """
        from contextlib import contextmanager
        from typing import Iterator

        from .store import Cache

        def open_cache() -> Cache:
            return Cache()

        @contextmanager
        def cached() -> Iterator["Cache"]:
            yield Cache()

        def untyped():
            return Cache()
        """,
    "tests/test_shop.py": """
        from pathlib import Path
        from shop.factory import cached, open_cache, untyped
        from shop.store import Cache, Store
        import shop.store as sm

        def test_typed(cache: Store, store: Path):
            cache.save()
            store.load()
            mine = Cache()
            mine.load()

            class Local:
                pass

            cache2 = Local()
            cache2.save()
            other = sm.Cache()
            other.drop()

        class Service:
            backend: Store

            def run(self):
                self.backend.load()
                self.local.drop()
                made = self.build()
                made.load()

            def build(self) -> Cache:
                return Cache()

            def __init__(self):
                self.local = Cache()

            def reset(self):
                self.local = untyped()  # says less than `Cache()` above

        def test_returned():
            c = open_cache()
            c.drop()
            with cached() as cc:
                cc.load()
            u = untyped()
            u.load()
        """}


def test_a_variable_of_a_known_class_calls_that_class_before_what_its_name_resembles():
    """An annotation or a constructor says what a variable holds: `cache: Store` calls Store's (inherited)
    save, not Cache's; `store: Path` is a library's class, so nothing is guessed; `mine = Cache()` and
    `other = sm.Cache()` are Caches, and so are `self.local = Cache()` and `backend: Store` for a class's methods.
    A class the project does not define (a local one) leaves the decision to the name. `from shop.store
    import ...` reaches src/shop/store.py (a src layout)."""
    edges = edges_of(TYPED)
    assert {("test_typed", t) for t in ("Base.save", "?load", "Cache.load", "Cache.save", "Cache.drop")} <= edges
    assert ("test_typed", "Store.load") not in edges
    # an attribute annotated in the class body, or assigned an instance in a method defined below
    assert {("Service.run", "Store.load"), ("Service.run", "Cache.drop")} <= edges
    assert ("Service.run", "Cache.load") in edges  # `made = self.build()`: Service.build's annotation
    # what a function's annotation says it returns, or a context manager yields
    assert {("test_returned", "Cache.drop"), ("test_returned", "Cache.load")} <= edges
    assert ("test_returned", "?load") in edges  # `untyped()` says nothing: `u` is no Cache by its name
    # by names alone, `cache.save()` was Cache's and `store.load()` Store's
    untyped = edges_of({**TYPED, "tests/test_shop.py": TYPED["tests/test_shop.py"].replace(": Store", "")
                        .replace(": Path", "").replace("mine = Cache()", "mine = make()")})
    assert ("test_typed", "Store.load") in untyped and ("test_typed", "Base.save") not in untyped
    assert ("test_typed", "Cache.drop") not in edges_of(TYPED, strip_receivers=True)


def test_an_attribute_a_base_class_assigns_types_it_in_subclasses_in_other_files():
    """`self.backend = RedisCache()` in Base.__init__ makes `self.backend.get()` in a subclass elsewhere a call
    of RedisCache.get, not of Backend.get, which the attribute's name resembles; the subclass's own
    assignment comes first, and an attribute no class assigns is left to the name as before."""
    files = {
        "cache.py": """
            class Backend:
                def get(self, key):
                    return None

            class MemoryCache:
                def get(self, key):
                    return key
            """,
        "store/redis.py": """
            class RedisCache:
                def get(self, key):
                    return key
            """,
        "legacy/redis.py": """
            class RedisCache:
                def get(self, key):
                    return None
            """,
        "base.py": """
            from store.redis import RedisCache

            class Base:
                def __init__(self):
                    self.backend = RedisCache()
            """,
        "views.py": """
            from base import Base
            from cache import MemoryCache

            class View(Base):
                def load(self):
                    return self.backend.get("k")

            class Local(Base):
                def __init__(self):
                    self.backend = MemoryCache()

                def load(self):
                    return self.backend.get("k")

            class Other:
                def load(self):
                    return self.backend.get("k")
            """}
    edges = edges_of(files)
    assert ("View.load", "RedisCache.get") in edges and ("View.load", "Backend.get") not in edges
    # the class as the base's file names it (its import), not any namesake
    assert ("View.load", "store/redis.py:RedisCache.get") in edges_of(files, paths=True)
    assert ("Local.load", "MemoryCache.get") in edges and ("Local.load", "RedisCache.get") not in edges
    assert ("Other.load", "Backend.get") in edges  # no base assigns it: the name decides
    # the base's file records what its attribute holds (files cut before chunker 13 have no such record)
    base = parse_file("base.py", textwrap.dedent(files["base.py"]), "python")
    assert [(r.source, r.kind, r.name, r.typed) for r in base.refs if r.kind == "holds"] == [
        ("Base", "holds", "backend", "RedisCache")]


@pytest.mark.parametrize("text, expected", [
    ("Store", "Store"), ("'Store'", "Store"), ("Store | None", "Store"), ("None | Store", "Store"),
    ("Optional[Store]", "Store"), ("models.Store", "models.Store"), (": Store | undefined", ""),
    ("str", ""), ("MAX", ""), ("list[Store]", ""), ("Store | Cache", ""), ("dict", "")])
def test_a_class_name_is_read_from_simple_annotations_only(text, expected):
    assert class_name(text) == expected


def test_calls_record_the_class_a_typescript_variable_holds():
    # TypeScript's annotations are the language's types: `string` and `Map<K, V>` are a library's (the resolver
    # leaves their calls unresolved), `Cache | null` is a Cache where there is one
    src = "function f(a: Store, b?: Cache | null, c: string, d: Map<string, Store>) {\n  const x = new ns.Foo();\n" \
          "  let y: Bar = g();\n  a.s(); b.l(); c.trim(); d.get(); x.m(); y.n(); z.o();\n}\n"
    typed = {r.name: r.typed for r in parse_file("a.ts", src, "typescript").refs if r.kind == "calls"}
    assert typed == {"Foo": "", "g": "", "s": "Store", "l": "Cache", "trim": "string", "get": "Map", "m": "ns.Foo",
                     "n": "Bar", "o": ""}


def test_a_bare_call_names_no_method_of_another_class():
    """`await send(message)` in an ASGI app names its parameter, not Client.send (httpx's test apps were all
    listed as its callers); a call on a receiver still reaches the method, and a bare call a function."""
    from conftest import called_by

    called = called_by({
        "pkg/client.py": "class Client:\n    def send(self, request):\n        return request\n\n"
                         "    def request(self):\n        return self.send(1)\n\n\ndef send_all(c):\n    c.send(2)\n",
        "tests/apps.py": "async def app(scope, receive, send):\n    await send({'type': 'http.response.start'})\n",
        "web/app.js": "function handler(req, send) {\n  send(req)\n}\n",
        "pkg/util.py": "def fmt(x):\n    return x\n",
        "pkg/use.py": "def show(x):\n    return fmt(x)\n",
    })
    assert called["Client.request"] == called["send_all"] == {"pkg/client.py:Client.send"}
    assert called["app"] == called["handler"] == {"?send"}
    assert called["show"] == {"pkg/util.py:fmt"}
