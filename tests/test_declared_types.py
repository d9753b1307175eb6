"""Calls resolved through the types Java, Kotlin and Go declare (parameters, fields, locals, Go's receivers), and
through an attribute of a variable's class (``s.store.save()``) in any language (no stores involved)."""

from __future__ import annotations

import textwrap

from conftest import edges_of

from codebase.chunker import parse_file
from codebase.typed import declared_type, result_type


def _symbols(path: str, text: str, language: str) -> dict[str, tuple[str, str]]:
    return {s.qualname: (s.kind, s.signature) for s in parse_file(path, textwrap.dedent(text), language).symbols}


JAVA = {
    "src/com/acme/store/Store.java": """
        package com.acme.store;
        public class Store {
          public void save(String key) {}
          public void remove(String key) {}
        }
        """,
    "src/com/acme/store/Cache.java": """
        package com.acme.store;
        public class Cache {
          public void save(String key) {}
          public void evict() {}
        }
        """,
    "src/com/acme/app/App.java": """
        package com.acme.app;

        import android.os.Build;
        import com.acme.store.Store;
        import java.util.List;

        public class App {
          private final Store mStore = new Store();
          private List<String> mNames, mOthers;
          private com.acme.store.Cache mBackup;

          void field() { mStore.save("a"); }
          void lambda() { Runnable r = () -> mStore.save("b"); }
          void param(Store other) { other.save("c"); }
          void local() { var local = new Store(); local.save("d"); }
          void loop(List<Store> all) { for (Store s : all) { s.save("e"); } }
          void qualified() { mBackup.save("f"); }
          void library() { mNames.remove("g"); }
          void libraryField() { Build.MODEL.remove("h"); }
          <T extends Runnable> void generic(T task) { task.evict(); }
        }
        """,
}


def test_java_calls_go_to_the_declared_type_of_fields_parameters_and_locals():
    edges = edges_of(JAVA, "java")
    # a field (also from a lambda), a parameter, `var x = new T()`, a for-each variable: Store's save, not
    # Cache's; a field of a type written with its package
    for method in ("field", "lambda", "param", "local", "loop"):
        assert (f"App.{method}", "Store.save") in edges, method
    assert ("App.qualified", "Cache.save") in edges
    # List's remove is not the project's only `remove`, nor a type parameter's `evict` Cache's
    assert ("App.library", "?remove") in edges and ("App.generic", "?evict") in edges
    assert ("App.libraryField", "?remove") in edges  # a field of a library class


def test_java_fields_are_attributes_signed_by_their_declaration():
    symbols = _symbols("src/com/acme/app/App.java", JAVA["src/com/acme/app/App.java"], "java")
    assert symbols["App.mStore"] == ("attribute", "private final Store mStore = new Store();")
    assert symbols["App.mOthers"] == ("attribute", "private List<String> mNames, mOthers;")
    # locals (`local`, the lambda's `r`) are no symbols
    assert {q for q, (kind, _) in symbols.items() if kind == "attribute"} == {
        "App.mStore", "App.mNames", "App.mOthers", "App.mBackup"}
    lambdas = _symbols("A.java", "class A { Runnable r = () -> { int x = 1; }; interface I { int MAX = 1; } }", "java")
    assert "A.x" not in lambdas and lambdas["A.I.MAX"] == ("attribute", "int MAX = 1;")
    kotlin = _symbols("A.kt", "class A {\n  val x = run { val y = 1; y }\n}\n", "kotlin")
    assert "A.x" in kotlin and "A.y" not in kotlin
    enum = _symbols("Color.java", "enum Color { RED, GREEN; void paint() {} }", "java")
    assert enum["Color.RED"][0] == "attribute" and enum["Color.paint"][0] == "method"


KOTLIN = {
    "store/Store.kt": """
        package store
        class Store { fun save(key: String) {}; fun remove(key: String) {}; fun copy(): Cache = Cache() }
        class Cache { fun save(key: String) {}; fun drop(key: String) {} }
        class Pool { fun drop(key: String) {} }
        """,
    "app/App.kt": """
        package app
        import store.Store
        import store.Cache

        val shared = Store()

        fun makeStore(): Store? = Store()
        fun inferStore() = Store()

        class App(private val store: Store, label: String) {
          private var cache: Cache? = null
          val backup = Store()

          fun constructorProperty() { store.save("a") }
          fun typedProperty() { cache?.save("b") }
          fun constructedProperty() { backup.save("c") }
          fun topLevel() { shared.save("d") }
          fun parameter(other: Store?) { other?.save("e") }
          fun fromFunction() { val made = makeStore(); made?.save("f") }
          fun fromLibrary() { val map = hashMapOf<String, Int>(); map.remove("g") }
          fun inferred() { val made = inferStore(); made.remove("h") }
          fun chained() { backup.copy().drop("i") }
        }
        """,
}


