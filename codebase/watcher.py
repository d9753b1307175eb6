"""Keep an indexed project current: watch its folder and re-index (incrementally) after a quiet moment."""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Callable

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from memory_graph import Engine

from .indexer import IndexReport, Indexer
from .scanner import SKIP_DIRS

log = logging.getLogger("memory_graph.codebase")


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: "Watcher") -> None:
        self.watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return
        paths = [event.src_path, getattr(event, "dest_path", "")]
        if any(p and self.watcher.relevant(str(p)) for p in paths):
            self.watcher.poke()


class Watcher:
    """Re-index a project ``debounce`` seconds after the last change under its folder.

    Changes inside vendored or build folders and the data directory are ignored; the index run itself
    decides what changed (content hashes), so a burst of saves costs one incremental run.
    """

    def __init__(self, engine: Engine, path: str | Path, project: str | None = None,
                 debounce: float | None = None, on_report: Callable[[IndexReport], None] | None = None) -> None:
        self.indexer = Indexer(engine, path, project)
        self.root = self.indexer.root
        self.project = self.indexer.project
        self.debounce = engine.config.watch_debounce_seconds if debounce is None else debounce
        self.on_report = on_report
        self.runs = 0
        self.last_report: IndexReport | None = None
        self.last_error: str | None = None
        self.last_run: float | None = None  # when the last re-index ended (epoch seconds)
        self._status_lock = threading.Lock()  # status() is read from another thread: all of one run, or none
        self._last_change = 0.0
        self._dirty = threading.Event()
        self._stop = threading.Event()
        self._observer = Observer()
        self._thread = threading.Thread(target=self._loop, name=f"mg-watch-{self.project}", daemon=True)
        self._data_dir = Path(engine.data_dir).resolve()

    def relevant(self, path: str) -> bool:
        p = Path(path)
        if p.is_relative_to(self._data_dir):
            return False
        try:
            parts = p.relative_to(self.root).parts
        except ValueError:
            return False
        return not any(part in SKIP_DIRS for part in parts)

    def poke(self) -> None:
        self._last_change = time.monotonic()
        self._dirty.set()

    def start(self, initial: bool = True) -> "Watcher":
        """Start watching; ``initial`` runs one index pass first (in the background)."""
        self._observer.schedule(_Handler(self), str(self.root), recursive=True)
        self._observer.start()
        if initial:
            self.poke()
            self._last_change = 0.0
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._dirty.set()
        self.indexer.cancelled.set()
        self._observer.stop()
        self._observer.join(timeout=5)
        self._thread.join(timeout=30)

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._dirty.wait()
            if self._stop.is_set():
                return
            quiet = time.monotonic() - self._last_change
            if quiet < self.debounce:
                time.sleep(min(self.debounce - quiet, 0.5))
                continue
            self._dirty.clear()
            try:
                report = self.indexer.run()
            except Exception as exc:  # keep watching: the next change retries
                log.exception("re-indexing %s failed", self.root)
                with self._status_lock:
                    self.last_error, self.last_run = f"re-indexing failed: {exc}", time.time()
                continue
            with self._status_lock:
                self.runs += 1
                self.last_report, self.last_error, self.last_run = report, None, time.time()
            if self.on_report:
                self.on_report(report)

    def status(self) -> dict:
        """Re-index runs so far and what the last one did (or why it failed)."""
        with self._status_lock:
            out: dict = {"runs": self.runs, "last_run": self.last_run, "error": self.last_error}
            r = self.last_report
        if r is not None:
            out.update(files_indexed=r.files_indexed, files_removed=r.files_removed,
                       chunks_embedded=r.chunks_embedded, seconds=r.seconds, errors=r.errors[:20])
        return out
