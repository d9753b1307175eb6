"""Entity extraction and linking without an LLM: identifiers, file paths, backticked terms, capitalised names."""

from __future__ import annotations

import difflib
import functools
import gzip
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

import numpy as np

from .text import IDENT_RE, WORD_RE

_BACKTICK = re.compile(r"`([^`\n]{2,80})`")
_PATH = re.compile(r"(?<![\w/.])(?:\.{0,2}/)?(?:[\w.\-]+/)+[\w.\-]+|\b[\w\-]+\.(?:md|py|js|ts|tsx|jsx|json|ya?ml|toml|"
                   r"go|rs|java|kt|rb|php|c|h|cpp|hpp|cs|sh|sql|txt|cfg|ini|lock|html|css)\b")
_CAMEL = re.compile(r"\b(?:[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[a-z]+(?:[A-Z][a-z0-9]*)+|[A-Z]{2,}[a-z]+[A-Za-z0-9]*)\b")
_SNAKE = re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b")
# a segment may hold hyphens, so a host name (db-staging.internal) stays whole
_DOTTED = re.compile(r"\b[A-Za-z_](?:[\w\-]*\w)?(?:\.[A-Za-z_](?:[\w\-]*\w)?)+(?:\(\))?")
_KEBAB = re.compile(r"\b[a-z][a-z0-9]+(?:-[a-z0-9]+)+\b")
_CAPS = re.compile(r"\b[A-Z][a-zA-Z0-9'’\-]*[a-zA-Z0-9](?:\s+[A-Z][a-zA-Z0-9'’\-]*[a-zA-Z0-9]){0,3}\b")
_ACRONYM = re.compile(r"\b[A-Z][A-Z0-9]{1,7}\b")
_SHOUTED = re.compile(r"\b[A-Z][A-Z0-9]+(?:[ \t]+[A-Z][A-Z0-9]+)+\b")  # a run of words in capitals

# Capitalised words that are (almost) never names: function words, question words, chat words (days and
# months are CALENDAR).
STOPWORDS = frozenset("""
a about above after again against all also am an and any are aren't as at be because been before being below
between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during each
few for from further had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself
him himself his how how's i i'd i'll i'm i've if in into is isn't it it's its itself just let's me more most
mustn't my myself no nor not now of off on once only or other ought our ours ourselves out over own same shan't
she she'd she'll she's should shouldn't so some such than that that's the their theirs them themselves then
there there's these they they'd they'll they're they've this those through to too under until up very was
wasn't we we'd we'll we're we've were weren't what what's when when's where where's which while who who's whom
why why's will with won't would wouldn't you you'd you'll you're you've your yours yourself yourselves yes
yeah oh ok okay hey hi hello thanks thank sure well wow great good nice really maybe please sorry also today
yesterday tomorrow tonight still yet even though although however therefore anyway actually definitely totally
absolutely probably hopefully one two three first last next new old every many much lot lots something
anything nothing everything someone anyone everyone could'nt gonna wanna like love know think see get got make
made use used using fix fixed add added remove removed update updated note todo done set run ran try tried
congrats aww awww haha hahaha hehe lol omg yay hmm ugh ooh oops btw thx woah whoa woohoo woot oof nah yup yep
nope yikes phew meh gosh geez jeez dang darn hooray heh aha ahh argh shh uh um umm lmao rofl idk imo tbh brb ttyl
""".split())

#: a function word's contraction ("It'll", "How've", "What'd") is a function word too
_CONTRACTION = re.compile(r"([A-Za-z]+)['’](?:ll|ve|re|d|s|m|t)")

#: technology names that are also ordinary words. Opening a sentence of a developer's note ("Rust is used for
#: the parser") they name the technology; words whose ordinary sense often opens one ("Go ahead", "Make sure",
#: "Next, ...", "Express your...") are left out and become entities only named mid-sentence.
#: the types extraction gives a name by its shape: a guess, which a caller's create_entity of that name replaces
GUESSED_TYPES = ("name", "identifier")

TECH_NAMES = frozenset("""
bun cargo celery consul cypress dart elixir envoy flask helm jest maven mocha nomad pandas parquet pip playwright
poetry puppeteer rails rake react ruff rust selenium sentry slack snowflake spark storybook stripe svelte tomcat
torch vagrant vault yarn
""".split())

