"""The sentence-transformers embedder's threading, with a stand-in model (no weights loaded)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from memory_graph.embedding import SentenceTransformerEmbedder


class RecordingModel:
    """Answers encode() with fixed vectors and records the thread that called it."""

    def __init__(self) -> None:
        self.threads: set[str] = set()
        self.idents: set[int] = set()

    def get_sentence_embedding_dimension(self) -> int:
        return 4

    def encode(self, texts, **_):
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
