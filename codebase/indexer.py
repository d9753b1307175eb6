"""Incremental indexing of a project: scan, chunk changed files, embed in batches, write, resolve edges."""

from __future__ import annotations

import codecs
import hashlib
import inspect
import json
import logging
import re
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from filelock import Timeout

from memory_graph import Engine
from memory_graph.code import chunk_embed_text
from memory_graph.errors import ValidationError
from memory_graph.heap import release_freed_memory
from memory_graph.runs import RunLock
from memory_graph.secrets import find_secret

from .chunker import CHUNKER_VERSION, ParsedFile, parse_file
from .languages.components import COMPONENT_LANGUAGES, component_source, markup_refs, restore_markup
from .methods import method_edges
from .languages.notebooks import NOT_A_NOTEBOOK, notebook_source
from .resolve import resolve_edges
from .scanner import SourceFile, check_root, not_a_project, scan
from .languages.tsconfig import path_aliases

log = logging.getLogger("memory_graph.codebase")

#: a file's recorded hash names the chunker that cut it: one whose chunks would differ is indexed again
_DIGEST_PREFIX = f"c{CHUNKER_VERSION}:"
#: a project's edges are made again when its files or this change: 2, methods defined outside their type's body
#: are its members and Go types implement interfaces (codebase.methods); 3, TypeScript's declared types, a root
#: index file and `@/` imports (codebase.resolve); 4, awaited results, and a library method's result in
#: Python is unknown, not a library's (codebase.resolve); 5, Rust's declared types and `super::`/`self::` paths;
#: 6, a bare call names no method of a type in Python, JavaScript, TypeScript, Go, Rust and PHP
EDGES_VERSION = 6

#: progress(phase, done, total, info): phase is "wait" (for another process's run of the project), "scan",
#: "index", "resolve" or "density"; info carries chunk counts.
Progress = Callable[[str, int, int, dict], None]


@dataclass
class IndexReport:
    """What an index run did: counts, skip reasons, seconds."""

    project: str
    root: str
    files_scanned: int = 0
    files_indexed: int = 0
    files_unchanged: int = 0
    files_removed: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    #: files skipped for their size (a generated GraphQL schema, a bundled header): what a larger
    #: ``index_max_file_bytes`` (MEMORY_GRAPH_INDEX_MAX_FILE_BYTES) would index; the first 200 skipped files' at most
    too_large: list[str] = field(default_factory=list)
    chunks: int = 0
    chunks_embedded: int = 0
    symbols: int = 0
    edges: int = 0
    unresolved_edges: int = 0
    parse_errors: int = 0
    decode_errors: int = 0  # files not in UTF-8
    decoded_as: dict[str, str] = field(default_factory=dict)  # path -> the encoding each of those was read in
    seconds: float = 0.0
    embed_seconds: float = 0.0
    errors: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


def detect_project(path: str | Path, within: Sequence[Path] | None = None) -> tuple[Path, str]:
    """The project root (the git top level, else the folder) and its name.

    within: folders the root must lie in (the server's allowed roots); a git top level outside them is not
    used, and the folder itself is the project. Nor is a top level that is a home folder (a dotfiles
    repository). Raises ValidationError for a home folder or the file system's root itself.
    """
    root = check_root(path)
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "--show-toplevel"], capture_output=True,
                             text=True, timeout=5, check=False)
        if out.returncode == 0 and out.stdout.strip():
            top = Path(out.stdout.strip()).resolve()
            # a dotfiles repository at ~ makes every folder under it part of one: such a top level is no project
            if root.is_relative_to(top) and not not_a_project(top) and \
                    (within is None or any(top.is_relative_to(r) for r in within)):
                root = top
    except (OSError, subprocess.SubprocessError):
        pass
    return root, root.name or "root"


def file_id(project: str, path: str) -> str:
    return "file_" + hashlib.sha1(f"{project}\x00{path}".encode()).hexdigest()[:24]


def _chunk_id(project: str, path: str, n: int, digest: str) -> str:
    return "chunk_" + hashlib.sha1(f"{project}\x00{path}\x00{n}\x00{digest}".encode()).hexdigest()[:24]


def _symbol_id(project: str, path: str, qualname: str, kind: str) -> str:
    return "sym_" + hashlib.sha1(f"{project}\x00{path}\x00{qualname}\x00{kind}".encode()).hexdigest()[:24]


_CODING = re.compile(rb"coding[:=][ \t]*([-\w.]+)")


