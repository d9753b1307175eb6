"""Every language the indexer reads, and what each looks like to the chunker: file extensions, shebangs and
tree-sitter node types (``SPECS``). What one language or family needs beyond this table lives in its module
beside this one (``clang``, ``dart``, ``zig``, ...)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from . import graphql, protobuf
from .clang import C_BINDINGS
from .dart import DEFINITIONS as DART_DEFINITIONS
from .solidity import CALLS as SOLIDITY_CALLS, CONTAINERS as SOLIDITY_CONTAINERS, DEFINITIONS as SOLIDITY_DEFINITIONS
from .sql import CALLS as SQL_CALLS, DEFINITIONS as SQL_DEFINITIONS

#: extension -> language. Languages with a LangSpec below are parsed with tree-sitter; the rest are
#: chunked in line windows (Markdown on its headings).
EXTENSIONS = {
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

SPECS: dict[str, LangSpec] = {
    "python": LangSpec(
        {"function_definition": "function", "class_definition": "class"},
        frozenset({"class_definition"}), {"call": "function"},
        frozenset({"import_statement", "import_from_statement"}), {"argument_list": "extends"},
        {"function": "def", "method": "def"}, {"assignment": "variable"}, {"assignment": "attribute"}),
    "javascript": LangSpec(
        {"function_declaration": "function", "generator_function_declaration": "function",
         "class_declaration": "class", "method_definition": "method", "variable_declarator": "function",
         "assignment_expression": "function", "field_definition": "method"},
        frozenset({"class_declaration"}), {"call_expression": "function", "new_expression": "constructor"},
        frozenset({"import_statement"}), {"class_heritage": "extends"}, {}, {"variable_declarator": "variable"},
        {"field_definition": "attribute"}),
    "typescript": LangSpec(
        {"function_declaration": "function", "generator_function_declaration": "function",
         "class_declaration": "class", "abstract_class_declaration": "class", "method_definition": "method",
         "interface_declaration": "interface", "type_alias_declaration": "type", "enum_declaration": "enum",
         "variable_declarator": "function", "assignment_expression": "function",
         "public_field_definition": "method", "module": "namespace", "internal_module": "namespace"},
        frozenset({"class_declaration", "abstract_class_declaration", "module", "internal_module"}),
        {"call_expression": "function", "new_expression": "constructor"},
        frozenset({"import_statement"}),
        {"extends_clause": "extends", "implements_clause": "implements", "extends_type_clause": "extends"}, {},
        {"variable_declarator": "variable"},
        # an interface's and an abstract class's members are symbols in its chunk, as a class's fields are
        {"public_field_definition": "attribute", "property_signature": "attribute", "method_signature": "method",
         "abstract_method_signature": "method"}),
    "go": LangSpec(
        {"function_declaration": "function", "method_declaration": "method", "type_spec": "type",
         "method_elem": "method", "method_spec": "method"},
        frozenset({"type_spec"}), {"call_expression": "function"}, frozenset({"import_declaration"}), {},
        {"function": "func", "method": "func"}, {"const_spec": "constant", "var_spec": "variable"},
        {"field_declaration": "attribute"}),
    "rust": LangSpec(
        {"function_item": "function", "struct_item": "struct", "enum_item": "enum", "trait_item": "trait",
         "impl_item": "impl", "mod_item": "namespace", "union_item": "struct"},
        frozenset({"impl_item", "trait_item", "mod_item"}), {"call_expression": "function"},
        frozenset({"use_declaration"}), {}, {"function": "fn", "method": "fn", "namespace": "mod"},
        {"const_item": "constant", "static_item": "variable"},
        # not struct fields: a getter or builder method often shares its field's name (`fn pos(&self) -> usize`)
        {"function_signature_item": "method", "enum_variant": "attribute"}),
    "java": LangSpec(
        {"class_declaration": "class", "interface_declaration": "interface", "enum_declaration": "enum",
         "record_declaration": "record", "method_declaration": "method", "constructor_declaration": "method"},
        frozenset({"class_declaration", "interface_declaration", "enum_declaration", "record_declaration"}),
        {"method_invocation": "name", "object_creation_expression": "type"},
        frozenset({"import_declaration"}),
        {"superclass": "extends", "super_interfaces": "implements", "extends_interfaces": "extends"}, {}, {},
        {"variable_declarator": "attribute", "enum_constant": "attribute"}),
    "c": LangSpec(
        {"function_definition": "function", "struct_specifier": "struct", "union_specifier": "struct",
         "enum_specifier": "enum"},
        frozenset(), {"call_expression": "function"}, frozenset({"preproc_include"}), {}, {}, C_BINDINGS),
    "cpp": LangSpec(
        {"function_definition": "function", "class_specifier": "class", "struct_specifier": "struct",
         "union_specifier": "struct", "enum_specifier": "enum", "namespace_definition": "namespace"},
        frozenset({"class_specifier", "struct_specifier", "namespace_definition"}),
        {"call_expression": "function", "new_expression": "type"}, frozenset({"preproc_include"}),
        {"base_class_clause": "extends"}, {}, {**C_BINDINGS, "alias_declaration": "typedef"},
        {"field_declaration": "method"}),  # pure virtual methods only (clang.pure_virtual_name), not fields
    "csharp": LangSpec(
        {"class_declaration": "class", "interface_declaration": "interface", "struct_declaration": "struct",
         "enum_declaration": "enum", "record_declaration": "record", "method_declaration": "method",
         "constructor_declaration": "method", "namespace_declaration": "namespace",
         "file_scoped_namespace_declaration": "namespace"},
        frozenset({"class_declaration", "interface_declaration", "struct_declaration", "record_declaration",
                   "namespace_declaration", "file_scoped_namespace_declaration"}),
        {"invocation_expression": "function", "object_creation_expression": "type"},
        frozenset({"using_directive"}), {"base_list": "extends"}),
    "ruby": LangSpec(
        {"class": "class", "module": "namespace", "method": "method", "singleton_method": "method"},
        frozenset({"class", "module"}), {"call": "method"}, frozenset(), {"superclass": "extends"},
        {"function": "def", "method": "def", "namespace": "module"}),
    "php": LangSpec(
        {"class_declaration": "class", "interface_declaration": "interface", "trait_declaration": "trait",
         "function_definition": "function", "method_declaration": "method", "enum_declaration": "enum"},
        frozenset({"class_declaration", "interface_declaration", "trait_declaration", "enum_declaration"}),
        {"function_call_expression": "function", "member_call_expression": "name",
         "scoped_call_expression": "name", "object_creation_expression": ""},
        frozenset({"namespace_use_declaration"}),
        {"base_clause": "extends", "class_interface_clause": "implements"}),
    "kotlin": LangSpec(
        {"class_declaration": "class", "object_declaration": "object", "function_declaration": "function"},
        frozenset({"class_declaration", "object_declaration"}), {"call_expression": ""},
        frozenset({"import_header"}), {"delegation_specifier": "extends"}, {"function": "fun", "method": "fun"},
        {"property_declaration": "variable"},
        {"property_declaration": "attribute", "class_parameter": "attribute", "enum_entry": "attribute"}),
    "objc": LangSpec(
        # an @implementation (and a category's @interface) is kind impl: its methods are the class's
        {"class_interface": "class", "class_implementation": "impl", "protocol_declaration": "interface",
         "method_definition": "method", "function_definition": "function"},
        frozenset({"class_interface", "class_implementation", "protocol_declaration"}),
        {"message_expression": "method", "call_expression": "function"}, frozenset({"preproc_include"}),
        {"parameterized_arguments": "implements", "protocol_reference_list": "implements"},
        {"class": "@interface", "impl": "@implementation", "interface": "@protocol"}, C_BINDINGS,
        {"method_declaration": "method", "property_declaration": "attribute"}),
    "swift": LangSpec(
        # a struct, an enum, an actor and an extension are class declarations too (the chunker tells them apart)
        {"class_declaration": "class", "protocol_declaration": "interface", "function_declaration": "function",
         "init_declaration": "method"},
        frozenset({"class_declaration", "protocol_declaration"}),
        {"call_expression": "", "constructor_expression": "constructed_type"},
        frozenset({"import_declaration"}), {"inheritance_specifier": "extends"},
        {"function": "func", "method": "func", "interface": "protocol", "impl": "extension"},
        {"property_declaration": "variable"},
        {"property_declaration": "attribute", "enum_entry": "attribute", "protocol_function_declaration": "method",
         "protocol_property_declaration": "attribute"}),
    "lua": LangSpec(
        # `M.run = function() end` defines run; a table the file defines methods of is a class (codebase.lua)
        {"function_declaration": "function", "assignment_statement": "function"}, frozenset(),
        {"function_call": "name"}, frozenset(), {}, {"function": "function", "method": "function"},
        {"assignment_statement": "variable"}),
    # Terraform: a top-level block is a definition named by its address, a `locals` entry a binding (codebase.hcl)
    "hcl": LangSpec({"block": "resource"}, keywords={"module_call": "module"}, variables={"attribute": "variable"}),
    "scala": LangSpec(
        # a trait's abstract `def price: BigDecimal` is a declaration; an object's members are its own, or the
        # class's when it is that class's companion (codebase.chunker)
        {"class_definition": "class", "object_definition": "object", "trait_definition": "trait",
         "enum_definition": "enum", "function_definition": "function", "function_declaration": "method"},
        frozenset({"class_definition", "object_definition", "trait_definition", "enum_definition"}),
        {"call_expression": "function", "instance_expression": ""}, frozenset({"import_declaration"}),
        {"extends_clause": "extends"}, {"function": "def", "method": "def", "impl": "object"},
        {"val_definition": "variable", "var_definition": "variable"},
        {"val_definition": "attribute", "var_definition": "attribute", "class_parameter": "attribute",
         "simple_enum_case": "attribute", "full_enum_case": "attribute"}),
    "dart": LangSpec(
        # a signature and its body are siblings, a call a chain of selectors: codebase.dart reads them
        DART_DEFINITIONS, frozenset({"class_definition", "mixin_declaration", "extension_declaration"}),
        {"selector": "", "cascade_section": "", "redirection": ""},
        frozenset({"import_or_export", "part_directive", "part_of_directive"}),
        {"superclass": "extends", "interfaces": "implements"}, {"impl": "extension"},
        {"initialized_identifier_list": "variable", "static_final_declaration_list": "variable"},
        {"declaration": "attribute", "enum_constant": "attribute"}),
    "solidity": LangSpec(
        SOLIDITY_DEFINITIONS, SOLIDITY_CONTAINERS, SOLIDITY_CALLS, frozenset({"import_directive"}),
        {"inheritance_specifier": "extends"}, {},
        {"constant_variable_declaration": "constant"}, {"state_variable_declaration": "attribute"}),
    # CREATE TABLE/VIEW/FUNCTION...: a definition; any other table, view or function named: a use (codebase.sql)
    "sql": LangSpec(SQL_DEFINITIONS, calls=SQL_CALLS),
    # every form is a call: codebase.elixir tells definitions, directives and calls apart
    "elixir": LangSpec({}, keywords={"namespace": "defmodule", "interface": "defprotocol", "function": "def"}),
    "bash": LangSpec({"function_definition": "function"}, frozenset(), {"command": "name"}, frozenset(), {}),
    # types, inputs, operations and fragments; what a field's type names is the field's use (codebase.graphql)
    "graphql": LangSpec(graphql.DEFINITIONS, calls=graphql.CALLS, heritage=graphql.HERITAGE, keywords=graphql.KEYWORDS,
                        attributes=graphql.ATTRIBUTES),
    # a definition is a `fn`, a test, or a constant holding a type; a call a chain of suffixes (codebase.zig)
    "zig": LangSpec({}, keywords={"function": "fn", "method": "fn"}, variables={"Decl": "variable", "ContainerField":
                    "attribute"}, attributes={"Decl": "attribute", "ContainerField": "attribute"}),
    # messages, enums and services by their full names; a type a field or an rpc names is a use (codebase.protobuf)
    "protobuf": LangSpec(protobuf.DEFINITIONS, frozenset({"message", "service"}), protobuf.CALLS,
                         frozenset({"import", "package"}), keywords=protobuf.KEYWORDS, attributes=protobuf.ATTRIBUTES),
}
SPECS["tsx"] = SPECS["typescript"]
#: languages whose declarations state each variable's type (``codebase.refs.declared_types``): a call on a
#: variable of a type the project does not define is a library's, never guessed from the method's name
DECLARED_TYPES = frozenset({"java", "kotlin", "go", "csharp", "rust", "swift", "scala", "dart"})
#: languages whose written types are the language's (TypeScript's annotations too, ``codebase.refs.local_type``):
#: a variable annotated with a type the project does not define holds a library's
STATIC_TYPES = DECLARED_TYPES | {"typescript", "tsx"}
#: languages where a method names its class's fields without ``this.``
IMPLICIT_THIS = frozenset({"java", "kotlin", "csharp", "swift", "scala", "dart"})
#: languages where a method calls its class's methods (its bases', an outer class's) without ``this.``
IMPLICIT_THIS_CALLS = frozenset({"java", "kotlin", "csharp", "cpp", "swift", "scala", "dart", "solidity"})

#: grammar names in tree-sitter-language-pack where they differ from ours
GRAMMARS = {"csharp": "csharp", "protobuf": "proto"}

#: node types that hold a definition's name when the grammar has no "name" field
NAME_TYPES = frozenset({"identifier", "type_identifier", "simple_identifier", "constant", "field_identifier",
                        "property_identifier", "name", "word", "namespace_identifier", "qualified_identifier",
                        "scoped_identifier", "operator_name", "destructor_name", *protobuf.NAMES})
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
