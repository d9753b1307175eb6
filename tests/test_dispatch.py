"""Methods and the types that may dispatch to them: methods defined outside their type's body are its members,
Go types implement the interfaces whose methods they have, a bare call in a Java method is the class's own, and
the callers of a method include, marked, those of the methods it overrides or implements."""

from __future__ import annotations

import json

import pytest

from conftest import edges_of, write_files

from codebase import index_project
from memory_graph.symbols import raises_not_implemented

GO = {
    "store/saver.go": """
        package store

        type Saver interface {
        	Save(key string) error
        	Name() string
        }

        type ReadSaver interface {
        	Saver
        	Read() string
        }

        type Named interface{ Name() string }

        type Number interface{ ~int | ~float64 }

        type Any interface{}

        type flusher interface{ flush() }
        """,
    "store/disk.go": """
        package store

        type base struct{}

        func (b *base) Name() string { return "base" }

        type Disk struct {
        	base
        	path string
        }

        func (d *Disk) Read() string { return d.path }

        func (d *Disk) flush() {}
        """,
    "store/disk_save.go": """
        package store

        func (d *Disk) Save(key string) error { d.flush(); return nil }

        type Handler func(string)

        func (h Handler) Save(key string) error { return nil }
        """,
    "cloud/disk_save.go": """
        package cloud

        type Disk struct{}

        type Wrapped struct{ store.Saver }
        """,
    "cloud/bucket.go": """
        package cloud

        type Bucket struct{}

        func (b *Bucket) Save(key string) error { return nil }
        func (b *Bucket) Name() string { return "bucket" }
        func (b *Bucket) flush() {}
        """,
    "app/app.go": """
        package app

        import "example.com/demo/store"

        func Backup(s store.Saver) { s.Save("all") }

        func Direct(d *store.Disk) { d.Save("one") }

        func Both(d *store.Disk, s store.Saver) { d.Save("two"); s.Save("three") }

        func Label(n store.Named) string { return n.Name() }
        """,
}


def test_go_types_implement_the_interfaces_whose_methods_they_have_and_hold_their_methods():
    implements = edges_of(GO, "go", paths=True, kind="implements")
    assert implements == {
        # Disk's own Save and Read with Name promoted from the base it embeds: all three interfaces
        ("Disk", "store/saver.go:Saver"), ("Disk", "store/saver.go:ReadSaver"), ("Disk", "store/saver.go:Named"),
        ("base", "store/saver.go:Named"),
        ("Disk", "store/saver.go:flusher"),  # an unexported method: only a type of the same package
        ("Bucket", "store/saver.go:Saver"), ("Bucket", "store/saver.go:Named"),
        ("Wrapped", "store/saver.go:Named"),  # it embeds Saver: it extends Saver, no need to say it implements
    }  # never Handler (Save alone), never the empty interface or a constraint of types
    assert ("Wrapped", "store/saver.go:Saver") in edges_of(GO, "go", paths=True, kind="extends")
    contains = edges_of(GO, "go", ids=True, kind="contains")
    # a method, in whichever file of the package, belongs to the type (never to cloud's Disk, though its file
    # has the method's file's name); the module holds it as before
    saves = {s for s, t in contains if t == "store/disk_save.go:Disk.Save"}
    assert saves == {"store/disk.go:Disk", "store/disk_save.go:"}
    assert {("store/disk.go:Disk", "store/disk.go:Disk.Read"),
            ("store/disk_save.go:Handler", "store/disk_save.go:Handler.Save")} <= contains
    assert not {t for s, t in contains if s == "cloud/disk_save.go:Disk"}


