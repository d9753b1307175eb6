"""The sentence-transformers embedder's threading, with a stand-in model (no weights loaded)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from memory_graph.embedding import SentenceTransformerEmbedder


class RecordingModel:
    """Answers encode() with fixed vectors and records the thread that called it."""

    def __init__(self) -> None:
        self.threads: set[str] = set()
        self.idents: set[int] = set()

    dimension = 4
    max_seq_length = 256

    def encode(self, texts, batch_size=64, batch_tokens=0, between=None):
        self.threads.add(threading.current_thread().name)
        self.idents.add(threading.get_ident())
        return np.tile(np.array([1.0, 0.0, 0.0, 0.0], dtype=np.float32), (len(texts), 1))


def test_the_model_runs_on_one_thread_whichever_thread_asks():
    emb = SentenceTransformerEmbedder("stand-in", cache_size=0, query_cache_size=0)
    model = RecordingModel()
    emb._model = model
    callers = ThreadPoolExecutor(max_workers=4, thread_name_prefix="caller")
    texts = [f"text {i}" for i in range(16)]
    vectors = list(callers.map(lambda t: emb.encode_query(t), texts)) + [emb.encode(texts)[0]]
    callers.shutdown()
    assert all(v.shape == (4,) and v[0] == 1.0 for v in vectors)
    assert len(model.threads) == 1 and len(model.idents) == 1
    assert not any(name.startswith("caller") or name == "MainThread" for name in model.threads)


def test_an_onnx_model_embeds_a_question_on_the_callers_thread_and_a_long_job_on_the_model_thread():
    """ONNX Runtime's threads are the session's, whoever calls it: a question skips the hand-offs to the model's
    thread and back; an index run's many texts still go there (and let questions run between its batches)."""
    from memory_graph.embedding import URGENT_TEXTS

    emb = SentenceTransformerEmbedder("stand-in", cache_size=0, query_cache_size=0)
    model = RecordingModel()
    model.backend = "onnx"
    emb._model = model
    callers = ThreadPoolExecutor(max_workers=2, thread_name_prefix="caller")
    list(callers.map(emb.encode_query, ["first question", "second question"]))
    callers.shutdown()
    assert model.threads and all(t.startswith("caller") for t in model.threads)
    model.threads.clear()
    emb.encode([f"chunk {i}" for i in range(URGENT_TEXTS + 1)])
    assert model.threads == {"mg-model_0"}


def test_an_urgent_job_runs_between_the_batches_of_a_long_one():
    """A search's query waits for the batch the model is on, not for an index run's whole call."""
    from memory_graph.embedding import _model_thread, on_model_thread, run_urgent

    order: list[str] = []
    in_first_batch, go_on = threading.Event(), threading.Event()

    def long_job() -> str:
        for b in range(3):
            order.append(f"batch {b}")
            if b == 0:
                in_first_batch.set()
                assert go_on.wait(10)
            run_urgent()
        return "long"

    results: dict[str, object] = {}
    first = threading.Thread(target=lambda: results.update(long=on_model_thread(long_job)))
    first.start()
    assert in_first_batch.wait(10)
    later = threading.Thread(target=lambda: results.update(plain=on_model_thread(lambda: order.append("plain"))))
    urgent = threading.Thread(target=lambda: results.update(
        urgent=on_model_thread(lambda: order.append("urgent") or 42, urgent=True)))
    later.start()
    urgent.start()
    while _model_thread()[1].qsize() == 0:  # the urgent job is queued
        threading.Event().wait(0.005)
    go_on.set()
    for t in (first, later, urgent):
        t.join(10)
    assert order == ["batch 0", "urgent", "batch 1", "batch 2", "plain"]
    assert results == {"long": "long", "plain": None, "urgent": 42}


def test_a_forked_process_gets_a_model_thread_of_its_own(monkeypatch):
    import os

    emb = SentenceTransformerEmbedder("stand-in", cache_size=0, query_cache_size=0)
    model = RecordingModel()
    emb._model = model
    emb.encode(["before"])
    pid = os.getpid()
    monkeypatch.setattr(os, "getpid", lambda: pid + 1)  # as a child of fork sees it: the parent's thread is gone
    emb.encode(["after"])
    assert len(model.idents) == 2 and all(name.startswith("mg-model") for name in model.threads)


