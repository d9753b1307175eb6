"""End to end with the real packaged all-MiniLM-L6-v2 model and the real stores."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memory_graph import Config, Engine

CORPUS = [
    ("The production database is backed up every night at 2am to cold storage", "procedural"),
    ("Set FEATURE_FLAG_X9_ROLLOUT to false to disable the new checkout", "procedural"),
    ("Orion is the codename for the billing-api rewrite", "semantic"),
    ("billing-api times out when the cache is cold", "bugfix"),
    ("The team has problems with flaky integration tests on CI", "episodic"),
    ("Vega has problems with memory leaks in the image resizer", "episodic"),
    ("We had problems with the office wifi again today", "episodic"),
    ("Lunch on Fridays is pizza at the corner place", "episodic"),
    ("Use ruff for linting and black for formatting in Python repos", "procedural"),
    ("The design review for the onboarding flow is on Thursday", "episodic"),
]


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    eng = Engine(tmp_path_factory.mktemp("real"), Config())
    ids = eng.store_many([{"content": c, "memory_type": t} for c, t in CORPUS])
    yield eng, dict(zip([c for c, _ in CORPUS], ids))
    eng.close()


def test_paraphrase_is_found_by_the_vector_leg(real):
    eng, ids = real
    target = ids[CORPUS[0][0]]
    query = "how often do we make copies of the prod data?"
    assert eng.search(query, mode="vector", limit=1)[0].id == target
    top = eng.search(query, limit=3)[0]
    assert top.id == target and top.explanation.ranks["vector"] == 1 and top.explanation.ranks["bm25"] is None


def test_a_fact_that_updates_one_is_shown_it_and_other_notes_are_not(tmp_path):
    """store_memory's `similar` at the default threshold, with the packaged model."""
    with Engine(tmp_path / "updates", Config()) as eng:
        old = eng.store("The test database listens on port 5433.", project="shop")
        eng.store_many([{"content": c, "memory_type": t, "project": "shop"} for c, t in CORPUS])
        new = eng.store("The test database now listens on port 5434.", project="shop")
        assert [i for i, _ in eng.similar(new)] == [old]
        assert eng.similar(eng.store("Invoices are rendered to PDF with WeasyPrint.", project="shop")) == []


def test_identifier_is_found_by_the_bm25_leg(real):
    eng, ids = real
    top = eng.search("FEATURE_FLAG_X9_ROLLOUT", limit=3)[0]
    assert top.id == ids[CORPUS[1][0]]
    assert top.explanation.ranks["bm25"] == 1


def test_a_memory_named_only_by_a_codename_is_found_through_the_graph(real):
    eng, ids = real
    target = ids["billing-api times out when the cache is cold"]
    query = "What problems does Orion have?"
    vector_rank = [h.id for h in eng.search(query, mode="vector", limit=10, use_mmr=False)].index(target) + 1
    # "Orion is the codename for the billing-api rewrite" makes Orion a name of billing-api: one hop
    graph = {h.id: h for h in eng.search(query, mode="graph")}
    assert graph[target].explanation.ranks["graph"] <= 2
    assert graph[target].explanation.graph_path[-2:] == ["billing-api", target]
    assert target not in [h.id for h in eng.search(query, mode="bm25")]
    # hybrid: the query is read with the name its codename stands for, and the graph leg adds its weight
    ranked = [h.id for h in eng.search(query, limit=10, use_mmr=False)]
    assert ranked.index(target) + 1 < vector_rank and ranked.index(target) <= 1
    off = eng.config
    try:
        eng.config = off.with_(alias_expansion=False)
        plain = [h.id for h in eng.search(query, limit=10, use_mmr=False)]
    finally:
        eng.config = off
    assert ranked.index(target) < plain.index(target)


def test_export_import_gives_the_same_results(real, tmp_path):
    eng, _ = real
    eng.export(tmp_path / "dump.jsonl")
    other = Engine(tmp_path / "copy", Config())
    other.import_(tmp_path / "dump.jsonl")
    for q in ("What problems does Orion have?", "copies of prod data", "FEATURE_FLAG_X9_ROLLOUT", "lint python"):
        assert [h.id for h in eng.search(q)] == [h.id for h in other.search(q)]


