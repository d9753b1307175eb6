"""A store on object storage shared by several machines: a real S3 API (moto's server mode) on 127.0.0.1, one
bucket, processes with separate data directories (as separate machines have), the real LanceDB and Tantivy."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

from memory_graph import Config, Engine
from memory_graph.errors import ConfigError, NotFoundError, StoreError
from memory_graph.store.remote import check_uri, check_writers, derived_dir

from conftest import HashEmbedder

TESTS = Path(__file__).resolve().parent
BUCKET = "team-memory"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def s3():
    """The environment of a client of a fresh S3 server (moto) with one bucket; skipped if it cannot start."""
    pytest.importorskip("moto.server", reason="moto[server] is not installed (pip install 'moto[server]')")
    boto3 = pytest.importorskip("boto3")
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 30
    while True:
        try:
            urllib.request.urlopen(url, timeout=1).close()
            break
        except OSError:
            if proc.poll() is not None or time.time() > deadline:
                proc.kill()
                pytest.skip(f"moto's S3 server did not start on {url}")
            time.sleep(0.2)
    env = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1",
           "AWS_ENDPOINT_URL": url, "AWS_ALLOW_HTTP": "true",
           # moto refuses a put with If-None-Match: * of an existing key (test_the_server_honours_...)
           "MEMORY_GRAPH_STORE_CONDITIONAL_WRITES": "yes"}
    client = boto3.client("s3", endpoint_url=url, aws_access_key_id="testing", aws_secret_access_key="testing",
                          region_name="us-east-1")
    client.create_bucket(Bucket=BUCKET)
    yield {"env": env, "client": client}
    proc.terminate()
    proc.wait(timeout=30)


@pytest.fixture
def uri(s3, monkeypatch):
    """A fresh prefix of the bucket, and this process's environment pointed at the server."""
    for k, v in s3["env"].items():
        monkeypatch.setenv(k, v)
    return f"s3://{BUCKET}/{uuid.uuid4().hex[:12]}"


def _engine(data_dir: Path, uri: str) -> Engine:
    return Engine(data_dir, config=Config.from_env(store_uri=uri), embedder=HashEmbedder())


WRITER = textwrap.dedent("""
    import sys
    sys.path.insert(0, {tests!r})
    from conftest import HashEmbedder
    from memory_graph import Config, Engine

    name, count, batch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    eng = Engine(sys.argv[4], config=Config.from_env(store_uri=sys.argv[5]), embedder=HashEmbedder())
    for start in range(0, count, batch):
        items = [{{"content": f"note {{name}} {{i}}: token{{name}}x{{i}} was decided on the billing call"}}
                 for i in range(start, min(count, start + batch))]
        for mid in eng.store_many(items):  # acknowledged: the call returned
            print(mid, flush=True)
""")