#: units and generic technical acronyms: words of a note, not things it is about (a hub of every note that says
#: "MB" or "API" would link them all)
GENERIC_ACRONYMS = frozenset("""
kb mb gb tb pb kib mib gib ms ns api apis http https url urls uri json xml csv yaml pdf pdfs html css sql cpu gpu
ram ssd dns tls ssl tcp udp ip utc gmt ttl vpn gc lru oom id ids ui ux os sdk cli io ok info debug warn
q1 q2 q3 q4 eta faq tbd todo fyi asap
""".split())

#: days and months name a time, not a thing: "Last Friday" or "July" linked every turn of a chat that said so to
#: every question naming the day (LoCoMo's "What did Joanna finish last Friday?"), as a hub of dates would
CALENDAR = frozenset("""
monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat sun
january february march april may june july august september october november december
jan feb mar apr jun jul aug sep sept oct nov dec weekend weekends
""".split())
_CALENDAR_QUALIFIERS = frozenset("last next this early late mid every".split())

#: words stripped from the ends of a capitalised phrase ("The Billing Team" -> "Billing Team").
_EDGE_WORDS = STOPWORDS - {"new", "old", "first", "last", "next", "great", "good", "nice", "one", "two", "three"}

#: minimum and maximum characters of an extracted name.
_MIN, _MAX = 2, 80

#: what may stand between a sentence's end and its first word: spaces, quotes, brackets, list bullets.
_OPENERS = " \t\"'“‘([{*-•>#"
_SENTENCE_END = ".!?:;\n\r"


@functools.cache
def common_words() -> frozenset[str]:
    """Lowercase English words that are not also names (SCOWL; see memory_graph/lexicon/README.md)."""
    path = Path(__file__).with_name("lexicon") / "common_words.txt.gz"
    return frozenset(gzip.decompress(path.read_bytes()).decode().split())


def opens_sentence(text: str, start: int) -> bool:
    """Whether the word at ``start`` is the first of a sentence, a line or a list item."""
    i = start - 1
    while i >= 0 and text[i] in _OPENERS:
        i -= 1
    return i < 0 or text[i] in _SENTENCE_END


def _opening_verb(word: str) -> bool:
    """Whether a capitalised word is an ordinary past tense or -ing form ("Pinned", "Upgraded", "Visiting")."""
    w = word.lower()
    return (len(w) >= 5 and not word.isupper() and w.endswith(("ed", "ing")) and w in common_words()
            and w not in TECH_NAMES)


def norm(name: str) -> str:
    """Normal form used to match names: lowercase letters and digits only ('Billing-API' -> 'billingapi')."""
    return re.sub(r"[\W_]+", "", name.lower())


@dataclass(frozen=True)
class Candidate:
    name: str
    entity_type: str