def test_embedder_caches_by_content_hash(real):
    eng, _ = real
    emb = eng.embedder
    before = emb.texts_encoded
    first = emb.encode(["a text embedded twice", "another text"])
    again = emb.encode(["another text", "a text embedded twice"])
    assert emb.texts_encoded == before + 2
    assert (first[0] == again[1]).all() and first.shape == (2, 384)


def test_code_search_finds_a_function_by_what_it_does(tmp_path, repo):
    from codebase import index_project

    eng = Engine(tmp_path / "code", Config())
    index_project(eng, repo, project="demo")
    top = eng.search_code("compute a rolling checksum over a byte buffer", limit=3)
    assert top[0].title == "function checksum"
    top = eng.search_code("read the settings file and turn it into a dictionary", limit=3)
    assert "def parse_config" in [h.title for h in top]
    top = eng.search_code("push the docker image", limit=3)
    assert top[0].record["path"] == "scripts/deploy"
    eng.close()


def test_no_chunk_is_longer_than_the_model_reads(tmp_path):
    """Every chunk of this repository and the fixture, as the model sees it, fits in 256 word pieces."""
    from pathlib import Path

    from codebase.chunker import parse_file
    from codebase.scanner import scan
    from memory_graph.code import chunk_embed_text
    from memory_graph.embedding import SentenceTransformerEmbedder

    model = SentenceTransformerEmbedder("", 32, 10, 10)
    runtime = model.model
    root = Path(__file__).resolve().parents[1]
    worst = 0
    for f in scan(root).files:
        p = parse_file(f.path, f.abspath.read_text(errors="replace"), f.language, Config().chunk_max_tokens,
                       Config().chunk_overlap_lines)
        for c in p.chunks:
            text = chunk_embed_text(f.path, c.breadcrumb, c.signature, c.content)
            worst = max(worst, len(runtime.token_ids(text)) + 2)  # with [CLS] and [SEP]
    assert 100 < worst <= 256


def test_long_memory_is_found_by_a_passage_past_the_model_input(real):
    eng, _ = real
    cfg = eng.config
    filler = " ".join(f"Meeting {i}: the team reviewed the sprint board and agreed on the next steps."
                      for i in range(40))
    text = f"{filler} Finally: the staging VPN certificate expires every ninety days and must be renewed by ops."
    runtime = eng.embedder.model
    parts = eng.embedder.passages(text, cfg.passage_tokens, cfg.passage_stride, cfg.max_passages)
    assert parts and eng.embedder.passages("short text", cfg.passage_tokens, cfg.passage_stride, 8) == []
    assert all(len(runtime.token_ids(p)) <= cfg.passage_tokens + 2 for p in parts)
    assert parts[-1].endswith("renewed by ops.")
    long_id = eng.store(text)
    try:
        hit = eng.search("when does the staging vpn certificate expire", mode="vector", limit=1)[0]
        assert hit.id == long_id
    finally:
        eng.delete(long_id)


def test_the_benchmark_reads_the_real_server_rss_after_real_searches(real):
    """benchmarks.server_rss starts `python -m server` on the data and searches it over stdio."""
    from benchmarks.server_rss import server_rss

    eng, _ = real
    out = server_rss(eng.data_dir, ["What problems does Orion have?", "nightly database backups"], searches=3,
                     stores=2)
    assert out["results_per_search"] >= 1  # the searches reached this data
    assert out["peak_rss_mb"] >= out["rss_mb"] > out["rss_at_start_mb"] > 0  # the model was loaded in between
    assert out["first_search_ms"] > 0 and out["round_trip_ms_p50"] > 0 and out["store_round_trip_ms_p50"] > 0
    stored = [m for m in eng.list(limit=100)[0] if "(stored over MCP" in m.content]
    assert sorted(m.content for m in stored) == ["What problems does Orion have? (stored over MCP, 0)",
                                                 "nightly database backups (stored over MCP, 1)"]
    assert {m.project for m in stored} == {""}  # beside the data the searches read


TEXTS = [
    "",
    "a",
    "How often do we back up the prod data?",
    "def parse(path: str) -> dict:\n    return json.loads(Path(path).read_text())  # ünïcödé, 日本語, emoji 🚀",
    "Meeting notes. " * 200,  # longer than the 256 word pieces the model reads
] + [c for c, _ in CORPUS]


