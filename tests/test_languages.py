"""The language registry: every parsed language is one module's registration, a new one needs nothing else, and
the core modules name no language."""

from __future__ import annotations

import ast
import posixpath
from pathlib import Path

import pytest

from codebase.chunker import parse_file
from codebase.languages import SPECS, LangSpec, detect_language
from codebase.languages import base
from codebase.languages.base import Language, language_named, register, registered
from codebase.refs import Ref

CORE = Path(__file__).resolve().parent.parent / "codebase"


def test_every_parsed_language_is_registered_by_a_module_of_the_languages_package():
    found = registered()
    assert set(SPECS) <= set(found)
    for name in SPECS:
        assert type(found[name]).__module__.startswith("codebase.languages."), name
    # one module's answer for a family: TypeScript's and TSX's node types are one table
    assert found["tsx"] is found["typescript"] and SPECS["tsx"] is SPECS["typescript"]
    assert language_named("fortran") is language_named("fortran") and "fortran" not in found  # line windows


class Starlark(Language):
    """A language added by a test, as a module would: Starlark's ``load()`` is an import, and its label
    (``//tools:defs.bzl``) names a file the way Bazel does."""

    def module_files(self, resolver, module, from_path):
        package, _, file = module.removeprefix("//").partition(":")
        stem = posixpath.join(package, file.rsplit(".", 1)[0])
        return [p for p in resolver.by_stem.get(stem, [])]

    def visit(self, node, walk, scope, in_func):
        if node.type != "call" or node.child_by_field_name("function").text != b"load":
            return False
        label = node.child_by_field_name("arguments").named_children[0].text.decode().strip('"')
        walk.out.refs.append(Ref("", "imports", label, node.start_point[0] + 1))
        return True


@pytest.fixture
def starlark(monkeypatch):
    """Starlark registered with its node types and a new extension, as its own module would; undone after."""
    monkeypatch.setattr(base, "_REGISTRY", dict(base._REGISTRY))
    monkeypatch.setattr(base, "_SPECS", dict(base._SPECS))
    monkeypatch.setattr(base, "_EXTENSIONS", dict(base._EXTENSIONS))
    from codebase import languages

    monkeypatch.setattr(languages.SPECS, "_table", base._SPECS)
    monkeypatch.setattr(languages.EXTENSIONS, "_table", base._EXTENSIONS)
    spec = LangSpec({"function_definition": "function"}, calls={"call": "function"},
                    keywords={"function": "def"})
    return register(Starlark(), "starlark", spec=spec, extensions=(".star2",))


BUILD = '''load("//tools:defs.bzl", "cc_wrap")

def my_library(name, srcs):
    cc_wrap(name = name, srcs = srcs)
'''


def test_a_language_registered_by_one_module_is_detected_parsed_and_read_by_its_hooks(starlark):
    assert detect_language("rules/app.star2") == "starlark" and detect_language("BUILD.bazel") == "starlark"
    parsed = parse_file("rules/app.star2", BUILD, "starlark")
    assert [(s.qualname, s.kind) for s in parsed.symbols[1:]] == [("my_library", "function")]
    assert [c.breadcrumb for c in parsed.chunks if c.symbol] == ["def my_library"]
    assert ("", "imports", "//tools:defs.bzl") in [(r.source, r.kind, r.name) for r in parsed.refs]
    assert ("my_library", "calls", "cc_wrap") in [(r.source, r.kind, r.name) for r in parsed.refs]
    assert "load" not in [r.name for r in parsed.refs if r.kind == "calls"]  # the hook took it


def test_a_registered_languages_resolving_hook_finds_what_its_imports_name(starlark, engine, tmp_path):
    from codebase import index_project
    from tests.conftest import write_files

    write_files(tmp_path / "ws", {"rules/app.star2": BUILD.replace("defs.bzl", "defs.star2"),
                                  "tools/defs.star2": "def cc_wrap(name, srcs):\n    return name\n"})
    index_project(engine, tmp_path / "ws", project="ws")
    edges = engine.lance.table("symbol_edges").to_arrow().to_pylist()
    imports = [e for e in edges if e["kind"] == "imports" and e["target_name"] == "//tools:defs.star2"]
    files = {r["id"]: r["path"] for r in engine.lance.table("symbols").to_arrow().to_pylist()}
    assert [files.get(e["target"]) for e in imports] == ["tools/defs.star2"]
    assert [r["qualname"] for r in engine.symbol_graph("cc_wrap", "callers", project="ws")["results"]] == \
        ["my_library"]


def test_an_unregistered_language_is_cut_in_line_windows():
    parsed = parse_file("rules/app.bzl", BUILD, "starlark")
    assert len(parsed.symbols) == 1 and parsed.refs == [] and parsed.chunks


def _core_constants(path: Path):
    """Each string constant of a core module outside docstrings, with its line."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = {id(n.body[0].value) for n in ast.walk(tree) if isinstance(
        n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.body and isinstance(
        n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    skipped |= {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}  # f"c{x}"
    for n in ast.walk(tree):
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in skipped:
            yield n.value, n.lineno


def _language_modules_imported(path: Path):
    """The modules of ``codebase.languages`` a core module imports (``from .languages.zig import x``, ``from
    .languages import zig``)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("languages."):
            yield node.module.split(".", 1)[1]
        elif isinstance(node, ast.ImportFrom) and node.module == "languages":
            yield from (alias.name for alias in node.names)


def test_no_core_module_imports_a_languages_module():
    modules = {type(lang).__module__.rpartition(".")[2] for lang in registered().values()} - {"base"}
    assert "zig" in modules and "python" in modules
    imported = [(path.name, m) for path in sorted(CORE.glob("*.py")) for m in _language_modules_imported(path)
                if m in modules]
    assert imported == []


def test_the_core_names_no_language():
    # plain text ("text") is left out: a node's `text` is read everywhere
    names = set(registered()) | set(SPECS) | {"vue", "svelte", "json", "markdown", "rst"}
    named = [(path.name, line, value) for path in sorted(CORE.glob("*.py")) for value, line in _core_constants(path)
             if value in names]
    assert named == []
