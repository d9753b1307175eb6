"""Cut a source file into chunks the embedding model reads whole, and extract its symbols and references.

Definitions (functions, methods, classes and the like) become chunks with a breadcrumb ("class Foo > def bar");
a class keeps its own lines (header, fields) while its methods get their own chunks; module-level code between
definitions becomes one "module" chunk, so nothing is lost. A chunk longer than the model's window becomes
overlapping windows, each led by the breadcrumb and the signature. Files without a grammar, or that tree-sitter
cannot parse, fall back to line windows (Markdown is split on its headings).
"""

from __future__ import annotations

import logging
import re
from functools import lru_cache
from pathlib import PurePosixPath

from . import reparse
from .bindings import MEMBER_OF, assigned_function, function_value, binding_kind, in_lambda, in_loop, make_variable
from .chunks import (Chunk, ParsedFile, Symbol, doc_start, estimate_tokens, last_row, line_chunks, markdown_chunks,
                     meaningful, owned_lines, window)
from .languages.clang import SPECIFIERS, anonymous_type_name, for_parser, function_name, macro_calls
from .labels import NAME_OF, breadcrumb, signature
from .languages import (DECLARED_TYPES, GRAMMARS, IMPLICIT_THIS, NAME_TYPES, SPECS, LangSpec, dart, elixir, graphql,
                        hcl, is_classy, keyword, lua, protobuf, scala, solidity, sql, swift, zig)
from .refs import (EXPRESSION, REQUIRE_LANGUAGES, SELF_RECEIVERS, Ref, callee, heritage, imports_of, last_ident,
                   receiver_call, receiver_key, record_require, required_module, ruby_directive, rust_mod_declaration)
from .typed import (AWAITED, DECLARED_NODES, HOLDS, LOCAL_TYPE_NODES, RETURNED, aliased, declared_type, declared_types,
                    held_through, local_type, parameter_property, rust_types)

__all__ = ["CHUNKER_VERSION", "Chunk", "ParsedFile", "Symbol", "estimate_tokens", "parse_file", "window"]

log = logging.getLogger("memory_graph.codebase")

