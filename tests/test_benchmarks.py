"""The benchmark harness on tiny data: metrics, loaders in the public formats, and every memory-graph system."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from benchmarks import data, quality
from benchmarks.metrics import score
from benchmarks.systems import MG_VARIANTS, LanceHybrid, MemoryGraphSystem


def test_metrics_on_a_small_ranking():
    ranked, relevant = ["a", "b", "c", "d"], {"b", "d"}
    assert score("recall@1", ranked, relevant) == 0.0
    assert score("recall@2", ranked, relevant) == 0.5
    assert score("mrr@10", ranked, relevant) == 0.5
    assert score("mrr", ["x"] * 20 + ["b"], relevant) == pytest.approx(1 / 21)
    assert score("mrr@10", ["x"] * 20 + ["b"], relevant) == 0.0
    ideal = 1 + 1 / math.log2(3)
    assert score("ndcg@10", ranked, relevant) == pytest.approx((1 / math.log2(3) + 1 / math.log2(5)) / ideal)
    assert score("ndcg@10", ["b", "d"], relevant) == pytest.approx(1.0)


def _locomo(tmp_path):
    sample = {
        "sample_id": "conv-1",
        "conversation": {
            "speaker_a": "Ann", "speaker_b": "Bob",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a puppy named Rex yesterday."},
                {"speaker": "Bob", "dia_id": "D1:2", "text": "Lovely!", "blip_caption": "a small brown dog"},
            ],
            "session_2_date_time": "10:00 am on 9 June, 2023",
            "session_2": [{"speaker": "Ann", "dia_id": "D2:1", "text": "Rex learned to sit at the park."}],
        },
        "qa": [
            {"question": "What is the name of Ann's puppy?", "answer": "Rex", "evidence": ["D1:1"], "category": 4},
            {"question": "Where did Rex learn to sit?", "evidence": ["D2:1; D1:1"], "category": 2},
            {"question": "Unanswerable?", "evidence": ["D9:9"], "category": 5},
        ],
    }
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([sample]))
    return data.load_locomo(path)


def test_the_sweep_compares_a_variant_and_leaves_no_data_behind(tmp_path, monkeypatch, capsys):
    """benchmarks.sweep on a tiny LoCoMo with the real model: the defaults and a variant, paired; its engines'
    folder (hundreds of MB on the real data sets) is removed at the end."""
    import tempfile

    from benchmarks import sweep

    _locomo(tmp_path)
    (tmp_path / "data" / "locomo").mkdir(parents=True)
    (tmp_path / "locomo.json").rename(tmp_path / "data" / "locomo" / "locomo_dev.json")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    assert sweep.main(["--dataset", "locomo", "--data", str(tmp_path / "data"), "--queries", "3",
                       "--cache", str(tmp_path / "cache"), "--variant", 'ppr0={"variant": "mg: PPR off"}']) == 0
    out = capsys.readouterr().out.splitlines()
    lines = [ln for ln in out if not ln.startswith(" ")]  # indented: a variant's figures by category
    assert len(lines) < len(out)
    assert lines[0].startswith("default ") and "ndcg@10" in lines[0]
    assert lines[1].startswith("ppr0 ") and "vs default" in lines[1]
    assert not list(scratch.glob("mg-*"))  # (torch may leave its own folder there)


def test_the_harness_writes_its_reports_and_leaves_no_data_behind(tmp_path, monkeypatch, capsys):
    """`python -m benchmarks --only quality` on a tiny LoCoMo: JSON, Markdown and a chart, every system ranked,
    and its engines' folder removed at the end."""
    import tempfile

    for extra in ("bm25s", "matplotlib"):  # the other systems and the charts
        pytest.importorskip(extra, reason=f"{extra} is a bench extra: pip install -e '.[bench]'")
    from benchmarks.__main__ import main

    _locomo(tmp_path)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    out = tmp_path / "out"
    assert main(["--only", "quality", "--datasets", "locomo", "--locomo", str(tmp_path / "locomo.json"),
                 "--out", str(out)]) == 0
    assert "results written to:" in capsys.readouterr().out
    results = json.loads((out / "results.json").read_text())
    assert {"memory-graph", "mg: PPR off", "lancedb hybrid (RRF)"} <= set(results["quality"]["locomo"]["systems"])
    assert "| memory-graph |" in (out / "results.md").read_text() and (out / "quality.png").exists()
    assert not list(scratch.glob("mg-*"))  # (torch may leave its own folder there)


