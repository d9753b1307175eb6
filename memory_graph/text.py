"""Text helpers shared by the BM25 index, entity linking and MMR: words, identifiers, titles."""

from __future__ import annotations

import re
from functools import lru_cache

WORD_RE = re.compile(r"[^\W_]+(?:_[^\W_]+)*", re.UNICODE)
COMPOUND_RE = re.compile(r"[a-z][A-Z]|_")  # a snake_case or camelCase word
NON_WORD_RE = re.compile(r"[^\w]")
IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_CAMEL_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
#: a name qualified with separators other than dots, with dots too: Rack::Utils.escape, Request#params
_QUALIFIED = re.compile(r"(?<![\w.:/\\#-])[A-Za-z_]\w*(?:(?:::|->|#|\\|\.)[A-Za-z_]\w*)+")


def words(text: str) -> list[str]:
    """Lowercased words (letters and digits; snake_case kept whole)."""
    return [w.lower() for w in WORD_RE.findall(text)]


def dotted_names(text: str) -> str:
    """Qualified names written with ``::`` (Rust, C++, Ruby, PHP's static calls), ``->`` (PHP's traces:
    ``Table->render()``), ``#`` (Ruby's docs: ``Request#params``) or ``\\`` (PHP's namespaces) written with
    dots, as qualified names are stored; a Rust path's leading ``crate::`` or ``self::`` goes. pytest's
    ``test_app.py::TestApp`` is a file's, left as it is."""

    def dot(m: re.Match) -> str:
        name = m.group(0)
        if re.search(r"\.[A-Za-z]\w{0,7}::", name):
            return name
        out = re.sub(r"::|->|#|\\", ".", name)
        return re.sub(r"^(?:crate|self)\.", "", out) if out != name else name

    return _QUALIFIED.sub(dot, text)


def split_identifier(ident: str) -> list[str]:
    """'getHTTPResponse_code' -> ['get', 'http', 'response', 'code']."""
    parts: list[str] = []
    for piece in re.split(r"[_.\-/]+", ident):
        parts.extend(p.lower() for p in _CAMEL_RE.findall(piece))
    return parts


def identifier_terms(text: str) -> str:
    """Whole identifiers and their camelCase / snake_case parts, lowercased, for the BM25 identifier field.
    A one-character part ("s" of ``s3``, "m" of ``mRNA``) is left out: as a query's residue ("What's") it
    would match every identifier holding one."""
    out: list[str] = []
    for ident in IDENT_RE.findall(text):
        pieces = split_identifier(ident)
        if len(pieces) > 1 or "_" in ident or "." in ident:
            out.append(re.sub(r"[^a-z0-9]", "", ident.lower()))
            out.extend(p for p in pieces if len(p) > 1)
    return " ".join(out)


#: a snake_case or camelCase word: letters and digits joined by underscores, or a lowercase letter before a capital
_COMPOUND = re.compile(r"\b[A-Za-z0-9]+(?:_+[A-Za-z0-9]+)+\b|\b[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*\b")


def whole_identifiers(text: str) -> str:
    """The text with each snake_case or camelCase identifier written as one word ("enable_usage_billing" ->
    "enableusagebilling"), so that a memory's body counts it whole and its parts count only in the identifier
    field, where they weigh less: "usage" in a question is not the rare word that ``enable_usage_billing``
    would make it."""
    return _COMPOUND.sub(lambda m: re.sub(r"_", "", m.group(0)).lower(), text)


_IDENT_SHAPE = re.compile(r"[a-z][A-Z]|[A-Z]{2,}[a-z]|^[A-Z][a-z]+[A-Z]")


def names_identifier(query: str) -> bool:
    """Whether a code query looks for names rather than meaning: it has something ``code_mentions`` keeps
    (a short keyword query, or a snake_case, camelCase, dotted or ``backticked`` token)."""
    return bool(code_mentions(query).strip(" ."))


def one_name(query: str) -> bool:
    """Whether a code query is a single name and nothing else: ``echo``, ``Context.invoke``, `` `get()` ``."""
    return IDENT_RE.fullmatch(dotted_names(query.strip().strip("`").strip()).removesuffix("()")) is not None


def code_mentions(query: str, short_query_words: int = 3) -> str:
    """The part of a query that may name a symbol: all of a short query, else only its identifier-shaped
    tokens (snake_case, camelCase, dotted, ``backticked``), so that prose such as "read the file" does not
    seed the code graph with every symbol called ``read``."""
    if len(WORD_RE.findall(query)) <= short_query_words:
        return query
    found = re.findall(r"`([^`]{1,200})`", query)
    for tok in IDENT_RE.findall(query):
        if _FILE_NAME.fullmatch(tok):  # forms.html names a file (found by its path), not every __html__
            continue
        if "_" in tok or "." in tok or _IDENT_SHAPE.search(tok):
            found.append(tok)
    return " . ".join(found)


#: a dotted word that is a file's name: a last part that is a common file extension
_FILE_NAME = re.compile(r"[\w.]+\.(?:html?|css|scss|js|jsx|mjs|cjs|ts|tsx|py|pyi|rb|go|rs|java|kt|php|c|h|cpp|hpp|cs|"
                        r"md|rst|txt|json|ya?ml|toml|ini|cfg|lock|sh|sql|xml|csv|svg|png|jpg|vue|svelte)")


