"""Vue and Svelte single-file components as the code their ``<script>`` blocks hold, their markup kept as comments.

A component file mixes markup, script and style. The indexer parses it in its script's language (TypeScript
where a block says ``lang="ts"``, else JavaScript) over a text of the same lines: the script blocks stay as
they are and every other line becomes a line comment, which the chunks then lose again. So each chunk's lines
are the file's own lines, the markup is still found by its words, and the script's functions, imports and
calls are symbols and edges.
What the markup uses is a call from the component's module: a component it renders (``<NavBar />``,
``<nav-bar>``) and a function its expressions call or its event handlers name (``@click="toggle"``,
``on:click={toggle}``, ``{{ format(date) }}``).
"""

from __future__ import annotations

import re
from bisect import bisect_right

from ..chunks import MARKUP_COMMENT, Chunk
from ..refs import Ref

COMPONENT_LANGUAGES = frozenset({"vue", "svelte"})

_BLOCK = re.compile(r"<(script|style)\b([^>]*)>(.*?)</\1\s*>", re.S | re.I)
_LANG = re.compile(r"""\blang\s*=\s*["']?(ts|typescript|tsx|jsx|js|javascript)\b""", re.I)
_TAG = re.compile(r"</?\s*script\b[^>]*>", re.I)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
#: a component a template renders: PascalCase (``<NavBar``, ``<Icons.Close``) or kebab-case (``<nav-bar``), which
#: in Svelte is a custom element, no component
_ELEMENT = re.compile(r"<((?:[A-Z][\w$]*\.)*[A-Z][\w$]*|[a-z][a-z0-9]*(?:-[a-z0-9]+)+)(?=[\s/>])")
#: expressions in markup: Vue directives and interpolations, Svelte's braces (``{#if x}``, ``on:click={f}``)
_DIRECTIVE = re.compile(r"""\s((?:@|:|v-|on:|bind:)[\w.:|-]*|on[a-z]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|\{([^{}]*)\})""")
_HANDLER = re.compile(r"@|v-on:|on:|on[a-z]")
#: Vue's interpolations, Svelte's expressions (``{#if x}``, ``{@html f(x)}``)
_MUSTACHE = {"vue": re.compile(r"\{\{(.*?)\}\}", re.S), "svelte": re.compile(r"\{([^{}]*)\}")}
_STRING = re.compile(r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"|`(?:[^`\\]|\\.)*`")
_CALL = re.compile(r"((?:[A-Za-z_$][\w$]*\.)*)([A-Za-z_$][\w$]*)\s*\(")
_NAME = re.compile(r"\s*([A-Za-z_$][\w$]*)\s*")
_NOT_CALLS = frozenset({"if", "for", "while", "switch", "return", "typeof", "function", "await", "new", "each",
                        "key", "html", "const", "debug", "render", "snippet", "then", "catch"})


def component_source(text: str) -> tuple[str, str]:
    """The text a component is parsed as (its script blocks, every other line commented out, the same lines)
    and the language of its scripts: "typescript" if any block is TypeScript (``tsx`` for TSX), else
    "javascript"."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    spans, langs = [], set()
    for m in _BLOCK.finditer(text):
        if m.group(1).lower() == "script":
            spans.append((m.start(3), m.end(3)))
            lang = _LANG.search(m.group(2))
            langs.add(lang.group(1).lower() if lang else "js")
    language = "tsx" if "tsx" in langs else "typescript" if langs & {"ts", "typescript"} else "javascript"
    out, pos = [], 0
    for line in text.split("\n"):
        a, b = pos, pos + len(line)
        pos = b + 1
        if any(s <= a and b <= e for s, e in spans):
            out.append(line)
            continue
        parts = [(max(a, s), min(b, e)) for s, e in spans if max(a, s) < min(b, e)]
        if not parts:
            out.append(_commented(line))
            continue
        # a line holding a script tag and code: `<script>import x from "y"` or `}</script>`
        kept = "".join(text[x:y] for x, y in parts)
        cuts = [a] + [i for x, y in parts for i in (x, y)] + [b]
        rest = _TAG.sub(" ", " ".join(text[cuts[i]:cuts[i + 1]] for i in range(0, len(cuts), 2))).strip()
        out.append(kept + (" " + _commented(rest) if rest else ""))
    return "\n".join(out), language


def _commented(line: str) -> str:
    # JavaScript ends a line comment at U+2028/U+2029 too: they must not let markup out into the code
    return MARKUP_COMMENT + line.replace("\u2028", " ").replace("\u2029", " ") if line.strip() else ""


def restore_markup(chunks: list[Chunk]) -> None:
    """Give chunks cut from ``component_source``'s text the markup lines as the file has them, uncommented."""
    for c in chunks:
        if MARKUP_COMMENT in c.content:
            c.content = "\n".join(ln[len(MARKUP_COMMENT):] if ln.startswith(MARKUP_COMMENT)
                                  else ln.replace(" " + MARKUP_COMMENT, " ") for ln in c.content.split("\n"))


def markup_refs(text: str, language: str) -> list[Ref]:
    """Calls the markup of a component makes, from its module: the components it renders and the functions
    its expressions call or its event handlers name, each at its line."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    markup = _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    markup = _BLOCK.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), markup)  # same offsets, lines
    refs: list[Ref] = []
    starts = [0] + [m.end() for m in re.finditer("\n", markup)]

    def add(name: str, receiver: str, at: int) -> None:
        if name not in _NOT_CALLS:
            refs.append(Ref("", "calls", name, bisect_right(starts, at), receiver))

    for m in _ELEMENT.finditer(markup):
        tag = m.group(1)
        if "-" in tag:
            if language != "vue":
                continue
            tag = "".join(p.capitalize() for p in tag.split("-"))
        receiver, _, name = tag.rpartition(".")
        add(name, receiver, m.start())

    def calls(expr: str, at: int) -> None:
        for c in _CALL.finditer(_STRING.sub("''", expr)):
            add(c.group(2), c.group(1).rstrip("."), at)

    taken: list[tuple[int, int]] = []
    for m in _DIRECTIVE.finditer(markup):
        taken.append(m.span())
        expr = next(g for g in m.groups()[1:] if g is not None)
        bare = _NAME.fullmatch(expr)
        if bare and _HANDLER.match(m.group(1)):  # `@click="toggle"`: the handler is called
            add(bare.group(1), "", m.start())
        else:
            calls(expr, m.start())
    for m in _MUSTACHE[language].finditer(markup):
        if not any(s <= m.start() < e for s, e in taken):
            calls(m.group(1), m.start())
    return refs