def test_locomo_turns_become_dated_memories_and_evidence_becomes_qrels(tmp_path):
    ds = _locomo(tmp_path)
    assert [d.id for d in ds.docs] == ["conv-1:D1:1", "conv-1:D1:2", "conv-1:D2:1"]
    assert ds.docs[0].text == "Ann: I adopted a puppy named Rex yesterday."
    assert "[shares a photo of a small brown dog]" in ds.docs[1].text
    assert ds.docs[2].created_at - ds.docs[0].created_at == pytest.approx((31 + 1) * 86400 - 3 * 3600 - 56 * 60)
    assert {d.group for d in ds.docs} == {"conv-1"}
    assert [(q.relevant, q.category) for q in ds.queries] == [
        ({"conv-1:D1:1"}, "single-hop"), ({"conv-1:D2:1", "conv-1:D1:1"}, "temporal")]  # D9:9 resolves to nothing


def test_scifact_keeps_judged_documents_and_samples_distractors(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("\n".join(json.dumps({"_id": str(i), "title": f"T{i}", "text": f"abstract {i}"})
                                for i in range(10)))
    (tmp_path / "queries.jsonl").write_text("\n".join(json.dumps({"_id": q, "text": f"claim {q}"})
                                                      for q in ("q1", "q2", "q3")))
    (tmp_path / "qrels.tsv").write_text("query-id\tcorpus-id\tscore\nq1\t3\t1\nq2\t5\t1\nq2\t6\t0\n")
    ds = data.load_scifact(corpus, tmp_path / "queries.jsonl", tmp_path / "qrels.tsv", distractors=2)
    assert [q.id for q in ds.queries] == ["q1", "q2"] and ds.queries[1].relevant == {"5"}
    ids = {d.id for d in ds.docs}
    assert {"3", "5"} <= ids and len(ids) == 4


def test_cosqa_maps_queries_to_their_gold_function(tmp_path):
    (tmp_path / "map.txt").write_text(json.dumps({"def a():\n    pass": 0, "def b():\n    return 1": 1}))
    (tmp_path / "split.json").write_text(json.dumps([{"idx": "cosqa-1", "doc": "python return one",
                                                      "retrieval_idx": 1}]))
    ds = data.load_cosqa(tmp_path / "map.txt", tmp_path / "split.json")
    assert ds.kind == "code" and [d.id for d in ds.docs] == ["0", "1"]
    assert ds.queries[0].relevant == {"1"}


def test_every_memory_graph_system_and_lancedb_hybrid_rank_a_tiny_locomo(tmp_path, capfd):
    from conftest import HashEmbedder

    ds = _locomo(tmp_path)
    emb = HashEmbedder()
    vectors = emb.encode([d.text for d in ds.docs])
    mg = MemoryGraphSystem(ds, vectors, emb, tmp_path)
    lance = LanceHybrid(ds, vectors, tmp_path)
    rankers = {name: mg.ranker(name) for name in MG_VARIANTS}
    rankers["lancedb"] = lance.ranker(emb.encode([q.text for q in ds.queries]))
    try:
        res = quality.evaluate(ds, rankers)
    finally:
        mg.close()
        lance.close()
    assert set(res) == set(rankers)
    assert "Deprecation warning" not in capfd.readouterr().err  # Lance's, once a query (file descriptor 2)
    for name, r in res.items():
        assert set(r["overall"]) == set(r["per_query"]) == set(ds.metrics)
        assert all(len(v) == len(ds.queries) for v in r["per_query"].values())
    # "Rex" and "puppy" are words of the first question and of its evidence turn only
    assert res["mg: bm25 only"]["per_query"]["ndcg@10"][0] == pytest.approx(1.0)
    assert res["memory-graph"]["overall"]["recall@5"] == pytest.approx(1.0)
    quality.compare_to_full(ds, res)
    assert res["memory-graph"]["vs_full"] == {"mean": 0.0, "low": 0.0, "high": 0.0}
    assert set(res["mg: vector only"]["vs_full"]) == {"mean", "low", "high"}


def test_paired_difference_interval_holds_the_mean_and_excludes_zero_for_a_clear_gap():
    a = [1.0, 0.8, 0.9, 1.0, 0.7] * 20
    b = [x - 0.2 for x in a]
    d = quality.paired_difference(a, b)
    assert d["mean"] == pytest.approx(0.2) and d["low"] == pytest.approx(0.2) and d["high"] == pytest.approx(0.2)
    noisy = quality.paired_difference([1.0, 0.0] * 50, [0.0, 1.0] * 50)
    assert noisy["low"] < 0 < noisy["high"]


def test_txtai_hybrid_searches_the_shared_vectors_within_the_questions_conversation(tmp_path):
    pytest.importorskip("txtai", reason="txtai is a bench extra: pip install -e '.[bench]'")
    from conftest import HashEmbedder

    from benchmarks.systems import TxtaiHybrid

    ds = _locomo(tmp_path)
    emb = HashEmbedder()
    vectors = emb.encode([d.text for d in ds.docs])
    qvecs = emb.encode([q.text for q in ds.queries])
    gold = [i for i, d in enumerate(ds.docs) if d.id in ds.queries[0].relevant][0]
    # the question's vector is its evidence turn's: txtai must be reading the vectors handed to it
    qvecs[0] = vectors[gold]
    run = TxtaiHybrid(ds, vectors, qvecs, emb).ranker()
    ranked = run(0, 10)
    assert ranked[0] == ds.docs[gold].id
    assert sorted(ranked) == sorted(d.id for d in ds.docs if d.group == ds.queries[0].group)
    res = quality.evaluate(ds, {"txtai hybrid": run})
    assert res["txtai hybrid"]["per_query"]["ndcg@10"][0] == pytest.approx(1.0)


def test_vector_recall_is_one_for_flat_search_and_a_share_with_an_ann_index(tmp_path, embedder):
    from benchmarks.speed import vector_recall
    from memory_graph import Config, Engine

    eng = Engine(tmp_path, Config(ann_min_rows=200, optimize_every_rows=1_000_000, vector_copy_max_rows=0),
                 embedder)
    eng.store_many([{"content": f"note {i} on topic {i % 13} and subject {i % 7}"} for i in range(300)])
    queries = [f"topic {i} subject {i % 5}" for i in range(20)]
    assert vector_recall(eng, embedder, queries) == 1.0
    eng.optimize()
    assert eng.stats()["vector_index"] == "ann"
    assert 0.0 < vector_recall(eng, embedder, queries) <= 1.0


def test_the_search_after_another_process_write_catches_that_write_up(tmp_path, embedder):
    from benchmarks.speed import after_foreign_writes
    from memory_graph import Config, Engine

    texts = [f"Olivia filed ticket {i} about the Vega pipeline" for i in range(30)]
    vectors = embedder.encode(texts)
    eng = Engine(tmp_path, Config(), embedder)
    eng.store_many([{"content": t} for t in texts], _vectors=vectors)
    out = after_foreign_writes(eng, tmp_path, texts, vectors, embedder, ["Vega pipeline"], rounds=4)
    memories = [n for n, d in eng.graph.nodes() if d["kind"] == "memory"]
    assert len(memories) == 34
    assert out["search_after_foreign_write_ms"]["p50"] <= out["search_after_foreign_write_ms"]["max"]
    assert out["graph_reload_ms"] > 0


def test_the_harness_runs_the_model_on_the_runtime_the_environment_names(monkeypatch):
    from benchmarks.systems import engine_embedder
    from benchmarks.report import markdown

    monkeypatch.setenv("MEMORY_GRAPH_EMBEDDING_BACKEND", "sentence-transformers")
    monkeypatch.setenv("MEMORY_GRAPH_EMBEDDING_BATCH_TOKENS", "512")
    emb = engine_embedder("", cache_size=10)
    assert (emb.backend, emb.batch_tokens) == ("sentence-transformers", 512)
    monkeypatch.delenv("MEMORY_GRAPH_EMBEDDING_BACKEND")
    assert engine_embedder("").backend == "auto"
    head = {"mode": "quick", "command": "python -m benchmarks", "model": "m", "machine": "x"}
    assert "Model: m on onnx; machine: x" in markdown({**head, "runtime": "onnx"})
    assert "Model: m; machine: x" in markdown({**head, "runtime": None})


def test_the_search_probe_times_the_query_embedding_on_the_real_model(capsys):
    from benchmarks.probes.search_probe import embedding

    embedding("", 3)  # the packaged model, on the runtime Config picks
    out = capsys.readouterr().out
    timed = [float(line.rsplit(":", 1)[1]) for line in out.splitlines() if line.startswith("  ")]
    assert len(timed) == 2 and all(t > 0 for t in timed)


def test_the_repo_probe_scores_definitions_outside_the_tests(tmp_path, engine):
    from benchmarks.probes.repo_probe import answers, evaluate, qualname
    from codebase import index_project

    assert qualname("class HTTPAdapter > def send") == "HTTPAdapter.send" and qualname("utils.py") == "utils.py"
    assert answers("class HTTPAdapter > def send", "src/adapters.py", ["send"])
    assert not answers("def test_send", "tests/test_adapters.py", ["test_send"])  # a test never answers
    assert not answers("class Session > def send", "src/sessions.py", ["HTTPAdapter.send"])
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("def parse_url(u):\n    return u.split('/')\n\n\n"
                                           "def join_path(a, b):\n    return a + '/' + b\n")
    index_project(engine, tmp_path / "src", project="p")
    res = evaluate(engine, "p", [{"query": "join_path", "names": ["join_path"]},
                                 {"query": "parse_url", "names": ["nowhere"]}])
    assert res["per_query"][0]["rank"] == 1 and res["per_query"][1]["rank"] is None
    assert (res["mrr@10"], res["recall@1"], res["first_hit_in_tests"]) == (0.5, 0.5, 0)


def test_the_name_probe_asks_each_definition_by_its_names_outside_tests(tmp_path, engine):
    from benchmarks.probes.name_probe import draw, evaluate, questions
    from codebase import index_project

    (tmp_path / "src").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "src" / "a.py").write_text("class Request:\n    def send(self):\n        return 1\n\n\n"
                                           "def request(method):\n    return Request()\n")
    (tmp_path / "tests" / "test_a.py").write_text("def test_request():\n    assert request('get')\n")
    index_project(engine, tmp_path, project="p")
    symbols, _ = engine.code_symbols_and_refs("p")
    drawn = draw(symbols, 10)
    assert sorted(s["qualname"] for s in drawn) == ["Request", "Request.send", "request"]  # no test, no module
    asked = questions(drawn)
    assert sorted(asked["name"]) == ["Request", "request", "send"] and asked["qualname"] == ["Request.send"]
    defined = {s["id"]: (s["qualname"], s["name"]) for s in symbols}
    res = evaluate(engine, "p", {"qualname": ["Request.send", "nowhere"], "name": ["request"]}, defined)
    assert [q["rank"] for q in res["qualname"]["per_query"]] == [1, None]
    assert res["qualname"]["mrr@10"] == 0.5 and res["name"]["recall@1"] == 1.0