#: bumped whenever the same source would give other chunks or symbols, so existing indexes are cut again:
#: 2 = doc comments join their definitions, JavaScript's assigned functions, module code split per stretch;
#: 3 = calls record their receiver; 4 = Python's `import a.b` binds a, `import x as y` binds y; 5 = calls of
#: private members keep their mark (`this.#update()`); 6 = a file not in UTF-8 is read in its declared encoding
#: or Windows-1252; 7 = Rust's `super::f()` is a path, not a base's method, and PHP's `parent::` and C#'s `base.`
#: are `super`; C++'s `int A::run() {}` is the method A.run; Python's `from m import *` is recorded; 8 =
#: module-level bindings (Python, JavaScript, TypeScript, Go, Rust) are symbols; 9 = not inside a module-level
#: loop; 10 = bindings in a class body (Python class attributes and fields, JavaScript and TypeScript class
#: fields) are symbols; 11 = calls on a variable or attribute annotated with or assigned a class record it
#: (Ref.typed); 12 = and what a function returns to them or a `with` (`eng = engine()`); 13 = a class's
#: attributes assigned a class are recorded (`holds` refs), so a subclass's `self.store.save()` resolves; 14 =
#: JavaScript's and TypeScript's re-exports (`export { a } from "./b"`, `export * from "./b"`) are imports, so
#: a name imported from a barrel file (`utils/index.ts`) resolves; 15 = Ruby's modules and Rust's inline `mod`s
#: are namespaces (kind "module" is a file's own), Rust's `mod error;` imports error.rs, Ruby's `include M` makes M
#: a base and `require` an import; 16 = C's and C++'s macros and typedefs are symbols, a `.h` may be C++, and
#: the parser reads C and C++ with some macros blanked (``clang.for_parser``); 17 = Java, Kotlin and Go calls
#: record the declared types of variables, fields and Go's receivers, and `s.store.save()` the class and
#: attribute, and a call on a call's result the inner call (`Store@open()`); Java's fields, Kotlin's properties
#: and Go's struct fields are attributes, Go's interface methods members, and a Go method of an unexported type
#: is that type's; 18 = C# calls record declared types too (and `using A.B;` binds no name), a file-scoped
#: `namespace A.B;` holds the declarations after it, and Java's catch parameters and `var x = make()` are
#: typed; 19 = TypeScript's annotations are read as the language's types (`Map<K, V>`, `string`, `Store[]` are a
#: library's), private `#fields` and constructor parameter properties hold their types, and a variable assigned
#: another (`self.store = store`) holds what that one does; a TypeScript interface's members and an abstract
#: class's abstract methods are symbols (in its chunk); 20 = an awaited call's result is typed (`u = await
#: repo.get()`, `(await repo.get()).x()`), C#'s chains are, and a variable assigned a method's result holds it
#: through its receiver's class (`Repo@=get()`); 21 = Rust's parameters, `let`s and struct fields record their
#: declared types (`?`, `.unwrap()`, `.await` unwrap a function's result), `impl Deref` names its Target as a
#: base; 22 = a Rust type parameter holds the trait it is bound by (`<W: io::Write>`, `where W: Sink`), a
#: trait's required methods and enum variants are symbols, a Kotlin interface is of kind interface, a Python
#: ``@abstractmethod``'s signature says so; 23 = a C++ pure virtual method (``virtual void f() = 0;``) is a
#: symbol; 24 = Vue and Svelte components are parsed as their scripts (``codebase.components``), and Swift is
#: parsed (``codebase.swift``); 25 = Lua (``codebase.lua``) and Terraform (``codebase.hcl``) are parsed, and a
#: CommonJS ``require`` is an import, not a variable; 26 = Scala is parsed (``codebase.scala``), a definition ends
#: on its last line of text (an indented body had reached the next definition), and a Terraform module block
#: reaches its child's variables and outputs; 27 = Dart is parsed (``codebase.dart``), a Scala def without a body
#: is marked abstract, and a bare call that a Java, Kotlin, C#, C++, Swift, Scala or Dart class's hierarchy
#: does not answer is no other class's method; 28 = Elixir (``codebase.elixir``) and Solidity
#: (``codebase.solidity``) are parsed; 29 = SQL (``codebase.sql``) is; 30 = Protocol Buffers
#: (``codebase.protobuf``); 31 = GraphQL (``codebase.graphql``); 32 = a GraphQL schema definition names the root
#: types, a GraphQL document in JavaScript, TypeScript or Python (``gql`...```) uses the schema's fields, and an
#: escape in a GraphQL string is parsed; 33 = Zig (``codebase.zig``). A re-cut file re-embeds only the chunks whose
#: text changed; 34 = a JavaScript or TypeScript file that fails to parse is parsed again without its top-level
#: statements that fail alone (``codebase.reparse``); 35 = a function in a cast or given to ``Object.assign``
#: is a definition (``bindings.function_value``); 36 = every file is read again once, so that one holding a
#: secret (``memory_graph.secrets``) leaves an index made before files were scanned for them.
CHUNKER_VERSION = "36"



@lru_cache(maxsize=None)
def _parser(language: str):
    from tree_sitter_language_pack import get_parser

    return get_parser(GRAMMARS.get(language, language))


def parse_file(path: str, text: str, language: str, max_tokens: int = 210, overlap_lines: int = 2) -> ParsedFile:
    """Chunks, symbols and references of one file. Never raises on malformed source: it falls back to lines."""
    out = ParsedFile(path, language)
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    stem = PurePosixPath(path).stem
    out.symbols.append(Symbol(stem, "", "module", path, 1, max(1, len(lines))))
    spec = SPECS.get(language)
    raw: list[Chunk] = []
    if spec is not None:
        try:
            raw = _definitions(out, "\n".join(lines), lines, spec, language)
            if out.parse_error and language in reparse.LANGUAGES:
                out, raw = _without_broken_statements(out, raw, path, lines, spec, language)
        except Exception as exc:  # a grammar bug must not stop an index run
            log.warning("could not parse %s (%s); indexing it in line windows", path, exc)
            out.parse_error = True
            del out.symbols[1:]
            out.qualnames.clear()
            out.refs.clear()
            raw = []
        if out.parse_error and len(out.symbols) == 1:
            raw = []
        if not raw and len(out.symbols) == 1:
            raw = line_chunks(lines, path)
    elif language in ("markdown", "rst"):
        raw = markdown_chunks(lines, path)
    else:
        raw = line_chunks(lines, path)
    for ch in raw:
        out.chunks.extend(window(ch, path, max_tokens, overlap_lines))
    return out