def test_methods_outside_their_class_belong_to_it_in_cpp_and_rust():
    cpp = {
        "include/disk.h": "class Disk {\n public:\n  void save();\n};\n",
        "src/disk.cpp": '#include "disk.h"\nvoid Disk::save() { flush(); }\nvoid Disk::flush() {}\n',
        "src/legacy.cpp": "class Disk { void save(); };\n",
        "src/cache.cpp": "void Cache::drop() {}\n",
        "lib/types.h": "class Cache { void drop(); };\n",
    }
    contains = edges_of(cpp, "auto", ids=True, kind="contains")
    # two classes are called Disk: disk.cpp's methods are the one in the header of its name's, and Cache's the
    # project's one Cache
    assert {("include/disk.h:Disk", "src/disk.cpp:Disk.save"), ("include/disk.h:Disk", "src/disk.cpp:Disk.flush"),
            ("lib/types.h:Cache", "src/cache.cpp:Cache.drop")} <= contains
    assert {s for s, t in contains if t == "src/disk.cpp:Disk.save"} == {"src/disk.cpp:", "include/disk.h:Disk"}
    assert not {t for s, t in contains if s.startswith("src/legacy.cpp:") and t.startswith("src/disk")}
    calls = edges_of(cpp, "auto", paths=True)
    assert ("Disk.save", "src/disk.cpp:Disk.flush") in calls  # a bare call in a method: the class's own
    rust = {"src/disk.rs": """
        pub struct Disk { path: String }
        impl Disk { pub fn open() -> Disk { Disk { path: String::new() } } }
        pub trait Saver { fn save(&self); }
        impl Saver for Disk { fn save(&self) {} }
        """}
    contains = edges_of(rust, "rust", kind="contains")
    assert {("Disk", "Disk.open"), ("Disk", "Disk.save"), ("impl Disk", "Disk.open"),
            ("impl Saver for Disk", "Disk.save")} <= contains
    assert ("Saver", "Disk.save") not in contains


def test_a_bare_call_in_a_java_method_is_its_class_or_an_outer_class_method():
    files = {
        "a/Api.java": "package a;\npublic interface Api { void reload(); }\n",
        "a/Base.java": """
            package a;
            class Other { void helper() {} }
            public abstract class Base implements Api {
              Base() {}
              void menu() { reload(); helper(); }
              void helper() {}
              static Base make() { return new Base(); }
              class Inner { void go() { helper(); } }
            }
            """,
        "a/Impl.java": "package a;\npublic class Impl extends Base { public void reload() {} }\n",
        "a/Helper.java": "package a;\npublic class Helper { public void helper() {} public void reload() {} }\n",
    }
    calls = edges_of(files, "java")
    # Impl.reload, Helper.reload and Helper.helper share the names; the calls are Base's own or inherited
    assert {("Base.menu", "Api.reload"), ("Base.menu", "Base.helper"), ("Base.Inner.go", "Base.helper")} <= calls
    assert ("Base.make", "Base") in calls  # `new Base()` in Base names the class, as it does elsewhere
    assert not {t for s, t in calls if t.startswith(("Impl.", "Helper.", "Other."))}


