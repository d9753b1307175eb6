"""Applies hook events to an Engine: captures what a session does, answers with what it should know."""

from __future__ import annotations

import json
import logging
import os
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import MemoryGraphError
from . import capture, recall
from .capture import SessionLog, Write
from .events import Event

if TYPE_CHECKING:  # the service is given an Engine; it never builds one
    from ..engine import Engine

log = logging.getLogger(__name__)

_IDS = re.compile(r"\[(mem_[0-9a-f]+)\]$", re.M)
#: a session log untouched this long is deleted when the service starts (its memories stay)
SESSION_LOG_DAYS = 30


class HookService:
    """The capture and recall loop over one Engine; each session's ``SessionLog`` is a JSON file under
    ``DATA_DIR/hooks/sessions`` so that a restarted daemon goes on where the last one stopped."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.config = engine.config
        self.folder = Path(engine.data_dir) / "hooks" / "sessions"
        self.folder.mkdir(parents=True, exist_ok=True)
        self._projects: dict[str, tuple[str, str]] = {}
        self._prune()

    # ---- events ---------------------------------------------------------
    def handle(self, ev: Event) -> str | None:
        """Apply one event; returns the context to inject, if the event takes one."""
        sl = self._log(ev)
        context = None
        if ev.kind == "session_start":
            if ev.source in ("clear", "compact"):  # what was injected before is gone from the context
                sl.injected = []
            context = self.digest(sl.project) or None
            sl.injected += [i for i in _IDS.findall(context or "") if i not in sl.injected]
        elif ev.kind == "prompt":
            self._apply(sl, capture.note_prompt(sl, ev.prompt))
            context = self.recall(ev.prompt, sl) or None
        elif ev.kind == "tool":
            self._apply(sl, capture.observe(sl, ev))
        elif ev.kind in ("session_stop", "session_end"):
            w = capture.summary(sl, ev, time.strftime("%Y-%m-%d", time.localtime(ev.at or time.time())))
            if w is not None:
                self._apply(sl, [w])
        self._save(sl)
        return context

    def digest(self, project: str) -> str:
        """The session-start digest of ``project`` (``recall.digest``) from its memories still valid."""
        now = time.time()
        picked: dict[str, object] = {}
        for types, tags, order in ((["decision", "procedural", "bugfix", "fact", "preference", "semantic"], None,
                                    "importance"), (None, ["open-problem"], "created_at"),
                                   (None, ["todo"], "created_at"), (None, ["session-summary"], "created_at")):
            page, _ = self.engine.list(project=project or None, memory_type=types, tags=tags, valid_at=now,
                                       limit=60, order_by=order)
            for m in page:
                picked.setdefault(m.id, m)
        return recall.digest(project, list(picked.values()), self.config.hooks_digest_tokens)

    def recall(self, prompt: str, sl: SessionLog) -> str:
        """The memories the prompt needs: a search above the confidence floor, without this session's own."""
        text = capture.clean(prompt, 2_000)
        if len(re.findall(r"\w+", text)) < 2 or text.startswith("/"):
            return ""
        hits = self.engine.search(text, limit=self.config.hooks_prompt_limit + 5, project=sl.project or None)
        if getattr(hits, "confidence", 1.0) < self.config.hooks_min_confidence:
            return ""
        own = f"session:{sl.session.lower()}"
        ids = [h.id for h in hits if not (h.record or {}).get("ended")]
        memories = [m for m in self.engine.get(ids, strict=False) if own not in m.tags and m.id not in sl.injected]
        # one session summary at most: it names much of what a session touched, so it matches many prompts
        # loosely, where one observation answers one precisely
        first = next((m.id for m in memories if "session-summary" in m.tags), None)
        memories = [m for m in memories if "session-summary" not in m.tags or m.id == first]
        context = recall.prompt_context(memories[:self.config.hooks_prompt_limit], self.config.hooks_prompt_tokens)
        sl.injected += _IDS.findall(context)
        return context

    # ---- writes ---------------------------------------------------------
    def _apply(self, sl: SessionLog, writes: list[Write]) -> None:
        last = ""
        for w in writes:
            try:
                last = self._write(sl, w, last) or last
            except MemoryGraphError as exc:  # one bad write must not lose the rest of the session
                log.warning("hook capture: %s of %s failed: %s", w.op, w.key or w.target, exc)

    def _write(self, sl: SessionLog, w: Write, last: str) -> str | None:
        eng = self.engine
        if w.op == "store" or (w.op == "update" and not eng.get([w.target], strict=False)):
            mid = eng.store(**w.item)
            if w.key == "summary" or w.op == "update":
                sl.summary = mid
            else:
                sl.observations.append(mid)
            if w.key.startswith("edited:"):
                sl.edited[w.key[len("edited:"):]] = mid
            elif w.key.startswith("failing:") and w.key[len("failing:"):] in sl.failing:
                sl.failing[w.key[len("failing:"):]]["obs"] = mid
            return mid
        if w.op == "update":
            eng.update(w.target, content=w.item["content"], title=w.item["title"], metadata=w.item["metadata"])
        elif w.op == "merge":
            found = eng.get([w.target], strict=False)
            if found and len(found[0].content) < 1_500:
                eng.update(w.target, content=f"{found[0].content}; {w.text}")
        elif w.op == "invalidate":
            eng.invalidate(w.target, reason=w.text, superseded_by=last or None)
        return None

    # ---- session logs -----------------------------------------------------
    def _path(self, session: str) -> Path:
        return self.folder / (re.sub(r"[^A-Za-z0-9._-]", "_", session)[:120] + ".json")

    def _log(self, ev: Event) -> SessionLog:
        path = self._path(ev.session)
        try:
            sl = SessionLog.from_dict(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError):
            sl = SessionLog(session=ev.session, started=ev.at or time.time())
        if ev.cwd and not sl.project:
            sl.project, sl.root = self._project(ev.cwd)
        return sl

    def _save(self, sl: SessionLog) -> None:
        path = self._path(sl.session)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(sl.to_dict()), encoding="utf-8")
        os.replace(tmp, path)

    def _project(self, cwd: str) -> tuple[str, str]:
        """The project of a working directory (its git root's name, as the MCP server and ``index`` name it)."""
        if cwd not in self._projects:
            try:
                from codebase.indexer import detect_project

                root, name = detect_project(cwd)
                self._projects[cwd] = (name, str(root))
            except (MemoryGraphError, OSError):
                self._projects[cwd] = ("", "")
        return self._projects[cwd]

    def _prune(self) -> None:
        cutoff = time.time() - SESSION_LOG_DAYS * 86_400
        for p in self.folder.glob("*.json"):
            try:
                if p.stat().st_mtime < cutoff:
                    p.unlink()
            except OSError:
                pass
