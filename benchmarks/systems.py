"""The systems compared, on the same embedding model: memory-graph (full and ablations) and the alternatives a
user would pick instead (LanceDB's built-in hybrid search; txtai's hybrid search when txtai is installed;
bm25s + exact dense search fused with RRF)."""

from __future__ import annotations

import re
import shutil
from dataclasses import replace
import tempfile
from pathlib import Path
from typing import Callable

import numpy as np

from memory_graph import Config, Engine
from memory_graph.retrieval.fusion import rrf

from .data import Dataset, Query

Ranker = Callable[[int, int], list[str]]  # (query index, k) -> doc ids


def config_changes(raw: str) -> dict:
    """Config fields from a JSON object of them, each ``*_weights`` given as [vector, bm25, graph]."""
    import json

    from memory_graph.config import LegWeights

    changes = json.loads(raw)
    return {k: LegWeights(*v) if k.endswith("_weights") else v for k, v in changes.items()}


def engine_embedder(model: str = "", **sizes):
    """The model as the engine would run it: its runtime (MEMORY_GRAPH_EMBEDDING_BACKEND) and batch limits
    come from the environment's Config, so a run can compare ONNX Runtime with sentence-transformers."""
    from memory_graph.embedding import SentenceTransformerEmbedder

    config = Config.from_env()
    return SentenceTransformerEmbedder(model, config.embedding_batch_size, backend=config.embedding_backend,
                                       batch_tokens=config.embedding_batch_tokens, **sizes)


class FixedEmbedder:
    """Wraps the real embedder: documents get their precomputed vectors (no re-embedding per system)."""

    def __init__(self, real) -> None:
        self.real = real
        self.name, self.dimension = real.name, real.dimension

    def encode(self, texts):
        return self.real.encode(texts)

    def encode_query(self, text):
        return self.real.encode_query(text)

    def __getattr__(self, name):  # passages(), and whatever else the engine may ask of a model
        return getattr(self.real, name)


# ---- memory-graph -------------------------------------------------------------
MG_VARIANTS = {
    "memory-graph": {},
    "mg: vector only": {"mode": "vector"},
    "mg: bm25 only": {"mode": "bm25"},
    "mg: graph leg off": {"graph_off": True},
    "mg: PPR off": {"use_ppr": False},
    "mg: MMR off": {"use_mmr": False},
    "mg: RRF fusion": {"config": {"fusion": "rrf"}},
}
#: not in the quality table (decay is not one of the issue's ablations): every other variant judges decay at the
#: end of the query's group (LoCoMo: the conversation's last session), as a user asking after the last turn has
#: it; this one turns it off (sweep: '{"variant": "mg: decay off"}')
DECAY_VARIANT = {"mg: decay off": {"use_decay": False}}


class MemoryGraphSystem:
    """One Engine per data set; each variant is a different search call over it."""

    def __init__(self, ds: Dataset, vectors: np.ndarray, embedder, workdir: Path, code_engine=None) -> None:
        self.ds = ds
        self.dir = Path(tempfile.mkdtemp(dir=workdir))
        if code_engine is not None:
            self.engine, self.chunk_doc = code_engine
            return
        self.engine = Engine(self.dir, config=Config(), embedder=FixedEmbedder(embedder))
        items = [{"id": f"d{i}", "content": d.text, "title": d.title or None, "project": d.group,
                  "created_at": d.created_at, "memory_type": d.kind or "episodic"} for i, d in enumerate(ds.docs)]
        for start in range(0, len(items), 2000):
            self.engine.store_many(items[start:start + 2000], _vectors=vectors[start:start + 2000])
        self.doc_of = {f"d{i}": d.id for i, d in enumerate(ds.docs)}
        self.group_end: dict[str, float] = {}
        for d in ds.docs:
            if d.created_at is not None:
                self.group_end[d.group] = max(d.created_at, self.group_end.get(d.group, d.created_at))

    def ranker(self, variant: str) -> Ranker:
        opts = dict({**MG_VARIANTS, **DECAY_VARIANT}[variant])
        use_decay = opts.pop("use_decay", True)
        graph_off = opts.pop("graph_off", False)
        mode = opts.pop("mode", "hybrid")
        changes = opts.pop("config", {})
        base = self.engine.config

        def run(qi: int, k: int) -> list[str]:
            q = self.ds.queries[qi]
            config = self.engine.config.with_(**changes)
            if graph_off:
                config = config.with_(**{name: replace(getattr(config, name), graph=0.0) for name in
                                         ("memory_weights", "code_weights", "code_identifier_weights",
                                          "code_repository_weights", "code_literal_weights")})
            self.engine.config = config
            try:
                if self.ds.kind == "code":
                    hits = self.engine.search_code(q.text, limit=k, mode=mode, project=self.ds.name
                                                   if self.ds.source else None, **opts)
                    return _dedupe(self.chunk_doc.get(h.id) for h in hits)
                # undated memories (SciFact's) were all stored now: nothing to decay
                at = (self.ds.asked_at or self.group_end.get(q.group)) if use_decay else None
                hits = self.engine.search(q.text, limit=k, mode=mode, project=q.group or None,
                                          include_global=False, use_decay=at is not None, as_of=at, **opts)
                return [self.doc_of[h.id] for h in hits]
            finally:
                self.engine.config = base

        return run

    def says_nothing_matches(self, q: Query) -> bool:
        """Whether the full pipeline's search notes that nothing matches well."""
        if self.ds.kind == "code":
            return self.engine.search_code(q.text, limit=10, project=self.ds.name if self.ds.source else None
                                           ).note is not None
        at = self.ds.asked_at or self.group_end.get(q.group)
        hits = self.engine.search(q.text, limit=10, project=q.group or None, include_global=False, as_of=at,
                                  use_decay=at is not None)
        return hits.note is not None

    def close(self) -> None:
        self.engine.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def _dedupe(ids) -> list[str]:
    return [i for i in dict.fromkeys(ids) if i is not None]


