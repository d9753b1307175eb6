"""Resolving calls in languages other than Python: receivers, namespaces, modules and imports as each writes
them (no stores involved)."""

from __future__ import annotations

import textwrap

from conftest import edges_of

from codebase.chunker import parse_file
from codebase.languages import detect_language
from codebase.resolve import type_key


def test_receivers_in_other_languages():
    java = {"A.java": """
        class Base { void greet() {} }
        class A extends Base {
            void run(Printer printer) { this.greet(); printer.print(); Util.help(); }
        }
        class Printer { void print() {} }
        class Screen { void print() {} }
        class Util { static void help() {} }
        """}
    edges = edges_of(java, "java")
    assert {("A.run", "Base.greet"), ("A.run", "Printer.print"), ("A.run", "Util.help")} <= edges
    rust = {"src/lib.rs": """
        struct Chain<'a> { n: usize }
        impl<'a> Chain<'a> {
            fn new() -> Self { Self::empty() }
            fn empty() -> Self { Chain { n: 0 } }
        }
        impl Chain<'_> {
            fn len(&self) -> usize { self.n }
            fn size(&self) -> usize { self.len() + Vec::<u8>::new().len() }
        }
        """}
    edges = {(type_key(a), type_key(b)) for a, b in edges_of(rust, "rust")}
    # generic arguments differ between impl blocks; Self:: and self. still reach the type
    assert ("Chain.new", "Chain.empty") in edges and ("Chain.size", "Chain.len") in edges
    assert ("Chain.size", "?new") in edges and ("Chain.size", "Chain.new") not in edges  # Vec::new is not ours


def test_a_private_member_is_called_by_its_marked_name():
    ts = {"q.ts": """
        class QueryObserver {
          #updateQuery(): void {}
          updateQuery(): void {}
          setOptions(): void { this.#updateQuery() }
        }
        """}
    edges = edges_of(ts, "typescript")
    assert ("QueryObserver.setOptions", "QueryObserver.#updateQuery") in edges
    assert ("QueryObserver.setOptions", "QueryObserver.updateQuery") not in edges


def test_a_parent_module_and_a_parent_class_are_told_apart():
    rust = {"src/lib.rs": """
        pub fn helper() -> u32 { 1 }
        pub mod inner {
            pub fn run() -> u32 { super::helper() }
        }
        """}
    # Rust's super:: is the parent module: its function, not a method of a base type; PHP's parent:: and C#'s
    # base. are the base type, whatever else defines the method
    assert edges_of(rust, "rust") == {("inner.run", "helper")}
    php = {"a.php": """<?php
        class Base { public function save() { return 1; } }
        class Disk { public function save() { return 3; } }
        class Child extends Base { public function save() { return parent::save(); } }
        """}
    assert edges_of(php, "php") == {("Child.save", "Base.save")}
    csharp = {"A.cs": """
        class Store { public virtual int Save() { return 1; } }
        class Disk { public int Save() { return 3; } }
        class Cache : Store { public override int Save() { return base.Save(); } }
        """}
    assert edges_of(csharp, "csharp") == {("Cache.Save", "Store.Save")}


def test_a_cpp_method_defined_outside_its_class_belongs_to_it():
    cpp = {"a.cpp": """
        namespace ns {
        class A { public: int run(); int help(); };
        int A::run() { return this->help(); }
        int A::help() { return 1; }
        }
        """, "b.cpp": "class B { public: int help(); };\nint B::help() { return 3; }\n"}
    assert edges_of(cpp, "cpp") == {("ns.A.run", "ns.A.help")}  # through this->, not B's namesake
    chunks = parse_file("a.cpp", textwrap.dedent(cpp["a.cpp"]), "cpp").chunks
    assert [c.breadcrumb for c in chunks if c.chunk_type == "method"] == [
        "namespace ns > method A.run", "namespace ns > method A.help"]


C_HEADER = r"""
    #ifndef lobj_h
    #define lobj_h
    #define MAXSTACK 200
    #define setobj(L,o1,o2) \
        { TValue *io1=(o1); /* it's a copy, see 'checkliveness' */ \
          io1->value_ = (o2)->value_; checkliveness(L,io1); }
    #define NOWARN  /* a comment ending a macro stays */
    #define checkliveness(L,o) ((void)L, "see note(s)")
    #define apply(f,x) f(x)
    typedef int (*lua_CFunction) (lua_State *L);
    typedef struct { int x, y; } Point;
    typedef struct Table { int n; } Table;
    typedef struct lua_Debug_ { int line; } lua_Debug;
    typedef union Value { int i; } Value;
    LUAI_FUNC int declared_only (Table *t, int key);
    #endif
    """
