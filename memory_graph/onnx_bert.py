"""A sentence-transformers BERT model run by ONNX Runtime: no PyTorch in the process.

The ONNX graph is built from the model directory's ``model.safetensors`` and ``config.json`` (the BERT
encoder of Devlin et al. 2019, then the directory's pooling and L2 normalisation), so nothing is exported or
downloaded. The built graph is kept in the user's cache folder (``graph_cache_path``), so a later process skips
the building, most of the model's load; where none can be written, ONNX Runtime reads it from a temporary file,
removed once read. Its vectors equal sentence-transformers' to float32
rounding (``tests/test_real_model.py`` checks this). Any other architecture runs on sentence-transformers.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Callable

import numpy as np

from .heap import release_freed_memory

log = logging.getLogger("memory_graph")

_OPSET = 20  # the first with a standard Gelu
#: what build_graph builds; a change to it must change this, so that no process reads an older cached graph
_BUILD = 1


def _read_json(path: Path) -> dict | list | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def unsupported(path: str) -> str | None:
    """Why the ONNX runtime cannot run the model directory ``path``, or None when it can."""
    root = Path(path)
    if not root.is_dir():
        return "it is not a local directory"
    for name in ("config.json", "model.safetensors", "tokenizer.json", "modules.json"):
        if not (root / name).is_file():
            return f"it has no {name}"
    config = _read_json(root / "config.json") or {}
    if config.get("model_type") != "bert":
        return f"its model_type is {config.get('model_type')!r}, not 'bert'"
    if config.get("hidden_act", "gelu") != "gelu" or config.get("position_embedding_type", "absolute") != "absolute":
        return "it uses an activation or position embedding other than BERT's own"
    modules = [m.get("type", "").rsplit(".", 1)[-1] for m in (_read_json(root / "modules.json") or [])]
    if modules[:2] != ["Transformer", "Pooling"] or any(m != "Normalize" for m in modules[2:]):
        return f"its modules are {modules}, not Transformer, Pooling (and Normalize)"
    if _pooling(root) is None:
        return "its pooling is neither mean nor CLS"
    st_config = _read_json(root / "config_sentence_transformers.json") or {}
    if st_config.get("default_prompt_name"):
        return "it adds a default prompt"
    for module in ("onnx", "onnxruntime", "tokenizers"):  # found, not imported: onnx alone takes 0.1 s
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed"
    return None


def graph_cache_path(root: Path) -> Path | None:
    """Where the built graph of the model at ``root`` is kept: ``$MEMORY_GRAPH_CACHE_DIR`` (``off``: nowhere),
    else the platform's user cache folder, under a name that changes with everything the graph is built
    from (the weights' size and time, the configs, the pooling, ``_BUILD``)."""
    base = os.environ.get("MEMORY_GRAPH_CACHE_DIR", "").strip()
    if base.lower() == "off":
        return None
    try:
        weights = (root / "model.safetensors").stat()
    except OSError:
        return None
    key = hashlib.sha256(f"{_BUILD}:{_OPSET}:{weights.st_size}:{weights.st_mtime_ns}:{_pooling(root)}".encode())
    for name in ("config.json", "modules.json", "sentence_bert_config.json"):
        try:
            key.update((root / name).read_bytes())
        except OSError:
            key.update(b"-")
    if not base:
        from platformdirs import user_cache_dir

        base = user_cache_dir("memory-graph", appauthor=False)
    return Path(base).expanduser() / "onnx" / f"{root.name[:60]}-{key.hexdigest()[:20]}.onnx"


def _pooling(root: Path) -> str | None:
    modules = _read_json(root / "modules.json") or []
    pooling_dir = next((m.get("path", "") for m in modules if m.get("type", "").endswith("Pooling")), "")
    cfg = _read_json(root / pooling_dir / "config.json") or {}
    modes = {k for k, v in cfg.items() if k.startswith("pooling_mode") and v}
    if modes == {"pooling_mode_mean_tokens"}:
        return "mean"
    if modes == {"pooling_mode_cls_token"}:
        return "cls"
    return None


def length_batches(lengths: list[int], batch_size: int, batch_tokens: int):
    """(start, stop) slices of ``lengths`` (sorted longest first): each batch holds at most ``batch_size``
    texts and, padded to its first (longest) text, at most ``batch_tokens`` tokens, but at least one text."""
    start = 0
    while start < len(lengths):
        per_batch = max(1, min(batch_size, batch_tokens // max(1, lengths[start])))
        yield start, min(len(lengths), start + per_batch)
        start += per_batch


def build_graph(weights: dict[str, np.ndarray], config: dict, pooling: str):
    """The ONNX model: input_ids and attention_mask (int64, batch x tokens) to L2-normalised embeddings."""
    from onnx import TensorProto
    from onnx import helper as oh
    from onnx import numpy_helper

    w = {k.removeprefix("bert."): v for k, v in weights.items()}
    heads, dim = config["num_attention_heads"], config["hidden_size"]
    eps = float(config.get("layer_norm_eps", 1e-12))
    inits, nodes = [], []

    def const(name: str, value) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def node(op: str, inputs: list[str], **attrs) -> str:
        out = f"{op}_{len(nodes)}"
        nodes.append(oh.make_node(op, inputs, [out], **attrs))
        return out

    def layer_norm(x: str, prefix: str) -> str:
        return node("LayerNormalization", [x, const(prefix + "w", w[prefix + "weight"]),
                                           const(prefix + "b", w[prefix + "bias"])], axis=-1, epsilon=eps)

    def linear(x: str, prefix: str) -> str:
        return node("Add", [node("MatMul", [x, const(prefix + "wt", w[prefix + "weight"].T)]),
                            const(prefix + "b", w[prefix + "bias"])])

    i64 = lambda name, values: const(name, np.array(values, dtype=np.int64))  # noqa: E731
    # A Slice of the position table, not Gather(Range): ORT's optimiser turns the latter into a Slice with
    # scalar bounds, which it then rejects.
    n_tokens = node("Gather", [node("Shape", ["input_ids"]), i64("one", [1])], axis=0)
    x = node("Add", [node("Gather", [const("word", w["embeddings.word_embeddings.weight"]), "input_ids"]),
                     node("Slice", [const("position", w["embeddings.position_embeddings.weight"]), i64("zero", [0]),
                                    n_tokens, i64("axis0", [0])])])
    x = layer_norm(node("Add", [x, const("segment", w["embeddings.token_type_embeddings.weight"][0])]),
                   "embeddings.LayerNorm.")
    mask = node("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    # -1e9 on padding, so that softmax gives it no weight
    mask_bias = node("Mul", [node("Sub", [const("onef", np.array(1.0, np.float32)),
                                          node("Unsqueeze", [mask, i64("axes12", [1, 2])])]),
                             const("neg", np.array(-1e9, np.float32))])
    split_heads, merge_heads = i64("split", [0, 0, heads, dim // heads]), i64("merge", [0, 0, dim])
    scale = const("scale", np.array(1.0 / np.sqrt(dim // heads), np.float32))
    for i in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        q, k, v = (node("Transpose", [node("Reshape", [linear(x, f"{p}attention.self.{name}."), split_heads])],
                        perm=perm)
                   for name, perm in (("query", [0, 2, 1, 3]), ("key", [0, 2, 3, 1]), ("value", [0, 2, 1, 3])))
        scores = node("Add", [node("Mul", [node("MatMul", [q, k]), scale]), mask_bias])
        context = node("Reshape", [node("Transpose", [node("MatMul", [node("Softmax", [scores], axis=-1), v])],
                                        perm=[0, 2, 1, 3]), merge_heads])
        x = layer_norm(node("Add", [linear(context, p + "attention.output.dense."), x]),
                       p + "attention.output.LayerNorm.")
        hidden = node("Gelu", [linear(x, p + "intermediate.dense.")])
        x = layer_norm(node("Add", [linear(hidden, p + "output.dense."), x]), p + "output.LayerNorm.")
    if pooling == "cls":
        pooled = node("Squeeze", [node("Slice", [x, i64("c0", [0]), i64("c1", [1]), i64("c_axis", [1])]),
                                  i64("c_sq", [1])])
    else:  # the mean of the real tokens' states (sentence-transformers' Pooling)
        m = node("Unsqueeze", [mask, i64("axis2", [2])])
        total = node("ReduceSum", [node("Mul", [x, m]), i64("sum_axis", [1])], keepdims=0)
        count = node("Max", [node("ReduceSum", [m, i64("sum_axis2", [1])], keepdims=0),
                             const("min_count", np.array(1e-9, np.float32))])
        pooled = node("Div", [total, count])
    norm = node("Max", [node("ReduceL2", [pooled, i64("l2_axis", [1])], keepdims=1),
                        const("min_norm", np.array(1e-12, np.float32))])
    nodes.append(oh.make_node("Div", [pooled, norm], ["embedding"]))
    graph = oh.make_graph(
        nodes, "sentence_bert",
        [oh.make_tensor_value_info(n, TensorProto.INT64, ["batch", "tokens"]) for n in ("input_ids", "attention_mask")],
        [oh.make_tensor_value_info("embedding", TensorProto.FLOAT, ["batch", dim])], initializer=inits)
    return oh.make_model(graph, opset_imports=[oh.make_opsetid("", _OPSET)])


def _open(ort, model, options):
    """An ONNX Runtime session on a model file or bytes. With fallback on, a session that fails to build, or a
    run that fails, prints to stdout: the stdio server's protocol channel (and there is nothing to fall back
    to from the CPU anyway)."""
    return ort.InferenceSession(model, options, providers=["CPUExecutionProvider"], enable_fallback=0)


def _session_from_file(ort, model, options, keep: Path | None = None):
    """An ONNX Runtime session on ``model`` (a ModelProto), written to ``keep`` for later processes when it can
    be, else loaded from a temporary file.

    Given bytes, ORT's Python session keeps them for its whole life (its ``_model_bytes``: 86 MB for
    all-MiniLM-L6-v2, beside the weights it has copied); given a path it keeps nothing. Where no file can be
    written, it gets the bytes after all.
    """
    data = model.SerializeToString()
    if keep is not None:
        try:
            keep.parent.mkdir(parents=True, exist_ok=True)
            part = keep.with_name(f".{keep.name}.{os.getpid()}.part")
            part.write_bytes(data)
            os.replace(part, keep)  # whole or not at all: another process may read it at once
            del data
            return _open(ort, str(keep), options)
        except OSError as exc:
            log.info("not keeping the built ONNX model in %s (%s)", keep.parent, exc)
    try:
        tmp = tempfile.TemporaryDirectory(prefix="memory-graph-onnx-", ignore_cleanup_errors=True)
        path = Path(tmp.name) / "model.onnx"
        path.write_bytes(data)
    except OSError as exc:
        log.info("loading the ONNX model from memory: no temporary file (%s)", exc)
        return _open(ort, data, options)
    del data
    with tmp:
        return _open(ort, str(path), options)


class OnnxBert:
    """A BERT sentence-transformers directory on ONNX Runtime, with the interface the embedder needs.

    threads: ONNX Runtime's intra-op threads (0: one per physical core).
    """

    backend = "onnx"

    def __init__(self, path: str, threads: int = 0) -> None:
        import onnxruntime as ort
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        root = Path(path)
        reason = unsupported(path)
        if reason is not None:
            raise ValueError(f"{path} cannot run on ONNX Runtime: {reason}")
        config = json.loads((root / "config.json").read_text(encoding="utf-8"))
        st_config = _read_json(root / "sentence_bert_config.json") or {}
        self.max_seq_length = int(st_config.get("max_seq_length") or config.get("max_position_embeddings", 512))
        self._lower = bool(st_config.get("do_lower_case"))
        self.dimension = int(config["hidden_size"])
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        options.intra_op_num_threads = threads
        # ORT's arena keeps the peak of every batch for good, and a batch of long texts has a high one
        options.enable_cpu_mem_arena = False
        # Workers spin between the operators of a run (woken from sleep, each of a short query's hundred or so
        # operators waits for them) and stop when the run ends: left spinning, idle workers would take the core
        # from LanceDB and Tantivy
        options.add_session_config_entry("session.intra_op.allow_spinning", "1")
        options.add_session_config_entry("session.force_spinning_stop", "1")
        kept = graph_cache_path(root)
        self._session = None
        if kept is not None and kept.is_file():
            try:
                self._session = _open(ort, str(kept), options)
            except Exception as exc:  # a damaged file: built again and replaced below
                log.info("rebuilding the ONNX model: %s could not be loaded (%s)", kept, exc)
        if self._session is None:
            model = build_graph(load_file(str(root / "model.safetensors")), config, _pooling(root) or "mean")
            self._session = _session_from_file(ort, model, options, kept)
            del model  # the weights now live in the session
            release_freed_memory()
        self._truncating = Tokenizer.from_file(str(root / "tokenizer.json"))
        self._truncating.enable_truncation(self.max_seq_length)
        self._truncating.no_padding()
        self.tokenizer = Tokenizer.from_file(str(root / "tokenizer.json"))
        self.tokenizer.no_truncation()
        self.tokenizer.no_padding()

    def encode(self, texts, batch_size: int = 64, batch_tokens: int = 2048,
               between: Callable[[int], None] | None = None) -> np.ndarray:
        """L2-normalised float32 vectors of ``texts``.

        A batch holds texts of similar length (less padding), at most ``batch_size`` of them and at most
        ``batch_tokens`` padded word pieces: attention takes memory in the square of the length (see
        ``Config.embedding_batch_tokens``). ``between(done)`` runs between two batches, with the number of texts
        embedded so far (a search's query then waits for one batch, not for the whole call).
        """
        if self._lower:
            texts = [t.lower() for t in texts]
        encodings = self._truncating.encode_batch(list(texts))
        out = np.zeros((len(encodings), self.dimension), dtype=np.float32)
        order = np.argsort([-len(e.ids) for e in encodings], kind="stable")
        batches = list(length_batches([len(encodings[r].ids) for r in order], batch_size, batch_tokens))
        for n, (start, stop) in enumerate(batches):
            if n and between is not None:
                between(start)
            rows = order[start:stop]
            width = len(encodings[rows[0]].ids)
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.int64)
            for j, r in enumerate(rows):
                n = len(encodings[r].ids)
                ids[j, :n] = encodings[r].ids
                mask[j, :n] = 1
            out[rows] = self._session.run(None, {"input_ids": ids, "attention_mask": mask})[0]
        if len(batches) > 1:
            release_freed_memory()
        return out

    def token_ids(self, text: str) -> list[int]:
        """Word-piece ids of the whole text, without [CLS] and [SEP]."""
        return self.tokenizer.encode(text.lower() if self._lower else text, add_special_tokens=False).ids

    def decode(self, ids: list[int]) -> str:
        return self.tokenizer.decode(ids)

