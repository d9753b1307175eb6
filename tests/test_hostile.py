"""Whatever a model produces, through every MCP tool (in-process client) and the CLI: hypothesis-generated."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import string
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client
from typer.testing import CliRunner

from codebase import Indexer, detect_project, index_project
from memory_graph import Config, Engine
from memory_graph.errors import ValidationError
from server.app import build_server
from server.state import ServerState
from conftest import HashEmbedder, git_repo
from test_server import TOOLS

SYNTAX = list('+-&|!(){}[]^"~*?:\\/<>=@#$%\'`,;') + ["AND", "OR", "NOT", "TO", "*:*", "title:", "\x00", "\u202e",
                                                     "\ud800", "🔥", "NULL", "' OR 1=1 --", "../", "%s%n"]
hostile_text = st.one_of(
    st.text(max_size=300),
    st.lists(st.sampled_from(SYNTAX + ["orion", "billing", "api"]), min_size=1, max_size=12).map(" ".join),
    st.lists(st.sampled_from(SYNTAX), min_size=1, max_size=30).map("".join),
    st.text(alphabet=string.printable, max_size=200),
    st.integers(1_000, 300_000).map(lambda n: "x" * n),
    st.text(alphabet=st.characters(max_codepoint=0x1F), max_size=50),
)
json_value = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**63) | st.floats(allow_nan=True) | hostile_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=8)


class LiveClient:
    """One in-process MCP client on a background event loop, callable from synchronous hypothesis tests."""

    def __init__(self, server) -> None:
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()

        async def session() -> None:  # the client is entered and left in this one task
            self.stop = asyncio.Event()
            async with Client(server, read_timeout_seconds=60) as client:
                self.client = client
                self.ready.set()
                await self.stop.wait()

        self.session = asyncio.run_coroutine_threadsafe(session(), self.loop)
        assert self.ready.wait(60)

    def call(self, name: str, args: dict):
        return asyncio.run_coroutine_threadsafe(self.client.call_tool(name, args), self.loop).result(120)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.stop.set)
        self.session.result(60)
        self.loop.call_soon_threadsafe(self.loop.stop)


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    os.environ["MEMORY_GRAPH_ALLOWED_ROOTS"] = str(root / "allowed")
    (root / "allowed" / "proj").mkdir(parents=True)
    (root / "allowed" / "proj" / "a.py").write_text("def helper():\n    return 1\n")
    (root / "outside").mkdir()
    (root / "outside" / "secret.py").write_text("def leaked(): pass\n")
    (root / "allowed" / "escape").symlink_to(root / "outside")
    state = ServerState(project_dir=root / "allowed" / "proj",
                        engine_factory=lambda: Engine(root / "data", config=Config(), embedder=HashEmbedder()))
    c = LiveClient(build_server(state))
    eng = state.engine()
    eng.store("Orion is the codename for the billing-api rewrite")
    eng.store("billing-api times out when the cache is cold", project="proj")
    yield c, eng, root
    c.close()
    state.close()
    os.environ.pop("MEMORY_GRAPH_ALLOWED_ROOTS", None)


def snapshot(eng: Engine) -> dict:
    return {t: eng.lance.count(t) for t in ("memories", "entities", "relations", "mentions", "code_chunks",
                                              "symbols", "files")} | {"bm25": eng.text.num_docs()}


def check_answer(res) -> None:
    text = "".join(getattr(c, "text", "") for c in res.content)
    assert "Traceback" not in text and 'File "' not in text
    if res.is_error:
        assert text.strip()


@settings(max_examples=320, deadline=None, suppress_health_check=list(HealthCheck))
@given(query=hostile_text, tool=st.sampled_from(["search_memory", "search_code", "search_symbols", "timeline"]),
       mode=st.sampled_from(["hybrid", "bm25", "graph", "vector"]))
def test_any_query_string_never_crashes_a_search(live, query, tool, mode):
    c, eng, _ = live
    before = snapshot(eng)
    args = {"search_memory": {"query": query, "mode": mode}, "search_code": {"query": query, "mode": mode},
            "search_symbols": {"name": query}, "timeline": {"query": query}}[tool]
    res = c.call(tool, args)
    check_answer(res)
    assert snapshot(eng) == before


WRITERS = {"store_memory", "update_memory", "delete_memory", "invalidate_memory", "create_entity",
           "create_relation", "delete_entity", "index_project", "delete_project"}


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(tool=st.sampled_from(TOOLS), args=st.dictionaries(
    st.sampled_from(["content", "query", "ids", "id", "limit", "depth", "name", "source", "target", "path",
                     "project", "tags", "importance", "memory_type", "symbol", "relation", "mode", "weight",
                     "before", "after", "offset", "scope", "min_size", "at", "valid_from", "x"]),
    json_value, max_size=5))
def test_random_arguments_to_every_tool_answer_cleanly_and_a_rejection_changes_nothing(live, tool, args):
    c, eng, _ = live
    # destructive tools get an unknown target, so that any call is a rejection and must change nothing
    if tool in ("update_memory", "invalidate_memory", "delete_entity"):
        args = {**args, "id": "nope_1"}
    elif tool == "delete_memory":
        args = {**args, "ids": ["nope_1"]}
    elif tool == "delete_project":
        args = {"project": "nope_1"}
    elif tool == "index_project":
        args = {**args, "path": "/"}
    if tool == "store_memory" and isinstance(args.get("content"), str):
        args["content"] = 12  # a valid store would change the store; invalid ones must not
    before = snapshot(eng)
    res = c.call(tool, args)
    check_answer(res)
    if res.is_error or tool not in WRITERS:
        assert snapshot(eng) == before, (tool, args)


@pytest.mark.parametrize("path", ["/etc", "/", "..", "../..", "~/../..", "allowed/../outside", "escape",
                                  "escape/secret.py", "\x00"])
def test_paths_outside_the_allowed_roots_are_refused(live, path):
    c, eng, root = live
    before = snapshot(eng)
    if path.startswith(("allowed", "escape")):
        path = str(root / "allowed" / path) if path.startswith("escape") else str(root / path)
    res = c.call("index_project", {"path": path})
    check_answer(res)
    assert res.is_error
    text = res.content[0].text
    assert "outside the allowed roots" in text or "path" in text
    assert snapshot(eng) == before


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_folder_inside_the_allowed_roots_is_indexed_alone_when_its_git_root_is_outside(tmp_path, monkeypatch):
    repo = git_repo(tmp_path / "repo", {"allowed/a.py": "def helper():\n    return 1\n",
                                        "secret.py": "def leaked(): pass\n"})
    monkeypatch.setenv("MEMORY_GRAPH_ALLOWED_ROOTS", str(repo / "allowed"))
    state = ServerState(project_dir=tmp_path,
                        engine_factory=lambda: Engine(tmp_path / "data", config=Config(), embedder=HashEmbedder()))
    try:
        run, _ = state.start_index(str(repo / "allowed"), None, False)
        assert run.finished.wait(60) and run.error is None
        assert run.root == str((repo / "allowed").resolve())
        # the git root (repo) is outside the allowed roots, so its other files stay unread
        assert {s["name"] for q in ("helper", "leaked") for s in state.engine().find_symbols(q)} == {"helper"}
    finally:
        state.close()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_home_folder_is_no_project_even_when_it_is_a_dotfiles_repository(tmp_path, monkeypatch):
    home = git_repo(tmp_path / "home", {".bashrc": "alias ll='ls -l'\n", "notes/todo.md": "# todo\n",
                                        "code/shop/orders.py": "def place_order():\n    return 1\n"})
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("MEMORY_GRAPH_ALLOWED_ROOTS", str(tmp_path))
    # a folder under it is its own project, not the whole home folder the git top level is
    assert detect_project(home / "code" / "shop") == ((home / "code" / "shop").resolve(), "shop")
    eng = Engine(tmp_path / "data", config=Config(), embedder=HashEmbedder())
    try:
        for folder, project in ((home, None), (home, "everything"), ("/", "disk")):
            with pytest.raises(ValidationError, match="is the home folder, not a project|file system's root"):
                Indexer(eng, folder, project=project)
        assert index_project(eng, home / "code" / "shop").files_indexed == 1
        assert [p["project"] for p in eng.code_projects()] == ["shop"]
    finally:
        eng.close()
    state = ServerState(project_dir=home / "code" / "shop",
                        engine_factory=lambda: Engine(tmp_path / "data2", config=Config(), embedder=HashEmbedder()))
    try:
        assert (state.project, state.project_root) == ("shop", (home / "code" / "shop").resolve())
        assert ServerState._detect(home) == (None, None)
    finally:
        state.close()


def test_a_misspelt_argument_is_an_error_that_names_it(live):
    c, eng, _ = live
    before = snapshot(eng)
    res = c.call("search_memory", {"qeury": "billing"})
    assert res.is_error and "qeury" in res.content[0].text, res.content[0].text
    res = c.call("store_memory", {"content": "valid text", "tag": ["x"]})
    assert res.is_error and "tag" in res.content[0].text
    assert snapshot(eng) == before
    assert not c.call("search_memory", {"query": "billing"}).is_error


def test_private_text_is_never_stored(live):
    c, eng, _ = live
    res = c.call("store_memory", {"content": "deploy key is <private>hunter2</private> rotate monthly",
                                  "title": "keys <private>hunter2</private>"})
    mid = json.loads(res.content[0].text)["id"]
    m = eng.get([mid])[0]
    assert "hunter2" not in m.content and "hunter2" not in m.title and "rotate monthly" in m.content
    assert not eng.search("hunter2", mode="bm25")
    res = c.call("store_memory", {"content": "<private>only a secret</private>"})
    assert res.is_error and "private" in res.content[0].text
    eng.delete([mid])


CLI_CASES = st.tuples(st.sampled_from([["search"], ["store"], ["get"], ["search-code"], ["symbols"],
                                       ["callers"], ["callees"], ["list", "--tags"], ["list", "--project"],
                                       ["invalidate"], ["delete"], ["import"], ["delete-project"],
                                       ["search", "--mode"], ["search-code", "x", "--language"],
                                       ["store", "x", "--type"], ["store", "x", "--entity"],
                                       ["store", "x", "--title"]]), hostile_text)


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=CLI_CASES)
def test_hostile_cli_arguments_exit_cleanly(tmp_path_factory, case):
    from server.cli import app

    cmd, text = case
    if "\x00" in text or not text.strip() or text.startswith("-"):
        text = "x" + text.replace("\x00", "")
    data = tmp_path_factory.getbasetemp() / "cli-hostile"
    r = CliRunner().invoke(app, ["--data-dir", str(data), *cmd, text[:5000]])
    assert r.exit_code in (0, 2), r.output
    assert "Traceback" not in r.output
    if r.exit_code == 2:
        assert "error" in r.output.lower() or "usage" in r.output.lower()


def test_an_undecodable_byte_in_a_title_is_stored_as_a_replacement_character(engine):
    """A shell passes a byte that is not UTF-8 as a lone surrogate; no store or tokenizer can encode one."""
    mid = engine.store("the deploy checklist", title="bad \udcff byte")
    assert engine.get(mid)[0].title == "bad ? byte"
    engine.update(mid, title="worse \ud800 one")
    assert engine.get(mid)[0].title == "worse ? one"


def test_a_file_where_the_text_index_folder_belongs_is_a_clear_error(tmp_path, embedder):
    from memory_graph.errors import ConfigError

    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "bm25").write_text("not an index")
    with pytest.raises(ConfigError, match="bm25 is a file where the text index's folder belongs") as err:
        Engine(tmp_path / "data", config=Config(), embedder=embedder)
    assert "move or delete it" in err.value.hint
    assert (tmp_path / "data" / "bm25").read_text() == "not an index"  # the user's file is left alone


def test_escape_sequences_a_memory_holds_reach_no_terminal(tmp_path):
    """A stored window-title sequence, screen clear or bell is printed escaped by list, get and search."""
    from server.cli import app

    data = ["--data-dir", str(tmp_path / "data")]
    evil = "deploy notes \x1b]0;pwned\x07 then \x1b[2J cleared \x9b31m"
    mid = CliRunner().invoke(app, [*data, "store", evil]).output.strip().splitlines()[-1]
    for cmd in (["list"], ["get", mid], ["search", "deploy notes"]):
        shown = CliRunner().invoke(app, [*data, *cmd]).output
        assert "\\x1b" in shown and "\\x9b" in shown, cmd  # escaped (a narrow table may wrap the rest)
        assert not any(c in shown for c in "\x1b\x07\x9b"), cmd


@pytest.mark.parametrize("part", ["é" * 100, "a" * 190])
def test_a_path_prefix_too_long_for_tantivys_regex_still_scopes_the_bm25_leg(tmp_path, embedder, part):
    """Past what Tantivy's regex compiles (1,000 states, about one a byte), the BM25 leg still runs, and
    keeps only the chunks under the whole prefix (a file under its start alone is left out)."""
    src = tmp_path / "proj"
    deep = src.joinpath(*[part] * 5)
    deep.mkdir(parents=True)
    (deep / "billing.py").write_text("def charge_card(amount):\n    return gateway.charge(amount)\n")
    (src.joinpath(*[part] * 4) / "other.py").write_text("def charge_card_again(amount):\n    return amount\n")
    eng = Engine(tmp_path / "data", config=Config(), embedder=embedder)
    try:
        index_project(eng, src, project="p")
        prefix = "/".join([part] * 5) + "/"
        hits = eng.search_code("charge card amount", project="p", path_prefix=prefix, mode="bm25")
        assert [h.record["path"] for h in hits] == [prefix + "billing.py"]
    finally:
        eng.close()


def test_http_mode_requires_the_token():
    from starlette.testclient import TestClient

    from server.http import BearerToken

    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": json.dumps({"ok": True}).encode()})

    client = TestClient(BearerToken(app, "s3cret"))
    assert client.get("/mcp").status_code == 401
    assert client.get("/mcp", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert client.get("/mcp", headers={"Authorization": "Bearer s3cret"}).status_code == 200


@pytest.mark.parametrize("call", [
    lambda e: e.get(["\ud800"]), lambda e: e.delete(["mem_\ud800"]), lambda e: e.store("x", project="\ud800"),
    lambda e: e.store("x", tags=["t\ud800"]), lambda e: e.search("x", project="p\ud800"),
    lambda e: e.search_code("x", path_prefix="\ud800"), lambda e: e.search_code("x", languages=["\ud800"]),
    lambda e: e.find_symbols("a", kind="\ud800"), lambda e: e.create_entity("\ud800"),
    lambda e: e.get_related("x\x00y"),
])
def test_text_no_store_can_hold_is_a_validation_error(engine, call):
    from memory_graph.errors import ValidationError

    before = snapshot(engine)
    with pytest.raises(ValidationError):
        call(engine)
    assert snapshot(engine) == before


@pytest.mark.parametrize("call", [
    lambda e: e.import_("x" * 5000), lambda e: e.import_("a\x00b"), lambda e: e.export("/no/such/dir/" + "y" * 300),
    lambda e: __import__("codebase").index_project(e, "z" * 5000),
    lambda e: __import__("codebase").index_project(e, "a\x00b"),
])
def test_impossible_paths_are_validation_errors(engine, call):
    from memory_graph.errors import ValidationError

    with pytest.raises(ValidationError):
        call(engine)


ODD_FOLDERS = ["a<b>", "back\\slash", "sp ace", "[br]", "a.b", "é", "a-b~c", "d$(x)", "new\nline", "a", "a.bc"]


@pytest.fixture(scope="module")
def odd_engine(tmp_path_factory):
    from codebase import index_project

    root = tmp_path_factory.mktemp("odd")
    for i, folder in enumerate(ODD_FOLDERS):
        (root / "src" / folder).mkdir(parents=True)
        (root / "src" / folder / "mod.py").write_text(f"def helper_{i}():\n    return 'needle'\n")
    eng = Engine(root / "data", config=Config(), embedder=HashEmbedder())
    index_project(eng, root / "src", project="odd")
    yield eng
    eng.close()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(folder=st.sampled_from(ODD_FOLDERS), cut=st.integers(0, 12))
def test_a_path_prefix_is_literal_in_every_leg(odd_engine, folder, cut):
    prefix = (folder + "/mod.py")[:cut] or folder[:1]
    want = {f + "/mod.py" for f in ODD_FOLDERS if (f + "/mod.py").startswith(prefix)}
    for mode in ("bm25", "vector", "hybrid"):
        hits = odd_engine.search_code("needle", limit=20, mode=mode, path_prefix=prefix)
        assert {h.record["path"] for h in hits} == want, (mode, prefix)


def test_a_held_write_lock_is_waited_for_with_a_message_then_refused(tmp_path, embedder, caplog):
    """Another process holding the write lock (a writer suspended with Ctrl-Z): a command says that it waits,
    then gives up with a BusyError that says how to fix it; once the lock is free, it works."""
    import logging

    from filelock import FileLock

    from memory_graph.errors import BusyError

    config = Config(lock_notice_seconds=0.1, lock_timeout_seconds=0.5)
    eng = Engine(tmp_path / "data", config=config, embedder=embedder)
    held = FileLock(str(tmp_path / "data" / ".write.lock"))
    held.acquire()
    try:
        with caplog.at_level(logging.WARNING, logger="memory_graph"), pytest.raises(BusyError) as err:
            eng.store("the billing service moved to Kafka")
        assert "waiting for the write lock" in caplog.text
        assert "held the write lock" in str(err.value) and "Ctrl-Z" in err.value.hint
    finally:
        held.release()
    assert eng.list()[1] == 0  # nothing was written while refused
    eng.store("the billing service moved to Kafka")
    assert eng.list()[1] == 1
    eng.close()