def _without_broken_statements(out: ParsedFile, raw: list[Chunk], path: str, lines: list[str], spec: LangSpec,
                               language: str) -> tuple[ParsedFile, list[Chunk]]:
    """The file parsed again with its top-level statements that fail alone blanked, and those statements as line
    windows (their text stays searchable); the first parse if that one is no better."""
    parser = _parser(language)
    broken = reparse.broken_spans(lines, lambda t: parser.parse(t.encode("utf-8", "surrogatepass")).root_node.has_error)
    if not broken:
        return out, raw
    again = ParsedFile(path, language)
    again.symbols.append(out.symbols[0])
    blanked = reparse.blank(lines, broken)
    chunks = _definitions(again, "\n".join(blanked), blanked, spec, language)
    # only if it recovers definitions: where tree-sitter's own recovery kept them all, the first parse also
    # keeps the broken statement's
    if again.parse_error or not {s.name for s in again.symbols} - {s.name for s in out.symbols}:
        return out, raw
    for a, b in broken:
        for ch in line_chunks(lines[a:b], path):
            ch.start_line, ch.end_line = ch.start_line + a, min(ch.end_line + a, b)
            chunks.append(ch)
    again.parse_error = False
    return again, sorted(chunks, key=lambda c: (c.start_line, c.end_line))


