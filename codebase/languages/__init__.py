"""Every language the indexer reads: file extensions and shebangs, and what languages share. Each parsed
language or family has a module beside this one (``python``, ``clang``, ``dart``, ...) holding its tree-sitter
node types (a ``LangSpec``) and a ``Language`` whose hooks the chunker calls, registered with ``base.register``;
the core asks ``language_named(name)`` and never names a language."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from collections.abc import Mapping
from pathlib import PurePosixPath

from .base import _EXTENSIONS, _SPECS, Language, Registered, language_named, register  # noqa: F401 (the registry)

#: extension -> language, beside those a language's module registers. Languages with a LangSpec (``SPECS``) are
#: parsed with tree-sitter; the rest are chunked in line windows (Markdown on its headings).
_COMMON_EXTENSIONS = {
    ".py": "python", ".pyi": "python", ".pyw": "python", ".ipynb": "python",  # a notebook: codebase.notebooks
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".go": "go", ".rs": "rust", ".java": "java",
    ".c": "c", ".h": "c",
    ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp", ".c++": "cpp",
    ".m": "objc", ".mm": "objc",
    ".cs": "csharp", ".rb": "ruby", ".rake": "ruby", ".php": "php", ".kt": "kotlin", ".kts": "kotlin",
    ".sh": "bash", ".bash": "bash", ".zsh": "bash",
    ".md": "markdown", ".markdown": "markdown", ".mdx": "markdown", ".rst": "rst", ".txt": "text",
    ".json": "json", ".yaml": "yaml", ".yml": "yaml", ".toml": "toml", ".ini": "ini", ".cfg": "ini",
    ".sql": "sql", ".html": "html", ".htm": "html", ".css": "css", ".scss": "scss", ".xml": "xml",
    ".swift": "swift", ".scala": "scala", ".sc": "scala", ".sbt": "scala", ".lua": "lua", ".r": "r", ".dart": "dart",
    ".ex": "elixir", ".exs": "elixir", ".hs": "haskell", ".ml": "ocaml", ".vue": "vue", ".svelte": "svelte",
    ".pl": "perl", ".proto": "protobuf", ".graphql": "graphql", ".tf": "hcl", ".hcl": "hcl", ".gradle": "groovy",
    ".cmake": "cmake", ".sol": "solidity", ".gql": "graphql", ".graphqls": "graphql",
    # code without a LangSpec below, cut into line windows: indexed rather than skipped as an unknown type
    ".zig": "zig", ".jl": "julia", ".erl": "erlang", ".hrl": "erlang", ".ps1": "powershell",
    ".psm1": "powershell", ".clj": "clojure", ".cljs": "clojure", ".cljc": "clojure", ".edn": "clojure",
    ".fs": "fsharp", ".fsi": "fsharp", ".fsx": "fsharp", ".elm": "elm", ".gleam": "gleam", ".nim": "nim",
    ".hx": "haxe", ".mli": "ocaml", ".purs": "purescript", ".rkt": "racket", ".scm": "scheme",
    ".lisp": "commonlisp", ".el": "elisp", ".vim": "vim", ".tcl": "tcl", ".pas": "pascal", ".adb": "ada",
    ".ads": "ada", ".f90": "fortran", ".f95": "fortran", ".f03": "fortran", ".for": "fortran",
    ".sv": "verilog", ".svh": "verilog", ".vhd": "vhdl", ".vhdl": "vhdl", ".cu": "cuda", ".cuh": "cuda",
    ".glsl": "glsl", ".vert": "glsl", ".frag": "glsl", ".hlsl": "hlsl", ".wgsl": "wgsl", ".metal": "metal",
    ".ino": "arduino", ".gd": "gdscript", ".luau": "luau", ".odin": "odin", ".groovy": "groovy",
    ".coffee": "coffeescript", ".pm": "perl", ".gemspec": "ruby", ".ru": "ruby", ".jbuilder": "ruby",
    ".phtml": "php", ".pyx": "cython", ".pxd": "cython", ".asm": "asm", ".s": "asm", ".ll": "llvm",
    ".fish": "fish", ".bats": "bash", ".ksh": "bash", ".bat": "batch", ".cmd": "batch", ".mk": "make",
    ".mak": "make", ".bzl": "starlark", ".star": "starlark", ".nix": "nix", ".prisma": "prisma",
    ".bicep": "bicep", ".rego": "rego", ".jsonnet": "jsonnet", ".libsonnet": "jsonnet", ".thrift": "thrift",
    ".capnp": "capnp", ".tfvars": "tfvars", ".dockerfile": "dockerfile", ".vb": "vb",
    # templates, styles and documents
    ".astro": "astro", ".erb": "erb", ".haml": "haml", ".slim": "slim", ".jinja": "jinja", ".jinja2": "jinja",
    ".j2": "jinja", ".hbs": "handlebars", ".handlebars": "handlebars", ".mustache": "mustache",
    ".liquid": "liquid", ".ejs": "ejs", ".twig": "twig", ".heex": "heex", ".eex": "eex", ".leex": "eex",
    ".cshtml": "razor", ".razor": "razor", ".less": "less", ".sass": "sass", ".styl": "stylus",
    ".tex": "latex", ".adoc": "asciidoc", ".asciidoc": "asciidoc", ".org": "org", ".rmd": "markdown",
    ".qmd": "markdown", ".jsonc": "json", ".json5": "json", ".properties": "ini", ".csproj": "xml",
    ".fsproj": "xml", ".vbproj": "xml", ".props": "xml", ".targets": "xml", ".plist": "xml", ".xaml": "xml",
}
EXTENSIONS: Mapping[str, str] = Registered(_EXTENSIONS, _COMMON_EXTENSIONS)
FILENAMES = {"Dockerfile": "dockerfile", "Containerfile": "dockerfile", "Makefile": "make", "makefile": "make",
             "GNUmakefile": "make", "CMakeLists.txt": "cmake", "Gemfile": "ruby", "Rakefile": "ruby",
             "Vagrantfile": "ruby", "Podfile": "ruby", "Fastfile": "ruby", "Brewfile": "ruby", "Guardfile": "ruby",
             "Jenkinsfile": "groovy", "BUILD": "starlark", "BUILD.bazel": "starlark", "WORKSPACE": "starlark",
             "MODULE.bazel": "starlark", "Tiltfile": "starlark", "justfile": "just", "Justfile": "just"}
_SHEBANG = re.compile(rb"^#!\s*(\S+)((?:\s+\S+)*)")
SHEBANGS = {"python": "python", "node": "javascript", "deno": "typescript", "bash": "bash", "sh": "bash",
            "zsh": "bash", "dash": "bash", "ksh": "bash", "ruby": "ruby", "php": "php"}


#: what only C++ writes, to tell a C++ header (``.h``) from a C one: a template, a namespace block, a class
#: body, an access label, a scoped enum, ``std::``, or a standard header without ``.h`` (``#include <vector>``)
_CPP_HEADER = re.compile(rb"^\s*(?:template\s*<|namespace\s+\w+\s*\{|class\s+\w+[^;()]*\{|(?:public|private|"
                         rb"protected)\s*:|#\s*include\s*<[a-z_]+>)|\bstd::|\benum\s+class\b", re.M)


#: what only Objective-C writes, to tell its header from a C one: ``@interface``, ``@protocol``, ``@class``,
#: ``#import``, or Foundation's nullability block
_OBJC_HEADER = re.compile(rb"^\s*(?:@interface|@protocol|@class|#\s*import)\b|\bNS_ASSUME_NONNULL_BEGIN\b", re.M)
#: what an Objective-C ``.m`` file writes that a MATLAB one, the other language of ``.m``, never does
_OBJC_SOURCE = re.compile(rb"^\s*(?:@implementation|@interface|@protocol|@end|#\s*(?:import|include))\b", re.M)


def detect_language(path: str, head: bytes = b"") -> str | None:
    """The language of a file from its name (a ``.h`` file is C++ or Objective-C, a ``.m`` file MATLAB, when
    its start says so), else from a shebang line; None if neither says."""
    p = PurePosixPath(path)
    if p.name in FILENAMES:
        return FILENAMES[p.name]
    if p.name.startswith(("Dockerfile.", "Containerfile.")):  # Dockerfile.dev, Dockerfile.prod
        return "dockerfile"
    lang = EXTENSIONS.get(p.suffix.lower())
    if lang == "c" and p.suffix == ".h" and _OBJC_HEADER.search(head):
        return "objc"
    if lang == "objc" and p.suffix == ".m" and head and not _OBJC_SOURCE.search(head):
        return "matlab"  # no grammar: line windows, and no parse error counted for every file
    if lang == "c" and p.suffix == ".h" and _CPP_HEADER.search(head):
        return "cpp"
    if lang:
        return lang
    m = _SHEBANG.match(head.split(b"\n", 1)[0][:200])
    if not m:
        return None
    words = [m.group(1).decode(errors="replace")] + m.group(2).decode(errors="replace").split()
    prog = words[0].rsplit("/", 1)[-1]
    if prog == "env":
        prog = next((w for w in words[1:] if not w.startswith("-") and "=" not in w), "")
    return SHEBANGS.get(re.sub(r"[\d.]+$", "", prog))


@dataclass(frozen=True)
class LangSpec:
    """Tree-sitter node types of one grammar that the chunker and the symbol extractor care about."""

    definitions: dict[str, str]                     # node type -> symbol kind
    containers: frozenset[str] = frozenset()        # definitions whose members are definitions too
    calls: dict[str, str] = field(default_factory=dict)   # call node type -> field naming the callee ("" = 1st)
    imports: frozenset[str] = frozenset()
    heritage: dict[str, str] = field(default_factory=dict)  # node type -> "extends" | "implements"
    #: word put before a name in a breadcrumb, per kind ("class Foo > def bar")
    keywords: dict[str, str] = field(default_factory=dict)
    #: node type -> symbol kind of a module-level binding (a constant, an alias): a symbol, not a chunk
    variables: dict[str, str] = field(default_factory=dict)
    #: node type -> symbol kind of a binding in a class body (a field, a class attribute, an enum member)
    attributes: dict[str, str] = field(default_factory=dict)


_CLASSY = frozenset({"class", "interface", "struct", "enum", "trait", "impl", "module", "namespace", "object",
                     "record", "type"})

#: language -> its node types, registered by its module (``base.register``): a language without one is cut in
#: line windows
SPECS: Mapping[str, LangSpec] = Registered(_SPECS)
#: languages whose declarations state each variable's type (``codebase.refs.declared_types``): a call on a
#: variable of a type the project does not define is a library's, never guessed from the method's name
DECLARED_TYPES = frozenset({"java", "kotlin", "go", "csharp", "rust", "swift", "scala", "dart"})
#: languages whose written types are the language's (TypeScript's annotations too, ``codebase.refs.local_type``):
#: a variable annotated with a type the project does not define holds a library's
STATIC_TYPES = DECLARED_TYPES | {"typescript", "tsx"}
#: languages where what a library's function returns is a library's type; not Rust's, whose std generics hand
#: back the project's (`inner.lock().unwrap()` derefs to the project's Inner, `map.get(k)?` is its value)
LIBRARY_RESULTS = STATIC_TYPES - {"rust"}
#: languages where a method names its class's fields without ``this.``
IMPLICIT_THIS = frozenset({"java", "kotlin", "csharp", "swift", "scala", "dart"})
#: languages where a method calls its class's methods (its bases', an outer class's) without ``this.``
IMPLICIT_THIS_CALLS = frozenset({"java", "kotlin", "csharp", "cpp", "swift", "scala", "dart", "solidity"})

#: languages where a call by a bare name is never a member of a type (only a method called on something is):
#: `send(message)` in an ASGI app of a test names its parameter, not Client.send
BARE_CALLS_NAME_NO_MEMBER = frozenset({"python", "javascript", "typescript", "tsx", "go", "rust", "php", "vue",
                                       "svelte"})
#: prose, cut on its headings
PROSE = frozenset({"markdown", "rst"})
#: languages of data and plain text, which a file of numbers (a raster, a matrix, coordinates) may be
DATA_LANGUAGES = frozenset({"text", "json", "yaml", "xml", "toml", "ini"})
#: languages that are shipped minified (GitHub Linguist's ``minified_files?``: JavaScript and CSS)
MINIFIED_LANGUAGES = frozenset({"javascript", "css"})

#: grammar names in tree-sitter-language-pack where they differ from ours
GRAMMARS = {"csharp": "csharp", "protobuf": "proto"}

#: node types that hold a definition's name when the grammar has no "name" field
NAME_TYPES = frozenset({"identifier", "type_identifier", "simple_identifier", "constant", "field_identifier",
                        "property_identifier", "name", "word", "namespace_identifier", "qualified_identifier",
                        "scoped_identifier", "operator_name", "destructor_name",
                        "message_name", "enum_name", "service_name", "rpc_name"})  # protobuf's
#: node types that hold a body (the signature of a definition is what comes before it)
BODY_TYPES = frozenset({"block", "body_statement", "class_body", "declaration_list", "field_declaration_list",
                        "compound_statement", "statement_block", "function_body", "enum_body",
                        "interface_body", "object_type", "enum_variant_list", "field_list", "do_group",
                        "template_body"})


def keyword(lang: str, kind: str) -> str:
    """The word a breadcrumb puts before a name of this kind in this language."""
    spec = SPECS.get(lang)
    if spec and kind in spec.keywords:
        return spec.keywords[kind]
    return kind


def is_classy(kind: str) -> bool:
    return kind in _CLASSY