def test_kotlin_calls_go_to_the_type_of_properties_and_parameters():
    edges = edges_of(KOTLIN, "kotlin", paths=True)
    assert ("App.typedProperty", "store/Store.kt:Cache.save") in edges  # Cache defined in Store.kt
    for method in ("constructorProperty", "constructedProperty", "topLevel", "parameter", "fromFunction"):
        assert (f"App.{method}", "store/Store.kt:Store.save") in edges, method
    assert ("App.fromLibrary", "?remove") in edges  # what a library function returns is the library's
    # a project function without a result type says nothing: the name decides, as for any variable
    assert ("App.inferred", "store/Store.kt:Store.remove") in edges
    assert ("App.chained", "store/Store.kt:Cache.drop") in edges  # Store's copy() is a Cache
    symbols = _symbols("app/App.kt", KOTLIN["app/App.kt"], "kotlin")
    # a constructor parameter with val is a property; one without is not
    assert symbols["App.store"] == ("attribute", "private val store: Store")
    assert "App.label" not in symbols
    assert symbols["App.cache"][0] == "attribute" and symbols["shared"][0] == "variable"


GO = {
    "store.go": """
        package store

        type Saver interface {
        	// Save stores it.
        	Save(key string) error
        	io.Closer
        }

        type store struct{ path string }

        func (st *store) Save(key string) error { return nil }
        func (st *store) Flush() {}

        type cache struct{}

        func (c *cache) Save(key string) error { return nil }
        func (c *cache) Flush() {}

        type server struct {
        	*base
        	db    *store
        	saver Saver
        }

        type base struct{}

        func (b *base) Log() {}

        func newStore(path string) (*store, error) { return &store{path: path}, nil }

        var shared = newStore("shared")

        func (s *server) Field()                  { s.db.Flush() }
        func (s *server) Interface(extra Saver)   { s.saver.Save("a"); extra.Save("b") }
        func (s *server) Embedded()               { s.Log() }
        func (s *server) Library(r *http.Request) { r.Save() }
        func (s *server) Constructed()            { st, err := newStore("x"); st.Flush(); _ = err }
        func (s *server) Literal()                { lit := &store{}; lit.Flush() }
        func (s *server) Pair()                   { a, b := store{}, cache{}; b.Flush(); _ = a }
        func (s *server) Declared()               { var plain store; plain.Flush() }
        func (s *server) Global()                 { shared.Flush() }
        func (s *server) Reader()                 { rd := strings.NewReader("x"); rd.Log() }
        """,
}


def test_go_methods_of_unexported_types_belong_to_them():
    symbols = _symbols("store.go", GO["store.go"], "go")
    assert symbols["store.Save"][0] == "method" and symbols["server.Field"][0] == "method"
    assert "Save" not in symbols and "Field" not in symbols
    # an interface's methods are its members, a struct's fields its attributes
    assert symbols["Saver.Save"] == ("method", "Save(key string) error")
    assert symbols["server.db"] == ("attribute", "db *store")


def test_go_calls_go_through_receivers_parameters_fields_and_constructors():
    edges = edges_of(GO, "go")
    assert ("server.Field", "store.Flush") in edges          # s.db.Flush(): the field's type
    assert {e for e in edges if e[0] == "server.Interface"} == {("server.Interface", "Saver.Save")}
    assert ("server.Embedded", "base.Log") in edges          # promoted from the embedded *base
    assert ("server.Library", "?Save") in edges              # *http.Request's, not guessed
    for method in ("Constructed", "Literal", "Declared", "Global"):
        assert (f"server.{method}", "store.Flush") in edges, method
    assert ("server.Pair", "cache.Flush") in edges           # a, b := store{}, cache{}
    assert ("server.Reader", "?Log") in edges                # a library function's result
    edges = edges_of(GO, "go", kind="extends")
    assert edges == {("server", "base"), ("Saver", "?Closer")}  # embedded, not a named field's type