def extract(text: str) -> list[Candidate]:
    """Entity names found in a text, without any model: identifiers, paths, backticked terms, proper names."""
    found: dict[str, Candidate] = {}

    def add(name: str, etype: str) -> None:
        # a leading dot belongs to the name (./run.sh, .env): only paths and backticked terms can begin with one
        name = name.strip().lstrip(",;:!?()[]{}\"'").rstrip(".,;:!?()[]{}\"'")
        key = norm(name)
        contraction = _CONTRACTION.fullmatch(name)
        if contraction and contraction.group(1).lower() in STOPWORDS:
            return
        if (_MIN <= len(name) <= _MAX and len(key) >= _MIN and key not in found and name.lower() not in STOPWORDS
                and key not in GENERIC_ACRONYMS):
            found[key] = Candidate(name, etype)

    for m in _BACKTICK.finditer(text):
        add(m.group(1), "file" if "/" in m.group(1) or _PATH.fullmatch(m.group(1)) else "identifier")
    path_spans: list[tuple[int, int]] = []
    for m in _PATH.finditer(text):
        # "and/or", "he/she", "yes/no": function words paired in prose are no path
        if all(p.lower().strip(".-") in STOPWORDS for p in m.group(0).split("/")):
            continue
        if "://" not in text[max(0, m.start() - 8):m.end()]:
            add(m.group(0), "file")
            path_spans.append(m.span())
    for rx in (_CAMEL, _SNAKE):
        for m in rx.finditer(text):
            add(m.group(0), "identifier")
    for m in _DOTTED.finditer(text):
        if any(a <= m.start() < b for a, b in path_spans):
            continue
        parts = m.group(0).rstrip("()").split(".")
        if max(len(p) for p in parts) >= 3 and len(m.group(0)) >= 5:
            add(m.group(0).rstrip("()"), "identifier")
            path_spans.append(m.span())
    for m in _KEBAB.finditer(text):
        # "timed-out", "read-only", "out-of-stock", "on-call": a compound of prose, not a name
        parts = m.group(0).split("-")
        if any(p in _EDGE_WORDS or (p.endswith("ed") and p in common_words()) for p in parts):
            continue
        if not any(a <= m.start() < b for a, b in path_spans):  # db-staging of db-staging.internal
            add(m.group(0), "identifier")
    for m in _CAPS.finditer(text):
        words = m.group(0).split()
        total = len(words)
        # "Pinned Poetry to 1.8": a verb that opens a note is no part of the name after it; "United States"
        # stays whole, since a common word alone after it would be no name either
        if (total > 1 and _opening_verb(words[0]) and opens_sentence(text, m.start())
                and (total > 2 or words[1].lower() not in common_words() or words[1].lower() in TECH_NAMES)):
            words.pop(0)
        while words and words[0].lower() in _EDGE_WORDS:
            words.pop(0)
        leading = total - len(words)  # words stripped from the front
        while words and words[-1].lower() in _EDGE_WORDS:
            words.pop()
        if not words:
            continue
        if _is_date(words):
            continue
        phrase = re.sub(r"['’]s$", "", " ".join(words))
        # "Friends are the best!": a common word capitalised only because it opens the sentence is no name
        # ("Orion is the codename..." still is); named again mid-sentence, or already known, it links anyway
        if (len(words) == 1 and leading == 0 and opens_sentence(text, m.start())
                and phrase.lower() in common_words() and phrase.lower() not in TECH_NAMES):
            continue
        add(phrase, "name")
    shouted = [m.span() for m in _SHOUTED.finditer(text)]
    for m in _ACRONYM.finditer(text):
        # CREATE and INDEX in "CREATE INDEX CONCURRENTLY" are words in capitals, not acronyms ("AWS S3" keeps AWS)
        if m.group(0).lower() in common_words() and any(a <= m.start() < b for a, b in shouted):
            continue
        add(m.group(0), "name")
    return list(found.values())


#: a term a definition may name: a backticked term, an identifier (kebab, snake, dotted, camel) or a name of
#: one to three capitalised words
_TERM = (r"(?:`[^`\n]{2,80}`|[A-Za-z][A-Za-z0-9]*(?:[-_.][A-Za-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]*"
         r"|[A-Z][A-Za-z0-9]*(?:[ ][A-Z][A-Za-z0-9]*){0,2})")
_THE = r"(?:(?:the|our|an?|its|their)\s+)?"
#: definitional sentences, each with the alias (x) and what it names (y)
_DEFINITIONS = [re.compile(p) for p in (
    # "Falcon is the internal name of the search-indexer", "Heron is our codename for events-etl"
    rf"(?P<x>{_TERM}) (?:is|was|are|becomes) {_THE}(?:(?:internal|new|project|team|working|old|former|"
    rf"official|short|other)\s+)?(?:name|codename|code name|code-name|alias|nickname)\s+(?:of|for)\s+"
    rf"{_THE}(?P<y>{_TERM})",
    # "Abacus is what the finance team calls ledger-svc"
    rf"(?P<x>{_TERM}) is what (?:[\w-]+\s+){{0,4}}calls?\s+{_THE}(?P<y>{_TERM})",
    # "we call ledger-svc Abacus", "everyone calls the prod-eu-1 cluster Atlas"
    rf"\b(?:[Ww]e|[Ee]veryone|[Pp]eople|[Tt]hey) (?:all )?call\s+{_THE}(?P<y>{_TERM})\s+(?:[a-z]+\s+)?(?P<x>{_TERM})",
    # "push-notifier, aka Wren,", "ledger-svc (also known as Abacus)"
    rf"(?P<y>{_TERM}),?\s+\(?(?:aka|a\.k\.a\.?|also known as|also called|nicknamed|codenamed|code-named)\s+"
    rf"(?P<x>{_TERM})",
)]
#: "Tern (query-gateway)", "feature-store (Magpie)": one side a lowercase identifier (a service's name), the
#: other one capitalised word (a codename). An abbreviation in parentheses ("tumor necrosis factor-alpha (TNF)")
#: is neither: as an alias it cost SciFact 0.006 nDCG@10.
_PAREN = re.compile(rf"(?P<a>{_TERM})\s+\((?P<b>{_TERM})\)")
_IDENT_SHAPED = re.compile(r"`.+`|[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)+")
_CODENAME = re.compile(r"[A-Z][a-z]{2,}")


