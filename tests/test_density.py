"""Localized centering of the code vector leg: neighbour lists (pure and stored) and the re-ranking."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from codebase import index_project
from memory_graph import Config, Engine
from memory_graph.retrieval.density import (current_lists, density, localized_centering, nearest_neighbours,
                                            update_neighbours)
from memory_graph.store import vector_matrix
from conftest import HashEmbedder


def unit_rows(seed: int, n: int, dim: int = 8) -> np.ndarray:
    m = np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def brute_sims(matrix: np.ndarray, k: int) -> np.ndarray:
    """Each row's k largest cosines to the other rows, best first, by sorting everything."""
    s = matrix @ matrix.T
    np.fill_diagonal(s, -np.inf)
    return -np.sort(-s, axis=1)[:, :min(k, len(matrix) - 1)]


@given(st.integers(0, 10_000), st.integers(1, 40), st.integers(1, 7), st.integers(1, 50))
def test_nearest_neighbours_equal_a_full_sort(seed, n, k, block_cells):
    m = unit_rows(seed, n)
    pos, sims = nearest_neighbours(m, range(n), k, block_cells=block_cells)
    np.testing.assert_allclose(sims, brute_sims(m, k), rtol=1e-5, atol=1e-6)
    assert all(r not in row for r, row in enumerate(pos))  # never its own neighbour
    np.testing.assert_allclose(np.take_along_axis(m @ m.T, pos, axis=1), sims, rtol=1e-5, atol=1e-6)


@given(st.integers(0, 10_000), st.integers(2, 30), st.integers(1, 6), st.data())
def test_an_incremental_update_equals_a_computation_from_scratch(seed, n, k, data):
    """Lists computed over an earlier set of ids, then ids removed and added: the kept lists plus the written
    ones are exactly the lists of the new set."""
    m = unit_rows(seed, n)
    ids = [f"c{i}" for i in range(n)]
    before = sorted(data.draw(st.sets(st.integers(0, n - 1), min_size=1)))
    removed = set(data.draw(st.sets(st.sampled_from(before))))
    after = [r for r in range(n) if r not in removed and (r in before or data.draw(st.booleans()))]
    if len(after) < 1:
        return
    block_cells = data.draw(st.integers(1, 50))  # a few similarities at a time, as in a large project
    previous = update_neighbours([ids[r] for r in before], m[before], {}, k, block_cells)
    previous = {i: v for i, v in previous.items() if ids.index(i) not in removed}
    written = update_neighbours([ids[r] for r in after], m[after], previous, k, block_cells)
    merged = {**{i: v for i, v in previous.items() if i in current_lists([ids[r] for r in after], previous, k)},
              **written}
    assert set(merged) == {ids[r] for r in after}
    expected = brute_sims(m[after], k)
    for row, r in enumerate(after):
        nbrs, sims = merged[ids[r]]
        np.testing.assert_allclose(sims, expected[row], rtol=1e-5, atol=1e-6)
        assert ids[r] not in nbrs and all(ids.index(j) in after for j in nbrs)


def test_lists_of_unchanged_ids_are_not_written_again():
    m = unit_rows(1, 12)
    ids = [f"c{i}" for i in range(12)]
    first = update_neighbours(ids, m, {}, 3)
    assert update_neighbours(ids, m, first, 3) == {}
    assert current_lists(ids, first, 3) == set(ids)
    assert current_lists(ids, first, 4) == set()  # another k redoes every list


COSINE = st.floats(-1, 1).map(lambda x: round(x, 6))  # distinct cosines differ by more than rounding error


@given(st.lists(st.tuples(COSINE, st.floats(0, 1)), min_size=1, max_size=30))
def test_centering_with_weight_zero_or_equal_densities_keeps_the_cosine_order(rows):
    ids = [f"d{i}" for i in range(len(rows))]
    order = sorted(range(len(rows)), key=lambda i: (-rows[i][0], ids[i]))
    ranked = [ids[i] for i in order]
    scores = [rows[i][0] for i in order]
    dens = {i: d for i, (_, d) in zip(ids, rows)}
    assert localized_centering(ranked, scores, dens, 0.0) == (ranked, scores)
    same = localized_centering(ranked, scores, {i: 0.7 for i in ids}, 0.5)
    assert same[0] == ranked and np.allclose(same[1], scores)


