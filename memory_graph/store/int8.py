"""Products of int8 rows with a float query on ONNX Runtime's integer kernel (``MatMulInteger``), which reads
the rows as they are: numpy has no fast integer product, and converting the rows to float32 first took
longer than the product that followed.

The rows are held as uint8, each int8 value plus ``OFFSET``: ONNX Runtime's fast kernel takes unsigned rows
with signed columns, and a zero point of ``OFFSET`` gives back the int8 products exactly. The query is split
into two int8 columns, ``unit`` x (hi + lo / 256), which the kernel multiplies in one pass over the rows.
"""

from __future__ import annotations

import logging
import threading
from typing import Sequence

import numpy as np

from ..native_exit import run_here

log = logging.getLogger("memory_graph")

OFFSET = 128
_ZERO = np.array(OFFSET, dtype=np.uint8)
_lock = threading.Lock()
_session = None  # made by the first product; False when ONNX Runtime could not make it


def to_offset(rows: np.ndarray) -> np.ndarray:
    """int8 values (any integer or float array within +-127) as the uint8 rows this module reads."""
    return (np.asarray(rows).astype(np.int16) + OFFSET).astype(np.uint8)


def from_offset(rows: np.ndarray) -> np.ndarray:
    """uint8 rows back to their int8 values, as float32 (exact)."""
    return rows.astype(np.float32) - np.float32(OFFSET)


def _product_session():
    global _session
    if _session is None:
        with _lock:
            if _session is None:
                try:
                    import onnxruntime as ort
                    from onnx import TensorProto, helper

                    rows = helper.make_tensor_value_info("rows", TensorProto.UINT8, [None, None])
                    query = helper.make_tensor_value_info("query", TensorProto.INT8, [None, 2])
                    zero = helper.make_tensor_value_info("zero", TensorProto.UINT8, [])
                    out = helper.make_tensor_value_info("out", TensorProto.INT32, [None, 2])
                    graph = helper.make_graph([helper.make_node("MatMulInteger", ["rows", "query", "zero"], ["out"])],
                                              "int8_product", [rows, query, zero], [out])
                    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
                    model.ir_version = 8
                    options = ort.SessionOptions()
                    options.intra_op_num_threads = 1  # a search's product: one core, no workers left spinning
                    options.log_severity_level = 3
                    _session = ort.InferenceSession(model.SerializeToString(), options,
                                                    providers=["CPUExecutionProvider"])
                except Exception as exc:  # a search must not fail for want of a speed-up
                    log.warning("int8 rows are converted to float32 to be searched: %s", exc)
                    _session = False
    return _session or None


def split_query(scaled: np.ndarray) -> tuple[np.ndarray, float, float]:
    """``scaled`` as two int8 columns (hi, lo) with ``unit`` x (hi + lo / 256) close to it, and how far a row's
    product can then be off: 127 (the largest int8 value) x the sum of the split's error over the dimensions."""
    s = np.asarray(scaled, dtype=np.float64)
    top = float(np.abs(s).max()) if s.size else 0.0
    if top == 0.0:
        return np.zeros((len(s), 2), dtype=np.int8), 0.0, 0.0
    unit = top / 127
    hi = np.clip(np.rint(s / unit), -127, 127)
    lo = np.clip(np.rint((s - hi * unit) * 256 / unit), -127, 127)
    error = 127 * float(np.abs(s - unit * (hi + lo / 256)).sum())
    return np.stack([hi, lo], axis=1).astype(np.int8), unit, error


def int8_products(blocks: Sequence[np.ndarray], scaled: np.ndarray) -> tuple[np.ndarray, float]:
    """Each row's int8 values (uint8 ``blocks`` in ``OFFSET`` form, one after another) times ``scaled``,
    as float64, and a bound on how far each is from the exact product."""
    blocks = [b for b in blocks if len(b)]
    if not blocks:
        return np.zeros(0), 0.0
    session = _product_session()
    if session is None:
        q = np.asarray(scaled, dtype=np.float32)
        return np.concatenate([from_offset(b) @ q for b in blocks]).astype(np.float64), 1e-5 * len(q)
    cols, unit, error = split_query(scaled)
    out = run_here(lambda: np.concatenate([session.run(None, {"rows": np.ascontiguousarray(b), "query": cols,
                                                               "zero": _ZERO})[0] for b in blocks])).astype(np.float64)
    return unit * (out[:, 0] + out[:, 1] / 256), error