def aliases(text: str) -> list[tuple[str, str]]:
    """Pairs (alias, name) that a text defines: "Falcon is the internal name of the search-indexer",
    "Atlas is what everyone calls prod-eu-1", "push-notifier, aka Wren", "Tern (query-gateway)".

    The alias becomes an entity even where it opens a sentence and is an English word; linking makes it a
    second name of the entity it names, so either name reaches what the other is written with.
    """
    out: dict[str, tuple[str, str]] = {}

    def keep(x: str, y: str) -> None:
        x, y = x.strip("`"), y.strip("`")
        if norm(x) and norm(y) and norm(x) != norm(y) and x.lower() not in STOPWORDS and y.lower() not in STOPWORDS:
            out.setdefault(norm(x), (x, y))

    for rx in _DEFINITIONS:
        for m in rx.finditer(text):
            keep(m.group("x"), m.group("y"))
    for m in _PAREN.finditer(text):
        a, b = m.group("a"), m.group("b")
        for ident, name in ((a, b), (b, a)):
            if (_IDENT_SHAPED.fullmatch(ident) and _CODENAME.fullmatch(name) and name.lower() not in TECH_NAMES
                    and name.lower() not in GENERIC_ACRONYMS):
                keep(name, ident)
    return list(out.values())


def prefer_exact(matches: Mapping[str, float], forms: Mapping[str, Iterable[str]], text: str,
                 inexact: float) -> dict[str, float]:
    """Match weights with a text's own spelling first: a match whose forms (a symbol's name and qualified
    name) the text spells exactly, in their case and with their underscores, keeps its weight; one that
    shares such a form's normal form without being spelt so (``request`` for ``Request``,
    ``get_text_stdout`` for ``_get_text_stdout``, ``Exit`` for ``__exit__``) gets ``inexact`` times its own.
    A match no exact spelling competes with (``Progressbar`` for ``ProgressBar``) keeps its weight.
    """
    spelt = set()
    for tok in IDENT_RE.findall(text):
        spelt.add(tok)
        spelt.update(tok.split("."))
    exact = {m for m in matches if any(f in spelt for f in forms.get(m, ()))}
    taken = {norm(f) for m in exact for f in forms.get(m, ()) if f in spelt}
    return {m: (w if m in exact or not any(norm(f) in taken for f in forms.get(m, ())) else w * inexact)
            for m, w in matches.items()}


def _is_date(words: list[str]) -> bool:
    """Whether a capitalised phrase only names a day or month ("Friday", "Last Friday", "Early July", "Fri")."""
    bare = [re.sub(r"['’]s$", "", w).lower().rstrip(".") for w in words]

    def day(w: str) -> bool:
        return w in CALENDAR or w.rstrip("s") in CALENDAR  # Fridays, Tues

    return day(bare[-1]) and all(day(w) or w in _CALENDAR_QUALIFIERS for w in bare)


# a prefix of fewer names is matched by a loop over them, quicker than numpy's calls (``EntityIndex._bucket``)
COUNTED_MIN_NAMES = 24


