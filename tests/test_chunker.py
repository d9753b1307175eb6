"""The tree-sitter chunker and symbol extractor, one language at a time, without any store."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from codebase.chunker import estimate_tokens, parse_file
from codebase.languages.clang import for_parser
from codebase.languages import SPECS, detect_language
from conftest import FIXTURE_REPO


def parsed(rel: str, language: str | None = None, **kw):
    with open(f"{FIXTURE_REPO}/{rel}", encoding="utf-8") as fh:
        text = fh.read()
    head = text[:200].encode()
    return parse_file(rel, text, language or detect_language(rel, head), **kw), text


# (file, breadcrumb, first line, last line) of a definition chunk in each language
CHUNKS = [
    ("app/config.py", "class JsonLoader > def load", 20, 21),
    ("app/config.py", "def parse_config", 24, 28),
    ("web/server.js", "class Server > method listen", 9, 11),
    ("web/server.js", "function startServer", 14, 18),
    ("web/api.ts", "class UserHandler > method handle", 8, 10),
    ("web/api.ts", "interface Handler", 3, 5),
    ("web/button.tsx", "function Button", 3, 5),
    ("gosrc/mathutil.go", "func Sum", 3, 10),  # with its doc comment
    ("gosrc/mathutil.go", "struct Stats", 12, 14),
    ("rustsrc/shapes.rs", "impl Square > fn area", 10, 12),
    ("rustsrc/shapes.rs", "trait Area", 1, 3),
    ("java/Circle.java", "class Circle > method area", 10, 12),
    ("csrc/checksum.c", "function checksum", 7, 13),
    ("cppsrc/vector.cpp", "namespace geo > class Vector2 > method length", 8, 8),
    ("cs/Greeter.cs", "namespace Demo > class Greeter > method Greet", 7, 10),
    ("rb/invoice.rb", "class Invoice > def line_amount", 10, 12),
    ("php/Cart.php", "class Cart > method add", 7, 10),
    ("php/Cart.php", "function normalize_sku", 18, 21),
    ("kt/Repository.kt", "class UserRepository > fun findUser", 4, 6),
    ("scripts/deploy", "function push_image", 8, 11),
    ("docs/GUIDE.md", "# Demo guide > ## Configuration", 9, 12),
]


@pytest.mark.parametrize("rel,crumb,first,last", CHUNKS)
def test_definition_chunks_have_breadcrumbs_and_exact_lines(rel, crumb, first, last):
    p, text = parsed(rel)
    match = [c for c in p.chunks if c.breadcrumb == crumb]
    assert match, [c.breadcrumb for c in p.chunks]
    c = match[0]
    assert (c.start_line, c.end_line) == (first, last)
    assert c.content.strip() == "\n".join(text.split("\n")[first - 1:last]).strip()


def test_every_grammar_of_the_issue_is_covered():
    wanted = {"python", "javascript", "typescript", "tsx", "go", "rust", "java", "c", "cpp", "csharp", "ruby",
              "php", "kotlin", "bash", "swift"}
    assert wanted <= set(SPECS)
    for lang in wanted:
        assert parse_file("x", "", lang).chunks == []


@pytest.mark.parametrize("rel", ["app/config.py", "web/server.js", "gosrc/mathutil.go", "php/Cart.php",
                                 "java/Circle.java", "scripts/deploy"])
def test_no_line_of_code_is_lost(rel):
    p, text = parsed(rel)
    covered = set()
    for c in p.chunks:
        covered.update(ln.strip() for ln in c.content.split("\n"))
    for line in text.split("\n"):
        if line.strip() and line.strip() not in ("}", "end", "};", "{"):
            assert line.strip() in covered, line


def test_module_level_code_between_definitions_is_its_own_chunk():
    p, _ = parsed("app/config.py")
    module = [c for c in p.chunks if c.chunk_type == "module"]
    # the stretch before the classes and the line after the functions: each chunk spans only its own lines
    assert [(c.start_line, c.end_line) for c in module] == [(1, 6), (35, 35)]
    assert "DEFAULT_PATH" in module[0].content and module[1].content == "RETRIES = 3"
    assert not any("def parse_config" in c.content for c in module)


def test_a_long_definition_becomes_overlapping_windows_that_repeat_breadcrumb_and_signature():
    body = "\n".join(f"        total_{i} = compute_value(item_{i}, factor={i}) + offset_{i}" for i in range(120))
    src = f"class Billing:\n    def reconcile(self, items):\n{body}\n        return total\n"
    p = parse_file("billing.py", src, "python", max_tokens=200, overlap_lines=2)
    wins = [c for c in p.chunks if c.breadcrumb == "class Billing > def reconcile"]
    assert len(wins) > 3
    for a, b in zip(wins, wins[1:]):
        assert b.start_line <= a.end_line  # overlap
        assert a.content.split("\n")[-1] in b.content
    assert all(c.signature == "def reconcile(self, items)" for c in wins)
    for c in wins:
        assert estimate_tokens(f"billing.py {c.breadcrumb}") + estimate_tokens(c.signature) + \
            estimate_tokens(c.content) + c.content.count("\n") <= 200 + 1


@settings(max_examples=25, deadline=None)
@given(head=st.integers(0, 60), fields=st.integers(0, 60), tail=st.integers(0, 60), blank=st.booleans())
def test_every_window_spans_its_own_lines_even_where_its_chunk_skips_some(head, fields, tail, blank):
    """Module-level code around definitions and a class around its methods skip the lines they do not own;
    a window of them must still name the lines it shows, not the whole file or class."""
    def assigns(prefix, n, indent=""):
        return "".join(f"{indent}{prefix}_{i} = configure_setting('{prefix}', {i}, retries={i % 5})\n"
                       for i in range(n))
    src = ("\n" if blank else "") + assigns("HEAD", head) + "\n\nclass Ledger:\n" + assigns("field", fields, "    ") + \
        "    def post(self, entry):\n        return entry\n\n" + assigns("limit", 3, "    ") + \
        "\n\ndef settle(ledger):\n    return ledger\n\n" + assigns("TAIL", tail)
    lines = src.split("\n")
    p = parse_file("ledger.py", src, "python", max_tokens=120, overlap_lines=2)
    for c in p.chunks:
        shown = [ln for ln in c.content.split("\n") if ln != "…"]
        assert lines[c.start_line - 1] == shown[0] and lines[c.end_line - 1] == shown[-1], c
        inside = lines[c.start_line - 1:c.end_line]
        assert all(ln in inside for ln in shown), c
    module = [c for c in p.chunks if c.chunk_type == "module"]
    spans = [(s.start_line, s.end_line) for s in p.symbols if s.kind != "module" and s.end_line - s.start_line >= 2]
    # module-level code never spans a definition: what a reader opens at its lines is that code
    assert not any(c.start_line < a and b < c.end_line for c in module for a, b in spans)
    if head + tail > 40:  # windowed: each window of the module has a span of its own
        assert len(module) > 1 and len({(c.start_line, c.end_line) for c in module}) == len(module)


@pytest.mark.parametrize("language,path,src,crumb", [
    ("javascript", "res.js",
     "var x = 1;\n\n/**\n * Set a cookie.\n */\n\nres.cookie = function (n) {\n  return n;\n};\n", "method res.cookie"),
    ("rust", "lib.rs",
     "use std::io;\n\n/// Sets a cookie.\n/// Twice.\nfn cookie(n: u32) -> u32 {\n    n\n}\n", "fn cookie"),
    ("java", "C.java",
     "class C {\n    int x;\n\n    /** Sets a cookie. */\n    int cookie(int n) {\n        return n;\n    }\n}\n",
     "class C > method cookie"),
    ("python", "c.py", "import os\n\n# Sets a cookie.\ndef cookie(n):\n    return n\n", "def cookie"),
])
def test_the_comment_just_above_a_definition_belongs_to_its_chunk(language, path, src, crumb):
    p = parse_file(path, src, language)
    c = next(c for c in p.chunks if c.breadcrumb == crumb)
    assert "Sets a cookie." in c.content or "Set a cookie." in c.content
    assert src.split("\n")[c.start_line - 1].strip().startswith(("/**", "///", "#"))
    assert not any("cookie" in m.content.lower() for m in p.chunks if m.chunk_type == "module")


def test_a_comment_far_above_or_trailing_code_stays_with_the_module():
    src = "x = 1  # trailing note\ndef f():\n    pass\n\n\n# section banner\n\n\ndef g():\n    pass\n"
    p = parse_file("m.py", src, "python")
    by = {c.breadcrumb: c for c in p.chunks}
    assert by["def f"].start_line == 2 and by["def g"].start_line == 9
    assert "trailing note" in by[""].content and "section banner" in by[""].content


def test_functions_assigned_in_pre_class_javascript_are_symbols_with_their_calls():
    src = ("var res = module.exports = {};\n"
           "res.clearCookie = function clearCookie(name) {\n  return this.cookie(name, '');\n};\n"
           "res.cookie = function (name, value) {\n  return serialize(name, value);\n};\n"
           "Router.prototype.route = function route(path) { return new Route(path); };\n"
           "exports.compile = (s) => s;\n"
           "module.exports = function createApplication() { var app = {}; app.init = function () {}; };\n"
           "obj[key] = function () {};\n")
    p = parse_file("lib/response.js", src, "javascript")
    kinds = {s.qualname: s.kind for s in p.symbols}
    assert kinds == {"": "module", "res": "variable", "res.clearCookie": "method", "res.cookie": "method",
                     "Router.route": "method", "compile": "function", "createApplication": "function"}
    refs = {(r.source, r.kind, r.name) for r in p.refs}
    assert ("res.clearCookie", "calls", "cookie") in refs and ("res.cookie", "calls", "serialize") in refs
    assert {c.breadcrumb for c in p.chunks} >= {"method res.cookie", "method Router.route", "function compile"}


@pytest.mark.parametrize("language", ["javascript", "typescript", "tsx"])
def test_an_arrow_function_field_of_a_class_is_a_method_and_another_field_an_attribute(language):
    src = "class Store {\n  count = 0;\n  handleClick = async (e) => {\n    await this.save(e);\n  };\n" \
          "  save(e) { return fetch(e); }\n}\n"
    p = parse_file("store.js", src, language)
    assert {(s.qualname, s.kind, s.start_line, s.end_line) for s in p.symbols if s.parent == "Store"} == \
        {("Store.count", "attribute", 2, 2), ("Store.handleClick", "method", 3, 5), ("Store.save", "method", 6, 6)}
    assert ("Store.handleClick", "calls", "save") in {(r.source, r.kind, r.name) for r in p.refs}


def test_symbols_and_references_of_a_python_file():
    p, _ = parsed("app/config.py")
    kinds = {s.qualname: s.kind for s in p.symbols}
    assert kinds == {"": "module", "DEFAULT_PATH": "variable", "RETRIES": "variable", "BaseLoader": "class",
                     "BaseLoader.read": "method", "JsonLoader": "class", "JsonLoader.load": "method",
                     "parse_config": "function", "load_settings": "function"}
    refs = {(r.source, r.kind, r.name) for r in p.refs}
    assert ("JsonLoader", "extends", "BaseLoader") in refs
    assert ("load_settings", "calls", "parse_config") in refs
    assert ("", "imports", "json") in refs
    sig = {s.qualname: s.signature for s in p.symbols}
    assert sig["parse_config"] == "def parse_config(path)"


@pytest.mark.parametrize("rel,source,kind,name", [
    ("java/Circle.java", "Circle", "extends", "Shape"),
    ("java/Circle.java", "Circle", "implements", "Drawable"),
    ("web/api.ts", "UserHandler", "implements", "Handler"),
    ("web/server.js", "Server", "extends", "EventEmitter"),
    ("php/Cart.php", "Cart", "implements", "Countable"),
    ("rb/invoice.rb", "Invoice", "extends", "Document"),
    ("cs/Greeter.cs", "Demo.Greeter", "implements", "IGreeter"),
    ("kt/Repository.kt", "UserRepository", "implements", "Repository"),
    ("rustsrc/shapes.rs", "impl Area for Square", "implements", "Area"),
    ("csrc/checksum.c", "checksum", "calls", "rotate"),
    ("gosrc/mathutil.go", "Stats.Mean", "calls", "Sum"),
    ("scripts/deploy", "push_image", "calls", "build_image"),
])
def test_inheritance_and_call_references_per_language(rel, source, kind, name):
    p, _ = parsed(rel)
    assert (source, kind, name) in {(r.source, r.kind, r.name) for r in p.refs}


def test_shebang_and_extension_detect_the_language():
    assert detect_language("scripts/deploy", b"#!/usr/bin/env bash\n") == "bash"
    assert detect_language("tool", b"#!/usr/bin/python3\nprint(1)") == "python"
    assert detect_language("a/b.TSX") == "tsx"
    assert detect_language("Makefile") == "make"
    assert detect_language("LICENSE") is None
    # code of languages the chunker has no grammar rules for is cut into line windows, not skipped
    assert [detect_language(p) for p in ("src/main.zig", "contracts/Token.sol", "deploy.ps1", "BUILD.bazel",
                                         "Dockerfile.prod", "kernels/add.cu", "docs/guide.adoc")] == [
        "zig", "solidity", "powershell", "starlark", "dockerfile", "cuda", "asciidoc"]
    p = parse_file("src/Main.jl", "module Main\n\nfunction main()\n    println(1)\nend\n\nend\n", "julia")
    assert [c.chunk_type for c in p.chunks] == ["lines"] and "function main" in p.chunks[0].content


def test_source_tree_sitter_cannot_parse_falls_back_to_line_windows():
    p = parse_file("broken.py", "def (((:\n  ]]] !!!\n" * 3, "python")
    assert p.parse_error
    assert p.chunks and p.chunks[0].chunk_type == "lines"


_C_PIECES = st.sampled_from(["#define F(x) \\\n", "  (g(x) /* note */ \\\n", "  + 1) /* end */\n",
                             "/* two \\\n lines */", "FMT_BEGIN_NAMESPACE\n", "LUA_API int f (lua_State *L) {}\n",
                             "Q_OBJECT\n", "class FMT_API E : public B {};\n", "/* é */", "x", " ", "\n", "\\",
                             "A_B "])


@example("#define F(x) \\\n  (g(x) /* two \\\n lines */ + 1)\n")
@given(st.lists(_C_PIECES, max_size=40).map("".join))
def test_the_c_parser_s_view_keeps_every_byte_and_line_in_place(text):
    """Macros blanked for tree-sitter must leave each node's position the source's (chunks and lines come
    from the source)."""
    data = text.encode()
    seen = for_parser(data)
    assert len(seen) == len(data) and [i for i, b in enumerate(seen) if b == 10] == \
        [i for i, b in enumerate(data) if b == 10]
    assert all(a == b or a == 32 for a, b in zip(seen, data))  # only blanks are put in


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=3_000), st.sampled_from(sorted(SPECS) + ["markdown", "text"]))
def test_any_text_in_any_language_chunks_without_error_within_the_budget(text, lang):
    p = parse_file("f", text, lang, max_tokens=120, overlap_lines=1)
    for c in p.chunks:
        assert c.start_line <= c.end_line
        assert estimate_tokens(c.content) <= 120


def test_only_identifier_shaped_words_of_a_long_query_may_name_symbols():
    from memory_graph.text import code_mentions

    assert code_mentions("read the settings file and turn it into a dictionary") == ""
    assert "parse_config" in code_mentions("who calls parse_config when the app starts")
    assert "JsonLoader" in code_mentions("what does JsonLoader extend in this repo")
    assert code_mentions("checksum") == "checksum"


@pytest.mark.parametrize("language, path, src, expected", [
    ("python", "trans.py", "import os\nX: int = 3\ngettext_lazy = lazy(gettext, str)\nx, y = 1, 2\n_ = gettext\n"
     "def f():\n    local = 1\n\nclass C:\n    attr = 1\n\nX = 4\nfor n in names:\n    total = n\n"
     "while go:\n    step = 1\ntry:\n    TIMEOUT = int(env)\nexcept ValueError:\n    TIMEOUT = 5\n"
     "if DEBUG:\n    LEVEL = 10\n",
     {("X", "variable", "X: int = 3", 2), ("gettext_lazy", "variable", "gettext_lazy = lazy(gettext, str)", 3),
      ("TIMEOUT", "variable", "TIMEOUT = int(env)", 18), ("LEVEL", "variable", "LEVEL = 10", 22)}),
    ("javascript", "app.js", "const API = 'x';\nexport const router = express.Router();\nconst {a} = require('b');\n"
     "var express = require('express');\nlet handler = () => 1;\nfunction g() { const inner = 1; }\n"
     "for (let i = 0; i < 3; i++) { var seen = i; }\nfor (const k of keys) { let last = k; }\n",
     {("API", "variable", "const API = 'x'", 1), ("router", "variable", "const router = express.Router()", 2)}),
    ("typescript", "schema.ts",
     "export const schema: Schema = z.object({});\nnamespace N {\n  export const k = 1;\n}\n",
     {("schema", "variable", "const schema: Schema = z.object({})", 1), ("N.k", "variable", "const k = 1", 3)}),
    ("go", "errs.go", "package m\nconst Max = 3\nvar (\n  ErrX = errors.New(\"x\")\n)\nfunc f() { var z = 1 }\n",
     {("Max", "constant", "const Max = 3", 2), ("ErrX", "variable", "var ErrX = errors.New(\"x\")", 4)}),
    ("rust", "lib.rs", "const MAX: usize = 3;\nstatic NAME: &str = \"x\";\nimpl S { const Z: u8 = 2; }\n",
     {("MAX", "constant", "const MAX: usize = 3;", 1), ("NAME", "variable", "static NAME: &str = \"x\";", 2)}),
])
def test_module_level_bindings_are_symbols_inside_the_module_chunk(language, path, src, expected):
    """A constant or alias defined at module level is a symbol (found by name, a call's target) of kind variable
    or constant; a function value, a require(), a pattern, `_`, a local, a loop's variables and a second binding of a
    name are not (a class attribute is an attribute: below), and no binding gets a chunk of its own."""
    p = parse_file(path, src, language)
    bindings = {(s.qualname, s.kind, s.signature, s.start_line) for s in p.symbols
                if s.kind in ("variable", "constant")}
    assert bindings == expected
    module = [c for c in p.chunks if c.chunk_type in ("module", "namespace")]
    assert all(any(c.start_line <= line <= c.end_line for c in module) for *_, line in expected)
    assert not {c.symbol for c in p.chunks} & {q for q, *_ in expected}


@pytest.mark.parametrize("language, path, src, expected", [
    ("python", "models.py", "class Color(Enum):\n    RED = 1\n    RED = 2\n    _ = 0\n\n\n@dataclass\n"
     "class User:\n    \"\"\"A user.\"\"\"\n    name: str\n    objects = UserManager()\n    a, b = 1, 2\n"
     "    handler = lambda x: x\n\n    class Meta:\n        ordering = ['name']\n\n    def save(self):\n"
     "        self.saved = True\n        local = 1\n",
     {("Color.RED", "RED = 1", 2), ("User.name", "name: str", 10), ("User.objects", "objects = UserManager()", 11),
      ("User.handler", "handler = lambda x: x", 13), ("User.Meta.ordering", "ordering = ['name']", 16)}),
    ("javascript", "store.js", "class Store {\n  count = 0;\n  #secret = 1;\n  static instances;\n"
     "  handle = () => 1;\n  run() { this.count = 2; }\n}\n",
     {("Store.count", "count = 0", 2), ("Store.#secret", "#secret = 1", 3),
      ("Store.instances", "static instances", 4)}),
    ("typescript", "store.ts", "class Store {\n  private readonly url: string = 'x';\n  size?: number;\n"
     "  handle = () => 1;\n}\n",
     {("Store.url", "private readonly url: string = 'x'", 2), ("Store.size", "size?: number", 3)}),
])
def test_bindings_in_a_class_body_are_attributes_inside_the_class_chunk(language, path, src, expected):
    """A class attribute, a dataclass field, an enum member, a nested class's attribute and a JavaScript or
    TypeScript class field are symbols of kind attribute, members of their class; a function value is a method,
    and a pattern, `_`, a second binding of a name and what a method assigns are no attributes. Their lines stay in
    the class's chunk."""
    p = parse_file(path, src, language)
    attrs = {(s.qualname, s.signature, s.start_line) for s in p.symbols if s.kind == "attribute"}
    assert attrs == expected
    assert all(s.parent == s.qualname.rsplit(".", 1)[0] for s in p.symbols if s.kind == "attribute")
    chunks = {c.symbol: c for c in p.chunks}
    for qual, _, line in expected:
        assert line in chunks[qual.rsplit(".", 1)[0]].line_map


def test_a_typescript_file_that_fails_to_parse_keeps_its_other_definitions():
    # tree-sitter-typescript fails on an interface with generic call signatures between comments and a call
    # signature over two lines, and its error swallowed every definition after it (mobx's runInAction)
    src = ("import { Hook, Marker } from './hook'\n\n"
           "export interface Factory\n    extends Hook,\n        Marker {\n"
           "    // plain\n    <T extends Function | undefined | null>(fn: T): T\n"
           "    // named\n    <T extends Function | undefined | null>(label: string, fn: T): T\n\n"
           "    // as a decorator\n    (label: string): Hook &\n        Marker\n\n"
           "    bound: Hook & Marker\n}\n\n"
           "function createFactory(auto: boolean): Factory {\n  const f: Factory = function make(a, b?): any {\n"
           "    return a\n  }\n  return f\n}\n\n"
           "export function runInTransaction<T>(fn: () => T): T {\n  return fn()\n}\n\n"
           "export function isTransaction(thing: any) {\n  return thing.isTx === true\n}\n")
    p = parse_file("src/api/tx.ts", src, "typescript")
    names = {s.name for s in p.symbols}
    assert {"createFactory", "runInTransaction", "isTransaction"} <= names
    assert not p.parse_error
    covered = {n for c in p.chunks for n in range(c.start_line, c.end_line + 1)}
    assert all(n in covered for n, ln in enumerate(src.split("\n"), 1) if ln.strip())  # nothing is lost
    interface = next(c for c in p.chunks if "bound: Hook & Marker" in c.content)
    assert interface.chunk_type == "lines" and (interface.start_line, interface.end_line) == (3, 17)


def test_statement_spans_and_blanking():
    from codebase.reparse import blank, broken_spans, statement_spans

    lines = ["// header", "export const a = 1", "", "function f() {", "  return 2", "}", "class C {}"]
    assert statement_spans(lines) == [(0, 1), (1, 3), (3, 6), (6, 7)]
    assert broken_spans(lines, lambda t: "return" in t) == [(3, 6)]
    assert blank(lines, [(3, 6)]) == ["// header", "export const a = 1", "", "", "", "", "class C {}"]


@pytest.mark.parametrize("language", ["typescript", "javascript"])
def test_a_function_in_a_cast_or_given_properties_is_a_definition(language):
    cast = " as any" if language == "typescript" else ""
    src = (f"export const computed = function computed(arg1, arg2) {{\n    return arg1 + arg2\n}}{cast}\n\n"
           "export const flow = Object.assign(\n    function flow(gen) {\n        return gen()\n    }" + cast + ",\n"
           "    {bound: true}\n)\n\nexport const total = sum(function (x) { return x }, 0)\n")
    pf = parse_file(f"a.{'ts' if language == 'typescript' else 'js'}", src, language)
    kinds = {s.name: s.kind for s in pf.symbols}
    assert kinds["computed"] == "function" and kinds["flow"] == "function"
    assert kinds["total"] == "variable"  # a function passed to another call is not what the name holds
    assert [(c.name, c.start_line) for c in pf.chunks if c.chunk_type == "function"] == [("computed", 1), ("flow", 5)]
