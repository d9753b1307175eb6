"""What the server keeps between calls: the Engine (opened in the background), the current project, the
allowed roots, and the index runs and watchers in progress."""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from codebase import IndexReport, Indexer, detect_project
from memory_graph import Config, Engine
from memory_graph.errors import MemoryGraphError, ValidationError

log = logging.getLogger("memory_graph.server")


def allowed_roots() -> list[Path]:
    """``MEMORY_GRAPH_ALLOWED_ROOTS`` (os.pathsep-separated), default the home folder; resolved."""
    raw = os.environ.get("MEMORY_GRAPH_ALLOWED_ROOTS", "")
    roots = [p for p in raw.split(os.pathsep) if p.strip()] or [str(Path.home())]
    return [Path(p).expanduser().resolve() for p in roots]


def check_allowed(path: str, roots: list[Path]) -> Path:
    """The resolved path, if it lies inside an allowed root (symlinks resolved first). Raises ValidationError."""
    if not isinstance(path, str) or not path.strip() or "\x00" in path:
        raise ValidationError("path must be a non-empty folder path")
    resolved = Path(path).expanduser().resolve()
    if not any(resolved == r or resolved.is_relative_to(r) for r in roots):
        raise ValidationError(f"{path} is outside the allowed roots ({', '.join(map(str, roots))})",
                              hint="set MEMORY_GRAPH_ALLOWED_ROOTS to allow more folders")
    return resolved


def _duration(seconds: float) -> str:
    """'40 s', '3 min', '1 h 5 min': as a progress line says how long is left."""
    if seconds < 60:
        return f"{max(1, round(seconds))} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60} min"


@dataclass
class IndexRun:
    """One index run in progress (or finished), shared by every caller asking for the same project."""

    project: str
    root: str
    phase: str = "starting"
    done: int = 0
    total: int = 0
    chunks: int = 0
    started: float = field(default_factory=time.time)
    ended: float | None = None
    finished: threading.Event = field(default_factory=threading.Event)
    report: IndexReport | None = None
    error: str | None = None
    stop: threading.Event | None = None  # the indexer's: set, it stops after the batch it is writing

    def progress(self, phase: str, done: int, total: int, info: dict) -> None:
        self.phase, self.done, self.total = phase, done, total
        self.chunks = info.get("chunks", self.chunks)

    def message(self) -> str:
        """What the run is doing, for a progress notification ("files: 3/10, 120 chunks embedded")."""
        if self.phase == "index":
            said = f"files: {self.done}/{self.total}, {self.chunks} chunks embedded"
            if 0 < self.done < self.total:  # at the pace so far, files being of all sizes
                left = (time.time() - self.started) * (self.total - self.done) / self.done
                said += f", about {_duration(left)} left"
            return said
        doing = {"starting": "starting", "wait": "waiting for another process indexing this project",
                 "scan": "scanning files", "resolve": "resolving symbols",
                 "density": "chunk neighbourhoods"}.get(self.phase, self.phase)
        return f"{doing} ({self.chunks} chunks embedded)" if self.chunks else doing

    def snapshot(self) -> dict[str, Any]:
        done, total, chunks = self.done, self.total, self.chunks
        if self.report is not None:  # the last phase's counters are not the run's
            done = total = self.report.files_scanned
            chunks = self.report.chunks_embedded
        return {"project": self.project, "root": self.root, "phase": self.phase, "files_done": done,
                "files_total": total, "chunks_embedded": chunks, "running": not self.finished.is_set(),
                "seconds": round((self.ended or time.time()) - self.started, 1), "error": self.error,
                "pid": os.getpid()}


