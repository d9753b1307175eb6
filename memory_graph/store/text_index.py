"""The Tantivy BM25 index: derived from LanceDB, rebuildable, never fed raw query syntax."""

from __future__ import annotations

import atexit
import json
import logging
import math
import re
import shutil
import tempfile
from pathlib import Path
from typing import Iterable, Sequence

import tantivy

from ..errors import ConfigError
from ..models import Filters, content_hash
from ..text import WORD_RE, derive_title, identifier_parts, identifier_terms, query_terms, whole_identifiers

log = logging.getLogger("memory_graph")

NO_END = 1e15  # valid_until of a record that never expires
NO_START = -1e15
_HEAP = 32_000_000
#: query words whose body terms a TantivyIndex keeps (``_analysed``): a few hundred bytes each
WORDS_KEPT = 4_096
#: clauses asked of one document per search in ``_held_by``: each adds a distinct power of two to the score,
#: and Tantivy's score is a float32, which holds a sum of distinct powers of two exactly up to 2 ** 24
HELD_PER_SEARCH = 24
#: a term in a parsed query's repr (how the body's analyser wrote the query's words)
TERM_RE = re.compile(r'type=Str, "((?:[^"\\]|\\.)*)"')


def _schema() -> tantivy.Schema:
    b = tantivy.SchemaBuilder()
    b.add_text_field("id", stored=True, tokenizer_name="raw")
    b.add_text_field("kind", tokenizer_name="raw")
    b.add_text_field("rev", stored=True, tokenizer_name="raw")
    b.add_text_field("title", tokenizer_name="en_stem")
    b.add_text_field("body", tokenizer_name="en_stem")
    b.add_text_field("idents", tokenizer_name="default")
    for name in ("project", "mtype", "tags", "path", "language", "chunk_type"):
        b.add_text_field(name, tokenizer_name="raw")
    for name in ("created_at", "valid_from", "valid_until"):
        b.add_float_field(name, indexed=True, fast=True)
    return b.build()


