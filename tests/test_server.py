"""The MCP server as a subprocess over stdio, driven by the SDK's own client (real model, real stores)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from memory_graph.runs import RunLock
from server.state import IndexRun

SNAPSHOT = Path(__file__).parent / "fixtures" / "tools_snapshot.json"
TOOLS = ["store_memory", "get_memories", "update_memory", "delete_memory", "list_memories", "invalidate_memory",
         "search_memory", "timeline", "create_entity", "create_relation", "get_related", "delete_entity",
         "detect_communities", "index_project", "search_code", "search_symbols", "symbol_graph", "project_status",
         "delete_project", "get_status"]
#: what project_status says of a run, whichever process runs it
RUN_KEYS = {"project", "root", "phase", "files_done", "files_total", "chunks_embedded", "running", "seconds",
            "error", "pid"}


def params(tmp_path: Path, repo: Path, **extra_env: str) -> StdioServerParameters:
    env = {"MEMORY_GRAPH_HOME": str(tmp_path / "data"), "MEMORY_GRAPH_ALLOWED_ROOTS": str(tmp_path),
           "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(Path(__file__).resolve().parents[1]), **extra_env}
    return StdioServerParameters(command=sys.executable, args=["-m", "server"], env=env, cwd=str(repo))


def run(coro):
    return asyncio.run(coro)


def data(result) -> dict:
    assert not result.is_error, result.content[0].text
    assert len(result.content) == 1 and result.structured_content is None  # one copy of each answer
    return json.loads(result.content[0].text)


def error_text(result) -> str:
    assert result.is_error, result
    text = result.content[0].text
    assert "Traceback" not in text
    return text


def test_tool_list_matches_the_snapshot(tmp_path, repo):
    async def go():
        async with Client(params(tmp_path, repo), read_timeout_seconds=120) as c:
            return (await c.list_tools()).tools, c.instructions

    tools, instructions = run(go())
    assert sorted(t.name for t in tools) == sorted(TOOLS)
    assert "search_memory" in instructions and "timeline" in instructions and "get_memories" in instructions
    snap = {t.name: {"description": t.description, "input_schema": t.input_schema,
                     "annotations": t.annotations.model_dump(exclude_none=True, by_alias=True)} for t in tools}
    for t in tools:
        assert t.description and t.annotations is not None and t.input_schema["type"] == "object"
    assert snap["search_memory"]["input_schema"]["properties"]["limit"]["maximum"] == 100
    assert snap["delete_memory"]["annotations"]["destructiveHint"] is True
    assert snap["search_code"]["annotations"]["readOnlyHint"] is True
    undescribed = [(name, p) for name, t in snap.items() for p, v in t["input_schema"]["properties"].items()
                   if not v.get("description")]
    assert undescribed == []
    assert not any("\n        " in t["description"] for t in snap.values())  # no docstring indentation
    # what every session of every agent reads, as the server sends it: its size is pinned with the rest, in
    # characters, the embedding model's word pieces and Claude's tokens (the tokenizer the anthropic SDK 0.34
    # ships; newer Claude models may count somewhat more)
    from anthropic import _tokenizers
    from tokenizers import Tokenizer

    from memory_graph.embedding import default_model_path

    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}
    sent = _raw_replies(tmp_path, repo, [json.dumps(init), json.dumps({"jsonrpc": "2.0", "id": 2,
                                                                        "method": "tools/list"})], 2)[1]
    wire = json.dumps(sent["result"]["tools"], separators=(",", ":"))  # the JSON's own key order, as sent
    minilm = Tokenizer.from_file(str(Path(default_model_path()) / "tokenizer.json"))
    minilm.no_truncation()
    claude = _tokenizers.sync_get_tokenizer()
    snap["_size"] = {"chars": len(wire), "minilm_tokens": len(minilm.encode(wire).ids),
                     "claude_tokens": len(claude.encode(wire).ids)}
    if os.environ.get("UPDATE_SNAPSHOT"):
        SNAPSHOT.write_text(json.dumps(snap, indent=1, sort_keys=True) + "\n")
    # a change to any tool's name, description, schema or annotations must be deliberate: UPDATE_SNAPSHOT=1
    assert json.loads(SNAPSHOT.read_text()) == json.loads(json.dumps(snap))
    assert snap["_size"]["claude_tokens"] <= 3_000 and all(t.output_schema is None for t in tools)


def test_memory_round_trip_and_every_tool_valid_and_invalid(tmp_path, repo):
    calls: dict[str, int] = {}

    async def go():
        async with Client(params(tmp_path, repo), read_timeout_seconds=300) as c:
            async def ok(_tool, **args):
                calls[_tool] = calls.get(_tool, 0) + 1
                return data(await c.call_tool(_tool, args))

            async def bad(_tool, **args):
                return error_text(await c.call_tool(_tool, args))

            # store -> search -> timeline -> get_memories
            a = await ok("store_memory", content="Orion is the codename for the billing-api rewrite",
                         memory_type="semantic", tags=["names"])
            b = await ok("store_memory", content="billing-api times out when the cache is cold",
                         memory_type="bugfix")
            g = await ok("store_memory", content="Always run the linter before pushing", project="")
            assert a["project"] == "repo" and g["project"] is None and "duplicate_of" not in b
            again = await ok("store_memory", content="billing-api times out when the cache is cold")
            assert again["duplicate_of"] == [b["id"]] and "delete_memory" in again["note"]
            assert "similar" not in again and "similar" not in b  # a copy is no update, nor are unrelated notes
            assert (await ok("delete_memory", ids=[again["id"]]))["deleted"] == 1
            update = await ok("store_memory", content="billing-api times out when the cache is cold after a deploy")
            assert [m["id"] for m in update["similar"]] == [b["id"]] and update["similar"][0]["similarity"] > 0.75
            assert f'superseded_by="{update["id"]}"' in update["note"] and "duplicate_of" not in update
            assert (await ok("delete_memory", ids=[update["id"]]))["deleted"] == 1
            res = await ok("search_memory", query="What problems does Orion have?")
            ids = [r["id"] for r in res["results"]]
            assert b["id"] in ids and set(res["results"][0]) >= {"id", "title", "type", "date", "score"}
            assert "content" not in res["results"][0]
            assert g["id"] in [r["id"] for r in (await ok("search_memory", query="linter before pushing"))["results"]]
            assert "note" not in res
            misspelt = await ok("search_memory", query="linter before pushing", project="repoo")
            assert [r["id"] for r in misspelt["results"]] == [g["id"]]
            assert "'repoo'" in misspelt["note"] and misspelt["note"].endswith("projects with memories: repo")
            only_global = await ok("search_memory", query="billing-api", scope="global")
            assert b["id"] not in [r["id"] for r in only_global["results"]]
            tl = await ok("timeline", anchor_id=a["id"])
            assert tl["anchor"]["id"] == a["id"] and [m["id"] for m in tl["after"]] == [b["id"]]
            # one time format in every compact answer, to the minute: two facts of one day keep their order
            stamp = {r["id"]: r["date"] for r in res["results"]}[b["id"]]
            assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\dZ", stamp) and tl["after"][0]["date"] == stamp
            full = await ok("get_memories", ids=[b["id"], a["id"]])
            assert [m["id"] for m in full["memories"]] == [b["id"], a["id"]]
            assert full["memories"][0]["content"].startswith("billing-api") and "vector" not in full["memories"][0]
            explained = await ok("search_memory", query="billing-api cache", explain=True, details=True, limit=2)
            assert "explanation" in explained["results"][0] and "content" in explained["results"][0]

            upd = await ok("update_memory", id=b["id"], importance=9, tags=["cache"])
            assert upd["memory"]["importance"] == 9
            listed = await ok("list_memories", order_by="importance", limit=5)
            assert listed["memories"][0]["id"] == b["id"] and listed["total"] == 2
            inv = await ok("invalidate_memory", id=a["id"], reason="renamed", superseded_by=b["id"])
            assert inv["valid_until"]
            # the compact answers an agent may stop at say the memory was superseded, and by what
            found = await ok("search_memory", query="Orion codename")
            assert a["id"] not in [r["id"] for r in found["results"]] and 0 <= found["confidence"] <= 1
            ended = {r["id"]: r for r in (await ok("search_memory", query="Orion codename", include_invalid=True,
                                                   limit=5))["results"]}
            assert ended[a["id"]]["ended"] and ended[a["id"]]["superseded_by"] == b["id"]
            assert inv["valid_until"].startswith(ended[a["id"]]["valid_until"][:-1])  # the same minute, shorter
            assert ended[a["id"]]["invalidation_reason"] == "renamed" and "ended" not in ended[b["id"]]
            listed = {m["id"]: m for m in (await ok("list_memories"))["memories"]}
            assert listed[a["id"]]["superseded_by"] == b["id"] and "ended" not in listed[b["id"]]
            ent = await ok("create_entity", name="Vega", entity_type="project", aliases=["vega-app"])
            assert (await ok("create_entity", name="Vega", entity_type="project"))["entity"]["id"] == \
                ent["entity"]["id"]
            rel = await ok("create_relation", source="Vega", target="Orion", relation_type="depends_on")
            rels = await ok("get_related", id="Vega", depth=2)
            # "Orion is the codename for the billing-api rewrite": Orion is a name of the billing-api entity
            assert "billing-api" in [r["name"] for r in rels["related"]]
            comms = await ok("detect_communities")
            assert isinstance(comms["communities"], list)
            assert (await ok("delete_entity", id=rel["relation"]["id"]))["kind"] == "relation"
            assert (await ok("delete_entity", id="Vega"))["kind"] == "entity"
            status = await ok("get_status")
            assert status["counts"]["memories"] == 3 and status["healthy"] and status["current_project"] == "repo"
            assert (await ok("delete_memory", ids=[g["id"]]))["deleted"] == 1

            # invalid calls: each a tool error with a message, never a traceback, nothing changed
            before = (await ok("get_status"))["counts"]
            assert "content is required" in await bad("store_memory")
            assert "content" in await bad("store_memory", content="")
            # a line per argument, without pydantic's error codes and documentation links
            wrong = await bad("store_memory", content="x", importance=11, tags="a")
            assert "importance: Input should be less than or equal to 10 (got 11)" in wrong
            assert "tags: Input should be a valid list (got 'a'); importance" in wrong and "pydantic" not in wrong
            assert "memory_type" in await bad("store_memory", content="x", memory_type="no such type!")
            # an argument the tool does not take is refused, naming the one meant and what it takes
            wrong = await bad("store_memory", content="x", type="fact")
            assert "unknown argument 'type' (did you mean 'memory_type'?)" in wrong and "takes content," in wrong
            assert "'qeury' (did you mean 'query'?)" in await bad("search_memory", qeury="x")
            assert "unknown" in (await bad("get_memories", ids=["mem_nope"])).lower()
            assert "ids" in await bad("get_memories", ids=[])
            assert "ids" in await bad("get_memories", ids="mem_x")
            assert "unknown" in (await bad("update_memory", id="mem_nope", importance=3)).lower()
            assert "unknown" in (await bad("delete_memory", ids=["mem_nope"])).lower()
            assert "limit" in await bad("list_memories", limit=0)
            assert "order_by" in await bad("list_memories", order_by="size")
            assert "unknown" in (await bad("invalidate_memory", id="mem_nope")).lower()
            assert "query" in await bad("search_memory", query="")
            assert "limit" in await bad("search_memory", query="x", limit=1000)
            assert "unknown argument 'mode'" in await bad("search_memory", query="x", mode="magic")
            assert "created_after" in await bad("search_memory", query="x", created_after="yesterday-ish")
            assert "anchor" in (await bad("timeline")).lower()
            assert "name" in await bad("create_entity", name="")
            assert "weight" in await bad("create_relation", source="a", target="b", weight=-1)
            assert "depth" in await bad("get_related", id="Orion", depth=9)
            assert "unknown" in (await bad("delete_entity", id="no-such-entity")).lower()
            assert "min_size" in await bad("detect_communities", min_size=0)
            assert "outside the allowed roots" in await bad("index_project", path="/etc")
            assert "outside the allowed roots" in await bad("index_project", path=str(tmp_path / ".." / ".."))
            assert "query" in await bad("search_code", query="")
            assert "name" in await bad("search_symbols", name="")
            assert "relation" in await bad("symbol_graph", symbol="x", relation="friends")
            assert "project" in await bad("project_status", project=["not", "a", "string"])
            assert "unknown" in (await bad("delete_project", project="ghost")).lower()
            assert (await ok("get_status"))["counts"] == before

    run(go())
    assert set(calls) >= set(TOOLS) - {"index_project", "search_code", "search_symbols", "symbol_graph",
                                        "project_status", "delete_project"}


def test_index_project_with_progress_then_code_tools(tmp_path, repo):
    progress: list[tuple] = []

    async def go():
        # one file per write, so the first run is still going when the second call arrives
        async with Client(params(tmp_path, repo, MEMORY_GRAPH_INDEX_BATCH_FILES="1"),
                          read_timeout_seconds=300) as c:
            async def on_progress(p, total, message):
                progress.append((p, total, message))

            first, second = await asyncio.gather(
                c.call_tool("index_project", {}, progress_callback=on_progress),
                c.call_tool("index_project", {"path": str(repo)}))
            r1, r2 = data(first), data(second)
            assert r1["files_indexed"] == r2["files_indexed"] == 18 and r1["project"] == r2["project"] == "repo"
            # one run, two callers: whichever call arrived second followed the first one's run
            assert sorted([r1["joined_running"], r2["joined_running"]]) == [False, True]
            assert r1["seconds"] == r2["seconds"] and r1["chunks"] == r2["chunks"]
            again = data(await c.call_tool("index_project", {"path": str(repo), "watch": True}))
            assert again["files_indexed"] == 0 and again["watching"] is True
            hits = data(await c.call_tool("search_code", {"query": "normalize_sku"}))["results"]
            assert hits[0]["path"] == "php/Cart.php" and hits[0]["lines"] == "18-21" and "project" not in hits[0]
            everywhere = data(await c.call_tool("search_code", {"query": "normalize_sku", "project": "*"}))
            assert everywhere["results"][0]["project"] == "repo"
            code = data(await c.call_tool("search_code", {"query": "checksum", "details": True, "limit": 1}))
            assert "unsigned int checksum" in code["results"][0]["content"]
            syms = data(await c.call_tool("search_symbols", {"name": "parse_config"}))["symbols"]
            assert syms[0]["path"] == "app/config.py"
            g = data(await c.call_tool("symbol_graph", {"symbol": "parse_config", "relation": "callers"}))
            assert [r["qualname"] for r in g["results"]] == ["load_settings"]
            g = data(await c.call_tool("symbol_graph", {"symbol": "BaseLoader", "relation": "subclasses"}))
            assert [r["qualname"] for r in g["results"]] == ["JsonLoader"]
            st = data(await c.call_tool("project_status", {}))
            assert st["projects"][0]["project"] == "repo" and st["projects"][0]["watching"]
            assert st["runs"][0]["running"] is False and st["projects"][0]["watch"]["runs"] == 0
            # a finished run reports its own figures, not its last phase's, and its duration stays put
            assert st["runs"][0]["files_done"] == st["runs"][0]["files_total"] == again["files_scanned"]
            assert st["runs"][0]["chunks_embedded"] == again["chunks_embedded"] and st["runs"][0]["error"] is None
            assert set(st["runs"][0]) == RUN_KEYS and st["runs"][0]["pid"] > 0
            await asyncio.sleep(0.3)
            later = data(await c.call_tool("project_status", {}))
            assert later["runs"][0]["seconds"] == st["runs"][0]["seconds"]
            steps = "".join(f"    total += invoice.line_{i} * rate  # ledger line {i}\n" for i in range(60))
            (repo / "app" / "late.py").write_text("def added_while_watching():\n    return 1\n\n\n"
                                                  f"def reconcile_ledger(invoice, rate):\n    total = 0\n{steps}"
                                                  "    return total\n")
            for _ in range(100):
                found = data(await c.call_tool("search_symbols", {"name": "added_while_watching"}))["symbols"]
                watch = data(await c.call_tool("project_status", {}))["projects"][0]["watch"]
                if found and watch["runs"]:
                    break
                await asyncio.sleep(0.1)
            assert found, "the watcher did not pick up the new file"
            assert watch["runs"] >= 1 and watch["files_indexed"] >= 1 and watch["error"] is None
            assert watch["last_run"].startswith("20")
            # a long definition is cut into windows: one result, with the lines of the whole definition
            hits = data(await c.call_tool("search_code", {"query": "reconcile ledger invoice line", "limit": 5,
                                                          "path_prefix": str(repo / "app" / "late.py")}))["results"]
            ledger = [h for h in hits if h["title"] == "def reconcile_ledger"]
            assert len(ledger) == 1 and ledger[0]["definition"] == "5-67" and ledger[0]["lines"] != "5-67"
            # a misspelt project is an error naming the indexed ones, not an empty answer
            wrong = error_text(await c.call_tool("search_code", {"query": "ledger", "project": "rpeo"}))
            assert "unknown project: rpeo" in wrong and "the indexed projects are repo" in wrong
            deleted = data(await c.call_tool("delete_project", {"project": "repo"}))
            assert deleted["deleted"]["code_chunks"] > 0

    run(go())
    assert progress and progress[-1][2] == "done"
    assert any(re.fullmatch(r"files: \d+/\d+, \d+ chunks embedded(, about \d+ (s|min) left)?", m or "")
               for _, _, m in progress)


def test_code_tools_while_another_process_indexes_the_current_project(tmp_path, repo):
    """`memory-graph index` (or a second server) is indexing the project: answers say they may be incomplete."""
    (tmp_path / "data").mkdir()
    lock = RunLock(tmp_path / "data", "repo", str(repo))
    lock.acquire(timeout=0)
    lock.update("index", 2, 18, force=True, chunks=57)

    async def go():
        async with Client(params(tmp_path, repo), read_timeout_seconds=120) as c:
            found = data(await c.call_tool("search_code", {"query": "parse config"}))
            # the current project, not every project, although none of its files is written yet
            assert found["project"] == "repo" and found["results"] == []
            assert found["note"].startswith("project 'repo' is being indexed (2 of 18 changed files done)")
            # the same run's note; search_code's may add its own (nothing matches well)
            assert found["note"].startswith(data(await c.call_tool("search_symbols", {"name": "parse_config"}))["note"])
            wrong = error_text(await c.call_tool("symbol_graph", {"symbol": "parse_config"}))
            assert "unknown symbol: parse_config" in wrong and "being indexed (2 of 18" in wrong
            runs = data(await c.call_tool("project_status", {}))["runs"]
            assert [(r["project"], r["files_done"], r["chunks_embedded"], r["running"], r["pid"]) for r in runs] == \
                [("repo", 2, 57, True, os.getpid())]
            assert set(runs[0]) == RUN_KEYS  # the shape of this server's own runs
            lock.release()
            after = data(await c.call_tool("search_code", {"query": "parse config"}))
            assert after["project"] is None and after["note"] == "nothing matches"  # no run's note any more
            assert data(await c.call_tool("project_status", {}))["runs"] == []

    try:
        run(go())
    finally:
        if lock.lock.is_locked:
            lock.release()


def test_delete_project_stops_the_servers_run_of_it(tmp_path):
    """A run still writing would bring part of the deleted project back, and a watch asked for would start."""
    proj = tmp_path / "big"
    proj.mkdir()
    for i in range(300):
        (proj / f"m{i}.py").write_text(f"def handler_{i}(request):\n    return request.args[{i}]\n")

    async def go():
        async with Client(params(tmp_path, proj, MEMORY_GRAPH_INDEX_BATCH_FILES="1"),
                          read_timeout_seconds=300) as c:
            indexing = asyncio.create_task(c.call_tool("index_project", {"watch": True}))
            for _ in range(600):
                st = data(await c.call_tool("project_status", {}))
                if st["projects"]:
                    break
                await asyncio.sleep(0.05)
            assert st["runs"][0]["running"] and 0 < st["projects"][0]["files"] < 300
            deleted = data(await c.call_tool("delete_project", {"project": "big"}))["deleted"]
            assert 0 < deleted["files"] < 300
            stopped = error_text(await indexing)
            assert "indexing stopped: delete_project dropped project 'big' meanwhile" in stopped
            st = data(await c.call_tool("project_status", {}))
            assert st["projects"] == [] and not st["runs"][0]["running"]
            again = data(await c.call_tool("search_code", {"query": "handler request args", "project": "*"}))
            assert again["results"] == []

    run(go())


def test_index_run_progress_messages_name_the_phase():
    run = IndexRun("repo", "/repo")
    run.progress("density", 0, 1, {})
    assert run.message() == "chunk neighbourhoods"
    run.started -= 30  # three files in 30 s: seven more take about 70 s
    run.progress("index", 3, 10, {"chunks": 120})
    assert run.message() == "files: 3/10, 120 chunks embedded, about 1 min left"
    run.progress("index", 10, 10, {"chunks": 400})
    assert run.message() == "files: 10/10, 400 chunks embedded"
    run.progress("index", 10, 10, {"chunks": 120})
    run.progress("resolve", 0, 1, {})
    assert run.message() == "resolving symbols (120 chunks embedded)"


def test_stdout_carries_only_protocol_messages(tmp_path, repo):
    p = params(tmp_path, repo)
    msgs = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "store_memory", "arguments": {"content": "hello from a raw client"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "get_status", "arguments": {}}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
         "params": {"name": "search_memory", "arguments": {"query": 12}}},
    ]
    env = {**os.environ, **p.env}
    proc = subprocess.Popen([p.command, *p.args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=p.cwd)
    try:
        proc.stdin.write("\n".join(json.dumps(m) for m in msgs) + "\n")
        proc.stdin.flush()
        replies = []
        while len([r for r in replies if "id" in r]) < 4:
            line = proc.stdout.readline()
            assert line, proc.stderr.read()
            if line.strip():
                replies.append(json.loads(line))  # every line on stdout is a JSON-RPC message
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
        proc.stdout.close()
        proc.stderr.close()
    assert all(r.get("jsonrpc") == "2.0" for r in replies)
    by_id = {r["id"]: r for r in replies if "id" in r}
    assert set(by_id) == {1, 2, 3, 4}
    assert by_id[1]["result"]["serverInfo"]["name"] == "memory-graph"
    assert by_id[4]["result"]["isError"] is True and "Traceback" not in json.dumps(by_id[4])


def test_argument_errors_say_a_line_per_argument():
    from pydantic import create_model

    from server.app import ArgumentsError, _Readable

    model = create_model("M", __base__=_Readable, n=(int, ...), tags=(list[str], []))
    with pytest.raises(ArgumentsError) as e:
        model.model_validate({"tags": ["ok", 7]})
    assert str(e.value) == "n is required; tags.1: Input should be a valid string (got 7)"
    with pytest.raises(ArgumentsError) as e:
        model.model_validate({"n": "x" * 500})
    assert str(e.value).endswith("(got '" + "x" * 56 + "...)")  # 60 characters of the input's repr
    with pytest.raises(ArgumentsError) as e:  # strict: a number sent as a string is refused, not coerced
        model.model_validate({"n": "3"})
    assert str(e.value) == "n: Input should be a valid integer (got '3')"
    assert model.model_validate({"n": 3}).n == 3


def _raw_replies(tmp_path, repo, lines: list[str], wanted: int) -> list[dict]:
    p = params(tmp_path, repo)
    proc = subprocess.Popen([p.command, *p.args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, **p.env}, cwd=p.cwd)
    try:
        proc.stdin.write("\n".join(lines) + "\n")
        proc.stdin.flush()
        replies = []
        while len(replies) < wanted:
            line = proc.stdout.readline()
            assert line, proc.stderr.read()
            replies.append(json.loads(line))
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
        proc.stdout.close()
        proc.stderr.close()
    return replies


def test_every_stdio_line_gets_an_answer_an_unreadable_one_a_json_rpc_error(tmp_path, repo):
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}
    bad = ["{bad json",
           '{"jsonrpc": "2.0", "id": 7, "method": "ping", "params": {"a": "\\ud800"}}',  # an unpaired surrogate
           "[" * 5000 + "]" * 5000,
           '{"jsonrpc": "2.0", "id": 8, "method": "ping", "params": {"a": ' + "9" * 5000 + "}}",
           '{"jsonrpc": "2.0", "id": "x", "method": 3}']
    lines = [json.dumps(init), json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}), *bad,
             json.dumps({"jsonrpc": "2.0", "id": 9, "method": "ping"})]
    replies = _raw_replies(tmp_path, repo, lines, 2 + len(bad))
    errors = [r for r in replies if "error" in r]
    assert [(r["id"], r["error"]["code"]) for r in errors] == [
        (None, -32700), (7, -32600), (None, -32700), (None, -32700), (None, -32600)]
    assert replies[-1] == {"jsonrpc": "2.0", "id": 9, "result": {}}  # and the server goes on


@pytest.mark.parametrize("tool, args, wrong", [
    ("update_memory", {"id": "mem_x", "importance": True}, "importance"),
    ("update_memory", {"id": "mem_x", "importance": "5"}, "importance"),
    ("search_memory", {"query": "x", "limit": "5"}, "limit"),
    ("search_memory", {"query": "x", "include_invalid": "yes"}, "include_invalid"),
    ("store_memory", {"content": "x", "tags": "a,b"}, "tags"),
])
def test_a_wrong_type_is_refused_not_coerced(tmp_path, tool, args, wrong):
    from server.app import ArgumentsError, build_server
    from server.state import ServerState

    state = ServerState(tmp_path / "data", None)
    try:
        model = {t.name: t for t in build_server(state)._tool_manager.list_tools()}[tool].fn_metadata.arg_model
        with pytest.raises(ArgumentsError, match=f"^{wrong}: Input should be a valid"):
            model.model_validate(args)
        model.model_validate({**args, wrong: {"importance": 5, "limit": 5, "include_invalid": True,
                                              "tags": ["a", "b"]}[wrong]})  # the right type passes
    finally:
        state.close()


def test_an_index_run_that_died_is_resumed_when_a_server_starts(tmp_path, repo):
    """A stdio server whose client gave up took its run down with it; the next server on the data directory
    finishes it (from the last batch written, which the run's own test checks)."""
    from memory_graph.runs import _paths

    data_dir = tmp_path / "data"
    data_dir.mkdir()
    _, info = _paths(data_dir, "shop")
    info.write_text(json.dumps({"project": "shop", "root": str(repo), "pid": 999999, "phase": "index",
                                "files_done": 3, "files_total": 18, "chunks_embedded": 40, "started": 0}))

    async def go():
        async with Client(params(tmp_path, repo), read_timeout_seconds=300) as c:
            for _ in range(600):
                st = data(await c.call_tool("project_status", {"project": "shop"}))
                if st["projects"] and not any(r["running"] for r in st["runs"]):
                    return st
                await asyncio.sleep(0.2)
            raise AssertionError(f"not resumed: {st}")

    st = run(go())
    assert st["projects"][0]["files"] == 18 and st["projects"][0]["chunks"] > 0
    assert not info.exists()  # the run that finished it took the file away


def test_a_result_is_sent_once_as_one_compact_line_of_json(tmp_path, repo):
    async def go():
        async with Client(params(tmp_path, repo), read_timeout_seconds=120) as c:
            return await c.call_tool("store_memory", {"content": "Orion is the codename for the billing-api"})

    result = run(go())
    assert len(result.content) == 1 and "\n" not in result.content[0].text and result.structured_content is None
    answer = json.loads(result.content[0].text)
    assert answer["id"] and result.content[0].text == json.dumps(answer, ensure_ascii=False, separators=(",", ":"))


def test_initialize_is_answered_before_the_sdk_loads_as_the_sdk_would_answer_it(tmp_path, repo):
    """server.early answers the first line's initialize itself; the SDK's own answer (a blank first line makes
    the SDK answer it) must be the same, and the client gets one answer, then the session goes on."""
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    from memory_graph import __version__
    from server.early import HANDSHAKE_VERSIONS, discover_answer, initialize_answer

    assert HANDSHAKE_VERSIONS == HANDSHAKE_PROTOCOL_VERSIONS
    for version in ("2025-06-18", "1999-01-01"):
        init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                           "params": {"protocolVersion": version, "capabilities": {},
                                      "clientInfo": {"name": "raw", "version": "0"}}})
        sdk = _raw_replies(tmp_path, repo, ["", init], 1)[0]
        early = json.loads(initialize_answer(init.encode(), __version__)[0])
        assert early == sdk, version
    replies = _raw_replies(tmp_path, repo, [
        init, json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})], 2)
    assert [r["id"] for r in replies] == [1, 2] and len(replies[1]["result"]["tools"]) == len(TOOLS)
    # a 2026 client asks server/discover first: answered as the SDK answers it, then its initialize early
    discover = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": {}})
    assert json.loads(discover_answer(discover.encode())) == _raw_replies(tmp_path, repo, ["", discover], 1)[0]
    replies = _raw_replies(tmp_path, repo, [discover, init, json.dumps({"jsonrpc": "2.0", "id": 2,
                                                                          "method": "tools/list"})], 3)
    assert [r["id"] for r in replies] == [0, 1, 2] and replies[0]["error"]["code"] == -32601
    assert replies[1]["result"]["serverInfo"]["name"] == "memory-graph"