def build_code_engine(ds: Dataset, embedder, workdir: Path):
    """A code data set through the engine's code path. CoSQA: each function is a file of one project; a
    repository (``ds.source``): the folder as it is, each chunk a document."""
    from codebase import index_project

    if ds.source is not None:
        from .repos import fill_from_chunks

        eng = Engine(Path(tempfile.mkdtemp(dir=workdir)), config=Config(), embedder=embedder)
        report = index_project(eng, ds.source, project=ds.name)
        rows = eng.lance.query("code_chunks", None, ["id", "path", "name", "breadcrumb", "content"]).to_pylist()
        fill_from_chunks(ds, rows)
        return eng, {r["id"]: r["id"] for r in rows}, report
    src = Path(tempfile.mkdtemp(dir=workdir)) / "cosqa"
    src.mkdir()
    for d in ds.docs:
        (src / f"f{d.id}.py").write_text(d.text, encoding="utf-8")
    eng = Engine(Path(tempfile.mkdtemp(dir=workdir)), config=Config(), embedder=embedder)
    report = index_project(eng, src, project="cosqa")
    rows = eng.lance.query("code_chunks", None, ["id", "path"]).to_pylist()
    chunk_doc = {r["id"]: re.sub(r"^f|\.py$", "", r["path"]) for r in rows}
    return eng, chunk_doc, report


def doc_vectors_from_code_engine(eng: Engine, ds: Dataset) -> np.ndarray:
    """Each document's vector as the engine embedded it (a CoSQA function's first chunk), for the other
    systems."""
    if ds.source is not None:
        from memory_graph.store.lance import vector_matrix

        rows = eng.lance.query("code_chunks", None, ["id", "vector"])
        at = {i: n for n, i in enumerate(rows.column("id").to_pylist())}
        return vector_matrix(rows)[[at[d.id] for d in ds.docs]]
    rows = eng.lance.query("code_chunks", None, ["path", "start_line", "vector"]).to_pylist()
    first: dict[str, tuple[int, list]] = {}
    for r in rows:
        doc = re.sub(r"^f|\.py$", "", r["path"])
        if doc not in first or r["start_line"] < first[doc][0]:
            first[doc] = (r["start_line"], r["vector"])
    dim = len(next(iter(first.values()))[1])
    return np.stack([np.asarray(first[d.id][1], np.float32) if d.id in first else np.zeros(dim, np.float32)
                     for d in ds.docs])


#: the group of an unscoped query where documents have groups (devnotes' projects)
ALL = "\0all"


def scope(group: str, groups) -> str:
    """The group a query searches: its own, or every document when it names none and documents have groups."""
    return ALL if not group and ALL in groups else group


# ---- LanceDB built-in hybrid --------------------------------------------------
class LanceHybrid:
    """LanceDB's own hybrid search: vector + its native full-text index, fused by its RRFReranker."""

    def __init__(self, ds: Dataset, vectors: np.ndarray, workdir: Path) -> None:
        import lancedb
        import pyarrow as pa

        self.ds = ds
        self.dir = Path(tempfile.mkdtemp(dir=workdir))
        db = lancedb.connect(str(self.dir))
        data = pa.table({"id": [d.id for d in ds.docs], "group": [d.group for d in ds.docs],
                         "text": [d.full_text for d in ds.docs],
                         "vector": pa.array(list(vectors), type=pa.list_(pa.float32(), vectors.shape[1]))})
        self.table = db.create_table("docs", data)
        self.table.create_fts_index("text")

    def ranker(self, qvecs: np.ndarray) -> Ranker:
        from lancedb.rerankers import RRFReranker

        reranker = RRFReranker()

        def run(qi: int, k: int) -> list[str]:
            q = self.ds.queries[qi]
            text = re.sub(r"[^\w\s]", " ", q.text).strip() or "empty"
            s = self.table.search(query_type="hybrid").vector(qvecs[qi]).text(text)
            if q.group:
                s = s.where(f"\"group\" = '{q.group}'", prefilter=True)
            # no select(): selecting columns without the legs' _distance and _score prints a deprecation
            # WARN from Lance for each query (5,308 lines in one full run)
            return s.rerank(reranker).limit(k).to_arrow().column("id").to_pylist()

        return run

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