def test_config_changes_reach_a_config_with_weights_as_lists():
    from benchmarks.systems import config_changes
    from memory_graph import Config
    from memory_graph.config import LegWeights

    changes = config_changes('{"code_weights": [1, 0.5, 0.3], "code_test_factor": 0.9}')
    config = Config(**changes)
    assert config.code_weights == LegWeights(vector=1, bm25=0.5, graph=0.3) and config.code_test_factor == 0.9
    assert config_changes("{}") == {}


def test_the_repo_probe_checks_the_vector_leg_against_exact_search(tmp_path, engine):
    from benchmarks.probes.repo_probe import vector_recall
    from codebase import index_project

    (tmp_path / "src").mkdir()
    for i in range(12):
        (tmp_path / "src" / f"m{i}.py").write_text(f"def handler_{i}(x):\n    return x * {i} + len('{i}')\n")
    index_project(engine, tmp_path / "src", project="p")
    res = vector_recall(engine, "p", [{"query": "handler 3 returns x"}, {"query": "length of a string"}])
    c = engine.config.candidates(10)
    # twelve chunks and no ANN index: flat search finds exactly what exact search does
    assert res["ann_indices"] == 0 and res["recall@10"] == 1.0 and res[f"recall@{c}"] == 12 / c


def test_the_search_probe_sees_deltas_pile_up_under_replacing_writes(capsys):
    from benchmarks.probes.search_probe import churn

    churn(rows=600, n=3, rounds=3, size=50)
    counts = [int(line.split(": ")[1].split()[0]) for line in capsys.readouterr().out.splitlines()
              if "indices" in line]
    assert counts == [1, 2, 4, 1]  # built; a delta per replacing write (after 1 and 3); rebuilt