# ---- tree-sitter definitions ------------------------------------------------
def _definitions(out: ParsedFile, text: str, lines: list[str], spec: LangSpec, language: str) -> list[Chunk]:
    data = text.encode("utf-8", errors="surrogatepass")
    tree = _parser(language).parse(for_parser(data) if language in ("c", "cpp", "objc") else
                                   graphql.for_parser(data) if language == "graphql" else data)
    if language == "swift" and tree.root_node.has_error and b"#if" in data:
        first_branches = _parser(language).parse(swift.for_parser(data))
        tree = tree if first_branches.root_node.has_error else first_branches
    root = tree.root_node
    out.parse_error = bool(root.has_error)
    nlines = len(lines)
    owner: list[int] = [-1] * nlines          # index into out.symbols of the innermost definition per line
    defs: list[tuple[int, int, int]] = []     # (symbol index, first line, last line), 0-based lines
    classes: dict[int, dict[str, str]] = {}   # per symbol index: variable -> the class it holds (local_type)
    ranks: dict[tuple[int, str], int] = {}    # how surely each of those is known (_typed)
    calls: list[tuple[Ref, int]] = []         # each call with the index of the symbol it is made in
    call_at: dict[tuple[int, int], Ref] = {}  # each call by its bytes
    chained: list[tuple[Ref, tuple[int, int], str]] = []  # a call on a call's result: the inner call's bytes, mark
    parents: dict[int, int] = {}              # symbol index -> the index of the symbol it is defined in
    aliases: dict[str, tuple[str, str]] = {}  # Lua: a short name -> the (table, field) it was bound to
    bare: list[Ref] = []                      # Scala, Dart: each name read as a value, kept if a parameterless def's
    adopted: dict[tuple[int, int], int] = {}  # Dart: a function body's bytes -> its signature's symbol
    clauses: dict[int, int] = {}              # Elixir: a def's start byte -> its function's symbol
    def_at: dict[int, int] = {}               # symbol index -> its place in defs

    def held(receiver: str, scope: int) -> str:
        """The class a receiver holds in a scope: a variable's, or an attribute's of the enclosing class."""
        owner_cls = _attribute_owner(out, parents, scope, receiver)
        key = receiver.split(".", 1)[-1] if owner_cls is not None else receiver
        found = classes.get(scope if owner_cls is None else owner_cls, {}).get(key, "")
        outer = parents.get(scope)
        while not found and language in IMPLICIT_THIS and owner_cls is None and outer is not None:
            found = classes.get(outer, {}).get(key, "") if is_classy(out.symbols[outer].kind) else ""
            outer = parents.get(outer)  # `mStore.save()` in a method, or in a lambda's class: a field
        # a name a function does not bind is the module's (`registry = Registry()` at the top of the file)
        return found or (classes.get(0, {}).get(receiver, "") if owner_cls is None and "." not in receiver else "")

    # iterative walk: (node, index of the enclosing symbol, inside a function body?)
    root_types = graphql.roots(root) if language == "graphql" else graphql.ROOTS
    stack = [(root, 0, False)]
    while stack:
        node, scope, in_func = stack.pop()
        if adopted and (node.start_byte, node.end_byte) in adopted:  # Dart: the body beside its signature
            scope, in_func = adopted.pop((node.start_byte, node.end_byte)), True
        if language == "elixir" and elixir.skipped(node):
            continue  # a typespec or a document: nothing in it is called
        sym_here = scope
        kind = elixir.kind_of(node) if language == "elixir" else zig.kind_of(node) if language == "zig" else \
            graphql.kind_of(node, root_types) if language == "graphql" else spec.definitions.get(node.type)
        for var, cls, rank in _typed(node, language, classes.get(scope, {})):
            cls = held_through(cls, lambda receiver: held(receiver, scope))  # `u = repo.get()`, repo: Repo
            # Rust's `s: &Self`; Zig's Self is a constant (`const Self = @This();`) its resolver reads
            cls = _own_type(out, parents, scope) if cls == "Self" and language != "zig" else cls
            holder = _attribute_owner(out, parents, scope, var)  # `self.store = Store()`: the class's
            at = scope if holder is None else holder
            key = var.split(".", 1)[-1]
            # a class named outright outweighs what some call returns (`self.name = val.capitalize()`), which
            # outweighs what another variable holds (`node = obj` where `obj: Any`, then `node = traverse(obj)`)
            if rank >= ranks.get((at, key), 0):
                classes.setdefault(at, {})[key], ranks[at, key] = cls, rank
        binding = None if in_func or kind and language == "graphql" else \
            binding_kind(node, spec, out.symbols[scope].kind)
        if binding and language == "lua" and lua.bind_aliases(node, aliases, out.imports):
            pass  # `local insert = table.insert`: a call of insert is table.insert's
        elif binding and not in_loop(node) and not in_lambda(node) and \
                (bound := make_variable(node, binding, out, scope)):
            if language == "graphql" and out.symbols[-1].qualname == bound:
                sym_here = len(out.symbols) - 1  # what a field's type names is the field's use
            # its lines stay in the module's or class's chunk; calls in its value are that scope's, but a
            # macro's body is no parse tree: what it calls is the macro's
            if binding == "macro":
                out.refs.extend(Ref(bound, "calls", name, line) for name, line in macro_calls(node))
        elif node.type == "mod_item" and node.child_by_field_name("body") is None:
            rust_mod_declaration(node, out, out.path)
        elif kind and not in_func and language == "elixir" and \
                (first := clauses.get(elixir.previous_clause(node))) is not None:
            sym_here, in_func = first, True  # `defp walk([h | t])` after `defp walk([])`: one function
            clauses[node.start_byte] = first
            defs[def_at[first]] = (first, defs[def_at[first]][1], min(last_row(node), nlines - 1))
        elif kind and not in_func:
            made = _make_symbol(node, kind, out, scope, language, spec)
            if made is not None:
                clauses[node.start_byte], def_at[made] = made, len(defs)
                sym_here = made
                parents[made] = scope
                anchor = dart.first_of(node) if language == "dart" else elixir.first_of(node) \
                    if language == "elixir" else node
                # decorators, `export`, `type (...)` and `const f = ...` belong to the definition's chunk
                while anchor.parent is not None and anchor.parent.type in _WRAPPERS:
                    anchor = anchor.parent
                start = doc_start(anchor)
                body = dart.body_of(node) if language == "dart" else None
                if body is not None:
                    adopted[(body.start_byte, body.end_byte)] = made
                end = min(last_row(node if body is None else body), nlines - 1)
                defs.append((made, start, end))
                in_func = not is_classy(out.symbols[made].kind)
                if node.type == "file_scoped_namespace_declaration":  # C#'s `namespace A.B;` holds what follows
                    stack = [(n, made if n.parent == node.parent and n.start_byte > node.start_byte else s, f)
                             for n, s, f in stack]
        elif language == "elixir" and (bound := elixir.directive(node, out.imports, own := elixir.enclosing(
                out.symbols, parents, scope))) is not None:
            for name, module in bound:  # alias, import, require, use
                out.refs.append(Ref("", "imports", module, node.start_point[0] + 1))
                if name:
                    out.imports[name] = module
        elif language == "elixir" and (base := elixir.behaviour(node, out.imports, own)):
            out.refs.append(Ref(own, "implements", base, node.start_point[0] + 1))
        elif language == "elixir":
            if (made_call := elixir.call(node, out.imports, own)) is not None:
                out.refs.append(Ref(out.symbols[scope].qualname, "calls", made_call[0], node.start_point[0] + 1,
                                    made_call[1]))
        elif language == "zig" and (made_calls := zig.calls(node) if node.type == "SuffixExpr" else None):
            for name, receiver, at in made_calls:
                out.refs.append(Ref(out.symbols[scope].qualname, "calls", name, at.start_point[0] + 1, receiver))
                calls.append((out.refs[-1], scope))
        elif language == "zig" and (bound := zig.directive(node, out.symbols[scope].qualname, zig.enclosing(
                out.symbols, parents, scope))) is not None:
            key, value, module = bound  # `const mem = @import("mem.zig");`, `const Self = @This();`
            if module:
                out.refs.append(Ref("", "imports", module, node.start_point[0] + 1))
            if key:
                out.imports[key] = value
        elif language == "ruby" and node.type in ("call", "super") and ruby_directive(
                node, out, out.symbols[scope], is_classy(out.symbols[scope].kind) and not in_func):
            pass  # include, require, super: a base type, an import, a call of the base's method
        elif language == "hcl" and node.type == "expression" and (address := hcl.reference(node)):
            out.refs.append(Ref(out.symbols[scope].qualname, "calls", address, node.start_point[0] + 1))
            if output := hcl.module_output(node):  # the child's output, found through the module block
                out.refs.append(Ref(out.symbols[scope].qualname, "calls", f"output.{output}",
                                    node.start_point[0] + 1, address))
        elif language == "hcl" and node.type == "attribute" and (source := hcl.module_source(node)):
            out.refs.append(Ref(out.symbols[scope].qualname, "imports", source, node.start_point[0] + 1))
        elif language == "hcl" and node.type == "attribute" and (variable := hcl.module_input(node)):
            qual = out.symbols[scope].qualname  # `cidr = ...` in `module "vpc"` sets the child's var.cidr
            out.refs.append(Ref(qual, "calls", f"var.{variable}", node.start_point[0] + 1, qual))
        elif language == "scala" and (read := scala.member_read(node)) is not None:
            # `cart.total` calls Cart's `def total` when it is one: the resolver keeps only such reads
            out.refs.append(Ref(out.symbols[scope].qualname, "reads", read[0], node.start_point[0] + 1,
                                receiver_key(read[1], language)))
            calls.append((out.refs[-1], scope))
        elif language == "scala" and node.type == "identifier" and (read := scala.bare_read(node)):
            bare.append(Ref(out.symbols[scope].qualname, "reads", read, node.start_point[0] + 1))
        elif language == "dart" and (read := dart.member_read(node)) is not None:
            out.refs.append(Ref(out.symbols[scope].qualname, "reads", read[0], node.start_point[0] + 1,
                                receiver_key(read[1], language)))
            calls.append((out.refs[-1], scope))
        elif language == "dart" and (read := dart.bare_read(node)):
            bare.append(Ref(out.symbols[scope].qualname, "reads", read, node.start_point[0] + 1))
        elif language == "dart" and node.type in spec.calls and (made_call := dart.call(node)) is not None:
            name, receiver, inner = made_call
            out.refs.append(Ref(out.symbols[scope].qualname, "calls", name, node.start_point[0] + 1,
                                receiver_key(receiver, language)))
            calls.append((out.refs[-1], scope))
            call_at[(node.start_byte, node.end_byte)] = out.refs[-1]
            if inner is not None:  # `repo.find().save()`: typed by what `find` returns, once `repo` is typed
                chained.append((out.refs[-1], (inner.start_byte, inner.end_byte), ""))
        elif language == "dart" and node.type in spec.calls:
            pass  # a member or index selector, or a call of a call's result
        elif node.type in graphql.NODES and language in graphql.HOSTS and \
                (used := graphql.embedded_uses(node, _parser, out.symbols, out.symbols[scope].qualname)):
            out.refs.extend(Ref(user, kind, name, row + 1, path) for user, kind, name, path, row in used)
        elif node.type in spec.calls and language in REQUIRE_LANGUAGES and (module := required_module(node)):
            record_require(node, module, out)
        elif node.type in spec.calls and not (language == "swift" and swift.is_subscript(node)) and \
                not (language == "sql" and sql.is_no_use(node)):
            name, receiver = callee(node, spec.calls[node.type], language)
            if language == "lua":
                name, receiver = lua.call_target(name, receiver, node, aliases)
            if name:
                out.refs.append(Ref(out.symbols[scope].qualname, "calls", name, node.start_point[0] + 1,
                                    receiver))
                calls.append((out.refs[-1], scope))
                call_at[(node.start_byte, node.end_byte)] = out.refs[-1]
                inner, awaited = receiver_call(node, spec.calls[node.type], spec.calls, language) \
                    if receiver == EXPRESSION else (None, False)
                if inner is not None:  # `a.open().save()`: typed by what `open` returns, once `a` is typed
                    chained.append((out.refs[-1], (inner.start_byte, inner.end_byte), AWAITED if awaited else ""))
        elif node.type in spec.imports or (node.type == "export_statement" and
                                           node.child_by_field_name("source") is not None):
            imports_of(node, out)
        # a Lua function value's body (`setup({ on_attach = function() ... end })`) binds its own locals
        in_func = in_func or (language == "lua" and node.type == "function_definition")
        for child in reversed(node.named_children):
            stack.append((child, sym_here, in_func))

    # `def total = price * n`: a read of the file's `def price` is a call of it (a local of that name is rare);
    # so is Dart's tear-off of a method (`onPressed: _increment`), which is how a widget's handler is called
    if bare:
        read = {s.name for s in out.symbols if s.kind in ("function", "method") and (
            "(" not in s.signature or language == "dart" and not s.name[:1].isupper())}  # not a constructor
        out.refs.extend(ref for ref in bare if ref.name in read)
    for ref, scope in calls:  # after the walk: a method may use what __init__, defined below it, assigns
        ref.typed = held(ref.receiver, scope)
        root, _, attr = ref.receiver.rpartition(".")
        if not ref.typed and root and root not in SELF_RECEIVERS and (cls := held(root, scope)):
            ref.typed = cls + HOLDS + attr  # `s.store.Save()`: the resolver reads what the class's `store` holds
    for ref, inner_at, mark in reversed(chained):  # an inner call is recorded after the call made on its result
        inner = call_at.get(inner_at)
        if inner is not None and not ref.typed and inner.typed:
            ref.typed = inner.typed + HOLDS + mark + inner.name + RETURNED
        elif inner is not None and not ref.typed and inner.receiver != EXPRESSION:
            ref.typed = mark + (inner.receiver + "." if inner.receiver else "") + inner.name + RETURNED
    for idx, attrs in classes.items():  # what subclasses, in other files too, find on `self.store`
        if is_classy(out.symbols[idx].kind):
            out.refs.extend(Ref(out.symbols[idx].qualname, "holds", attr, out.symbols[idx].start_line, "", cls)
                            for attr, cls in sorted(attrs.items()) if not cls.endswith(RETURNED))
    for idx, start, end in sorted(defs, key=lambda d: (d[1], -d[2])):
        for i in range(start, end + 1):
            owner[i] = idx
    chunks: list[Chunk] = []
    by_qual = {x.qualname: x for x in out.symbols}
    for idx, start, end in sorted(defs, key=lambda d: (d[1], -d[2])):
        s = out.symbols[idx]
        s.start_line, s.end_line = start + 1, end + 1
        body, line_map = owned_lines(lines, owner, idx, start, end)
        if meaningful(body):
            chunks.append(Chunk(start + 1, end + 1, s.kind, s.name, breadcrumb(out, idx, language, by_qual), body,
                                s.qualname, s.signature, line_map))
    for first, last in _module_runs(owner):
        body, line_map = owned_lines(lines, owner, -1, first, last)
        if meaningful(body):
            shown = [n for n in line_map if n]
            chunks.append(Chunk(shown[0], shown[-1], "module", PurePosixPath(out.path).name, "", body, "",
                                line_map=line_map))
    return sorted(chunks, key=lambda c: (c.start_line, c.end_line))