C_SOURCE = """
    #include "lobj.h"
    LUA_API lua_CFunction lua_atpanic (lua_State *L, lua_CFunction panicf) {
        setobj(L, a, b);
        return 0;
    }
    static LUA_INLINE const char *name_of(void) { return helper(); }
    static int helper(void) { return MAXSTACK; }
    lua_export lua_CFunction other_panic (lua_State *L) { return 0; }
    """


def test_c_macros_typedefs_and_functions_behind_export_macros_are_symbols():
    """C names much of its API with the preprocessor: a function-like macro is called as a function is, a
    typedef is often a struct's only name, and a macro before a return type (`LUA_API lua_CFunction f (...)`)
    misleads tree-sitter, which does not expand macros, into naming the return type."""
    header = parse_file("lobj.h", textwrap.dedent(C_HEADER), "c")
    # no include guard, no declaration, no Table' twice
    assert {(s.name, s.kind) for s in header.symbols[1:]} == {
        ("MAXSTACK", "macro"), ("setobj", "macro"), ("NOWARN", "macro"), ("checkliveness", "macro"),
        ("apply", "macro"), ("lua_CFunction", "typedef"), ("Point", "struct"), ("Table", "struct"),
        ("lua_Debug_", "struct"), ("lua_Debug", "typedef"), ("Value", "struct")}
    setobj = next(s for s in header.symbols if s.name == "setobj")
    assert (setobj.start_line, setobj.end_line, setobj.signature) == (5, 7, "#define setobj(L,o1,o2)")
    assert "it's a copy" in "\n".join(c.content for c in header.chunks)  # blanked for the parser only
    source = parse_file("lapi.c", textwrap.dedent(C_SOURCE), "c")
    assert [s.name for s in source.symbols[1:]] == ["lua_atpanic", "name_of", "helper", "other_panic"]


def test_c_calls_reach_macros_and_a_macro_s_body_calls_what_it_names():
    files = {"lobj.h": C_HEADER, "lapi.c": C_SOURCE, "lobj.c": "int lobj_init(void) { return 0; }\n"}
    assert edges_of(files, "c") == {("lua_atpanic", "setobj"), ("setobj", "checkliveness"),
                                    ("name_of", "helper")}  # not apply's `f(x)` (a parameter), nor a string's

    # an #include names the header, not the .c file beside it with the same stem
    assert edges_of(files, "c", kind="imports", paths=True) == {("", "lobj.h:")}


def test_a_cpp_pure_virtual_method_is_a_symbol_and_calls_through_its_class_reach_it():
    cpp = {"shape.hpp": """
        class Shape {
        public:
            virtual double area() const = 0;
            virtual void draw();
            int sides = 0;
        };
        class Circle : public Shape { public: double area() const override { return 3.14; } };
        class Square : public Shape { public: double area() const override { return 1.0; } };
        double total(Shape* s) { return s->area(); }
        double twice(Shape& s) { return 2 * s.area(); }
        """}
    symbols = {s.qualname: s for s in parse_file("shape.hpp", textwrap.dedent(cpp["shape.hpp"]), "cpp").symbols}
    assert symbols["Shape.area"].kind == "method" and symbols["Shape.area"].signature == \
        "virtual double area() const = 0;"
    assert "Shape.draw" not in symbols and "Shape.sides" not in symbols
    # the call was guessed by name (Square.area, the last of the namesakes)
    assert edges_of(cpp, "cpp") == {("total", "Shape.area"), ("twice", "Shape.area")}


def test_a_cpp_alias_is_a_typedef():
    cpp = {"a.hpp": "namespace ns {\nusing Handle = int;\ntypedef long Size;\n}\n"}
    symbols = parse_file("a.hpp", cpp["a.hpp"], "cpp").symbols
    assert {(s.qualname, s.kind) for s in symbols[1:]} == {("ns", "namespace"), ("ns.Handle", "typedef"),
                                                           ("ns.Size", "typedef")}