def decode(data: bytes) -> tuple[str, str]:
    """Text of a file, and the encoding it was read in ("utf-8" unless it was not UTF-8); never fatal.

    A file that is not UTF-8 is read in the encoding its first two lines declare (PEP 263's
    ``# -*- coding: latin-1 -*-``, which Emacs and Vim modelines share), else as mostly-UTF-8 with damage
    (replacement characters; "utf-8, damaged") when valid multi-byte characters outnumber the invalid bytes,
    else as Windows-1252 (a superset of Latin-1's printable range), so that ``café`` stays ``café``.
    """
    try:
        return data.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError:
        pass
    m = _CODING.search(b"\n".join(data.split(b"\n", 2)[:2]))
    if m:
        try:
            declared = codecs.lookup(m.group(1).decode("ascii")).name
            return data.decode(declared), declared
        except (LookupError, UnicodeDecodeError):
            pass
    text = data.decode("utf-8", errors="replace")
    bad = text.count("\ufffd")
    if sum(ord(ch) > 127 for ch in text) - bad > bad:
        return text, "utf-8, damaged"
    try:
        return data.decode("cp1252"), "cp1252"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "latin-1"


class Indexer:
    """Index one project folder into an Engine, incrementally.

    Only files whose content hash changed are chunked and embedded; files that disappeared are removed; a run
    that was interrupted resumes where it stopped (each batch of files is one write, the files' hashes last).
    """

    def __init__(self, engine: Engine, path: str | Path, project: str | None = None,
                 progress: Progress | None = None, within: Sequence[Path] | None = None) -> None:
        self.engine = engine
        self.root, detected = detect_project(path, within) if project is None else (check_root(path), project)
        if project is None:
            owner = engine.project_root(detected)
            if owner is not None and owner != str(self.root):  # another folder of the same name
                detected = f"{detected}-{hashlib.sha1(str(self.root).encode()).hexdigest()[:6]}"
        self.project = (project or detected).strip()
        if not self.project or len(self.project) > 200:
            raise ValidationError("project name must be 1 to 200 characters")
        self.progress = progress
        self.cfg = engine.config
        self.cancelled = threading.Event()
        self._lock: RunLock | None = None

    def _report(self, phase: str, done: int, total: int, **info) -> None:
        if self._lock is not None:
            self._lock.update(phase, done, total, chunks=info.get("chunks"))
        if self.progress:
            self.progress(phase, done, total, info)

    def run(self, force: bool = False) -> IndexReport:
        """Bring the project's index up to date. force: re-chunk and re-embed every file.

        One run per project at a time across processes (the server's watcher and the CLI, say): a second run
        waits for the first, then finds its files unchanged instead of embedding them all again."""
        lock = RunLock(self.engine.data_dir, self.project, str(self.root))
        waited = False
        while True:
            try:
                # not 0 at first: a search in another process may be looking whether the lock is held
                lock.acquire(timeout=0.2 if not waited else 0.5)
                break
            except Timeout:
                if not waited:
                    log.warning("another process is indexing %s; waiting for it to finish", self.project)
                    self._report("wait", 0, 0)
                    waited = True
                if self.cancelled.is_set():
                    report = IndexReport(self.project, str(self.root))
                    report.errors.append("cancelled while another process was indexing the project")
                    return report
        self._lock = lock
        try:
            return self._run(force)
        finally:
            self._lock = None
            lock.release()

    def _run(self, force: bool) -> IndexReport:
        t0 = time.perf_counter()
        report = IndexReport(self.project, str(self.root))
        self._report("scan", 0, 0)
        scanned = scan(self.root, self.cfg.index_max_file_bytes,
                       max_notebook_bytes=self.cfg.index_max_notebook_bytes)
        report.files_scanned = len(scanned.files)
        report.skipped = dict(scanned.skipped)
        report.too_large = sorted(p for p, why in scanned.examples.items() if why == "too_large")
        known = self.engine.code_files(self.project)
        changed, touched, secrets = self._changes(scanned.files, known, force, report)
        removed = sorted((set(known) - {f.path for f in scanned.files}) | (set(secrets) & set(known)))
        report.files_removed = len(removed)
        report.files_unchanged = len(scanned.files) - len(changed) - len(secrets)
        with self.engine.deferred_index_rebuilds():
            self._index_files(changed, removed, report, force)
        self.engine.code_touch(self.project, touched)
        if self.cancelled.is_set():  # the next run resolves: the edges' stamp no longer matches the files
            report.seconds = round(time.perf_counter() - t0, 3)
            return report
        self._resolve(report, force or bool(changed) or bool(removed), scanned.configs)
        self._report("density", 0, 1)
        self.engine.code_refresh_density(self.project)
        self._report("density", 1, 1)
        p = next(iter(self.engine.code_projects(self.project)), {})
        report.chunks, report.symbols = p.get("chunks", 0), p.get("symbols", 0)
        report.edges, report.unresolved_edges = p.get("edges", 0), p.get("unresolved_edges", 0)
        report.seconds = round(time.perf_counter() - t0, 3)
        report.embed_seconds = round(report.embed_seconds, 3)
        if changed or removed:
            release_freed_memory()  # the batches', the resolver's and the neighbour lists' temporaries
        return report

    # ---- which files changed --------------------------------------------
    def _changes(self, files: list[SourceFile], known: dict[str, dict], force: bool,
                 report: IndexReport) -> tuple[list[tuple[SourceFile, bytes, str]], dict, list[str]]:
        """The files to index again (read, with their digest), those only touched (size and mtime), and those
        that hold a secret (``memory_graph.secrets``)."""
        changed: list[tuple[SourceFile, bytes, str]] = []
        touched: dict[str, tuple[int, float]] = {}
        secrets: list[str] = []
        for f in files:
            old = known.get(f.path)
            # a file chunked by an older chunker is read again, so an upgrade re-chunks it (resumably)
            current = old is not None and old["content_hash"].startswith(_DIGEST_PREFIX)
            if not force and current and old["status"] == "ok" and old["size"] == f.size and old["mtime"] == f.mtime:
                continue  # same size and mtime: not even read
            try:
                data = f.abspath.read_bytes()
            except OSError as exc:
                report.skipped["unreadable"] = report.skipped.get("unreadable", 0) + 1
                report.errors.append(f"{f.path}: {exc.strerror or exc}")
                continue
            if find_secret(data) is not None:  # never indexed, and gone from the index if it was
                report.skipped["secret"] = report.skipped.get("secret", 0) + 1
                secrets.append(f.path)
                continue
            digest = _DIGEST_PREFIX + hashlib.sha256(data).hexdigest()
            if not force and old and old["status"] == "ok" and old["content_hash"] == digest:
                touched[f.path] = (f.size, f.mtime)
                continue
            changed.append((f, data, digest))
        return changed, touched, secrets

    def _file_row(self, f: SourceFile, digest: str, chunks: int, parsed: ParsedFile) -> dict:
        return {"id": file_id(self.project, f.path), "project": self.project, "path": f.path,
                "language": f.language, "content_hash": digest, "size": f.size, "mtime": f.mtime,
                "indexed_at": time.time(), "chunks": chunks, "root": str(self.root), "status": "ok",
                "refs": json.dumps([[r.source, r.kind, r.name, r.line, r.receiver, *([r.typed] if r.typed else [])]
                                    for r in parsed.refs]),
                "imports": json.dumps(parsed.imports)}

    # ---- chunk, embed, write ----------------------------------------------
    def _parse(self, item: tuple[SourceFile, bytes, str]) -> tuple[SourceFile, str, ParsedFile, str]:
        f, data, digest = item
        text, encoding = decode(data)
        broken = False
        if f.path.endswith(".ipynb"):
            try:
                text, f.language = notebook_source(text)
            except ValidationError:  # a merge conflict in the JSON, say: its text is still worth finding
                f.language, broken = NOT_A_NOTEBOOK, True
        script, language = component_source(text) if f.language in COMPONENT_LANGUAGES else (text, f.language)
        parsed = parse_file(f.path, script, language, self.cfg.chunk_max_tokens, self.cfg.chunk_overlap_lines)
        if f.language in COMPONENT_LANGUAGES:
            restore_markup(parsed.chunks)
            parsed.refs += markup_refs(text, f.language)
        parsed.parse_error = parsed.parse_error or broken
        return f, digest, parsed, encoding

    def _batches(self, changed: list) -> list[list]:
        """Files grouped so that each batch holds about ``index_batch_chunks`` chunks' worth of text."""
        batches, cur, size = [], [], 0
        limit = self.cfg.index_batch_chunks * self.cfg.chunk_max_tokens * 4
        for item in changed:
            cur.append(item)
            size += len(item[1])
            if size >= limit or len(cur) >= self.cfg.index_batch_files:
                batches.append(cur)
                cur, size = [], 0
        if cur:
            batches.append(cur)
        return batches

    def _index_files(self, changed: list, removed: list[str], report: IndexReport, force: bool = False) -> None:
        total = len(changed)
        if not changed:
            if removed:
                self.engine.code_write(self.project, [], [], [], remove_paths=removed)
            return
        done = 0
        self._report("index", 0, total, chunks=0)
        t_start = time.perf_counter()
        batches = self._batches(changed)
        # parse the next batch while the model embeds this one (torch releases the GIL)
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="mg-parse") as pool:
            pending = pool.submit(lambda b: [self._parse(x) for x in b], batches[0])
            for n, _batch in enumerate(batches):
                parsed = pending.result()
                if n + 1 < len(batches):
                    pending = pool.submit(lambda b: [self._parse(x) for x in b], batches[n + 1])
                if self.cancelled.is_set():
                    report.errors.append("cancelled; the next run resumes")
                    break
                files, chunks, symbols = self._records(parsed, report)
                texts = [chunk_embed_text(c["path"], c["breadcrumb"], c["signature"], c["content"]) for c in chunks]
                known = self.engine.code_vectors(self.project, [f["path"] for f in files]) if not force else {}
                todo = list(dict.fromkeys(t for t in texts if t not in known))
                t = time.perf_counter()
                if todo:
                    known.update(zip(todo, self._embed(todo, done, total, report, t_start)))
                report.chunks_embedded += len(todo)
                report.embed_seconds += time.perf_counter() - t
                for c, text in zip(chunks, texts):
                    c["vector"] = [float(x) for x in known[text]]
                self.engine.code_write(self.project, files, chunks, symbols,
                                       remove_paths=removed if n == 0 else ())
                done += len(parsed)
                report.files_indexed += len(parsed)
                elapsed = max(1e-6, time.perf_counter() - t_start)
                self._report("index", done, total, chunks=report.chunks_embedded,
                             chunks_per_s=round(report.chunks_embedded / elapsed, 1))

    def _embed(self, texts: list[str], done: int, total: int, report: IndexReport, t_start: float):
        """The vectors of a batch's new chunks, saying how far the model got about every
        ``index_progress_seconds``: a client whose request timeout resets on progress gave up after a minute
        of silence on one batch of a busy machine."""
        last = [time.perf_counter()]

        def progress(embedded: int) -> None:
            now = time.perf_counter()
            if now - last[0] >= self.cfg.index_progress_seconds:
                last[0] = now
                chunks = report.chunks_embedded + embedded
                self._report("index", done, total, chunks=chunks,
                             chunks_per_s=round(chunks / max(1e-6, now - t_start), 1))

        encode = self.engine.embedder.encode
        if "progress" not in inspect.signature(encode).parameters:  # an embedder of a test's, or a user's own
            return encode(texts)
        return encode(texts, progress=progress)

    def _records(self, parsed: list[tuple[SourceFile, str, ParsedFile, str]],
                 report: IndexReport) -> tuple[list[dict], list[dict], list[dict]]:
        files, chunks, symbols = [], [], []
        now = time.time()
        for f, digest, p, encoding in parsed:
            report.parse_errors += int(p.parse_error)
            if encoding != "utf-8":
                report.decode_errors += 1
                report.decoded_as[f.path] = encoding
            ids = {s.qualname: _symbol_id(self.project, f.path, s.qualname, s.kind) for s in p.symbols}
            for s in p.symbols:
                symbols.append({"id": ids[s.qualname], "project": self.project, "path": f.path, "name": s.name,
                                "qualname": s.qualname, "kind": s.kind, "signature": s.signature,
                                "start_line": s.start_line, "end_line": s.end_line, "parent": s.parent,
                                "language": f.language})
            for n, c in enumerate(p.chunks):
                h = hashlib.sha256(c.content.encode("utf-8", errors="replace")).hexdigest()
                chunks.append({"id": _chunk_id(self.project, f.path, n, h), "project": self.project,
                               "path": f.path, "language": f.language, "start_line": c.start_line,
                               "end_line": c.end_line, "chunk_type": c.chunk_type, "name": c.name,
                               "breadcrumb": c.breadcrumb, "signature": c.signature, "content": c.content,
                               "content_hash": h, "symbol_id": ids.get(c.symbol, ""), "created_at": now})
            files.append(self._file_row(f, digest, len(p.chunks), p))
        return files, chunks, symbols

    # ---- edges --------------------------------------------------------------
    def _resolve(self, report: IndexReport, changed: bool, configs: list[str]) -> None:
        hashes = sorted((p, r["content_hash"]) for p, r in self.engine.code_files(self.project).items())
        aliases = path_aliases(self.root, configs)  # stamped too: the edges follow the configs, indexed or not
        stamp = hashlib.sha1(json.dumps([EDGES_VERSION, hashes, *([aliases] if aliases else [])]).encode()).hexdigest()
        if not changed and self.engine.lance.get_meta().get(f"edges:{self.project}") == stamp:
            return
        self._report("resolve", 0, 1)
        symbols, files = self.engine.code_symbols_and_refs(self.project)
        edges = resolve_edges(self.project, symbols, files, package=Path(self.root).name, aliases=aliases)
        edges += method_edges(self.project, symbols, edges)
        self.engine.code_replace_edges(self.project, edges, stamp)
        self._report("resolve", 1, 1)


def index_project(engine: Engine, path: str | Path, project: str | None = None, force: bool = False,
                  progress: Progress | None = None) -> IndexReport:
    """Index (or bring up to date) one project folder. See Indexer."""
    return Indexer(engine, path, project, progress).run(force=force)