def test_the_similar_probe_compares_each_note_with_the_ones_before_it():
    from benchmarks.probes.similar_probe import max_earlier, max_other, pair_cosines

    v = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    assert max_earlier(v).tolist() == pytest.approx([-1.0, 0.0, 2 ** -0.5])
    assert max_other(v, block=2).tolist() == pytest.approx([2 ** -0.5, 2 ** -0.5, 2 ** -0.5])
    assert pair_cosines(v[:2], v[[0, 2]]).tolist() == pytest.approx([1.0, 2 ** -0.5])


def test_the_scan_probe_lists_the_files_skipped_by_their_start_and_the_chunks_they_would_make(tmp_path, capsys):
    from benchmarks.probes import scan_probe

    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "app.py").write_text("def run():\n    return 1\n")
    (tmp_path / "p" / "grid.txt").write_text("".join(f"{i}.5 {i}.25 {i}.75\n" for i in range(2000)))
    assert scan_probe.main([str(tmp_path / "p")]) == 0
    out = capsys.readouterr().out
    assert f"{tmp_path / 'p'}: 1 files; skipped data 1" in out
    chunks = int(out.split("data: grid.txt (")[1].split(" chunks")[0])
    assert chunks > 10 and f"chunks not made {chunks}, data 1, files 1" in out