class ServerState:
    """Opens the Engine in a background thread so that `initialize` is answered at once."""

    def __init__(self, data_dir: str | Path | None = None, project_dir: str | Path | None = None,
                 config: Config | None = None, engine_factory: Callable[[], Engine] | None = None) -> None:
        self.roots = allowed_roots()
        self.project, self.project_root = self._detect(project_dir)
        self._engine: Engine | None = None
        self._error: BaseException | None = None
        self._ready = threading.Event()
        self._runs: dict[str, IndexRun] = {}
        self._runs_lock = threading.Lock()
        self.watchers: dict[str, Any] = {}
        factory = engine_factory or (lambda: Engine(data_dir, config=config, load_model_in_background=True))
        threading.Thread(target=self._open, args=(factory,), name="mg-open", daemon=True).start()

    @staticmethod
    def _detect(project_dir) -> tuple[str | None, Path | None]:
        explicit = os.environ.get("MEMORY_GRAPH_PROJECT")
        folder = Path(project_dir or os.getcwd()).expanduser()
        try:
            root, name = detect_project(folder)
        except MemoryGraphError:  # a home folder or / is no project either
            return explicit or None, None
        return explicit or name, root

    def _open(self, factory: Callable[[], Engine]) -> None:
        try:
            self._engine = factory()
            getattr(self._engine.embedder, "model", None)  # waits for the background load
        except BaseException as exc:  # reported to every tool call
            log.exception("could not open the memory-graph engine")
            self._error = exc
        finally:
            self._ready.set()

    def engine(self, timeout: float = 600.0) -> Engine:
        """The Engine, waiting while it (and the embedding model) loads."""
        if not self._ready.wait(timeout):
            raise MemoryGraphError("the engine is still loading", hint="retry in a few seconds")
        if self._error is not None:
            msg = getattr(self._error, "message", str(self._error))
            raise MemoryGraphError(f"the engine could not be opened: {msg}",
                                   hint=getattr(self._error, "hint", "") or "see the server's stderr log")
        assert self._engine is not None
        return self._engine

    @property
    def loaded(self) -> bool:
        return self._ready.is_set() and self._error is None

    def close(self) -> None:
        for w in list(self.watchers.values()):
            w.stop()
        if self._engine is not None:
            self._engine.close()

    # ---- index runs ---------------------------------------------------------
    def resume_interrupted(self) -> list[str]:
        """Start again, in the background, the index runs that died before their end on this data directory
        (the server of a client that gave up, a killed `memory-graph index`), where their folder is still
        allowed; each goes on from the last batch it wrote. Returns their projects."""
        from memory_graph.runs import forget, interrupted

        resumed = []
        data_dir = self.engine().data_dir
        for run in interrupted(data_dir):
            try:
                self.start_index(run["root"], run["project"], False)
            except MemoryGraphError as exc:  # the folder is gone or no longer allowed: `index` it by hand
                log.warning("not resuming the index run of %s: %s", run["project"], exc.message)
                forget(data_dir, run["project"])  # else every start would say so again
                continue
            log.warning("resuming the interrupted index run of %s (%s)", run["project"], run["root"])
            resumed.append(run["project"])
        return resumed

    def start_index(self, path: str | None, project: str | None, force: bool) -> tuple[IndexRun, bool]:
        """The run for this project: a new one, or the one already running. Returns (run, started_now)."""
        folder = check_allowed(path, self.roots) if path else self.project_root
        if folder is None:
            raise ValidationError("no project folder: the server was not started inside a project",
                                  hint="pass path, the folder to index")
        folder = check_allowed(str(folder), self.roots)
        eng = self.engine()
        indexer = Indexer(eng, folder, project or (self.project if folder == self.project_root else None),
                          within=self.roots)
        with self._runs_lock:
            current = self._runs.get(indexer.project)
            if current is not None and not current.finished.is_set():
                return current, False
            run = IndexRun(indexer.project, str(indexer.root), stop=indexer.cancelled)
            indexer.progress = run.progress
            self._runs[indexer.project] = run

        def work() -> None:
            try:
                run.report = indexer.run(force=force)
            except MemoryGraphError as exc:
                run.error = exc.message + (f" ({exc.hint})" if exc.hint else "")
            except Exception as exc:  # never lost: reported by project_status and the waiting call
                log.exception("indexing %s failed", indexer.root)
                run.error = f"indexing failed: {exc}"
            finally:
                run.phase = "done" if run.error is None else "failed"
                run.ended = time.time()
                run.finished.set()

        threading.Thread(target=work, name=f"mg-index-{indexer.project}", daemon=True).start()
        return run, True

    def stop_index(self, project: str, why: str, timeout: float = 120.0) -> None:
        """Stop this server's index run of a project, if one is going, and wait for it to end; its callers
        are told ``why``."""
        with self._runs_lock:
            run = self._runs.get(project)
        if run is None or run.finished.is_set() or run.stop is None:
            return
        run.error = why
        run.stop.set()
        run.finished.wait(timeout)

    def runs(self) -> list[dict]:
        with self._runs_lock:
            return [r.snapshot() for r in self._runs.values()]

    def watch(self, project: str, root: str) -> bool:
        """Keep a project current with a watcher (once per project). Returns whether a new one started."""
        from codebase.watcher import Watcher

        if project in self.watchers:
            return False
        self.watchers[project] = Watcher(self.engine(), root, project).start(initial=False)
        return True