def _typed(node, language: str, known: dict[str, str]) -> list[tuple[str, str, int]]:
    """(variable, class, rank) of each variable ``node`` gives a known class (``local_type``,
    ``declared_types``); rank 3 for a class named outright, 2 for what a function returns (RETURNED), 1 for
    what another variable of the scope holds (``known``: variable -> class)."""
    if language == "rust":
        found = rust_types(node)
    elif language == "scala":
        found = scala.declared(node) if node.type in scala.DECLARING else []
    elif language == "dart":
        found = dart.declared(node) if node.type in dart.DECLARING else []
    elif language == "zig":
        found = zig.declared(node) if node.type in zig.DECLARING else []
    elif language in DECLARED_TYPES:
        found = declared_types(node) if node.type in DECLARED_NODES or node.type == "variable_declarator" else []
    else:
        typed = local_type(node) if node.type in LOCAL_TYPE_NODES else None
        found = [typed] if typed else []
        if typed is None and (alias := aliased(node)) is not None and (held := known.get(alias[1], "")):
            return [(alias[0], held, 1)]  # `self.store = store`, where the parameter `store: Store`
        if typed is not None and (prop := parameter_property(node)):
            found.append((prop, typed[1]))  # TypeScript's `constructor(private store: Store)`
    return [(var, cls, 2 if cls.endswith(RETURNED) else 3) for var, cls in found]