def test_callers_of_a_method_list_those_through_what_it_implements_after_its_own(engine, tmp_path):
    write_files(tmp_path / "demo", {**GO, "go.mod": "module example.com/demo\n"})
    index_project(engine, tmp_path / "demo", project="demo")
    callers = engine.symbol_graph("Disk.Save", "callers", project="demo")
    # listed once, as a direct caller, when it calls both ways; nothing through Saver's (or Named's) other methods
    assert sorted((r["qualname"], r.get("through")) for r in callers["results"][:2]) == [
        ("Both", None), ("Direct", None)]
    assert [(r["qualname"], r["through"]) for r in callers["results"][2:]] == [("Backup", "Saver.Save")]
    assert {r["name"] for r in callers["results"]} == {"Both", "Direct", "Backup"}
    assert "truncated" not in callers
    # a limit keeps the direct callers first and says there are more
    two = engine.symbol_graph("Disk.Save", "callers", project="demo", limit=2)
    assert [r["qualname"] for r in two["results"]] == [r["qualname"] for r in callers["results"][:2]]
    assert two["truncated"] is True
    assert "truncated" not in engine.symbol_graph("Disk.Save", "callers", project="demo", limit=3)
    assert engine.symbol_graph("Saver", "subclasses", project="demo", limit=3)["truncated"] is True
    callees = engine.symbol_graph("Disk.Save", "callees", project="demo")["results"]
    assert [r["qualname"] for r in callees] == ["Disk.flush"]  # calls go one way: no "through" here
    # a call of an interface's method lists, after it, the methods that implement it
    backup = engine.symbol_graph("Backup", "callees", project="demo")["results"]
    assert [(r["qualname"], r.get("through")) for r in backup[:1]] == [("Saver.Save", None)]
    assert sorted((r["path"], r["qualname"], r["through"]) for r in backup[1:]) == [
        ("cloud/bucket.go", "Bucket.Save", "Saver.Save"), ("store/disk_save.go", "Disk.Save", "Saver.Save")]
    label = engine.symbol_graph("Label", "callees", project="demo")["results"]
    assert sorted((r["qualname"], r.get("through")) for r in label) == [
        ("Bucket.Name", "Named.Name"), ("Named.Name", None), ("base.Name", "Named.Name")]
    assert engine.symbol_graph("Backup", "callees", project="demo", limit=2)["truncated"] is True
    # the interface's own callers are its own: nothing it implements
    assert {r["qualname"] for r in engine.symbol_graph("Saver.Save", "callers", project="demo")["results"]} == {
        "Backup", "Both"}
    assert {r["qualname"] for r in engine.symbol_graph("Bucket.Save", "callers", project="demo")["results"]} == {
        "Backup", "Both"}
    subclasses = engine.symbol_graph("Saver", "subclasses", project="demo")["results"]
    assert sorted((r["qualname"], r["path"]) for r in subclasses) == [
        ("Bucket", "cloud/bucket.go"), ("Disk", "store/disk.go"), ("ReadSaver", "store/saver.go"),
        ("Wrapped", "cloud/disk_save.go")]
    members = engine.symbol_graph("store/disk.go:Disk", "members", project="demo")["results"]
    assert {r["qualname"] for r in members} == {"Disk.path", "Disk.Read", "Disk.flush", "Disk.Save"}
    # a method a type has through what it embeds is found through the type
    name = engine.symbol_graph("Disk.Name", "callers", project="demo")
    assert name["symbol"]["qualname"] == "base.Name" and name["inherited_by"] == "Disk"
    container = engine.symbol_graph("Disk.Save", "container", project="demo")["results"]
    assert sorted((r["kind"], r["name"]) for r in container) == [("module", "disk_save"), ("struct", "Disk")]


def test_a_name_asked_in_its_own_case_answers_for_the_symbol_of_that_case(engine, tmp_path):
    write_files(tmp_path / "metrics", {"gauge.go": """
        package metrics

        type Gauge interface{ Set(v float64) }

        type gauge struct{ v float64 }

        func (g *gauge) Set(v float64) { g.v = v }
        """})
    index_project(engine, tmp_path / "metrics", project="metrics")
    for asked in ("gauge.Set", "Gauge.Set"):
        answer = engine.symbol_graph(asked, "callers", project="metrics")
        assert answer["symbol"]["qualname"] == asked
        assert [o["qualname"] for o in answer["others"]] == [({"gauge.Set", "Gauge.Set"} - {asked}).pop()]
    assert engine.find_symbols("Gauge", project="metrics")[0]["qualname"] == "Gauge"
    types = [s["qualname"] for s in engine.find_symbols("gauge", project="metrics") if s["kind"] != "module"]
    assert types[:2] == ["gauge", "Gauge"]


def test_symbol_graph_command_lists_any_relation(run, tmp_path):
    write_files(tmp_path / "demo", {**GO, "go.mod": "module example.com/demo\n"})
    run("index", str(tmp_path / "demo"), "--project", "demo")
    table = run("callers", "Disk.Save").stdout
    assert "function Direct\n" in table and "function Backup  (through Saver.Save)\n" in table
    assert "raise --limit" not in table
    short = run("callers", "Disk.Save", "-n", "2").stdout
    assert "Backup" not in short and "more than 2: raise --limit to see them" in short
    subclasses = json.loads(run("symbol-graph", "Saver", "-r", "subclasses", "--json").stdout)
    assert {r["qualname"] for r in subclasses["results"]} == {"Bucket", "Disk", "ReadSaver", "Wrapped"}
    container = run("symbol-graph", "Disk.Save", "--relation", "container").stdout
    assert "module disk_save" in container and "struct Disk" in container  # a module is named by its file
    wrong = run("symbol-graph", "Saver", "-r", "parents", ok=False)
    assert wrong.exit_code == 2 and "is not one of callers" in wrong.output