def test_a_header_is_cpp_when_it_says_so_and_macros_do_not_hide_its_classes():
    """tree-sitter does not expand macros: a scope macro (`FMT_BEGIN_NAMESPACE`) read as a declaration's type
    swallowed the class after it, and a specifier macro before a constructor broke the method after it."""
    header = """\
        #include <string>
        FMT_BEGIN_NAMESPACE
        template <typename Char> class basic_string_view {
         public:
          template <typename Traits, typename Alloc>
          FMT_CONSTEXPR basic_string_view(const std::basic_string<Char, Traits, Alloc>& s) noexcept
              : data_(s.data()) {}
          constexpr auto data() const noexcept -> const Char* { return data_; }
          FMT_CONSTEXPR void remove_prefix(size_t n) noexcept { data_ += n; }
         private:
          const Char* data_;
        };
        template <typename T> struct is_char : std::false_type {};
        template <> struct is_char<char> : std::true_type {};
        FMT_CLASS_API
        class FMT_API format_error : public std::runtime_error {
          Q_OBJECT
         public:
          using std::runtime_error::runtime_error;
        };
        FMT_END_NAMESPACE
        """
    assert detect_language("fmt/core.h", textwrap.dedent(header).encode()) == "cpp"
    assert detect_language("fmt/color.h", b"FMT_BEGIN_NAMESPACE\nenum class color : uint32_t {};\n") == "cpp"
    assert detect_language("lua.h", b'#ifdef __cplusplus\nextern "C" {\n#endif\nint f(void);\n') == "c"
    symbols = parse_file("core.h", textwrap.dedent(header), "cpp").symbols
    assert [(s.qualname, s.kind) for s in symbols[1:]] == [
        ("basic_string_view", "class"), ("basic_string_view.basic_string_view", "method"),
        ("basic_string_view.data", "method"), ("basic_string_view.remove_prefix", "method"),
        ("is_char", "struct"), ("is_char'", "struct"),  # a specialization is one of the template's
        ("format_error", "class")]
    assert symbols[3].signature == "constexpr auto data() const noexcept -> const Char*"


def test_a_barrel_file_s_re_exports_lead_to_their_definitions():
    """`export { formatDate } from "./dates"` and `export * from "./strings"` in a TypeScript (or JavaScript)
    barrel file are imports: a name imported from the folder resolves where they lead, not to a namesake."""
    files = {
        "src/utils/index.ts": 'export { formatDate } from "./dates";\nexport * from "./strings";\n',
        "src/utils/dates.ts": "export function formatDate(d: Date): string {\n  return String(d);\n}\n",
        "src/utils/strings.ts": "export function slugify(s: string): string {\n  return s;\n}\n",
        "src/legacy/strings.ts": "export function slugify(s: string): string {\n  return s + '-';\n}\n",
        "src/api/client.ts": """
            import { formatDate, slugify } from "../utils";

            export class ApiClient {
              get(path: string): string {
                return slugify(path) + formatDate(new Date());
              }
            }
            """,
    }
    for language in ("typescript", "javascript"):
        js = {p.replace(".ts", ".js"): t.replace(": string", "").replace(": Date", "") for p, t in files.items()}
        edges = edges_of(files if language == "typescript" else js, language, paths=True)
        ext = "ts" if language == "typescript" else "js"
        assert edges >= {("ApiClient.get", f"src/utils/dates.{ext}:formatDate"),
                         ("ApiClient.get", f"src/utils/strings.{ext}:slugify")}, language
        assert ("ApiClient.get", f"src/legacy/strings.{ext}:slugify") not in edges


RUBY = {
    "lib/shop.rb": """
        require "shop/util"
        module Shop
          module Pricing
            def total?
              true
            end
          end
          module Audit
            def total?
              false
            end
          end
          class Base
            def save
              1
            end
          end
          class Order < Base
            include Pricing
            def save
              super
            end
            def check
              self.total? && Util.slug("x") && Shop::Util.slug("y")
            end
            def self.build
              Order.new
            end
          end
        end
        """,
    "lib/shop/util.rb": """
        module Shop
          module Util
            def self.slug(s)
              s
            end
          end
          module Legacy
            class Base < Shop::Base
            end
          end
        end
        """,
}