def test_a_repository_data_set_reads_its_questions_and_judges_chunks_by_name(tmp_path):
    from benchmarks.repos import QUERIES, REPOS, fill_from_chunks, load_repo

    assert load_repo("cobra", tmp_path) is None  # not fetched
    (tmp_path / REPOS["cobra"][0]).mkdir()
    ds = load_repo("cobra", tmp_path)
    raw = json.loads((QUERIES / f"{REPOS['cobra'][0]}.json").read_text())
    assert len(ds.queries) == sum(1 for q in raw if q["names"]) and len(ds.unanswerable) == len(raw) - len(ds.queries)
    assert ds.kind == "code" and ds.source == tmp_path / "cobra-1.6.1" and ds.main_metric == "mrr@10"
    first = ds.queries[0]
    ds.answer_names = {first.id: ["Command.Find", "stripFlags"]}
    ds.queries = [first]
    rows = [{"id": "a", "path": "command.go", "name": "Find", "breadcrumb": "func (c *Command) > Command.Find",
             "content": "x"},
            {"id": "b", "path": "command_test.go", "name": "stripFlags", "breadcrumb": "stripFlags", "content": "y"},
            {"id": "c", "path": "command.go", "name": "stripFlags", "breadcrumb": "stripFlags", "content": "z"}]
    fill_from_chunks(ds, rows)
    assert first.relevant == {"a", "c"}  # the test file's chunk of the same name never answers
    assert [d.id for d in ds.docs] == ["a", "b", "c"] and ds.docs[0].title == "command.go: func (c *Command) > Command.Find"
    ds.answer_names = {first.id: ["nowhere"]}
    fill_from_chunks(ds, rows)
    assert ds.queries == [] and any("nowhere" in n for n in ds.notes)