def _writer(tmp_path: Path, s3, name: str, count: int, batch: int, uri: str) -> subprocess.Popen:
    script = tmp_path / "writer.py"
    script.write_text(WRITER.format(tests=str(TESTS)))
    env = {**os.environ, **s3["env"], "HF_HUB_OFFLINE": "1"}
    return subprocess.Popen([sys.executable, str(script), name, str(count), str(batch), str(tmp_path / name), uri],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def test_the_server_honours_conditional_writes(s3):
    """What MEMORY_GRAPH_STORE_CONDITIONAL_WRITES=yes declares for this server: a second put of a key with
    If-None-Match: * is refused, so two commits of one version cannot both land."""
    from botocore.exceptions import ClientError

    key = f"probe-{uuid.uuid4().hex}"
    s3["client"].put_object(Bucket=BUCKET, Key=key, Body=b"1", IfNoneMatch="*")
    with pytest.raises(ClientError) as refused:
        s3["client"].put_object(Bucket=BUCKET, Key=key, Body=b"2", IfNoneMatch="*")
    assert refused.value.response["Error"]["Code"] == "PreconditionFailed"


def test_three_machines_store_300_each_at_once_and_a_fourth_finds_all_900(tmp_path, s3, uri):
    watcher = _engine(tmp_path / "w", uri)  # open throughout: catches up by the change log
    watcher.store("opened before the writers")
    procs = {name: _writer(tmp_path, s3, name, 300, 10, uri) for name in ("a", "b", "c")}
    acked = {}
    for name, p in procs.items():
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0, err[-2000:]
        acked[name] = out.split()
    assert all(len(ids) == 300 for ids in acked.values())
    every = [i for ids in acked.values() for i in ids]
    reader = _engine(tmp_path / "d", uri)
    assert reader.lance.count("memories") == 901
    assert sorted(m.id for m in reader.get(every)) == sorted(every)
    for name in acked:  # by words (BM25 over the rebuilt local index) and by meaning (vectors in the bucket)
        for i in (0, 151, 299):
            mid = acked[name][i]
            assert [h.id for h in reader.search(f"token{name}x{i}", mode="bm25", limit=1)] == [mid]
            assert mid in [h.id for h in reader.search(f"note {name} {i}: token{name}x{i}", limit=5)]
    time.sleep(Config().store_refresh_seconds + Config().sync_check_seconds)
    assert watcher.search("tokenbx42", mode="bm25", limit=1)[0].id == acked["b"][42]
    assert all(i in watcher.graph for i in every)  # commits numbered alike by writers at once are all applied
    # each writer's own data directory catches up with the other two by the change log
    writer_a = _engine(tmp_path / "a", uri)
    assert writer_a.search("tokencx7", mode="bm25", limit=1)[0].id == acked["c"][7]
    assert writer_a.graph.number_of_nodes() >= 900


def test_a_writer_killed_mid_run_loses_nothing_it_acknowledged(tmp_path, s3, uri):
    victim = _writer(tmp_path, s3, "v", 400, 1, uri)
    other = _writer(tmp_path, s3, "o", 60, 1, uri)
    acked = []
    while len(acked) < 25:
        line = victim.stdout.readline()
        assert line, victim.stderr.read()[-2000:]
        acked.append(line.strip())
    victim.send_signal(signal.SIGKILL)
    victim.wait(timeout=30)
    out, err = other.communicate(timeout=600)
    assert other.returncode == 0, err[-2000:]
    others = out.split()
    # the killed writer's own data directory opens again (undoing what it left half done, if anything) ...
    again = _engine(tmp_path / "v", uri)
    assert set(acked) | set(others) <= {m.id for m in again.get(acked + others)}
    again.store("written after the kill")
    # ... and a machine that saw none of it finds every acknowledged memory
    reader = _engine(tmp_path / "r", uri)
    found = {m.id for m in reader.get(acked + others)}
    assert found == set(acked) | set(others)
    assert reader.search("written after the kill", mode="bm25", limit=1)
    assert reader.check()["ok"], reader.check()


def test_a_deleted_local_index_is_rebuilt_from_the_bucket(tmp_path, uri):
    eng = _engine(tmp_path / "d", uri)
    mid = eng.store("The deploy key rotates every ninety days (quarterly rotation)")
    local = eng.data_dir
    eng.close()
    assert local == derived_dir(tmp_path / "d", uri) and (local / "bm25").is_dir()
    assert not (local / "lance").exists()  # the records are in the bucket only
    shutil.rmtree(local)
    eng = _engine(tmp_path / "d", uri)
    assert [h.id for h in eng.search("quarterly rotation", mode="bm25")] == [mid]
    stats = eng.stats()
    assert stats["store"] == uri and stats["counts"]["memories"] == 1 and stats["text_index_docs"] == 1


def test_a_store_uri_is_checked_and_unknown_conditional_writes_refused(tmp_path, monkeypatch):
    for bad in ("http://example.com/x", "s3://", "s3://key:secret@bucket/p", "/tmp/local"):
        with pytest.raises(ConfigError) as caught:
            check_uri(bad)
        assert "secret" not in caught.value.message
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9")
    with pytest.raises(ConfigError) as caught:
        check_writers("s3://b/p", "auto", False)
    assert "MEMORY_GRAPH_STORE_CONDITIONAL_WRITES=yes" in caught.value.hint
    assert "MEMORY_GRAPH_STORE_SINGLE_WRITER=true" in caught.value.hint
    check_writers("s3://b/p", "auto", True)  # one writer promised
    check_writers("s3://b/p", "yes", False)  # the user knows the server
    check_writers("gs://b/p", "auto", False)
    monkeypatch.delenv("AWS_ENDPOINT_URL")
    check_writers("s3://b/p", "auto", False)  # AWS S3 itself
    with pytest.raises(ConfigError):
        Engine(tmp_path / "d", config=Config(store_uri="s3://b/p", store_conditional_writes="no"),
               embedder=HashEmbedder())
    assert not (tmp_path / "d" / "stores").exists()  # refused before anything was made


def test_an_unreachable_store_says_what_to_check(tmp_path, monkeypatch):
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{_free_port()}")
    for k, v in {"AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "x", "AWS_REGION": "us-east-1",
                 "AWS_ALLOW_HTTP": "true"}.items():
        monkeypatch.setenv(k, v)
    with pytest.raises(StoreError) as caught:
        Engine(tmp_path / "d", config=Config(store_uri="s3://nobucket/p", store_single_writer=True),
               embedder=HashEmbedder())
    assert "AWS_ENDPOINT_URL" in caught.value.hint


def _cli(data_dir: Path, uri: str, s3, *args: str) -> str:
    env = {**os.environ, **s3["env"], "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(TESTS.parent)}
    out = subprocess.run([sys.executable, "-m", "memory_graph", "--data-dir", str(data_dir), "--store", uri, *args],
                         capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def test_two_terminals_share_memories_both_ways_through_the_cli_and_two_mcp_servers(tmp_path, s3, uri):
    """The CLI with --store in two data directories, then two MCP servers given the URI by the environment,
    each store seen by the other (the packaged model embeds)."""
    from mcp import Client, StdioServerParameters
    import asyncio

    first = json.loads(_cli(tmp_path / "one", uri, s3, "store", "Orion ships on the nats queue from May",
                            "--json"))["id"]
    found = json.loads(_cli(tmp_path / "two", uri, s3, "search", "which queue does Orion use", "--json"))
    assert found[0]["id"] == first
    second = json.loads(_cli(tmp_path / "two", uri, s3, "store", "Billing retries are capped at five", "--json"))["id"]
    assert json.loads(_cli(tmp_path / "one", uri, s3, "search", "billing retry cap", "--json"))[0]["id"] == second
    assert uri in _cli(tmp_path / "one", uri, s3, "stats")

    def server(name: str) -> StdioServerParameters:
        env = {**os.environ, **s3["env"], "MEMORY_GRAPH_STORE_URI": uri, "MEMORY_GRAPH_HOME": str(tmp_path / name),
               "HF_HUB_OFFLINE": "1", "MEMORY_GRAPH_ALLOWED_ROOTS": str(tmp_path),
               "PYTHONPATH": str(TESTS.parent)}
        return StdioServerParameters(command=sys.executable, args=["-m", "server"], env=env, cwd=str(tmp_path))

    lag = Config().store_refresh_seconds + Config().sync_check_seconds

    async def go():
        async with Client(server("mcp1"), read_timeout_seconds=300) as a, \
                Client(server("mcp2"), read_timeout_seconds=300) as b:
            async def call(c, tool, **args):
                result = await c.call_tool(tool, args)
                assert not result.is_error, result.content[0].text
                return json.loads(result.content[0].text)

            from_a = (await call(a, "store_memory", content="The staging database is pg-staging-3", project=""))["id"]
            await asyncio.sleep(lag)  # another machine's write is seen a look later: each sync_check_seconds
            seen_by_b = await call(b, "search_memory", query="staging database host", scope="all")
            from_b = (await call(b, "store_memory", content="Release tags are signed with the ops key",
                                 project=""))["id"]
            await asyncio.sleep(lag)
            seen_by_a = await call(a, "search_memory", query="who signs release tags", scope="all")
            status = await call(a, "get_status")
            return from_a, seen_by_b, from_b, seen_by_a, status

    from_a, seen_by_b, from_b, seen_by_a, status = asyncio.run(go())
    assert seen_by_b["results"][0]["id"] == from_a and seen_by_a["results"][0]["id"] == from_b
    assert status["store"] == uri and status["counts"]["memories"] == 4


def test_a_code_index_written_on_one_machine_reaches_another_that_was_open(tmp_path, uri):
    """Code writes log a change on object storage too: a reader looks at the change log's version alone."""
    from codebase import Indexer
    from conftest import write_files

    repo = tmp_path / "repo"
    write_files(repo, {"billing/retry.py": "def backoff_delay(attempt):\n    return min(30, 2 ** attempt)\n"})
    reader = _engine(tmp_path / "r", uri)
    with pytest.raises(NotFoundError):  # no such project yet
        reader.search_code("backoff delay", project="demo")
    writer = _engine(tmp_path / "w", uri)
    Indexer(writer, repo, project="demo").run()
    time.sleep(Config().store_refresh_seconds + Config().sync_check_seconds)
    hits = reader.search_code("backoff delay", project="demo")
    assert hits and hits[0].record["path"] == "billing/retry.py"
    assert reader.find_symbols("backoff_delay", project="demo")


def test_short_sessions_on_object_storage_leave_the_store_compacted(tmp_path, uri):
    """Each session writes fewer rows than optimize_every_rows; the first write of one that finds the memories
    in more than store_compact_fragments small fragments compacts them."""
    def fragments(eng) -> int:
        return eng.lance.table("memories").stats()["fragment_stats"]["num_fragments"]

    cfg = dict(store_uri=uri, optimize_every_rows=10 ** 6, store_compact_fragments=8)
    seen = []
    for i in range(12):  # twelve short sessions of one memory each
        eng = Engine(tmp_path / f"d{i}", config=Config.from_env(**cfg), embedder=HashEmbedder())
        eng.store(f"session {i} decided the cache keeps {i} entries")
        seen.append(fragments(eng))
        eng.close()
    # a fragment per session until the ninth finds nine (more than eight) and compacts them into one
    assert seen == [1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4]
    reader = Engine(tmp_path / "r", config=Config.from_env(**cfg), embedder=HashEmbedder())
    assert reader.lance.count("memories") == 12
    assert reader.search("session 11 cache entries", mode="bm25", limit=1)


def test_a_catch_up_reads_every_table_at_least_as_new_as_the_change_it_applies(tmp_path, uri):
    """Each table's handle is refreshed on its own clock (store_refresh_seconds): a reader whose memories table was
    read just before another machine's write, and whose change log was not, sees the change logged and must read
    the memory it names, not the memories table as it was."""
    config = Config.from_env(store_uri=uri, store_refresh_seconds=4.0, sync_check_seconds=0.0)
    writer = _engine(tmp_path / "w", uri)
    writer.store("The staging database is pg-staging-2", project="p")
    reader = Engine(tmp_path / "r", config=config, embedder=HashEmbedder())
    time.sleep(4.2)  # every handle of the reader past its refresh interval
    reader.lance.table("memories").count_rows()  # the memories read anew; the change log not
    new = writer.store("Release tags are signed with the ops key", project="p")
    found = reader.search("who signs release tags", project="p")
    assert found and found[0].id == new
    assert new in reader.graph and reader.text.num_docs() == 2  # the graph and the text index both hold it


def test_a_write_of_another_machine_while_a_reader_opens_reaches_the_readers_first_search(tmp_path, uri, monkeypatch):
    """No lock is shared between machines: a commit between a reader's loading its graph and its first look must
    show as a change then (the versions it knows are read before the graph)."""
    from memory_graph.sync import Sync

    writer = _engine(tmp_path / "w", uri)
    writer.store("The staging database is pg-staging-2", project="p")
    load, new = Sync.load_graph, []

    def load_then_another_machine_writes(self):
        load(self)
        if not new:
            new.append(writer.store("Release tags are signed with the ops key", project="p"))

    monkeypatch.setattr(Sync, "load_graph", load_then_another_machine_writes)
    # every read fresh, as they are when the open takes longer than store_refresh_seconds
    reader = Engine(tmp_path / "r", config=Config.from_env(store_uri=uri, store_refresh_seconds=0.0),
                    embedder=HashEmbedder())
    monkeypatch.undo()
    time.sleep(reader.config.sync_check_seconds)
    found = reader.search("who signs release tags", project="p")
    assert new and found[0].id == new[0] and new[0] in reader.graph


def test_two_machines_opening_a_new_store_at_once_both_write_its_settings(tmp_path, uri):
    """Two machines that create a store's tables at once: LanceDB makes the second creation an overwrite of the
    first, and the first machine's write of the settings, read before it, conflicts with it. The settings are
    the same on both machines: the write is taken again, not refused."""
    from memory_graph.store.lance import LanceStore, schemas

    first = LanceStore(tmp_path / "a", Config(), uri=uri)
    first.ensure_tables(8)
    first.table("meta").version  # read before the other machine's creation
    second = LanceStore(tmp_path / "b", Config(), uri=uri)
    second.db.create_table("meta", schema=schemas(8)["meta"], mode="overwrite")  # the creation that came second
    first.set_meta({"schema_version": "x"})
    assert first.get_meta() == {"schema_version": "x"} == second.get_meta()