def test_ruby_modules_mixins_super_and_requires_resolve():
    parsed = parse_file("lib/shop.rb", textwrap.dedent(RUBY["lib/shop.rb"]), "ruby")
    kinds = {s.qualname: s.kind for s in parsed.symbols}
    # a Ruby module is a namespace: kind "module" is a file's own, which imports and dotted paths start from
    assert kinds["Shop"] == kinds["Shop.Pricing"] == "namespace" and kinds[""] == "module"
    assert "module Shop > class Order > def save" in {c.breadcrumb for c in parsed.chunks}
    edges = edges_of(RUBY, "ruby")
    assert ("Shop.Order.save", "Shop.Base.save") in edges  # bare `super`
    assert ("Shop.Order.check", "Shop.Pricing.total?") in edges  # through `include Pricing`, with its `?`
    assert ("Shop.Order.check", "Shop.Util.slug") in edges  # `Util.slug` and `Shop::Util.slug`
    assert ("Shop.Order.build", "Shop.Order") in edges  # `Order.new` builds an Order
    assert not any(target in ("?include", "?require", "?super") for _, target in edges)
    assert edges_of(RUBY, "ruby", paths=True, kind="imports") == {("", "lib/shop/util.rb:")}  # the file's
    # `< Shop::Base` is one name, and never the class being defined
    assert {(s, t) for s, t in edges_of(RUBY, "ruby", kind="extends") if "Legacy" in s} == {
        ("Shop.Legacy.Base", "Shop.Base")}


RUST = {
    "src/lib.rs": """
        mod error;
        pub mod util {
            pub fn helper() -> u32 { 1 }
        }
        use crate::error::Fault;
        pub use crate::error::{make, Kind as Sort};
        pub struct Top;
        pub fn run() -> u32 { Fault::new(); make(); util::helper(); Sort::plain() }
        #[cfg(test)]
        mod tests { fn t() {} }
        """,
    "src/error.rs": """
        use crate::Top;
        pub struct Fault;
        impl Fault { pub fn new() -> Self { Fault } }
        pub struct Kind;
        impl Kind { pub fn plain() -> u32 { 0 } }
        pub fn make() -> u32 { 2 }
        """,
    "src/other.rs": """
        pub struct Fault;
        impl Fault { pub fn new() -> Self { Fault } }
        pub fn make() -> u32 { 3 }
        """,
}


def test_rust_mods_are_namespaces_or_imports_and_use_trees_lead_to_their_files():
    parsed = parse_file("src/lib.rs", textwrap.dedent(RUST["src/lib.rs"]), "rust")
    assert {s.qualname: s.kind for s in parsed.symbols if s.kind in ("module", "namespace")} == {
        "": "module", "util": "namespace", "tests": "namespace"}  # `mod error;` is no definition
    assert parsed.imports == {"Fault": "crate::error::Fault", "make": "crate::error::make",
                              "Sort": "crate::error::Kind"}
    edges = edges_of(RUST, "rust", paths=True)
    run = {target for source, target in edges if source == "run"}
    # two files define Fault and make: the one the `use` names, not the first by path
    assert {"src/error.rs:Fault.new", "src/error.rs:make", "src/lib.rs:util.helper", "src/error.rs:Kind.plain"} <= run
    assert "src/other.rs:make" not in run and "src/other.rs:Fault.new" not in run
    imports = edges_of(RUST, "rust", paths=True, kind="imports")
    # lib.rs's `mod error;` and its `use`s lead to error.rs, error.rs's `use crate::Top` to the crate root
    assert imports == {("", "src/error.rs:"), ("", "src/lib.rs:")}


PHP = {
    "src/Input/ArgvInput.php": """<?php
        namespace Acme\\Console\\Input;
        class ArgvInput { public function first() { return 1; } }
        """,
    "src/Legacy/ArgvInput.php": """<?php
        namespace Acme\\Legacy;
        class ArgvInput { public function first() { return 2; } }
        """,
    "src/Output/Writer.php": """<?php
        namespace Acme\\Console\\Output;
        class Writer { public function line() { return 3; } }
        """,
    "src/Application.php": """<?php
        namespace Acme\\Console;
        use Acme\\Console\\Input\\ArgvInput;
        use Acme\\Console\\Output\\{Writer as Out};
        class Application {
            public function run() { $in = new ArgvInput(); $out = new Out(); return $in; }
        }
        """,
}


def test_php_use_statements_lead_to_the_class_through_its_namespace_folders():
    # two classes ArgvInput: the one the `use` names (its namespace's folders end the file's path, PSR-4), and
    # a group use's alias
    edges = edges_of(PHP, "php", paths=True)
    assert ("Application.run", "src/Input/ArgvInput.php:ArgvInput") in edges
    assert ("Application.run", "src/Output/Writer.php:Writer") in edges
    assert ("Application.run", "src/Legacy/ArgvInput.php:ArgvInput") not in edges
    imports = edges_of(PHP, "php", paths=True, kind="imports")
    assert imports == {("", "src/Input/ArgvInput.php:"), ("", "src/Output/Writer.php:")}
