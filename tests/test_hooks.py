"""Automatic memory: the capture and recall core, Claude Code's settings, and real hook processes with the daemon."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memory_graph import Engine
from memory_graph.hooks import capture, claude, recall
from memory_graph.hooks import settings as cc
from memory_graph.hooks.capture import SessionLog
from memory_graph.hooks.client import request
from memory_graph.hooks.service import HookService
from memory_graph.models import Memory

FIXTURES = Path(__file__).parent / "fixtures" / "hooks"
SESSION = "0b5c1f9e-7a51-4f0e-9d3e-1c2d3e4f5a6b"


def payload(name: str, cwd: Path, transcript: Path | None = None) -> dict:
    text = (FIXTURES / f"{name}.json").read_text().replace("CWD", str(cwd))
    return json.loads(text.replace("TRANSCRIPT", str(transcript or "")))


def event(name: str, cwd: Path, transcript: Path | None = None):
    data = payload(name, cwd, transcript)
    return claude.parse(data["hook_event_name"], data)


# ---- the pure core ----------------------------------------------------------
def test_a_failure_an_edit_and_a_pass_make_a_fix_and_end_the_failure(tmp_path):
    log = SessionLog(SESSION, project="ledger", root=str(tmp_path))
    failed = capture.observe(log, event("PostToolUse-Bash-failed", tmp_path))
    assert [w.op for w in failed] == ["store"]
    assert "AttributeError: 'Response' object has no attribute 'json_body'" in failed[0].item["content"]
    assert "open-problem" in failed[0].item["tags"]
    log.failing["python -m pytest tests/test_ledger_sync.py -q"]["obs"] = "mem_failure"
    edit = capture.observe(log, event("PostToolUse-Edit", tmp_path))
    assert edit[0].item["content"] == "Edited ledger/client.py: `return resp.json_body` -> `return resp.json()`"
    assert capture.observe(log, event("PostToolUse-Edit", tmp_path)) == []  # the same edit again
    fixed = capture.observe(log, event("PostToolUse-Bash-passed", tmp_path))
    assert [w.op for w in fixed] == ["store", "invalidate"]
    assert fixed[0].item["memory_type"] == "bugfix" and fixed[1].target == "mem_failure"
    assert "after editing ledger/client.py it passes (7 passed)" in fixed[0].item["content"]


def test_reads_listings_and_repeats_are_dropped_and_secrets_masked(tmp_path):
    log = SessionLog(SESSION, root=str(tmp_path))
    assert capture.observe(log, event("PostToolUse-Read", tmp_path)) == []
    ls = claude.parse("PostToolUse", {"session_id": SESSION, "tool_name": "Bash", "tool_input": {"command": "ls -la"},
                                      "tool_response": {"stdout": "a b"}})
    assert capture.observe(log, ls) == []
    secret = capture.observe(log, event("PostToolUse-Bash-secret", tmp_path))
    text = secret[0].item["content"]
    assert "Sup3rS3cretPw" not in text and "sk_live_4eC39HqLyjWDarjtT1zdp7dc" not in text
    assert "ci.example.com" in text
    assert capture.observe(log, event("PostToolUse-Bash-secret", tmp_path)) == []
    env = capture.observe(log, claude.parse("PostToolUse", {
        "session_id": SESSION, "tool_name": "Edit", "tool_input": {
            "file_path": str(tmp_path / ".env"), "old_string": "DB=1", "new_string": "DB=2\nX=abcdef"}}))
    assert env[0].item["content"] == "Edited .env"


def test_private_text_is_never_kept_and_a_stated_decision_is_a_decision(tmp_path):
    log = SessionLog(SESSION)
    writes = capture.note_prompt(log, event("UserPromptSubmit", tmp_path).prompt)
    assert "hunter2" not in json.dumps(log.to_dict()) + json.dumps([w.item for w in writes])
    assert [w.item["memory_type"] for w in writes] == ["decision"]
    assert writes[0].item["content"] == "From now on we use httpx instead of requests in the ledger client."


def test_the_summary_reads_the_transcript(tmp_path):
    transcript = tmp_path / "t.jsonl"
    transcript.write_text((FIXTURES / "transcript.jsonl").read_text().replace("CWD", str(tmp_path)))
    log = SessionLog(SESSION, project="ledger", root=str(tmp_path))
    capture.observe(log, event("PostToolUse-Edit", tmp_path))
    w = capture.summary(log, event("Stop", tmp_path, transcript), "2026-11-20")
    assert w is not None and w.op == "store"
    text = w.item["content"]
    assert "Asked: \"From now on we use httpx instead of requests" in text
    assert "Files changed: ledger/client.py" in text
    assert "We decided to parse the body with resp.json() and keep the retry wrapper." in text
    log.summary = "mem_summary"
    assert capture.summary(log, event("Stop", tmp_path, transcript), "2026-11-20").op == "update"
    assert capture.summary(SessionLog("empty"), event("Stop", tmp_path), "2026-11-20") is None


def test_the_digest_keeps_its_budget_and_every_section():
    ms = [Memory(id=f"d{i}", content=f"decision number {i} " + "x" * 150, memory_type="decision", importance=9,
                 created_at=1.0e9 + i) for i in range(40)]
    ms.append(Memory(id="p1", content="the nightly export is broken", tags=["open-problem"], created_at=2.0e9))
    text = recall.digest("ledger", ms, budget=300)
    assert recall.tokens(text) <= 300
    assert "[p1]" in text and "Open problems:" in text
    assert text.count("[d") >= 2
    assert recall.digest("ledger", [], 300) == ""


def test_a_payload_that_is_not_claude_codes_is_refused():
    with pytest.raises(claude.PayloadError):
        claude.parse("PostToolUse", ["not", "an", "object"])
    with pytest.raises(claude.PayloadError):
        claude.parse("PostToolUse", {"tool_name": "Bash"})
    with pytest.raises(claude.PayloadError):
        claude.parse("Nonsense", {"session_id": "x"})
    assert claude.parse("PostToolUse", {"session_id": "x", "tool_response": {"exit_code": 2}}).failed
    assert not claude.parse("PostToolUse", {"session_id": "x", "tool_response": {"exit_code": 0}}).failed
    assert claude.answer("PostToolUse", "anything") is None
    assert json.loads(claude.answer("SessionStart", "ctx"))["hookSpecificOutput"] == {
        "hookEventName": "SessionStart", "additionalContext": "ctx"}


# ---- Claude Code's settings -------------------------------------------------
def test_install_merges_and_uninstall_removes_exactly_its_own(tmp_path):
    theirs = {"model": "opus", "hooks": {"PostToolUse": [
        {"matcher": "Write", "hooks": [{"type": "command", "command": "prettier --write"}]}],
        "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}]}}
    once = cc.install(theirs)
    twice = cc.install(once)
    assert twice == once
    assert set(cc.installed(once)) == set(cc.EVENTS)
    assert once["hooks"]["PostToolUse"][0] == theirs["hooks"]["PostToolUse"][0]
    assert once["hooks"]["PostToolUse"][1]["matcher"] == "Edit|MultiEdit|Write|NotebookEdit|Bash"
    assert cc.uninstall(once) == theirs
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text("{not json")
    with pytest.raises(Exception, match="not valid JSON"):
        cc.read(path)
    assert path.read_text() == "{not json"


def test_the_cli_installs_into_a_project_and_reports_it(tmp_path, run):
    project = tmp_path / "proj"
    project.mkdir()
    shown = run("hooks", "install", "--project-dir", str(project), "--dry-run").stdout
    assert set(cc.installed(json.loads(shown))) == set(cc.EVENTS)
    assert not (project / ".claude").exists()
    run("hooks", "install", "--project-dir", str(project))
    data = json.loads((project / ".claude" / "settings.json").read_text())
    assert set(cc.installed(data)) == set(cc.EVENTS)
    status = run("hooks", "status", "--project-dir", str(project)).stdout
    assert "project settings" in status and ": installed" in status
    assert "removed 6 hooks" in run("hooks", "uninstall", "--project-dir", str(project)).stdout
    assert json.loads((project / ".claude" / "settings.json").read_text()) == {"hooks": {}}


# ---- the service on a real store -----------------------------------------------
def test_captured_memories_are_searchable_at_once_and_recalled_in_a_later_session(tmp_path, embedder):
    eng = Engine(tmp_path / "data", embedder=embedder)
    svc = HookService(eng)
    cwd = tmp_path / "ledger"
    cwd.mkdir()
    for name in ("SessionStart", "UserPromptSubmit", "PostToolUse-Bash-failed", "PostToolUse-Edit",
                 "PostToolUse-Bash-passed", "Stop"):
        svc.handle(event(name, cwd))
    stored, total = eng.list(limit=50)
    assert all(m.source == "hook" and f"session:{SESSION}" in m.tags for m in stored)
    kinds = sorted(m.memory_type for m in stored)
    assert kinds == ["bugfix", "decision", "episodic", "episodic", "episodic"]
    failure = next(m for m in stored if "open-problem" in m.tags)
    assert failure.valid_until is not None  # fixed later in the session
    found = {h.id for h in eng.search("json_body", limit=5, mode="bm25")}
    assert found and found <= {m.id for m in stored if "json_body" in m.content}
    later = event("SessionStart", cwd)
    later.session = "another-session"
    digest = svc.handle(later)
    assert "From now on we use httpx instead of requests" in digest and "Known fixes:" in digest
    assert "open-problem" not in digest and "Tests failed" not in digest
    ask = event("UserPromptSubmit", cwd)
    ask.session, ask.prompt = "another-session", "what broke in the ledger sync test, json_body?"
    first = svc.handle(ask)
    assert first and "resp.json()" in first
    assert "From now on we use httpx" not in first  # the digest gave it already
    again = svc.handle(ask)
    assert not again or not set(re.findall(r"\[(mem_\w+)\]", again)) & set(re.findall(r"\[(mem_\w+)\]", first))
    compacted = event("SessionStart", cwd)
    compacted.session, compacted.source = "another-session", "compact"
    svc.handle(compacted)
    assert "resp.json()" in svc.handle(ask)  # the context was compacted: it may be needed again


# ---- real hook processes -----------------------------------------------------------
def hook(name: str, data, home: Path, extra_env: dict | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "MEMORY_GRAPH_HOME": str(home), **(extra_env or {})}
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    return subprocess.run([sys.executable, "-m", "memory_graph", "hook", name], input=raw, capture_output=True,
                          env=env, timeout=120)


def stop_daemon(home: Path) -> None:
    request(home, {"op": "stop"}, wait=5.0)
    for _ in range(100):
        if not (home / "hooks" / "daemon.json").exists():
            return
        time.sleep(0.1)


def test_hook_processes_capture_and_recall_through_the_daemon(tmp_path):
    home, cwd = tmp_path / "home", tmp_path / "ledger"
    cwd.mkdir()
    transcript = tmp_path / "t.jsonl"
    transcript.write_text((FIXTURES / "transcript.jsonl").read_text().replace("CWD", str(cwd)))
    try:
        first = hook("SessionStart", payload("SessionStart", cwd, transcript), home)
        assert first.returncode == 0 and first.stdout == b""  # nothing is known yet
        for name in ("UserPromptSubmit", "PostToolUse-Bash-failed", "PostToolUse-Edit", "PostToolUse-Bash-passed",
                     "PostToolUse-Bash-secret", "Stop", "SessionEnd"):
            data = payload(name, cwd, transcript)
            done = hook(data["hook_event_name"], data, home)
            assert done.returncode == 0, done.stderr
        # what comes back is tested, not how fast: a loaded machine may take longer than a user's budget (2 s)
        patient = {"MEMORY_GRAPH_HOOKS_PROMPT_WAIT_SECONDS": "60", "MEMORY_GRAPH_HOOKS_START_WAIT_SECONDS": "60"}
        later = payload("UserPromptSubmit", cwd)
        later["session_id"], later["prompt"] = "next-session", "why did the ledger sync test fail with json_body?"
        answer = hook("UserPromptSubmit", later, home, patient)
        context = json.loads(answer.stdout)["hookSpecificOutput"]
        assert context["hookEventName"] == "UserPromptSubmit"
        assert "resp.json()" in context["additionalContext"]
        start = payload("SessionStart", cwd)
        start["session_id"] = "third-session"
        digest = json.loads(hook("SessionStart", start, home, patient).stdout)["hookSpecificOutput"]["additionalContext"]
        assert "Decisions:" in digest and "httpx instead of requests" in digest
    finally:
        stop_daemon(home)
    eng = Engine(home)
    everything = json.dumps([m.to_dict() for m in eng.list(limit=100)[0]])
    for secret in ("hunter2", "Sup3rS3cretPw", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"):
        assert secret not in everything
    for leftover in (home / "hooks" / "spool").glob("*"):
        pytest.fail(f"spool not drained: {leftover}")
    summary = [m for m in eng.list(tags=["session-summary"], limit=10)[0]]
    assert len(summary) == 1 and "ledger/client.py" in summary[0].content
    eng.close()


def test_a_huge_payload_is_spooled_cut_and_a_written_files_text_as_its_line_count(tmp_path):
    from memory_graph.hooks.client import MAX_FIELD_CHARS, spool

    big = claude.parse("PostToolUse", {"session_id": SESSION, "tool_name": "Write", "tool_input": {
        "file_path": str(tmp_path / "data.csv"), "content": "a,b\n" * 500_000}, "tool_response": {"type": "create"}})
    out = claude.parse("PostToolUse", {"session_id": SESSION, "tool_name": "Bash", "tool_input": {"command": "make"},
                                       "tool_response": {"stdout": "x" * 3_000_000 + "\nError: disk full",
                                                         "exit_code": 2}})
    folder = tmp_path / "hooks"
    sizes = [spool(folder, ev).stat().st_size for ev in (big, out)]
    assert max(sizes) < 2 * MAX_FIELD_CHARS
    spooled = sorted((folder / "spool").glob("*.json"))
    from memory_graph.hooks.events import Event

    log = SessionLog(SESSION, root=str(tmp_path))
    written, failed = (Event.from_dict(json.loads(p.read_text())) for p in spooled)
    assert capture.observe(log, written)[0].item["content"] == "Edited data.csv: wrote 500001 lines"
    assert capture.observe(log, failed)[0].item["content"].endswith("Error: disk full")


def test_a_broken_payload_or_hooks_off_never_fails_the_session(tmp_path):
    home = tmp_path / "home"
    bad = hook("PostToolUse", b"{not json", home)
    assert bad.returncode == 0 and bad.stdout == b""
    assert "PostToolUse" in (home / "hooks" / "hook.log").read_text()
    off = hook("UserPromptSubmit", payload("UserPromptSubmit", tmp_path), home, {"MEMORY_GRAPH_HOOKS": "off"})
    assert off.returncode == 0 and off.stdout == b""
    assert not (home / "hooks" / "daemon.json").exists() and not (home / "hooks" / "spool").exists()


def test_a_stale_daemon_file_starts_a_new_daemon(tmp_path):
    import socket

    home = tmp_path / "home"
    (home / "hooks").mkdir(parents=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed once the block ends: nothing listens there
    (home / "hooks" / "daemon.json").write_text(json.dumps({"port": port, "token": "x", "pid": os.getpid()}))
    try:
        assert hook("UserPromptSubmit", payload("UserPromptSubmit", tmp_path), home).returncode == 0
        for _ in range(200):
            info = json.loads((home / "hooks" / "daemon.json").read_text() or "{}")
            if info.get("pid") != os.getpid():
                break
            time.sleep(0.1)
        assert info["pid"] != os.getpid() and info["port"] != port
    finally:
        stop_daemon(home)