# ---- bm25s + exact dense --------------------------------------------------------
class BM25sDense:
    """bm25s (English stemming off, stopwords removed) and exact cosine search, alone and fused with RRF."""

    def __init__(self, ds: Dataset, vectors: np.ndarray) -> None:
        import bm25s

        self.ds = ds
        self.vectors = vectors
        self.groups: dict[str, list[int]] = {}
        for i, d in enumerate(ds.docs):
            self.groups.setdefault(d.group, []).append(i)
        if any(d.group for d in ds.docs) and any(not q.group for q in ds.queries):  # devnotes: unscoped
            self.groups[ALL] = list(range(len(ds.docs)))
        self.bm25 = {}
        for g, idx in self.groups.items():
            retriever = bm25s.BM25()
            texts = [f"{ds.docs[i].title} {ds.docs[i].text}" for i in idx]
            retriever.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
            self.bm25[g] = retriever

    def _bm25(self, qi: int, k: int) -> list[str]:
        import bm25s

        q = self.ds.queries[qi]
        group = scope(q.group, self.groups)
        idx = self.groups.get(group, [])
        toks = bm25s.tokenize([q.text], stopwords="en", show_progress=False)
        if not idx or not toks.vocab:
            return []
        res, scores = self.bm25[group].retrieve(toks, k=min(k, len(idx)), show_progress=False)
        return [self.ds.docs[idx[int(j)]].id for j, s in zip(res[0], scores[0]) if s > 0]

    def _dense(self, qvecs: np.ndarray, qi: int, k: int) -> list[str]:
        idx = self.groups.get(scope(self.ds.queries[qi].group, self.groups), [])
        sims = self.vectors[idx] @ qvecs[qi]
        top = np.argsort(-sims)[:k]
        return [self.ds.docs[idx[int(j)]].id for j in top]

    def rankers(self, qvecs: np.ndarray) -> dict[str, Ranker]:
        def fused(qi: int, k: int) -> list[str]:
            legs = {"bm25": self._bm25(qi, max(k, 100)), "dense": self._dense(qvecs, qi, max(k, 100))}
            scores = rrf(legs, {"bm25": 1.0, "dense": 1.0}, 60)
            return sorted(scores, key=lambda d: (-scores[d], d))[:k]

        return {"bm25s + dense (RRF)": fused, "bm25s": self._bm25,
                "dense (exact)": lambda qi, k: self._dense(qvecs, qi, k)}


# ---- txtai hybrid -----------------------------------------------------------------
class TxtaiHybrid:
    """txtai's hybrid search (dense + its BM25 scoring, fused by a convex combination of normalised scores),
    with its defaults except two: vectors come from the shared embeddings (txtai's "external" method) and
    the dense index is exact (numpy backend), as every other system here searches exactly."""

    def __init__(self, ds: Dataset, vectors: np.ndarray, qvecs: np.ndarray, embedder) -> None:
        from txtai import Embeddings

        self.ds = ds
        known = {d.full_text: v for d, v in zip(ds.docs, vectors)}
        for q, v in zip(ds.queries, qvecs):
            known.setdefault(q.text, v)

        def transform(texts):
            # a text not seen here (none in a benchmark) is embedded as a query would be
            return np.stack([known[t] if t in known else embedder.encode_query(t) for t in texts]).astype(np.float32)

        self.index: dict[str, Embeddings] = {}
        groups: dict[str, list[int]] = {}
        for i, d in enumerate(ds.docs):
            groups.setdefault(d.group, []).append(i)
        if any(d.group for d in ds.docs) and any(not q.group for q in ds.queries):
            groups[ALL] = list(range(len(ds.docs)))
        for g, idx in groups.items():
            emb = Embeddings({"method": "external", "transform": transform, "hybrid": True, "content": False,
                              "backend": "numpy"})
            emb.index([(ds.docs[i].id, ds.docs[i].full_text, None) for i in idx])
            self.index[g] = emb

    def ranker(self) -> Ranker:
        def run(qi: int, k: int) -> list[str]:
            q = self.ds.queries[qi]
            emb = self.index.get(scope(q.group, self.index))
            return [str(uid) for uid, _score in emb.search(q.text, k)] if emb is not None else []

        return run


def txtai_available() -> bool:
    try:
        import txtai  # noqa: F401
    except ImportError:
        return False
    return True