def test_the_mcp_fixes_through_the_sdk_client(tmp_path, repo):
    """Strict types, entity types and relation ids, and symbol lookup (stub, re-export, alias, a parameter
    called like a method) as a client sees them."""
    from conftest import write_files

    write_files(repo / "lib", {
        "attrs/__init__.py": "from attr._next_gen import define\n",
        "attr/__init__.py": "from ._make import attrs\n\ns = attributes = attrs\n",
        "attr/__init__.pyi": "def define(maybe_cls=None): ...\n",
        "attr/_next_gen.py": "from attr._make import attrs\n\n\ndef define(maybe_cls=None):\n    return attrs(maybe_cls)\n",
        "attr/_make.py": "def attrs(maybe_cls=None):\n    return maybe_cls\n",
        "client.py": "class Client:\n    def send(self, request):\n        return request\n\n"
                     "    def request(self):\n        return self.send(1)\n",
        "apps.py": "async def app(scope, receive, send):\n    await send({'type': 'http.response.start'})\n",
    })

    async def go():
        async with Client(params(tmp_path, repo), read_timeout_seconds=300) as c:
            m = data(await c.call_tool("store_memory", {"content": "Orion ships next week", "tags": ["orion"],
                                                        "project": "orion"}))
            wrong = error_text(await c.call_tool("update_memory", {"id": m["id"], "importance": True}))
            assert "importance: Input should be a valid integer (got True)" in wrong
            rel = data(await c.call_tool("create_relation", {"source": "orion", "target": "billing-api"}))
            related = data(await c.call_tool("get_related", {"id": "billing-api"}))["related"]
            assert related[0]["relation_id"] == rel["relation"]["id"] and related[0]["entity_type"]
            data(await c.call_tool("index_project", {}))
            graph = lambda symbol, relation="callees": c.call_tool(  # noqa: E731
                "symbol_graph", {"symbol": symbol, "relation": relation})
            assert data(await graph("attrs.define"))["symbol"]["path"] == "lib/attr/_next_gen.py"
            assert data(await graph("define"))["symbol"]["path"] == "lib/attr/_next_gen.py"
            assert data(await graph("attr.s"))["symbol"]["qualname"] == "attrs"
            callers = data(await graph("Client.send", "callers"))["results"]
            assert [r["qualname"] for r in callers] == ["Client.request"]

    run(go())


def test_a_dead_run_whose_folder_is_gone_is_forgotten_not_resumed(tmp_path):
    from memory_graph.runs import _paths, interrupted
    from server.state import ServerState

    data_dir = tmp_path / "data"
    data_dir.mkdir()
    _, info = _paths(data_dir, "gone")
    info.write_text(json.dumps({"project": "gone", "root": str(tmp_path / "no-such-folder"), "pid": 999999,
                                "phase": "index", "files_done": 1, "files_total": 9, "started": 0}))
    state = ServerState(data_dir, tmp_path)
    try:
        assert state.resume_interrupted() == [] and interrupted(data_dir) == [] and not info.exists()
    finally:
        state.close()