def test_callees_list_implementations_of_an_abstract_method_only(engine, tmp_path):
    write_files(tmp_path / "shop", {
        "shop/base.py": """
            import abc


            class Store(abc.ABC):
                def save(self):
                    self.flush()
                    self.close()

                def flush(self):
                    pass

                @abc.abstractmethod
                def close(self):
                    ...

                def abstract(self):
                    return self.flush()

                def restore(self):
                    self.load()
                    self.check()

                async def load(self):
                    '''Read what was saved.'''
                    raise NotImplementedError("subclasses read their own medium")

                def check(self):
                    if self.flush():
                        raise NotImplementedError


            class Disk(Store):
                def save(self):
                    super().save()

                def close(self):
                    pass

                def abstract(self):
                    return "disk"

                def summary(self):
                    return Store.abstract(self)

                async def load(self):
                    pass

                def check(self):
                    pass


            class Cloud(Store):
                def save(self):
                    pass
            """,
        "shop/Api.java": """
            package shop;
            public abstract class Api {
              public abstract void reload();
              public void refresh() { reload(); }
            }
            class Local extends Api { public void reload() {} }
            """,
        "shop/sink.kt": """
            package shop
            interface Sink { fun put(x: Int) }
            class Buffer : Sink { override fun put(x: Int) {} }
            fun feed(s: Sink) { s.put(1) }
            """,
        "shop/shape.hpp": """
            class Shape {
            public:
                virtual double area() const = 0;
                virtual void draw();
                virtual ~Shape() {}
            };
            class Circle : public Shape {
            public:
                double area() const override { return 3.14 * r * r; }
                void draw() override {}
                double r;
            };
            double total(Shape* s) { s->draw(); return s->area(); }
            """,
    })
    index_project(engine, tmp_path / "shop", project="shop")

    def callees(symbol):
        return [(r["qualname"], r.get("through")) for r in
                engine.symbol_graph(symbol, "callees", project="shop")["results"]]

    # `super().save()` runs Store.save itself: a concrete method's overrides (Cloud.save) are no callees
    assert callees("Disk.save") == [("Store.save", None)]
    assert callees("Disk.summary") == [("Store.abstract", None)]
    # an abstract method's are
    assert sorted(callees("Store.save")) == [("Disk.close", "Store.close"), ("Store.close", None),
                                             ("Store.flush", None)]
    assert callees("Api.refresh") == [("Api.reload", None), ("Local.reload", "Api.reload")]
    # Python's convention: a method whose body only raises NotImplementedError is abstract; one that may is not
    assert sorted(callees("Store.restore")) == [
        ("Disk.load", "Store.load"), ("Store.check", None), ("Store.load", None)]
    # a Kotlin interface is one (Kotlin writes it as a class declaration)
    assert callees("feed") == [("Sink.put", None), ("Buffer.put", "Sink.put")]
    # a C++ pure virtual method is one; a virtual one declared without a body is no symbol (its definition is)
    assert callees("total") == [("Circle.draw", None), ("Shape.area", None), ("Circle.area", "Shape.area")]
    assert [(r["qualname"], r.get("through")) for r in
            engine.symbol_graph("Circle.area", "callers", project="shop")["results"]] == [("total", "Shape.area")]


@pytest.mark.parametrize("code, expected", [
    ("def f(self):\n    raise NotImplementedError\n", True),
    ("    @property\n    async def f(self):\n        'Doc.'\n        raise NotImplementedError('x')\n", True),
    ("def f(self):\n    raise NotImplemented\n", False),
    ("def f(self):\n    log()\n    raise NotImplementedError\n", False),
    ("def f(self):\n    pass\n", False),
    ("class A:\n    def f(self):\n        raise NotImplementedError\n", False),
    ("def f(self):\n    raise\n", False),
    ("def f(self:\n", False),
])
def test_a_python_method_that_only_raises_not_implemented_error_is_abstract(code, expected):
    assert raises_not_implemented(code) is expected