def test_the_onnx_runtime_gives_sentence_transformers_vectors_tokens_and_passages():
    """ONNX Runtime (the default) and PyTorch run the packaged model to the same vectors and word pieces."""
    pytest.importorskip("sentence_transformers", reason="the models extra is not installed")
    from memory_graph.embedding import SentenceTransformerEmbedder

    onnx = SentenceTransformerEmbedder("", 4, 0, 0, backend="onnx")
    torch = SentenceTransformerEmbedder("", 4, 0, 0, backend="sentence-transformers")
    assert (onnx.runtime, torch.runtime) == (None, None)
    a, b = onnx.encode(TEXTS), torch.encode(TEXTS)
    assert (onnx.runtime, torch.runtime) == ("onnx", "sentence-transformers")
    assert a.shape == b.shape == (len(TEXTS), 384) and a.dtype == np.float32
    assert np.abs(a - b).max() < 1e-5
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
    assert np.allclose(onnx.encode_query(TEXTS[2]), b[2], atol=1e-5)
    for text in TEXTS:
        assert onnx.model.token_ids(text) == torch.model.token_ids(text)
        assert onnx.passages(text, 128, 96, 8) == torch.passages(text, 128, 96, 8)
    assert onnx.passages(TEXTS[4], 128, 96, 8)  # the long text has passages to compare


def test_pausing_between_batches_gives_the_same_vectors():
    """A long call pauses between its batches for urgent jobs (a search's query); its vectors do not change."""
    pytest.importorskip("sentence_transformers", reason="the models extra is not installed")
    from memory_graph.embedding import SentenceTransformerEmbedder

    for backend in ("onnx", "sentence-transformers"):
        model = SentenceTransformerEmbedder("", 4, 0, 0, backend=backend).model
        pauses: list[int] = []
        paused = model.encode(TEXTS, 4, 2048, between=lambda done: pauses.append(done))
        whole = model.encode(TEXTS, 4, 2048)
        assert len(pauses) >= len(TEXTS) // 4 - 1 and np.abs(paused - whole).max() < 1e-6, backend


