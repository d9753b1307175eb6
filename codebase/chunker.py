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
from pathlib import PurePosixPath

from . import reparse
from .bindings import MEMBER_OF, binding_kind, in_lambda, in_loop, make_variable
from .chunks import (Chunk, ParsedFile, Symbol, doc_start, estimate_tokens, last_row, line_chunks, markdown_chunks,
                     meaningful, owned_lines, window)
from .labels import breadcrumb
from .languages import IMPLICIT_THIS, PROSE, SPECS, LangSpec, is_classy, keyword
from .languages.base import Language, language_named, parser_for
from .refs import (EXPRESSION, SELF_RECEIVERS, Ref, imports_of, last_ident, receiver_call, record_require,
                   required_module)
from .typed import AWAITED, HOLDS, RETURNED, held_through
from .walk import Walk

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



_parser = parser_for


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
            if out.parse_error and language_named(language).reparses:
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
    elif language in PROSE:
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
    lang = language_named(language)
    data = text.encode("utf-8", errors="surrogatepass")
    parser = _parser(language)
    tree = lang.reparsed(parser.parse(lang.for_parser(data)), data, parser.parse)
    root = tree.root_node
    out.parse_error = bool(root.has_error)
    nlines = len(lines)
    owner: list[int] = [-1] * nlines          # index into out.symbols of the innermost definition per line
    classes: dict[int, dict[str, str]] = {}   # per symbol index: variable -> the class it holds (local_type)
    ranks: dict[tuple[int, str], int] = {}    # how surely each of those is known (_typed)
    w = Walk(out, spec)
    parents, defs = w.parents, w.defs

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
    w.state = lang.begin(root)
    stack = [(root, 0, False)]
    while stack:
        node, scope, in_func = stack.pop()
        if w.adopted and (node.start_byte, node.end_byte) in w.adopted:  # a body beside its signature
            scope, in_func = w.adopted.pop((node.start_byte, node.end_byte)), True
        if lang.skipped(node):
            continue
        sym_here = scope
        kind = lang.definition_kind(node, w)
        for var, cls, rank in lang.typed(node, classes.get(scope, {})):
            cls = held_through(cls, lambda receiver: held(receiver, scope))  # `u = repo.get()`, repo: Repo
            cls = _own_type(out, parents, scope) if cls == "Self" and lang.self_is_own_type else cls  # `s: &Self`
            holder = _attribute_owner(out, parents, scope, var)  # `self.store = Store()`: the class's
            at = scope if holder is None else holder
            key = var.split(".", 1)[-1]
            # a class named outright outweighs what some call returns (`self.name = val.capitalize()`), which
            # outweighs what another variable holds (`node = obj` where `obj: Any`, then `node = traverse(obj)`)
            if rank >= ranks.get((at, key), 0):
                classes.setdefault(at, {})[key], ranks[at, key] = cls, rank
        binding = None if in_func or kind and not lang.definitions_bind else \
            binding_kind(node, spec, out.symbols[scope].kind)
        if binding and lang.binds_alias(node, w):
            pass
        elif binding and not in_loop(node) and not in_lambda(node) and \
                (bound := make_variable(node, binding, out, scope, lang)):
            if lang.binding_is_scope and out.symbols[-1].qualname == bound:
                sym_here = len(out.symbols) - 1  # what a field's type names is the field's use
            # its lines stay in the module's or class's chunk; calls in its value are that scope's, but a
            # macro's body is no parse tree: what it calls is the macro's
            if binding == "macro":
                out.refs.extend(Ref(bound, "calls", name, line) for name, line in lang.macro_calls(node))
        elif lang.declaration(node, w):
            pass
        elif kind and not in_func and (first := lang.continued_definition(node, w)) is not None:
            sym_here, in_func = first, True  # `defp walk([h | t])` after `defp walk([])`: one function
            w.clauses[node.start_byte] = first
            defs[w.def_at[first]] = (first, defs[w.def_at[first]][1], min(last_row(node), nlines - 1))
        elif kind and not in_func:
            made = _make_symbol(node, kind, out, scope, lang, spec)
            if made is not None:
                w.clauses[node.start_byte], w.def_at[made] = made, len(defs)
                sym_here = made
                parents[made] = scope
                anchor = lang.definition_start(node)
                # decorators, `export`, `type (...)` and `const f = ...` belong to the definition's chunk
                while anchor.parent is not None and anchor.parent.type in _WRAPPERS:
                    anchor = anchor.parent
                start = doc_start(anchor)
                body = lang.definition_body(node)
                if body is not None:
                    w.adopted[(body.start_byte, body.end_byte)] = made
                end = min(last_row(node if body is None else body), nlines - 1)
                defs.append((made, start, end))
                in_func = not is_classy(out.symbols[made].kind)
                if node.type == "file_scoped_namespace_declaration":  # C#'s `namespace A.B;` holds what follows
                    stack = [(n, made if n.parent == node.parent and n.start_byte > node.start_byte else s, f)
                             for n, s, f in stack]
        elif lang.visit(node, w, scope, in_func):
            pass  # the language's own statements: directives, reads, calls of its own shape
        elif node.type in spec.calls and lang.requires and (module := required_module(node)):
            record_require(node, module, out)
        elif node.type in spec.calls and lang.is_call(node):
            name, receiver = lang.callee(node, spec.calls[node.type])
            name, receiver = lang.call_target(name, receiver, node, w)
            if name:
                w.call(scope, name, node, receiver)
                w.call_at[(node.start_byte, node.end_byte)] = out.refs[-1]
                inner, awaited = receiver_call(node, spec.calls[node.type], spec.calls, lang) \
                    if receiver == EXPRESSION else (None, False)
                if inner is not None:  # `a.open().save()`: typed by what `open` returns, once `a` is typed
                    w.chained.append((out.refs[-1], (inner.start_byte, inner.end_byte), AWAITED if awaited else ""))
        elif node.type in spec.imports or (node.type == "export_statement" and
                                           node.child_by_field_name("source") is not None):
            imports_of(node, out, lang)
        in_func = in_func or lang.opens_function(node)
        for child in reversed(node.named_children):
            stack.append((child, sym_here, in_func))

    # `def total = price * n`: a read of the file's `def price` is a call of it (a local of that name is rare);
    # so is Dart's tear-off of a method (`onPressed: _increment`), which is how a widget's handler is called
    if w.bare:
        read = {s.name for s in out.symbols if s.kind in ("function", "method") and lang.reads_call(s)}
        out.refs.extend(ref for ref in w.bare if ref.name in read)
    for ref, scope in w.calls:  # after the walk: a method may use what __init__, defined below it, assigns
        ref.typed = held(ref.receiver, scope)
        root, _, attr = ref.receiver.rpartition(".")
        if not ref.typed and root and root not in SELF_RECEIVERS and (cls := held(root, scope)):
            ref.typed = cls + HOLDS + attr  # `s.store.Save()`: the resolver reads what the class's `store` holds
    for ref, inner_at, mark in reversed(w.chained):  # an inner call is recorded after the call made on its result
        inner = w.call_at.get(inner_at)
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
            chunks.append(Chunk(start + 1, end + 1, s.kind, s.name, breadcrumb(out, idx, lang, by_qual), body,
                                s.qualname, s.signature, line_map))
    for first, last in _module_runs(owner):
        body, line_map = owned_lines(lines, owner, -1, first, last)
        if meaningful(body):
            shown = [n for n in line_map if n]
            chunks.append(Chunk(shown[0], shown[-1], "module", PurePosixPath(out.path).name, "", body, "",
                                line_map=line_map))
    return sorted(chunks, key=lambda c: (c.start_line, c.end_line))


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
def _make_symbol(node, kind: str, out: ParsedFile, scope: int, lang: Language, spec: LangSpec) -> int | None:
    if not lang.defines(node):
        return None  # a use of the type, not its definition
    found = lang.definition_name(node, kind, out, scope)
    if found is None:
        return None
    name, owner, kind = found
    kind = lang.refined_kind(node, kind)
    parent = out.symbols[scope]
    receiver = lang.receiver_type(node)
    qualified = lang.qualified(name, kind, parent, out) if owner is None and receiver is None else None
    if receiver is not None:
        prefix = receiver
    elif owner is not None:
        prefix = owner
        kind = kind if lang.owner_keeps_kind else "method" if owner else "function"
    elif qualified is not None:
        prefix, kind = qualified
    else:
        prefix = parent.member_prefix or parent.qualname
    if kind == "function" and parent.kind in MEMBER_OF and lang.members_are_methods:  # a protocol's are functions
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
        word = "@interface" if node.type == "class_interface" else keyword(lang.name, "impl")
        member_prefix, qual = qual, f"{word} {qual}"
    while qual in out.qualnames:  # overloads: keep every one
        qual += "'"
    # a body-less method is what subclasses implement, which `callees` lists
    sig = lang.signature_mark(node, parent) + lang.signature(node)[:200]
    out.symbols.append(Symbol(short, qual, kind, sig, node.start_point[0] + 1, node.end_point[0] + 1,
                              parent.qualname, member_prefix))
    out.qualnames.add(qual)
    idx = len(out.symbols) - 1
    if trait is not None:
        out.refs.append(Ref(qual, "implements", last_ident(trait.text.decode()), node.start_point[0] + 1))
    for rel, target in lang.bases(node, kind, spec, out, parent):
        out.refs.append(Ref(qual, rel, target, node.start_point[0] + 1))
    return idx