class TantivyIndex:
    """One Tantivy index of BM25 documents, one per record id (``TextIndex`` keeps one per kind)."""

    FIELDS = ["title", "body", "idents"]

    def __init__(self, path: Path, max_query_terms: int = 64) -> None:
        self.path = path
        self.max_query_terms = max_query_terms
        self.schema = _schema()
        self.unwritable: str | None = None  # why the index cannot be opened where it is, if it cannot
        self._copy: Path | None = None  # the private copy read instead (``open_copy_if_unwritable``)
        self._terms_of: dict[str, tuple[str, ...]] = {}  # ``_analysed``
        self.index = self._open()

    def _open(self) -> tantivy.Index | None:
        if self.path.exists() and not self.path.is_dir():
            raise ConfigError(f"{self.path} is a file where the text index's folder belongs",
                              hint="move or delete it; the index is rebuilt from LanceDB at the next open")
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            return tantivy.Index(self.schema, path=str(self.path), reuse=True)
        except (ValueError, OSError) as exc:
            if _denied(exc):  # not damage: wiping it would lose nothing it could not rebuild, but change nothing
                self.unwritable = str(exc)
                return None
            log.warning("text index at %s is unreadable (%s); it will be rebuilt from LanceDB", self.path, exc)
            self.wipe_files()
            return tantivy.Index(self.schema, path=str(self.path), reuse=True)

    def open_copy_if_unwritable(self) -> bool:
        """Where the index cannot be opened in place (Tantivy takes a lock file even to read), read a private
        copy in a temporary folder. Returns False when the copy starts empty (the index could not be read
        either): the caller fills it from LanceDB."""
        if self.unwritable is None:
            return True
        self._copy = Path(tempfile.mkdtemp(prefix=f"memory-graph-{self.path.name}-"))
        atexit.register(shutil.rmtree, self._copy, True)
        try:
            shutil.copytree(self.path, self._copy, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns(".tantivy-*.lock"))
            self.index = tantivy.Index(self.schema, path=str(self._copy), reuse=True)
            return True
        except (ValueError, OSError) as exc:
            log.warning("the text index at %s cannot be read either (%s): rebuilding a copy from LanceDB",
                        self.path, exc)
            shutil.rmtree(self._copy, ignore_errors=True)
            self._copy.mkdir()
            self.index = tantivy.Index(self.schema, path=str(self._copy), reuse=True)
            return False

    def collect_garbage(self) -> int:
        """Remove files no commit refers to: what a process killed mid-commit leaves behind, and the segments
        merged away while another process's writer managed the directory (each keeps its own list of files).

        A leftover ``<segment>.<opstamp>.del`` would otherwise make the next commit fail with
        FileAlreadyExists. Call it under the write lock. Returns how many files were removed.
        """
        writer = self.index.writer(heap_size=_HEAP, num_threads=1)
        try:
            writer.garbage_collect_files()
        finally:
            writer.wait_merging_threads()
        try:
            meta = json.loads((self.path / "meta.json").read_text())
        except (OSError, ValueError):
            return 0
        segments = {seg["segment_id"].replace("-", ""): seg for seg in meta.get("segments", [])}
        removed = 0
        for f in self.path.iterdir():
            parts = f.name.split(".")
            if f.name.startswith(".") or f.name == "meta.json" or len(parts) < 2:
                continue
            seg = segments.get(parts[0])
            deletes = (seg or {}).get("deletes") or {}
            live = seg is not None and (parts[-1] != "del" or (len(parts) == 3 and
                                                                  parts[1] == str(deletes.get("opstamp"))))
            if not live:
                f.unlink(missing_ok=True)
                removed += 1
        if removed:
            log.warning("removed %d text index files no commit refers to (from an interrupted commit or another "
                        "process's merges)", removed)
        return removed

    def wipe_files(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
        self.path.mkdir(parents=True, exist_ok=True)

    # ---- documents ------------------------------------------------------
    def document(self, rec: dict, kind: str) -> tantivy.Document:
        """A Tantivy document from a memory or code-chunk row."""
        doc = tantivy.Document()
        doc.add_text("id", rec["id"])
        doc.add_text("kind", kind)
        doc.add_text("rev", rev_of(rec))
        body = rec.get("content") or ""
        title = rec.get("title") or rec.get("breadcrumb") or ""
        if kind == "memory" and title == derive_title(body):
            title = ""  # a title derived from the text would count its first words twice
        # the body holds every searchable word, the title's too: BM25 scores of separate fields summed
        # over-reward a match in a short field (Robertson, Zaragoza & Taylor 2004, "Simple BM25 extension to
        # multiple weighted fields"). On SciFact's 809 dev claims, BM25 alone had nDCG@10 0.669 with titles in
        # their own field only, boosted 1.5 (python -m benchmarks --full at commit 7f40eeb); with them in the
        # body, 0.700 at boost 0 and 0.661 at 1.5 (python -m benchmarks.sweep --dataset scifact --queries 809
        # --whole-corpus, variants of "mg: bm25 only")
        if kind == "memory":
            extra = title
        else:  # a chunk's title is its breadcrumb, one of these
            extra = " ".join(x for x in (rec.get("path"), rec.get("name"), rec.get("breadcrumb")) if x)
        doc.add_text("title", title)
        text = f"{extra}\n{body}" if extra else body
        # a memory's body counts an identifier whole, its parts only in "idents"; a code chunk's body keeps
        # them as words, which prose questions about code match
        doc.add_text("body", whole_identifiers(text) if kind == "memory" else text)
        doc.add_text("idents", identifier_terms(f"{extra} {body}"))
        doc.add_text("project", rec.get("project") or "")
        if kind == "memory":
            doc.add_text("mtype", rec.get("memory_type") or "")
            for tag in rec.get("tags") or []:
                doc.add_text("tags", tag)
        else:
            doc.add_text("path", rec.get("path") or "")
            doc.add_text("language", rec.get("language") or "")
            doc.add_text("chunk_type", rec.get("chunk_type") or "")
        doc.add_float("created_at", float(rec.get("created_at") or 0.0))
        vf, vu = rec.get("valid_from"), rec.get("valid_until")
        doc.add_float("valid_from", NO_START if vf is None else float(vf))
        doc.add_float("valid_until", NO_END if vu is None else float(vu))
        return doc

    def write(self, upserts: Iterable[tuple[dict, str]] = (), deletes: Iterable[str] = ()) -> None:
        """Replace or add documents and delete ids in one commit; on failure nothing changes."""
        writer = self.index.writer(heap_size=_HEAP, num_threads=1)
        try:
            for rid in deletes:
                writer.delete_documents_by_term("id", rid)
            for rec, kind in upserts:
                writer.delete_documents_by_term("id", rec["id"])
                writer.add_document(self.document(rec, kind))
            writer.commit()
        except BaseException:
            writer.rollback()
            raise
        finally:
            writer.wait_merging_threads()
        self.index.reload()

    def clear(self, kind: str | None = None) -> None:
        writer = self.index.writer(heap_size=_HEAP, num_threads=1)
        try:
            if kind is None:
                writer.delete_all_documents()
            else:
                writer.delete_documents_by_term("kind", kind)
            writer.commit()
        finally:
            writer.wait_merging_threads()
        self.index.reload()

    # ---- reads ----------------------------------------------------------
    def revisions(self, kind: str) -> dict[str, str]:
        """Every indexed id of a kind with its revision stamp (for reconciliation with LanceDB)."""
        self.index.reload()
        searcher = self.index.searcher()
        query = tantivy.Query.term_query(self.schema, "kind", kind)
        n = searcher.num_docs
        if n == 0:
            return {}
        out: dict[str, str] = {}
        for _score, addr in searcher.search(query, limit=n, count=False).hits:
            doc = searcher.doc(addr)
            out[doc["id"][0]] = doc["rev"][0]
        return out

    def num_docs(self) -> int:
        self.index.reload()
        return self.index.searcher().num_docs

    def _filter_clauses(self, filters: Filters, now: float, kind: str) -> list:
        Q, Occur, s = tantivy.Query, tantivy.Occur, self.schema

        def any_of(field: str, values: Iterable[str]):
            return Q.boolean_query([(Occur.Should, Q.term_query(s, field, v)) for v in values])

        clauses = [Q.term_query(s, "kind", kind)]
        if filters.project is not None:
            projects = [filters.project] + ([""] if filters.include_global and kind == "memory" else [])
            clauses.append(any_of("project", projects))
        if kind == "memory":
            if filters.types:
                clauses.append(any_of("mtype", filters.types))
            if filters.tags:
                clauses.append(any_of("tags", filters.tags))
            if filters.created_after is not None or filters.created_before is not None:
                clauses.append(Q.range_query(s, "created_at", tantivy.FieldType.Float,
                                             filters.created_after, filters.created_before,
                                             include_upper=filters.created_before is None))
            if not filters.include_invalid:
                at = float(filters.as_of if filters.as_of is not None else now)
                clauses.append(Q.range_query(s, "valid_until", tantivy.FieldType.Float, at, None,
                                             include_lower=False))
                clauses.append(Q.range_query(s, "valid_from", tantivy.FieldType.Float, None, at))
                if filters.as_of is not None:
                    # as of a past time, no valid_from (NO_START) means from when it was stored, as in sql_filter
                    clauses.append(Q.boolean_query([
                        (Occur.Should, Q.range_query(s, "created_at", tantivy.FieldType.Float, None, at)),
                        (Occur.Should, Q.range_query(s, "valid_from", tantivy.FieldType.Float, NO_START, None,
                                                     include_lower=False))]))
        else:
            if filters.path_prefix:
                clauses.append(Q.regex_query(s, "path", path_regex(filters.path_prefix)))
            if filters.languages:
                clauses.append(any_of("language", filters.languages))
            if filters.chunk_types:
                clauses.append(any_of("chunk_type", filters.chunk_types))
        return clauses

    def search(self, text: str, filters: Filters, now: float, limit: int, kind: str = "memory",
               title_boost: float = 0.0, idents_boost: float = 1.0, phrases: Sequence[str] = (),
               phrase_boost: float = 1.0) -> tuple[list[str], list[float]]:
        """BM25 ranking of the query's words; user text is never parsed as query syntax.

        ``title_boost`` > 0 adds a match in the title field, times that weight, to the body's score;
        ``idents_boost`` weighs a match in the identifier field (whole identifiers and their parts).
        ``phrases`` (``text.literal_phrases``: the fixed parts of a pasted error message) add, times
        ``phrase_boost``, the score of each one the body holds word for word, in order.
        """
        terms = query_terms(text, self.max_query_terms, whole=kind == "memory")
        if not terms:
            return [], []
        fields = self.FIELDS if title_boost > 0 else [f for f in self.FIELDS if f != "title"]
        boosts = {"title": title_boost, "idents": idents_boost}
        # a memory query's identifier parts ("usage" of enable_usage_billing) are searched among identifier
        # parts only: in the body, where identifiers are whole, they would match prose ("Usage of the API")
        parts = identifier_parts(text) if kind == "memory" else set()
        words_ = [t for t in terms if t not in parts]
        found = [self.index.parse_query(" ".join(words_), fields, field_boosts=boosts)] if words_ else []
        if len(words_) < len(terms):
            found.append(self.index.parse_query(" ".join(t for t in terms if t in parts), ["idents"],
                                                field_boosts=boosts))
        found += [tantivy.Query.boost_query(q, phrase_boost) for q in self._phrase_queries(phrases)]
        text_query = (found[0] if len(found) == 1 else
                      tantivy.Query.boolean_query([(tantivy.Occur.Should, q) for q in found]))
        clauses = [(tantivy.Occur.Must, text_query)]
        # a filter only admits documents: scored, a project's term adds its idf to every hit (2.3 on one LoCoMo
        # conversation), which flattens the max-normalised scores fusion reads
        clauses += [(tantivy.Occur.Must, tantivy.Query.const_score_query(c, 0.0))
                    for c in self._filter_clauses(filters, now, kind)]
        query = tantivy.Query.boolean_query(clauses)
        searcher = self.index.searcher()
        hits = searcher.search(query, limit=limit, count=False).hits
        ids = [searcher.doc(addr)["id"][0] for _score, addr in hits]
        return ids, [float(score) for score, _addr in hits]

    def reference_score(self, text: str) -> float:
        """The BM25 score of a document of average length that holds each of the query's words once and
        nothing else: the sum of their idf in the body field, where every searchable word is (a term's
        score at tf 1 and average length is its idf: (k1 + 1) tf / (tf + k1) = 1). A word no document holds
        counts with the idf of a word one document holds: no document matches the query in full then.

        A leg's scores divided by the larger of this and its top score keep a weak match weak in a store where
        it is the only match, instead of turning it into a 1.0 (max-normalisation)."""
        parts = identifier_parts(text)  # searched among identifier parts only (search)
        words = [t for t in query_terms(text, self.max_query_terms, whole=True) if t not in parts]
        return sum(self._body_idf([t for w in words for t in self._analysed(w)]).values())

    def coverage(self, text: str, doc_id: str, kind: str = "code", phrases: Sequence[str] = ()) -> float:
        """How much of a query document ``doc_id`` holds: the share of its words, weighted by idf, or where the
        query has ``phrases`` (the fixed parts of a pasted error message), the share of those it holds word for
        word if that is more; 1 when it holds all. A code chunk repeats its words, so its BM25 score passes
        reference_score whatever it misses; this tells "holds the question" from "holds one word many times",
        and a message's own text from the values pasted in it ("purple" in 'invalid argument "purple"')."""
        searcher = self.index.searcher()
        schema = self.index.schema
        words = {w: self._analysed(w) for w in query_terms(text, self.max_query_terms, whole=kind == "memory")}
        idf = self._body_idf([t for terms in words.values() for t in terms], searcher)
        weights = {w: sum(idf[t] for t in terms) for w, terms in words.items()}
        total = sum(weights.values())
        if not total:
            return 0.0
        queries = self._phrase_queries(phrases)
        # a word is held in the body, or as a part of an identifier ("valid" of OnlyValidArgs)
        asked = {("body", t): tantivy.Query.term_query(schema, "body", t) for t in idf}
        asked.update({("idents", w.lower()): tantivy.Query.term_query(schema, "idents", w.lower())
                      for w, terms in words.items() if terms})
        asked.update({("phrase", i): q for i, q in enumerate(queries)})
        held = _held_by(searcher, tantivy.Query.term_query(schema, "id", doc_id), asked)
        share = sum(weights[w] for w, terms in words.items() if terms and (
            all(("body", t) in held for t in terms) or ("idents", w.lower()) in held)) / total
        if not queries:
            return share
        return max(share, sum(("phrase", i) in held for i in range(len(queries))) / len(queries))

    def _analysed(self, word: str) -> tuple[str, ...]:
        """The body field's terms of one query word (its analyser's stems), kept: they depend on the word alone."""
        got = self._terms_of.get(word)
        if got is None:
            if len(self._terms_of) >= WORDS_KEPT:
                self._terms_of.clear()
            parsed = repr(self.index.parse_query(word, ["body"]))
            got = self._terms_of[word] = tuple(dict.fromkeys(TERM_RE.findall(parsed)))
        return got

    def _phrase_queries(self, phrases: Sequence[str]) -> list:
        """A body query for each phrase of several words, matched word for word and in order; words only, so no
        query syntax survives."""
        safe = (" ".join(WORD_RE.findall(p)) for p in phrases)
        return [self.index.parse_query(f'"{p}"', ["body"]) for p in safe if len(p.split()) > 1]

    def _body_idf(self, terms: list[str], searcher=None) -> dict[str, float]:
        """Each of the body field's ``terms`` (as its analyser wrote them, ``_analysed``) with its idf there
        (Robertson-Sparck Jones, as Tantivy scores BM25); ``searcher``: the caller's, if it has one."""
        if not terms:
            return {}
        searcher = searcher or self.index.searcher()
        n = searcher.num_docs
        return {term: math.log(1.0 + (n - (df := max(1, searcher.doc_freq("body", term))) + 0.5) / (df + 0.5))
                for term in dict.fromkeys(terms)}

    def reload(self) -> None:
        self.index.reload()


class TextIndex:
    """BM25 over memories and code chunks: a Tantivy index for each kind, at ``path`` (memories) and beside it
    (``<path>-code``), so that each kind's word statistics (idf, average length) are its own. In one index, a
    code project indexed beside a store of notes changed memory search's top 10 on 81 of 112 devnotes
    questions (nDCG@10 0.838 -> 0.834, click's 2,159 chunks beside the 251 notes; ``python -m
    benchmarks.probes.mixed_store_probe`` at commit 6ac71e4)."""

    KINDS = ("memory", "code")

    def __init__(self, path: Path, max_query_terms: int = 64) -> None:
        self.path = path
        self.by_kind = {"memory": TantivyIndex(path, max_query_terms),
                        "code": TantivyIndex(path.with_name(f"{path.name}-code"), max_query_terms)}

    @property
    def unwritable(self) -> str | None:
        return next((i.unwritable for i in self.by_kind.values() if i.unwritable is not None), None)

    def open_copy_if_unwritable(self) -> bool:
        """``TantivyIndex.open_copy_if_unwritable`` for each kind: False when a copy starts empty."""
        return all([i.open_copy_if_unwritable() for i in self.by_kind.values()])

    def collect_garbage(self) -> int:
        """Remove files no commit refers to, and documents of the other kind (a data directory from when one
        index held both; the code index is then filled again from LanceDB). Call it under the write lock."""
        removed = 0
        for kind, index in self.by_kind.items():
            removed += index.collect_garbage()
            for other in self.KINDS:
                stray = list(index.revisions(other)) if other != kind else []
                if stray:
                    index.write(deletes=stray)
                    removed += len(stray)
        return removed

    def wipe_files(self) -> None:
        for index in self.by_kind.values():
            index.wipe_files()

    def write(self, upserts: Iterable[tuple[dict, str]] = (), deletes: Iterable[str] = (),
              kind: str | None = None) -> None:
        """Replace or add documents and delete ids; ``kind``: the kind of the ids deleted (both, if None).
        Each kind's index commits on its own; after a failure the next open reconciles them with LanceDB."""
        upserts, deletes = list(upserts), list(deletes)
        for k, index in self.by_kind.items():
            mine = [(rec, kd) for rec, kd in upserts if kd == k]
            gone = deletes if kind in (None, k) else []
            if mine or gone:
                index.write(upserts=mine, deletes=gone)

    def clear(self, kind: str | None = None) -> None:
        for k, index in self.by_kind.items():
            if kind in (None, k):
                index.clear()

    def revisions(self, kind: str) -> dict[str, str]:
        return self.by_kind[kind].revisions(kind)

    def num_docs(self) -> int:
        return sum(index.num_docs() for index in self.by_kind.values())

    def search(self, text: str, filters: Filters, now: float, limit: int, kind: str = "memory",
               *args, **kwargs) -> tuple[list[str], list[float]]:
        return self.by_kind[kind].search(text, filters, now, limit, kind, *args, **kwargs)

    def reference_score(self, text: str, kind: str = "memory") -> float:
        return self.by_kind[kind].reference_score(text)

    def coverage(self, text: str, doc_id: str, kind: str = "code", phrases: Sequence[str] = ()) -> float:
        return self.by_kind[kind].coverage(text, doc_id, kind, phrases)

    def reload(self) -> None:
        for index in self.by_kind.values():
            index.reload()


#: the fields of a record whose change changes its document
REV_FIELDS = ("content_hash", "title", "tags", "project", "memory_type", "created_at", "valid_from",
              "valid_until", "path", "language", "chunk_type", "breadcrumb", "name")


#: how a record becomes a document; a new layout changes every stamp, so indexes written by an older one are
#: brought up to date when opened (``Sync.reconcile_text``)
TEXT_LAYOUT = 3


def _held_by(searcher, one, asked: dict) -> set:
    """The keys of ``asked`` whose query matches the document that the query ``one`` finds: one search for up
    to ``HELD_PER_SEARCH`` of them, each scored by a distinct power of two (read back from the sum), not one
    search each."""
    keys, held = list(asked), set()
    only = (tantivy.Occur.Must, tantivy.Query.const_score_query(one, 0.0))
    for start in range(0, len(keys), HELD_PER_SEARCH):
        part = keys[start:start + HELD_PER_SEARCH]
        clauses = [only] + [(tantivy.Occur.Should, tantivy.Query.const_score_query(asked[k], float(1 << b)))
                            for b, k in enumerate(part)]
        hits = searcher.search(tantivy.Query.boolean_query(clauses), limit=1, count=False).hits
        bits = int(hits[0][0]) if hits else 0
        held.update(k for b, k in enumerate(part) if bits >> b & 1)
    return held


def _denied(exc: BaseException) -> bool:
    """Whether opening failed for want of permission or on a read-only file system, not for damage."""
    text = str(exc)
    return isinstance(exc, PermissionError) or getattr(exc, "errno", None) in (13, 30) or any(
        s in text for s in ("Permission denied", "os error 13", "Read-only file system", "os error 30",
                            "PermissionDenied", "ReadOnlyFilesystem"))


def rev_of(rec: dict) -> str:
    """A stamp that changes whenever an indexed field of the record, or the document layout, changes."""
    return content_hash(json.dumps([TEXT_LAYOUT, *(rec.get(k) for k in REV_FIELDS)], default=str))


#: the characters Tantivy's regex syntax (Rust's regex-syntax) gives a meaning; an escaped "<" or ">" would be
#: a word boundary, so they stay as they are
_REGEX_META = frozenset("\\.+*?()|[]{}^$#&-~")


def _regex_escape(text: str) -> str:
    return "".join("\\" + c if c in _REGEX_META else c for c in text)


#: Tantivy compiles a regex to at most 1,000 automaton states, about one a byte: a path prefix longer than this
#: many bytes, escaped, is matched by its start alone, and the caller keeps the hits whose path holds all of it
PATH_REGEX_BYTES = 800


def path_regex(prefix: str) -> str:
    """The regex of paths that start with ``prefix``, or with as much of its start as Tantivy compiles
    (``path_whole``: whether that is all of it)."""
    escaped = _regex_escape(prefix)
    while len(escaped.encode()) > PATH_REGEX_BYTES:
        prefix = prefix[:-max(1, len(prefix) // 10)]
        escaped = _regex_escape(prefix)
    return escaped + "(?s:.*)"  # (?s): a file name may hold a newline, which "." alone does not match


def path_whole(prefix: str) -> bool:
    """Whether ``path_regex`` matches by all of the prefix (else a caller must check the rest)."""
    return len(_regex_escape(prefix).encode()) <= PATH_REGEX_BYTES