def test_go_st_err_from_a_constructor_holds_its_first_result():
    go = {"a.go": """
        package a
        type Conn struct{}
        func (c *Conn) Ping() {}
        type Pool struct{}
        func (p *Pool) Ping() {}
        func Dial() (c *Conn, err error) { return nil, nil }
        func use() {
        	c, err := Dial()
        	c.Ping()
        }
        """}
    assert ("use", "Conn.Ping") in edges_of(go, "go")
    assert result_type("func (f *Factory) Make(opts ...func(int) error) (*Conn, error)", "a.go") == "*Conn"
    assert result_type("public fun make(id: Int): Conn? = build(id)", "a.kt") == "Conn?"


def test_a_call_on_an_attribute_of_a_typed_variable_goes_to_what_the_attribute_holds():
    py = {"store.py": """
        class Store:
            def query(self): ...
        class Other:
            def query(self): ...
        class Engine:
            def __init__(self):
                self.lance = Store()
        """, "use.py": """
        from store import Engine

        def local():
            e = Engine()
            e.lance.query()

        eng = Engine()

        def module_level():
            eng.lance.query()
        """}
    edges = edges_of(py, paths=True)
    assert ("local", "store.py:Store.query") in edges and ("module_level", "store.py:Store.query") in edges


def test_declared_types_drop_annotations_type_arguments_pointers_and_nullable_marks():
    assert declared_type("@Nullable List<Map<String, Foo>>") == "List"
    assert declared_type("*pkg.Server") == "pkg.Server" and declared_type("ReadableMap?") == "ReadableMap"
    assert declared_type("var") == "" and declared_type("[]byte") == "" and declared_type("map[string]int") == ""


def test_a_call_on_a_call_s_result_goes_through_its_declaredresult_type():
    java = {
        "src/com/acme/Store.java": """
            package com.acme;
            import java.util.List;
            public class Store {
              public static Store open() { return new Store(); }
              public @Nullable Cursor cursor(int size) { return null; }
              public List<String> keys() { return null; }
              public static class Batch { public void commit() {} }
              public Store.Batch batch() { return null; }
            }
            """,
        "src/com/acme/Cursor.java": """
            package com.acme;
            public class Cursor {
              public Cursor next() { return this; }
              public void close() {}
              public void clear() {}
              public void drain() {}
            }
            """,
        "src/com/acme/app/Other.java": """
            package com.acme.app;
            import com.acme.Cursor;
            import com.acme.Store;
            public class Other {
              public void close() {}
              public void commit() {}
              public void clear() {}
              Cursor local() { return null; }
              void statics() { Store.open().cursor(1).close(); }
              void typed(Store store) { store.cursor(2).next().close(); }
              void implicit() { local().close(); }
              void library(Store store) { store.keys().clear(); store.keys().iterator().drain(); }
              void nested(Store store) { store.batch().commit(); }
              void nestedType(Store.Batch batch) { batch.commit(); }
            }
            """,
    }
    edges = edges_of(java, "java")
    for method in ("statics", "typed", "implicit"):
        assert (f"Other.{method}", "Cursor.close") in edges, method
    assert ("Other.library", "?clear") in edges  # List's clear, not Cursor's or Other's
    assert ("Other.library", "?drain") in edges  # nor what a method of List's result has
    assert ("Other.nested", "Store.Batch.commit") in edges
    assert ("Other.nestedType", "Store.Batch.commit") in edges
    py = {"a.py": """
        class Store:
            def save(self): ...
        class Other:
            def save(self): ...
        class Engine:
            def store(self) -> Store: ...
            def run(self):
                self.store().save()
        """}
    assert ("Engine.run", "Store.save") in edges_of(py)


def test_java_reaches_a_kotlin_property_through_its_accessor():
    files = {
        "src/app/Holder.kt": """
            package app
            object Holder {
              @JvmStatic var printer: Printer = Printer()
              var screen = Screen()
              var helper = makeHelper()
              val isReady: Boolean = true
            }
            fun makeHelper() = Helper()
            class Helper { fun assist() {} }
            class Printer { fun print() {} }
            class Screen { fun print() {}; fun title() {} }
            """,
        "src/app/Use.java": """
            package app;
            class Use {
              void run() { Holder.getPrinter().print(); Holder.isReady(); }
              void constructed() { Holder.getScreen().print(); }
              void method(Screen screen) { screen.getTitle(); }
              void untyped() { Holder.getHelper().assist(); }
            }
            """,
    }
    edges = edges_of(files, "auto", paths=True)
    assert ("Use.run", "src/app/Holder.kt:Holder.printer") in edges
    assert ("Use.run", "src/app/Holder.kt:Holder.isReady") in edges
    assert ("Use.run", "src/app/Holder.kt:Printer.print") in edges
    assert ("Use.constructed", "src/app/Holder.kt:Screen.print") in edges  # `var screen = Screen()`
    assert ("Use.method", "?getTitle") in edges  # a method `title()` is no property
    # a property of no known class is still the project's: the method's name decides
    assert ("Use.untyped", "src/app/Holder.kt:Helper.assist") in edges