def test_pooled_repositories_compare_every_question_together():
    from benchmarks.metrics import score
    from benchmarks.quality import pool

    def part(full, other, n_un, share):
        return {"docs": 10, "queries": len(full), "nothing_matches": {"unanswered": share, "answered": 0.0,
                                                                       "unanswered_n": n_un, "answered_n": len(full)},
                "systems": {"memory-graph": {"per_query": {"mrr@10": full}, "ms_per_query": 2.0},
                            "bm25s": {"per_query": {"mrr@10": other}, "ms_per_query": 1.0}}}

    out = pool({"a": part([1.0, 0.5], [0.5, 0.5], 2, 1.0), "b": part([1.0], [0.0], 3, 0.0)}, "mrr@10")
    assert out["queries"] == 3 and out["systems"]["memory-graph"]["overall"]["mrr@10"] == pytest.approx(2.5 / 3)
    assert out["systems"]["bm25s"]["vs_full"]["mean"] == pytest.approx((0.5 + 0 + 1) / 3, abs=1e-4)
    assert out["nothing_matches"]["unanswered"] == pytest.approx(0.4) and out["nothing_matches"]["unanswered_n"] == 5
    assert score("hit@1", ["x", "y"], {"y"}) == 0.0 and score("hit@2", ["x", "y"], {"y", "z"}) == 1.0


def test_latency_ratios_are_per_question_with_an_interval_and_reach_the_table():
    from benchmarks.latency import paired_ratio, table

    theirs = [1.0 + 0.1 * i for i in range(40)]
    assert paired_ratio([2 * t for t in theirs], theirs) == {"median": 2.0, "low": 2.0, "high": 2.0}
    # a slow moment of the machine slows both systems of that question: the ratios stay, the p50s do not
    mine = [t * (1.2 if i % 2 else 0.8) * (5 if i >= 30 else 1) for i, t in enumerate(theirs)]
    theirs_slow = [t * (5 if i >= 30 else 1) for i, t in enumerate(theirs)]
    r = paired_ratio(mine, theirs_slow)
    assert r["low"] <= r["median"] <= r["high"] and 0.8 <= r["low"] and r["high"] <= 1.2
    result = {"s": {"store": "a store", "documents": 1_000, "p50_ms": {"memory-graph": 9.0, "txtai hybrid": 8.0},
                    "ratio_to": {"txtai hybrid": 1.12}, "paired_ratio": {"txtai hybrid": r}}}
    assert f"8.0 (x{r['median']:.2f}, {r['low']:.2f}-{r['high']:.2f})" in table(result)


def test_latency_profile_shows_the_legs_together_and_a_search_after_a_store_where_measured():
    from benchmarks.latency import profile

    stages = {"embed": 5.0, "legs_wall": 1.5, "leg_vector": 1.2, "leg_bm25": 0.9, "mmr": 0.3}
    rows = profile({"notes": {"store": "notes", "p50_ms": {"memory-graph": 9.0}, "stages_ms": stages,
                              "after_store_p50_ms": 10.4,
                              "after_store_ratio": {"median": 1.1, "low": 1.0, "high": 1.2}},
                    "code": {"store": "code", "p50_ms": {"memory-graph": 8.0}, "stages_ms": stages,
                             "after_store_p50_ms": None}}).splitlines()
    head = [c.strip() for c in rows[0].strip("|").split("|")]
    notes, code = ([c.strip() for c in r.strip("|").split("|")] for r in rows[2:])
    assert notes[head.index("legs")] == "1.50" and notes[head.index("vector search")] == "1.20"
    assert notes[head.index("after a store")] == "10.4 (x1.10)" and code[head.index("after a store")] == "-"
    assert notes[head.index("PPR")] == "-"