#: English function words, left out of BM25 queries (unless a query has nothing else).
QUERY_STOPWORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being below between both
but by can could did do does doing down during each few for from further had has have having he her here hers
herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off on
once only or other our ours ourselves out over own same she should so some such than that the their theirs them
themselves then there these they this those through to too under until up very was we were what when where which
while who whom why will with would you your yours yourself yourselves
""".split())


def query_terms(text: str, max_terms: int, drop_stopwords: bool = True, whole: bool = False) -> list[str]:
    """The words of a query as plain lowercase terms: no operator, field or wildcard survives.

    Function words are dropped when the query has other words: BM25 with Tantivy's en_stem analyzer
    keeps them, and they would rank any text sharing "we" or "the" with the query. So are single letters
    ("s" of "What's"). whole: an identifier's whole term is written as one word ("batchsize"), as
    ``whole_identifiers`` writes it in a memory's body; otherwise with its underscores.
    """
    return list(_query_terms(text, max_terms, drop_stopwords, whole))


@lru_cache(maxsize=64)  # a search asks twice of one query (its BM25 search and the score of a full match)
def _query_terms(text: str, max_terms: int, drop_stopwords: bool, whole: bool) -> tuple[str, ...]:
    terms = _terms(text, max_terms * 4 if drop_stopwords else max_terms, whole)
    if drop_stopwords:
        content = [t for t in terms if t not in QUERY_STOPWORDS and (len(t) > 1 or t.isdigit())]
        terms = content or terms
    return tuple(terms[:max_terms])


def identifier_parts(text: str) -> set[str]:
    """The parts of a query's snake_case and camelCase words that the query does not also hold as words."""
    return set(_identifier_parts(text))


@lru_cache(maxsize=64)
def _identifier_parts(text: str) -> frozenset[str]:
    words_, parts = set(), set()
    for w in WORD_RE.findall(text):
        if COMPOUND_RE.search(w):
            parts.update(split_identifier(w))
        else:
            words_.add(w.lower())
    return frozenset(parts - words_)


def _terms(text: str, max_terms: int, whole: bool = False) -> list[str]:
    seen: dict[str, None] = {}
    for w in WORD_RE.findall(text):
        compound = COMPOUND_RE.search(w) is not None
        first = w.lower().replace("_", "") if whole and compound else w.lower()
        for term in [first, *(split_identifier(w) if compound else [])]:
            term = NON_WORD_RE.sub("", term).strip("_")
            if term and len(term) <= 64:
                seen.setdefault(term, None)
        if len(seen) >= max_terms:
            break
    return list(seen)[:max_terms]


def derive_title(content: str, limit: int = 80) -> str:
    """A short title: the first non-empty line, cut at a word boundary."""
    line = next((ln.strip(" #*-\t") for ln in content.splitlines() if ln.strip(" #*-\t")), content.strip())
    line = re.sub(r"\s+", " ", line)
    if len(line) <= limit:
        return line
    cut = line[:limit].rsplit(" ", 1)[0] or line[:limit]
    return cut + "…"


def jaccard(a: set[str], b: set[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


#: a line of an error as a program prints it: "ValueError: ...", "marshmallow.exceptions.RegistryError: ...",
#: "error: ...", "Error: ...", "panic: ...", "[MobX] ...", as a browser or Node reports it unhandled ("Uncaught
#: Error: ...", "Uncaught (in promise) TypeError: ...") or pytest shows it ("E   ValueError: ...")
_ERROR_LINE = re.compile(r"^\s*(?:E\s+)?(?:Uncaught\s+(?:\(in promise\)\s+)?)?"
                         r"(?:(?:[\w.]*(?:Error|Exception|Warning|Fault)|error|Error|ERROR|fatal|FATAL|panic|"
                         r"warning|Warning)(?:\[\w+\])?\s*:|\[[\w .-]{1,30}\])\s*(?P<message>.+)$")
#: what a program interpolates into a message: quoted values, {...}, <...>, [...], (...), numbers, paths
_INTERPOLATED = re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`|\{[^}]*\}|<[^>]*>|\[[^\]]*\]|\([^)]*\)|\S*\d\S*|\S+[/\\]\S+")
_QUOTED = re.compile(r"\"([^\"]{8,300})\"|'([^']{8,300})'|`([^`]{8,300})`")


def without_error_types(query: str) -> str:
    """The query with each error line's type ("ValueError:", "marshmallow.exceptions.RegistryError:",
    "[MobX]") cut off: the type names where an error is defined, the message where it is raised."""
    out = []
    for line in query.splitlines():
        m = _ERROR_LINE.match(line)
        out.append(m.group("message") if m else line)
    return "\n".join(out)


def literal_phrases(query: str, min_words: int = 2) -> list[str]:
    """Runs of words a query quotes or pastes from an error message, as the source code would hold them:
    ``ValueError: Invalid fields for <Schema>: {'x'}.`` -> ["Invalid fields for"], "error: missing required
    argument 'file'" -> ["missing required argument"]. The values a program formats into a message (quoted
    names, numbers, {...}) are cut out, since the source holds a placeholder there. Empty when the query is
    neither an error line nor holds a quoted string of several words."""
    texts = []
    for line in query.splitlines():
        m = _ERROR_LINE.match(line)
        if m:
            texts.append(m.group("message"))
            # a message quoted inside the error ({'age': ['Not a valid integer.']}) is a literal of its own
            texts += [g for q in re.findall(r"'([^']+)'|\"([^\"]+)\"", m.group("message")) for g in q
                      if len(WORD_RE.findall(g)) >= min_words]
    for m in _QUOTED.finditer(query):
        quoted = next(g for g in m.groups() if g)
        if len(WORD_RE.findall(quoted)) >= min_words + 1 and not texts:
            texts.append(quoted)
    out: list[str] = []
    for text in texts:
        for run in re.split(r"[.:;!?,]|(?:\s-\s)", _INTERPOLATED.sub("|", text)):
            for piece in run.split("|"):
                ws = WORD_RE.findall(piece)
                if len(ws) >= min_words:
                    out.append(" ".join(w.lower() for w in ws))
    return list(dict.fromkeys(out))[:8]