def test_an_import_of_a_class_in_a_package_folder_leads_to_the_file_defining_it():
    files = {"store/Alpha.kt": "package store\nclass Alpha\n",
             "store/Store.kt": "package store\nclass Store\nclass Cache { fun save() {} }\n",
             "app/App.kt": "package app\nimport store.Cache\nfun run(c: Cache) { c.save() }\n"}
    assert ("", "store/Store.kt:") in edges_of(files, "kotlin", paths=True, kind="imports")


CSHARP = {
    "src/Store/Store.cs": """
        namespace Acme.Store;

        public class Store {
            public void Save(string key) {}
            public static Store Open() => new Store();
        }

        public class Cache {
            public void Save(string key) {}
            public void Evict() {}
            public bool IsBlank() => false;
        }
        """,
    "src/Model/Records.cs": """
        namespace Acme.Model {
            public class Records { public void Load() {} }
        }
        """,
    "src/Store/Extensions.cs": """
        namespace Acme.Store {
            public static class StoreExtensions {
                public static void Flush(this Store store) {}
                public static bool IsBlank(this string text) => text.Length == 0;
            }
        }
        """,
    "src/App/Svc.cs": """
        using System.Collections.Generic;
        using Acme.Store;
        using Acme.Records;

        namespace Acme.App {
            public class Svc {
                private readonly Store _store = new Store();
                private List<string> _names = new List<string>();
                public Cache Cache { get; set; }

                public void Run(Store other, Cache backup) {
                    var local = new Store();
                    var opened = Store.Open();
                    Store typed = Store.Open();
                    local.Save("a"); other.Save("b"); _store.Save("c"); opened.Save("d"); typed.Save("e");
                    Records r = null;
                    r.Load();
                    Cache.Evict(); backup.Save("g");
                    _names.Remove("h");
                    string text = "x";
                    local.Flush(); text.IsBlank();
                }

                List<Cache> All() => null;

                void Loop() { foreach (Cache x in All()) { x.Save("f"); } }
            }
        }
        """,
}


def test_csharp_calls_go_to_declared_types_and_extension_methods():
    edges = edges_of(CSHARP, "csharp")
    # a field, a parameter, `var x = new T()`, `var x = T.Open()`, a declared local, a property
    assert {("App.Svc.Run", "Store.Store.Save"), ("App.Svc.Run", "Store.Cache.Save"),
            ("App.Svc.Run", "Store.Cache.Evict")} <= edges
    saves = {t for s, t in edges_of(CSHARP, "csharp", paths=True) if s == "App.Svc.Run" and t.endswith("Save")}
    assert saves == {"src/Store/Store.cs:Store.Store.Save", "src/Store/Store.cs:Store.Cache.Save"}
    assert ("App.Svc.Loop", "Store.Cache.Save") in edges  # a foreach variable
    # `using Acme.Records;` opens a namespace: the name Records is still the project's class
    assert ("App.Svc.Run", "Model.Records.Load") in edges
    # an extension method, of a project class or of a library's (string)
    assert {("App.Svc.Run", "Store.StoreExtensions.Flush"), ("App.Svc.Run", "Store.StoreExtensions.IsBlank")} <= edges
    assert ("App.Svc.Run", "?Remove") in edges  # a List's, never guessed
    # `namespace Acme.Store;` holds the classes after it, as a block does
    assert _symbols("src/Store/Store.cs", CSHARP["src/Store/Store.cs"], "csharp")["Store.Cache.Evict"][0] == "method"


def test_java_catch_parameters_and_var_of_a_call_are_typed():
    files = {
        **JAVA,
        "src/com/acme/app/Errors.java": """
            package com.acme.app;
            import com.acme.store.Store;
            public class Errors {
              static Store open() { return new Store(); }
              void run() {
                var s = open();
                s.save("a");
                try { s.save("b"); } catch (StoreError e) { e.remove("c"); } catch (IOException | StoreError e) {}
              }
            }
            """,
        "src/com/acme/app/StoreError.java": """
            package com.acme.app;
            public class StoreError extends Exception { public void remove(String key) {} }
            """,
    }
    edges = edges_of(files, "java")
    assert {("Errors.run", "Store.save"), ("Errors.run", "StoreError.remove")} <= edges