class CountingModel(RecordingModel):
    """A distinct vector per text; records the texts of each call."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[list[str]] = []

    def encode(self, texts, batch_size=64, batch_tokens=0, between=None):
        self.calls.append(list(texts))
        return np.stack([np.roll(np.array([1.0, 0.5, 0.25, 0.0], dtype=np.float32), len(t) % 4) for t in texts])


def test_a_store_embeds_its_memory_and_its_new_entities_in_one_model_call(tmp_path):
    from memory_graph import Config, Engine

    emb = SentenceTransformerEmbedder("stand-in", cache_size=100, query_cache_size=0)
    model = emb._model = CountingModel()
    eng = Engine(tmp_path, Config(), emb)
    model.calls.clear()
    eng.store("Alice Walker moved `billing_service` to Kubernetes", tags=["infra"])
    assert len(model.calls) == 1
    entities = eng.lance.query("entities", None, ["name", "vector"]).to_pylist()
    assert {"Alice Walker", "billing_service", "infra"} <= {e["name"] for e in entities}
    assert set(model.calls[0][1:]) == {e["name"] for e in entities}
    for e in entities:  # each entity got the vector of its own name
        assert np.allclose(e["vector"], model.encode([e["name"]])[0])


def _model_dir(tmp_path, model_type="bert", pooling="pooling_mode_mean_tokens"):
    import json

    tmp_path.mkdir(parents=True)
    for name in ("model.safetensors", "tokenizer.json"):
        (tmp_path / name).write_text("{}")
    (tmp_path / "config.json").write_text(json.dumps({"model_type": model_type}))
    (tmp_path / "modules.json").write_text(json.dumps([
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]))
    (tmp_path / "1_Pooling").mkdir()
    (tmp_path / "1_Pooling" / "config.json").write_text(json.dumps({pooling: True}))
    return str(tmp_path)


def test_auto_picks_onnx_only_for_what_it_can_run(tmp_path):
    import pytest

    from memory_graph.embedding import choose_backend
    from memory_graph.errors import ConfigError

    assert choose_backend(_model_dir(tmp_path / "bert"), "auto") == "onnx"
    assert choose_backend(_model_dir(tmp_path / "bert2"), "sentence-transformers") == "sentence-transformers"
    assert choose_backend(_model_dir(tmp_path / "cls", pooling="pooling_mode_cls_token")) == "onnx"
    for other in (_model_dir(tmp_path / "roberta", model_type="roberta"),
                  _model_dir(tmp_path / "max", pooling="pooling_mode_max_tokens"),
                  str(tmp_path / "missing"), "sentence-transformers/all-MiniLM-L6-v2"):
        assert choose_backend(other, "auto") == "sentence-transformers"
        with pytest.raises(ConfigError, match="onnx embedding backend cannot run") as err:
            choose_backend(other, "onnx")
        assert "sentence-transformers" in err.value.hint
    with pytest.raises(ConfigError, match="unknown embedding backend"):
        choose_backend(_model_dir(tmp_path / "bert3"), "tensorflow")


@given(st.lists(st.integers(1, 300), max_size=60), st.integers(1, 70), st.integers(1, 5000))
def test_length_batches_cover_every_text_within_both_limits(lengths, batch_size, batch_tokens):
    from memory_graph.onnx_bert import length_batches

    lengths = sorted(lengths, reverse=True)
    slices = list(length_batches(lengths, batch_size, batch_tokens))
    assert [i for a, b in slices for i in range(a, b)] == list(range(len(lengths)))
    for a, b in slices:
        assert 1 <= b - a <= batch_size
        assert b - a == 1 or (b - a) * lengths[a] <= batch_tokens
        if b < len(lengths):  # a batch stops only at a limit
            assert b - a == batch_size or (b - a + 1) * lengths[a] > batch_tokens


def test_a_forked_child_waits_at_exit_for_none_of_its_parents_model_calls():
    """A call under way in another thread of the parent is not the child's: its exit would wait for it (up to two
    minutes) if it counted it."""
    import os

    from memory_graph import native_exit

    entered, release = threading.Event(), threading.Event()
    caller = threading.Thread(target=lambda: native_exit.run_here(lambda: entered.set() or release.wait(10)))
    caller.start()
    assert entered.wait(10) and native_exit._running == 1
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report what it would wait for at exit, and leave without running exit handlers
        os.write(write, str(native_exit._running).encode())
        os._exit(0)
    os.close(write)
    seen = os.read(read, 16).decode()
    os.waitpid(pid, 0)
    release.set()
    caller.join(10)
    assert seen == "0" and native_exit._running == 0