@given(st.lists(st.tuples(st.floats(-1, 1), st.floats(0, 1)), min_size=2, max_size=30), st.floats(0.01, 2))
def test_centering_ranks_by_cosine_minus_weighted_density_on_the_cosine_scale(rows, weight):
    ids = [f"d{i}" for i in range(len(rows))]
    dens = {i: d for i, (_, d) in zip(ids, rows)}
    out_ids, out_scores = localized_centering(ids, [s for s, _ in rows], dens, weight)
    mean = np.mean([d for _, d in rows])
    want = {i: s - weight * (d - mean) for i, (s, d) in zip(ids, rows)}
    assert sorted(out_ids) == sorted(ids) and np.allclose(out_scores, [want[i] for i in out_ids])
    assert all(a >= b for a, b in zip(out_scores, out_scores[1:]))
    # the adjustments average to zero: the fusion, which divides by the top score, sees cosines
    assert np.isclose(sum(out_scores), sum(s for s, _ in rows))


def test_a_hub_falls_below_a_specific_match_and_an_unknown_density_counts_as_the_mean():
    ids, cos = ["hub", "specific", "new"], [0.62, 0.60, 0.55]
    dens = {"hub": 0.9, "specific": 0.5}
    out, scores = localized_centering(ids, cos, dens, 0.25)
    assert out == ["specific", "hub", "new"]
    assert scores[out.index("new")] == pytest.approx(0.55)
    assert density([]) == 0.0 and density([0.5, 0.7]) == pytest.approx(0.6)


# ---- stored lists, through the indexer and the engine ----------------------------------------------------

def stored(engine, project="demo"):
    rows = engine.lance.query("chunk_neighbours", f"project = '{project}'").to_pylist()
    return {r["id"]: r for r in rows}


def assert_exact(engine, k, project="demo"):
    chunks = engine.lance.query("code_chunks", f"project = '{project}'", ["id", "vector"])
    m = vector_matrix(chunks)
    m = m / np.linalg.norm(m, axis=1, keepdims=True)
    lists = stored(engine, project)
    ids = chunks.column("id").to_pylist()
    assert set(lists) == set(ids)
    for row, sims in zip(ids, brute_sims(m, k)):
        np.testing.assert_allclose(lists[row]["sims"], sims, rtol=1e-5, atol=1e-6)
        assert engine.chunk_density[row] == pytest.approx(float(np.mean(sims)), abs=1e-6)


def test_index_runs_keep_every_chunks_neighbours_exact(engine, repo):
    k = engine.config.code_density_k
    index_project(engine, repo, project="demo")
    assert_exact(engine, k)
    version = engine.lance.table("chunk_neighbours").version
    index_project(engine, repo, project="demo")
    assert engine.lance.table("chunk_neighbours").version == version  # nothing changed, nothing written
    assert engine.code_refresh_density("demo") == 0

    (repo / "app" / "config.py").unlink()
    main = repo / "app" / "main.py"
    main.write_text(main.read_text() + "\n\ndef extra_helper(value):\n    return value * 2\n")
    index_project(engine, repo, project="demo")
    assert_exact(engine, k)
    assert engine.lance.count("chunk_neighbours", "path = 'app/config.py'") == 0
    engine.delete_project("demo")
    assert engine.lance.count("chunk_neighbours") == 0


def test_a_re_cut_keeps_the_lists_of_chunks_whose_id_and_vector_stay(engine, repo, monkeypatch):
    # a chunker upgrade cuts every file again; most chunks come out the same, and their lists stay exact
    index_project(engine, repo, project="demo")
    before = stored(engine)
    written = []
    refresh = engine.code_refresh_density
    monkeypatch.setattr(engine, "code_refresh_density", lambda p: written.append(refresh(p)) or written[-1])
    index_project(engine, repo, project="demo", force=True)
    assert written == [0] and stored(engine) == before
    main = engine.lance.query("code_chunks", "path = 'app/main.py'", ["id"]).column("id").to_pylist()
    engine.lance.table("code_chunks").update(where=f"id = '{main[0]}'", values={"vector": [0.5] * 64})
    index_project(engine, repo, project="demo", force=True)  # its stored vector differed: its list is redone
    assert written[-1] >= 1 and main[0] in stored(engine)
    assert_exact(engine, engine.config.code_density_k)


