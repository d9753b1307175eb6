"""The integer product of int8 rows with a float query (ONNX Runtime's MatMulInteger): within its stated bound of
the exact product, and searches of int8 rows through it that return what a float32 product of them returns."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from memory_graph.store import int8
from memory_graph.store.vectors import VectorCache

ROWS = arrays(np.int16, st.tuples(st.integers(1, 40), st.just(12)), elements=st.integers(-127, 127))
QUERY = arrays(np.float64, 12, elements=st.floats(-1e-3, 1e-3, allow_subnormal=False))


@settings(max_examples=80, deadline=None)
@given(rows=ROWS, query=QUERY, cut=st.integers(0, 40))
def test_the_integer_product_lies_within_its_bound_of_the_exact_one(rows, query, cut):
    """Rows split into two blocks at any place: each row's product is the exact one (float64 over the int8 values)
    within the bound returned, and the bound is the split's own error, tiny beside a step of the rows."""
    blocks = [int8.to_offset(rows[:cut]), int8.to_offset(rows[cut:])]
    approx, bound = int8.int8_products(blocks, query)
    exact = rows.astype(np.float64) @ query
    assert approx.shape == exact.shape
    assert np.all(np.abs(approx - exact) <= bound + 1e-12)
    assert bound <= 127 * 12 * np.abs(query).max() / 127 / 512 + 1e-18  # unit / 512 a dimension at most


def test_the_offset_form_holds_every_int8_value_and_the_product_needs_no_conversion():
    values = np.arange(-127, 128).reshape(-1, 1)
    held = int8.to_offset(values)
    assert held.dtype == np.uint8 and np.array_equal(int8.from_offset(held), values.astype(np.float32))
    approx, bound = int8.int8_products([held], np.array([0.5]))
    assert np.array_equal(approx, values[:, 0] * 0.5) and bound == 0.0  # 0.5 splits exactly: 127 x unit


def test_without_onnx_runtime_the_product_is_the_float_one():
    rows = np.random.default_rng(1).integers(-127, 128, (30, 12))
    query = np.random.default_rng(2).standard_normal(12) * 1e-3
    with mock.patch.object(int8, "_product_session", lambda: None):
        approx, bound = int8.int8_products([int8.to_offset(rows)], query)
    assert np.all(np.abs(approx - rows @ query) <= bound)


@pytest.mark.parametrize("partitioned", [True, False])
def test_searches_of_int8_rows_return_what_a_float32_product_of_them_returns(partitioned):
    """Vectors around 30 centres (many near-ties at the k-th place): a partitioned copy probing every partition,
    and an exact copy large enough to scan its int8 rows first, return the ids and similarities of a float32
    product over every row (the partitioned copy's own int8 rows, the exact copy's float32 ones), and both
    went through the integer product (similarities within a float32 rounding of them)."""
    rng = np.random.default_rng(7)
    centres = rng.standard_normal((30, 24))
    vectors = (centres[rng.integers(0, 30, 3_000)] + 0.05 * rng.standard_normal((3_000, 24))).astype(np.float32)
    ids = [f"m{i:04d}" for i in range(3_000)]
    cache = (VectorCache(24, partition_min_rows=1_000, partition_rows=100, probes=10_000) if partitioned
             else VectorCache(24))
    cache.put(ids, vectors)
    assert bool(cache.partitions) == partitioned
    # as a float32 search reads them: a partitioned copy's int8 values times the query scaled by their steps
    rows = int8.from_offset(cache._matrix[:len(cache)]) if partitioned else cache._matrix[:len(cache)]
    calls = []
    real = int8.int8_products
    with mock.patch("memory_graph.store.vectors.int8_products", lambda *a: calls.append(1) or real(*a)):
        for q in centres[rng.integers(0, 30, 20)] + 0.05 * rng.standard_normal((20, 24)):
            q = (q / np.linalg.norm(q)).astype(np.float32)
            for k in (10, 50):
                got, sims = cache.nearest(q, k)
                cos = rows @ (q * cache._step if partitioned else q)
                kth = np.sort(cos)[-k]
                # a float32 product's last bit depends on the rows multiplied with it: rows within 1e-6 tie
                assert {cache._ids[r] for r in np.flatnonzero(cos > kth + 1e-6)} <= set(got)
                assert set(got) <= {cache._ids[r] for r in np.flatnonzero(cos >= kth - 1e-6)}
                assert len(got) == k and sims == sorted(sims, reverse=True)
                assert sims == pytest.approx([float(cos[cache._row[i]]) for i in got], abs=1e-6)
    assert len(calls) == 40