class EntityIndex:
    """Names and aliases of every entity, by normal form, for linking texts and queries to entities."""

    def __init__(self) -> None:
        # tuples, not sets: most names have one entity, and a set of one is 216 bytes against a tuple's 48
        self.by_norm: dict[str, tuple[str, ...]] = {}
        self.names: dict[str, tuple[str, str]] = {}  # id -> (name, type)
        self._by_prefix: dict[str, set[str]] = {}
        # id -> the normal forms it is filed under: removing one must not scan every name (a re-index removes
        # every old symbol and chunk of the files it re-cuts, one at a time)
        self._keys: dict[str, tuple[str, ...]] = {}
        # (a query word's normal form, cutoff) -> its closest names: the words of queries repeat, the names
        # seldom change, and a fuzzy comparison with a few hundred names cost about a millisecond a query
        self._close_cache: dict[tuple[str, float], list[tuple[float, str]]] = {}
        # a prefix -> its names with their lengths and character counts (``_bucket``), made by the first fuzzy
        # match that reads them and dropped when a name comes or goes
        self._buckets: dict[str, tuple] = {}

    def add(self, entity_id: str, name: str, entity_type: str, aliases: list[str] | tuple = ()) -> None:
        self.names[entity_id] = (name, entity_type)
        for n in [name, *aliases]:
            key = norm(n)
            if key:
                ids = self.by_norm.get(key, ())
                if entity_id not in ids:
                    self.by_norm[key] = ids + (entity_id,)
                    self._keys[entity_id] = self._keys.get(entity_id, ()) + (key,)
                if not ids:
                    self._close_cache.clear()
                    self._buckets.pop(key[:2], None)
                self._by_prefix.setdefault(key[:2], set()).add(key)

    def has_alias(self, entity_id: str) -> bool:
        """Whether the entity is filed under more than one normal form (a name and an alias)."""
        return len(self._keys.get(entity_id, ())) > 1

    def remove(self, entity_id: str) -> None:
        self.names.pop(entity_id, None)
        for key in self._keys.pop(entity_id, ()):
            rest = tuple(i for i in self.by_norm[key] if i != entity_id)
            if rest:
                self.by_norm[key] = rest
            else:
                del self.by_norm[key]
                self._by_prefix.get(key[:2], set()).discard(key)
                self._close_cache.clear()
                self._buckets.pop(key[:2], None)

    def find(self, name: str, entity_type: str | None = None) -> str | None:
        """The id of the entity with this (normalised) name and type, if any."""
        for eid in sorted(self.by_norm.get(norm(name), ())):
            if entity_type is None or self.names[eid][1] == entity_type:
                return eid
        return None

    def mentioned_in(self, text: str, max_ngram: int = 4, fuzzy_cutoff: float | None = None,
                     skip_types: tuple[str, ...] = (), longest: bool = False,
                     function_words: bool = False, common_lowercase: bool = True) -> dict[str, float]:
        """Entities whose name or alias a text names: exact on normal forms of 1-4 word n-grams, then fuzzy.

        longest: words inside a longer match name nothing on their own (``Context.invoke`` is not also
        every ``invoke``). function_words: a word such as "get" or "update" may name an entity on its own (a
        code query that is one name). common_lowercase: an English word written in lowercase ("go", "falcon")
        may name an entity on its own; a stored text's "let's go" is no mention of Go. Returns entity id ->
        match weight (1.0 exact, the similarity ratio when fuzzy).
        """
        toks = WORD_RE.findall(text)
        out: dict[str, float] = {}
        matched_pos: set[int] = set()
        # ids sorted: the order of `out` is the graph leg's seed order, and a set's order varies by process
        for size in range(max_ngram, 0, -1):
            for i in range(len(toks) - size + 1):
                if size == 1 and not function_words and toks[i].lower() in STOPWORDS:
                    continue
                if (size == 1 and not common_lowercase and toks[i].islower() and toks[i] in common_words()
                        and toks[i] not in TECH_NAMES):
                    continue
                if longest and not matched_pos.isdisjoint(range(i, i + size)):
                    continue
                key = norm("".join(toks[i:i + size]))
                for eid in sorted(self.by_norm.get(key, ())):
                    if self.names[eid][1] not in skip_types:
                        out[eid] = 1.0
                        matched_pos.update(range(i, i + size))
        if fuzzy_cutoff is not None:
            for i, tok in enumerate(toks):
                key = norm(tok)
                if i in matched_pos or len(key) < 4 or tok.lower() in STOPWORDS:
                    continue
                for cand in self._close(key, fuzzy_cutoff):
                    for eid in sorted(self.by_norm.get(cand[1], ())):
                        if self.names[eid][1] not in skip_types:
                            out[eid] = max(out.get(eid, 0.0), cand[0])
        return out

    def _close(self, key: str, cutoff: float) -> list[tuple[float, str]]:
        """The (ratio, normal form) of at most 3 names that share the key's first two characters and reach
        ``cutoff``, best first."""
        found = self._close_cache.get((key, cutoff))
        if found is None:
            if len(self._close_cache) >= 10_000:
                self._close_cache.clear()
            found = self._close_cache[(key, cutoff)] = self._closest(key, cutoff)
        return found

    def _closest(self, key: str, cutoff: float) -> list[tuple[float, str]]:
        keys, lengths, counts, columns = self._bucket(key[:2])
        # difflib's quick_ratio, 2 x (the characters two strings share, counted with repeats) / their lengths,
        # bounds ratio from above (as difflib.get_close_matches reads it): here for the whole bucket at once,
        # from its names' character counts, where one quick_ratio a name took most of a query's linking on
        # entity-rich text (SciFact: about 200 names a query)
        if counts is None:
            bound, options = difflib.SequenceMatcher(None, "", key), []
            for k in keys:
                if abs(len(k) - len(key)) <= 2:
                    bound.set_seq1(k)
                    if bound.quick_ratio() >= cutoff:
                        options.append(k)
        else:
            mine = np.zeros(counts.shape[1])
            for ch in key:
                if ch in columns:
                    mine[columns[ch]] += 1
            shared = np.minimum(counts, mine).sum(axis=1)
            near = (np.abs(lengths - len(key)) <= 2) & (2.0 * shared / (lengths + len(key)) >= cutoff)
            options = [keys[i] for i in np.flatnonzero(near).tolist()]
        out = []
        matcher = difflib.SequenceMatcher(None, key, "")  # the key's character counts built once, not per name
        for k in options:
            matcher.set_seq2(k)
            if (ratio := matcher.ratio()) >= cutoff:
                out.append((ratio, k))
        return sorted(out, reverse=True)[:3]

    def _bucket(self, prefix: str) -> tuple[list[str], np.ndarray | None, np.ndarray | None, dict[str, int]]:
        """The names filed under a prefix, their lengths, and how often each holds each character of the
        bucket's alphabet (one column a character); no counts for fewer than ``COUNTED_MIN_NAMES`` names or an
        alphabet of more than 64 characters."""
        got = self._buckets.get(prefix)
        if got is None:
            keys = sorted(self._by_prefix.get(prefix, ()))
            alphabet = sorted(set("".join(keys)))
            if len(keys) < COUNTED_MIN_NAMES or len(alphabet) > 64:
                got = (keys, None, None, {})
            else:
                width = max(map(len, keys))
                codes = np.array(keys, dtype=f"<U{width}").view(np.uint32).reshape(len(keys), width)
                held = codes != 0  # (the padding of shorter names)
                column = np.searchsorted(np.array([ord(ch) for ch in alphabet], dtype=np.uint32), codes[held])
                at = np.nonzero(held)[0] * len(alphabet) + column
                counts = np.bincount(at, minlength=len(keys) * len(alphabet)).reshape(len(keys), len(alphabet))
                got = (keys, held.sum(axis=1), counts.astype(np.uint16), {ch: j for j, ch in enumerate(alphabet)})
            self._buckets[prefix] = got
        return got


def expand_aliases(query: str, seeds: Mapping[str, float], index: EntityIndex, max_names: int = 3) -> str:
    """The query with the name of each entity it names only by an alias appended ("issues with Falcon" ->
    "issues with Falcon (search-indexer)"), so BM25 and the vector leg find notes written with the name.

    Only exact matches count (weight 1): a fuzzy one is too weak a reason to change what the query says.
    """
    have = norm(query)
    names = []
    for eid, weight in seeds.items():
        name = index.names.get(eid, ("", ""))[0]
        if weight >= 1.0 and index.has_alias(eid) and norm(name) and norm(name) not in have:
            names.append(name)
    return f"{query} ({', '.join(names[:max_names])})" if names else query