def _own_type(out: ParsedFile, parents: dict[int, int], scope: int) -> str:
    """The name of the type whose body (a Rust ``impl``) holds ``scope``, without type parameters, or ""."""
    while scope and not is_classy(out.symbols[scope].kind):
        scope = parents.get(scope, 0)
    return re.sub(r"<.*", "", out.symbols[scope].name) if scope else ""


def _attribute_owner(out: ParsedFile, parents: dict[int, int], scope: int, name: str) -> int | None:
    """The index of the class whose attribute ``name`` is (``self.store`` or ``this.store`` in one of its
    methods; ``store`` in its body), else None. ``parents``: symbol index -> its enclosing symbol's."""
    if is_classy(out.symbols[scope].kind):
        return scope if "." not in name else None
    first, _, rest = name.partition(".")
    cls = parents.get(scope)
    if first not in SELF_RECEIVERS or not rest or "." in rest or cls is None or not is_classy(out.symbols[cls].kind):
        return None
    return cls


MODULE_GAP_LINES = 2


def _module_runs(owner: list[int]) -> list[tuple[int, int]]:
    """The stretches (first, last line, 0-based) of module-level code, split where a definition of more than
    ``MODULE_GAP_LINES`` lines lies between: a chunk's lines are what a reader opens, and one module chunk
    of imports, a constant and a main block would span every definition in the file."""
    runs: list[tuple[int, int]] = []
    for i, o in enumerate(owner):
        if o != -1:
            continue
        if runs and i - runs[-1][1] - 1 <= MODULE_GAP_LINES:
            runs[-1] = (runs[-1][0], i)
        else:
            runs.append((i, i))
    return runs