def test_the_code_vector_leg_ranks_by_centred_cosine(tmp_path, repo):
    embedder = HashEmbedder()
    # no priors: the fixture's README would score 0.8 of its centred cosine
    eng = Engine(tmp_path / "d", config=Config(code_density_weight=0.5, code_prose_factor=1.0), embedder=embedder)
    index_project(eng, repo, project="demo")
    chunks = eng.lance.query("code_chunks", None, ["id", "vector", "path", "chunk_type", "breadcrumb", "symbol_id"])
    m = vector_matrix(chunks)
    m = m / np.linalg.norm(m, axis=1, keepdims=True)
    ids = chunks.column("id").to_pylist()
    # search_code answers once per definition (and once for a file's module code): its best chunk stands for it
    group = {r["id"]: (r["path"], r["chunk_type"], r["breadcrumb"], r["symbol_id"])
             for r in chunks.drop_columns(["vector"]).to_pylist()}

    def first_of_each(ranked):
        seen = set()
        return [i for i in ranked if not (group[i] in seen or seen.add(group[i]))]

    changed = 0
    for query in ("parse the settings file", "format a user name", "checksum of bytes", "handle a request"):
        cos = m @ embedder.encode_query(query)
        plain = first_of_each([ids[i] for i in np.argsort(-cos, kind="stable")])
        dens = {i: eng.chunk_density[i] for i in ids}
        mean = np.mean(list(dens.values()))
        centred = first_of_each(sorted(ids, key=lambda i: -(cos[ids.index(i)] - 0.5 * (dens[i] - mean))))
        got = [h.id for h in eng.search_code(query, mode="vector", limit=5, project="demo", use_mmr=False)]
        assert got == centred[:5]
        changed += got != plain[:5]
    assert changed  # at least one query where the centring reorders the plain cosine ranking
    eng.close()


def test_densities_reach_another_process_and_rebuild_recomputes_them(tmp_path, repo):
    first = Engine(tmp_path / "d", embedder=HashEmbedder())
    second = Engine(tmp_path / "d", embedder=HashEmbedder())
    index_project(first, repo, project="demo")
    second.search_code("settings", project="demo")
    assert second.chunk_density == pytest.approx(first.chunk_density) and second.chunk_density
    # a write of the lists alone (another k) reaches the other process too
    other_k = Engine(tmp_path / "d", config=Config(code_density_k=2), embedder=HashEmbedder())
    assert other_k.code_refresh_density("demo") == other_k.lance.count("code_chunks")
    second.search_code("settings", project="demo")
    assert second.chunk_density == pytest.approx(other_k.chunk_density) != first.chunk_density
    other_k.close()
    first.lance.delete("chunk_neighbours", "true")  # as a store written before the lists existed
    first._load_code_graph()
    assert not first.chunk_density
    report = first.rebuild()
    assert report["chunk_neighbours"] == first.lance.count("code_chunks")
    assert_exact(first, first.config.code_density_k)
    first.close()
    second.close()


def test_a_store_without_lists_gets_them_at_the_next_run_without_re_embedding(tmp_path, repo):
    embedder = HashEmbedder()
    eng = Engine(tmp_path / "d", embedder=embedder)
    index_project(eng, repo, project="demo")
    eng.lance.delete("chunk_neighbours", "true")
    eng.close()
    eng = Engine(tmp_path / "d", embedder=embedder)
    n = embedder.texts_encoded
    report = index_project(eng, repo, project="demo")
    assert report.files_indexed == 0 and embedder.texts_encoded == n
    assert_exact(eng, eng.config.code_density_k)
    eng.close()