def test_the_default_engine_runs_without_pytorch(tmp_path):
    """A store and a search in a fresh process import neither PyTorch nor sentence-transformers."""
    import subprocess
    import sys

    script = (
        "import sys; from memory_graph import Config, Engine\n"
        f"eng = Engine({str(tmp_path)!r}, Config())\n"
        "eng.store('The production database is backed up every night')\n"
        "assert eng.search('when are backups made', limit=1)\n"
        "print(eng.stats()['model']['runtime'], 'torch' in sys.modules, 'sentence_transformers' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["onnx", "False", "False"]


def test_the_onnx_session_holds_no_copy_of_the_serialized_model(tmp_path, monkeypatch):
    """The session is loaded from a temporary file (removed after), so ONNX Runtime keeps no 86 MB of model
    bytes; with no temporary file it is loaded from memory, to the same vectors. Neither falls back (and
    prints) on errors."""
    import tempfile

    from memory_graph.embedding import default_model_path
    from memory_graph.onnx_bert import OnnxBert

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setenv("MEMORY_GRAPH_CACHE_DIR", "off")  # no kept graph: built, then read from a temporary file
    from_file = OnnxBert(default_model_path())
    assert from_file._session._model_bytes is None  # ORT's own attribute: what it keeps, given bytes
    assert list(tmp_path.iterdir()) == []

    def no_space(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(tempfile, "TemporaryDirectory", no_space)
    from_memory = OnnxBert(default_model_path())
    assert from_memory._session._model_bytes is not None
    assert np.allclose(from_file.encode(TEXTS[:4]), from_memory.encode(TEXTS[:4]), atol=1e-6)
    # ORT's own flag: with it on, a failing session or run prints to stdout, the stdio server's protocol
    assert from_file._session._enable_fallback is False and from_memory._session._enable_fallback is False


def test_the_built_graph_is_kept_and_read_by_the_next_load(tmp_path, monkeypatch):
    """A second load reads the graph the first one built (no building), to the same vectors; a damaged kept
    graph is built again and replaced."""
    from memory_graph import onnx_bert
    from memory_graph.embedding import default_model_path

    monkeypatch.setenv("MEMORY_GRAPH_CACHE_DIR", str(tmp_path))
    first = onnx_bert.OnnxBert(default_model_path())
    kept = onnx_bert.graph_cache_path(Path(default_model_path()))
    assert kept is not None and kept.is_file() and kept.parent.parent == tmp_path
    assert [p.name for p in kept.parent.iterdir()] == [kept.name]  # no partial file left

    def no_building(*args, **kwargs):
        raise AssertionError("the graph was built again")

    monkeypatch.setattr(onnx_bert, "build_graph", no_building)
    second = onnx_bert.OnnxBert(default_model_path())
    assert np.array_equal(first.encode(TEXTS[:4]), second.encode(TEXTS[:4]))
    monkeypatch.undo()
    monkeypatch.setenv("MEMORY_GRAPH_CACHE_DIR", str(tmp_path))
    kept.write_bytes(b"not an onnx model")
    third = onnx_bert.OnnxBert(default_model_path())
    assert np.allclose(first.encode(TEXTS[:4]), third.encode(TEXTS[:4]), atol=1e-6)
    assert kept.stat().st_size > 1_000_000


def test_a_question_nothing_answers_says_so_and_an_answered_one_does_not(real):
    eng, _ = real
    unanswered = eng.search("What is the Kafka retention of the audit topic?")
    assert unanswered and unanswered.note and "nothing matches well" in unanswered.note
    answered = eng.search("When is the production database backed up?")
    assert answered.note is None and answered.confidence > unanswered.confidence
    assert set(answered.signals) == {"vector", "bm25"}


def test_code_search_says_when_nothing_matches_well(real, tmp_path):
    from codebase import index_project

    eng, _ = real
    (tmp_path / "cli").mkdir()
    (tmp_path / "cli" / "args.py").write_text(
        "def only_valid_args(command, args):\n"
        "    for value in args:\n"
        "        if value not in command.valid_args:\n"
        "            raise UsageError(f'invalid argument {value!r} for {command.path!r}')\n\n\n"
        "def exact_args(n):\n"
        "    def check(command, args):\n"
        "        if len(args) != n:\n"
        "            raise UsageError(f'accepts {n} arg(s), received {len(args)}')\n"
        "    return check\n")
    index_project(eng, tmp_path / "cli", project="cli")
    answered = eng.search_code("Error: invalid argument 'purple' for 'paint'", project="cli")
    assert answered[0].title.endswith("only_valid_args") and answered.note is None
    unanswered = eng.search_code("open a websocket connection and receive messages", project="cli")
    assert unanswered and "nothing matches well" in unanswered.note
    assert unanswered.confidence < answered.confidence and set(unanswered.signals) == {"vector", "bm25"}


def test_a_process_that_ends_while_the_model_loads_in_the_background_waits_for_it_and_exits_cleanly():
    """ONNX Runtime's session build, cut short by the interpreter's end, aborted the process ("terminate called
    without an active exception", exit 134): the exit now waits for the load."""
    import subprocess
    import sys

    # atexit runs the last registered first: this check runs after memory_graph's own exit handler
    script = (
        "import atexit, sys\n"
        "def check():\n"
        "    from memory_graph import embedding\n"
        "    print('loaded' if any(k[1] == emb.path for k in embedding._MODELS) else 'still loading')\n"
        "    sys.stdout.flush()\n"
        "atexit.register(check)\n"
        "from memory_graph.embedding import SentenceTransformerEmbedder\n"
        "emb = SentenceTransformerEmbedder()\n"
        "emb.start_loading()\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "loaded" and "terminate" not in out.stderr


def test_a_process_that_ends_while_a_daemon_thread_embeds_questions_exits_cleanly():
    """A question is embedded on its caller's thread; a daemon thread (an index run, a server's request) still in
    ONNX Runtime when the interpreter ends aborted the process. The exit now lets that run end and starts none."""
    import subprocess
    import sys

    script = (
        "import threading, time\n"
        "from memory_graph.embedding import SentenceTransformerEmbedder\n"
        "emb = SentenceTransformerEmbedder(cache_size=0, query_cache_size=0)\n"
        "started = threading.Event()\n"
        "def ask():\n"
        "    for i in range(100_000):\n"
        "        emb.encode_query(f'question {i} about the deploy pipeline')\n"
        "        started.set()\n"
        "threading.Thread(target=ask, daemon=True).start()\n"
        "assert started.wait(60)\n"
        "time.sleep(0.05)\n"
    )
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
        assert out.returncode == 0 and "terminate" not in out.stderr, out.stderr[-2000:]