_WRAPPERS = frozenset({"decorated_definition", "export_statement", "type_declaration", "lexical_declaration",
                       "variable_declaration", "expression_statement", "statement"})  # SQL's statement
def _name_node(node, kind: str):
    if node.type == "impl_item":
        return node.child_by_field_name("type")
    n = node.child_by_field_name("name") or node.child_by_field_name("property")
    if n is not None:  # a C++ specialization `struct is_char<char>` is one of is_char's
        return n.child_by_field_name("name") or n if n.type == "template_type" else n
    d = node.child_by_field_name("declarator")
    while d is not None and d.type not in NAME_TYPES:
        nxt = d.child_by_field_name("declarator")
        if nxt is None:
            nxt = next((c for c in d.named_children if c.type in NAME_TYPES), None)
        d = nxt
    if d is not None:
        return d
    return next((c for c in node.named_children if c.type in NAME_TYPES), None)


def _make_symbol(node, kind: str, out: ParsedFile, scope: int, language: str, spec: LangSpec) -> int | None:
    if node.type in SPECIFIERS and node.child_by_field_name("body") is None:
        return None  # a use of the type, not its definition
    if node.type in ("variable_declarator", "field_definition", "public_field_definition") and language != "graphql":
        value = node.child_by_field_name("value")  # `handleClick = (e) => {...}` in a class is a method
        if function_value(value) is None:
            return None
    owner = None
    if node.type == "assignment_expression" or language == "lua":
        assigned = assigned_function(node) if node.type == "assignment_expression" else \
            lua.function_name(node) if node.type == "function_declaration" else lua.assigned_function(node)
        if assigned is None:
            return None
        name, owner = assigned
    elif language == "hcl":
        block = hcl.block(node)
        if block is None:
            return None
        name, owner, kind = block
    elif language == "dart":
        found = dart.definition(node)
        if found is None:
            return None
        name, kind = found
    elif language == "elixir":  # a module by its full name: `defmodule Inner` in Shop is Shop.Inner
        own = out.symbols[scope].qualname if is_classy(out.symbols[scope].kind) else ""
        defined = elixir.definition(node, out.imports, own)
        if defined is None:
            return None
        name, kind, absolute = defined
        dotted, _, short = name.rpartition(".")
        owner = dotted if absolute else ".".join(p for p in (own, dotted) if p)
        if is_classy(kind) and own and not absolute:  # and `Inner` names it in Shop
            out.imports[name.split(".")[0]] = f"{own}.{name.split('.')[0]}"
        name = short
    else:
        name_node = (node.type == "function_definition" and language in _C_LIKE and function_name(node)) or \
            (node.type in SPECIFIERS and anonymous_type_name(node)) or _name_node(node, kind)
        # Solidity's constructor, fallback and receive; SQL's `CREATE TABLE public.orders`; a GraphQL fragment's
        name = NAME_OF[language](node) if language in NAME_OF else ""
        if name_node is None and not name:
            return None
        name = name or name_node.text.decode("utf-8", errors="replace").strip()
        owner = (scala.extended_type(node) or None) if language == "scala" else \
            (protobuf.package_of(node) or None) if language == "protobuf" else None  # shop.v1.Cart
    if node.type in ("type_spec",):
        kind = "struct" if any(c.type == "struct_type" for c in node.named_children) else (
            "interface" if any(c.type == "interface_type" for c in node.named_children) else "type")
    elif language == "kotlin" and kind == "class" and any(c.type == "interface" for c in node.children):
        kind = "interface"  # Kotlin writes `interface Saver` as a class declaration
    elif language == "swift" and node.type == "class_declaration":
        kind = swift.kind_of(node)
    elif language == "objc" and node.type == "class_interface" and node.child_by_field_name("category"):
        kind = "impl"  # `@interface Store (Disk)`, a category: methods it adds to Store
    elif language == "scala" and node.type == "object_definition" and scala.is_companion(node):
        kind = "impl"  # `object Cart` beside `class Cart`: `Cart.empty()` is the class's
    parent = out.symbols[scope]
    if node.type == "method_declaration" and language == "go":
        recv = node.child_by_field_name("receiver")
        param = next((c for c in recv.named_children if c.type == "parameter_declaration"), None) \
            if recv is not None else None
        typ = param.child_by_field_name("type") if param is not None else None
        # `(s *Stack[T])`: the type's name, exported or not (`func (h *httpAPI) Query`)
        prefix = declared_type(re.sub(r"\[.*\]", "", typ.text.decode("utf-8", errors="replace"))) \
            if typ is not None else ""
    elif owner is not None:
        prefix = owner
        kind = kind if language in ("hcl", "elixir", "protobuf") else "method" if owner else "function"
    elif language == "cpp" and "::" in name and kind == "function":  # int A::run() {...}, outside class A
        qualifier = [q for q in re.sub(r"<[^<>]*>", "", name).split("::")[:-1] if q]
        prefix = ".".join([p for p in [parent.member_prefix or parent.qualname] if p] + qualifier)
        if qualifier and not any(s.kind == "namespace" and s.name == qualifier[-1] for s in out.symbols):
            kind = "method"
    else:
        prefix = parent.member_prefix or parent.qualname
    if kind == "function" and parent.kind in MEMBER_OF and language != "elixir":  # a protocol's are functions
        kind = "method"
    if kind == "function" and node.type == "method_declaration":
        kind = "method"
    short = re.split(r"::|\.", name)[-1] or name
    qual = f"{prefix}.{short}" if prefix else short
    member_prefix = ""
    trait = node.child_by_field_name("trait") if node.type == "impl_item" else None
    if node.type == "impl_item":
        member_prefix = qual
        qual = f"impl {last_ident(trait.text.decode())} for {short}" if trait is not None else f"impl {short}"
    elif kind == "impl":  # Swift's `extension Cache`, Objective-C's `@implementation Cache`: members are Cache's
        word = "@interface" if node.type == "class_interface" else keyword(language, "impl")
        member_prefix, qual = qual, f"{word} {qual}"
    while qual in out.qualnames:  # overloads: keep every one
        qual += "'"
    sig = signature(node, language)
    if language == "dart" and dart.is_abstract(node) or language == "scala" and node.type == "function_declaration" \
            or language == "solidity" and solidity.is_abstract(node) and parent.kind != "interface":
        sig = f"abstract {sig}"  # a body-less method: what subclasses implement, which `callees` lists
    if language == "python" and node.parent is not None and node.parent.type == "decorated_definition" and any(
            d.text.decode("utf-8", errors="replace").endswith("abstractmethod") for d in node.parent.named_children
            if d.type == "decorator"):
        sig = f"@abstractmethod {sig}"  # what its subclasses implement: `callees` lists them
    out.symbols.append(Symbol(short, qual, kind, sig, node.start_point[0] + 1, node.end_point[0] + 1,
                              parent.qualname, member_prefix))
    out.qualnames.add(qual)
    idx = len(out.symbols) - 1
    if trait is not None:
        out.refs.append(Ref(qual, "implements", last_ident(trait.text.decode()), node.start_point[0] + 1))
    if language == "elixir" and (protocol := elixir.protocol_of(node, out.imports, parent.qualname)):
        out.refs.append(Ref(qual, "implements", protocol, node.start_point[0] + 1))
    elif is_classy(kind):
        for rel, target in heritage(node, spec, language):
            out.refs.append(Ref(qual, rel, target, node.start_point[0] + 1))
    return idx


_C_LIKE = frozenset({"c", "cpp", "objc"})
