"""Index runs in progress, across processes: one lock per project in the data directory, and what it is doing.

An index run holds its project's lock for as long as it writes, and keeps a small JSON file beside it (the
project, its root and how far it got) so that a search in another process, or another server, can say that
a project's answers are still incomplete. A file whose lock is free is a run that ended or died: it is
ignored, whatever it says.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import os
import time
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

from .errors import BusyError, NotFoundError

#: at most one progress write a second: a run reports every batch of files
_WRITE_EVERY = 1.0


def _paths(data_dir: Path, project: str) -> tuple[Path, Path]:
    key = hashlib.sha1(project.encode()).hexdigest()[:16]
    return data_dir / f".index-{key}.lock", data_dir / f".index-{key}.json"


class RunLock:
    """The lock of one project's index runs, and the progress file its holder keeps."""

    def __init__(self, data_dir: Path, project: str, root: str) -> None:
        lock_path, self.info_path = _paths(Path(data_dir), project)
        self.lock = FileLock(str(lock_path))
        self.project, self.root = project, root
        self._written = self.started = 0.0
        self._phase = ""
        self._chunks = 0

    def acquire(self, timeout: float, announce: bool = True) -> None:
        """Take the lock (raises filelock.Timeout); announce: say who holds it (an index run does; a deletion,
        which only keeps runs out, does not)."""
        self.lock.acquire(timeout=timeout)
        self.started = time.time()
        if announce:
            self.update("starting", 0, 0, force=True)

    def release(self) -> None:
        try:
            self.info_path.unlink(missing_ok=True)
        finally:
            self.lock.release()

    def update(self, phase: str, done: int, total: int, force: bool = False, chunks: int | None = None) -> None:
        """Record the run's phase, files done and chunks embedded so far (a phase's next counts at most once a
        second; best effort: progress is never worth a failed run)."""
        self._chunks = self._chunks if chunks is None else chunks
        now = time.time()
        if not force and phase == self._phase and now - self._written < _WRITE_EVERY:
            return
        self._written, self._phase = now, phase
        info = {"project": self.project, "root": self.root, "pid": os.getpid(), "phase": phase,
                "files_done": done, "files_total": total, "chunks_embedded": self._chunks, "started": self.started}
        tmp = self.info_path.with_suffix(f".{os.getpid()}.tmp")
        try:
            tmp.write_text(json.dumps(info), encoding="utf-8")
            os.replace(tmp, self.info_path)  # readers see the old file or the new one, never half of one
        except OSError:
            pass


def keep_runs_out(data_dir: Path, project: str, wait: float, doing: str) -> RunLock:
    """The project's run lock, taken without announcing a run: what holds it only keeps runs out.

    Raises BusyError, naming the process, if a run holds it past ``wait`` seconds (``doing``: what was not)."""
    lock = RunLock(data_dir, project, "")
    try:
        lock.acquire(timeout=wait, announce=False)
    except Timeout:
        by = next((f" by process {r['pid']}" for r in running(data_dir, project) if r.get("pid")), "")
        raise BusyError(f"project {project!r} is being indexed{by}; nothing was {doing}",
                        hint="stop that run (Ctrl-C ends `memory-graph index` or `watch`) or let it end, "
                             "then try again") from None
    return lock


def _held(lock_path: Path) -> bool:
    """Whether some run holds this lock: taken and given back at once if not (a run starting meanwhile waits a
    moment for it, see codebase.indexer)."""
    if not lock_path.exists():
        return False
    probe = FileLock(str(lock_path))
    try:
        probe.acquire(timeout=0)
    except Timeout:
        return True
    probe.release()
    return False


def running(data_dir: Path, project: str | None = None) -> list[dict[str, Any]]:
    """The index runs in progress (in any process) on this data directory, or on one project of it."""
    data_dir = Path(data_dir)
    infos = [_paths(data_dir, project)[1]] if project else sorted(data_dir.glob(".index-*.json"))
    out = []
    for info in infos:
        lock_path = info.with_suffix(".lock")
        if not _held(lock_path):
            continue
        try:
            run = json.loads(info.read_text(encoding="utf-8"))
        except (OSError, ValueError):  # the run took the lock and has not written the file yet
            run = {"project": project, "phase": "starting", "files_done": 0, "files_total": 0}
        if run.get("project"):
            out.append(run)
    return out


def interrupted(data_dir: Path) -> list[dict[str, Any]]:
    """Index runs that died before their end (a killed process, a stdio server whose client went away): their
    progress file is left and their lock is free. Each has its project and root; a new run resumes it, since
    every batch of files it wrote is kept."""
    out = []
    for info in sorted(Path(data_dir).glob(".index-*.json")):
        if _held(info.with_suffix(".lock")):
            continue
        try:
            run = json.loads(info.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if run.get("project") and run.get("root"):
            out.append(run)
    return out


def forget(data_dir: Path, project: str) -> None:
    """Drop the progress file a dead run of a project left (not one a live run holds)."""
    lock_path, info = _paths(Path(data_dir), project)
    if not _held(lock_path):
        info.unlink(missing_ok=True)


def status(run: dict[str, Any]) -> str:
    """A run in progress in a few words: "project 'x' is being indexed (12 of 80 changed files done)"."""
    done, total = run.get("files_done") or 0, run.get("files_total") or 0
    where = f"{done} of {total} changed files done" if run.get("phase") == "index" and total else \
        {"resolve": "resolving calls", "density": "finishing"}.get(run.get("phase", ""), "scanning its files")
    return f"project {run['project']!r} is being indexed ({where})"


def describe(run: dict[str, Any]) -> str:
    """A run in progress as a note for the answers it leaves incomplete."""
    return (f"{status(run)}: answers about it miss the files not reached yet, and its symbols and calls may be "
            "incomplete until the run ends")


def notes_runs(method):
    """Decorate an Engine's code question: a NotFoundError about a project being indexed (or, when no project
    is asked, while any is) says so, since the name or project asked may only not be reached yet."""
    signature = inspect.signature(method)

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except NotFoundError as exc:
            note = self.index_note(signature.bind(self, *args, **kwargs).arguments.get("project"))
            if not note:
                raise
            raise NotFoundError(exc.kind, exc.ids, message=exc.message,
                                hint=f"{note}; {exc.hint}" if exc.hint else note) from None

    return wrapper
