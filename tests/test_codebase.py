"""Indexing the fixture repository into real LanceDB, Tantivy and networkx stores (fake embedder)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from codebase import Indexer, index_project
from codebase.scanner import scan
from memory_graph import Config, Engine
from memory_graph.errors import NotFoundError, StoreError, ValidationError
from memory_graph.validation import check_filters
from conftest import HashEmbedder, write_files


def idx(engine, repo, **kw):
    return index_project(engine, repo, project="demo", **kw)


def edge_set(engine):
    rows = engine.lance.query("symbol_edges").to_pylist()
    names = {r["id"]: r["qualname"] for r in engine.lance.query("symbols", None, ["id", "qualname"]).to_pylist()}
    # an unresolved target shows as "?name"
    return {(names.get(r["source"]), r["kind"], names[r["target"]] if r["target"] else "?" + r["target_name"])
            for r in rows}


def test_index_counts_chunks_symbols_and_edges(engine, repo):
    r = idx(engine, repo)
    assert r.files_scanned == 18 and r.files_indexed == 18
    assert r.chunks == engine.lance.count("code_chunks") > 50
    assert r.symbols == engine.lance.count("symbols") and r.edges == engine.lance.count("symbol_edges")
    assert r.chunks_embedded == r.chunks
    assert engine.stats()["healthy"]


def test_call_and_inheritance_edges_of_a_known_function_and_class(engine, repo):
    idx(engine, repo)
    edges = edge_set(engine)
    assert ("load_settings", "calls", "parse_config") in edges
    assert ("parse_config", "calls", "JsonLoader") in edges
    assert ("JsonLoader.load", "calls", "BaseLoader.read") in edges  # self.read: inherited from the base
    assert ("JsonLoader", "extends", "BaseLoader") in edges
    assert ("main", "calls", "load_settings") in edges  # across files, through the import
    assert ("UserHandler", "implements", "Handler") in edges
    assert ("UserHandler.handle", "calls", "formatName") in edges  # through `import ... from "./format"`
    assert ("BaseLoader", "contains", "BaseLoader.read") in edges
    callers = engine.symbol_graph("parse_config", "callers")
    assert [r["qualname"] for r in callers["results"]] == ["load_settings"]
    callees = engine.symbol_graph("parse_config", "callees")
    assert {"JsonLoader", "JsonLoader.load"} <= {r["qualname"] for r in callees["results"]}
    assert "lower" in callees["unresolved"]  # a library call is kept as an unresolved name
    subs = engine.symbol_graph("BaseLoader", "subclasses")
    assert [r["qualname"] for r in subs["results"]] == ["JsonLoader"]


def test_unresolved_names_are_kept_not_dropped(engine, repo):
    idx(engine, repo)
    unresolved = {(r["target_name"], r["kind"]) for r in
                  engine.lance.query("symbol_edges", "target = ''").to_pylist()}
    assert ("Shape", "extends") in unresolved and ("EventEmitter", "extends") in unresolved
    assert ("json", "imports") in unresolved


def test_second_run_reembeds_only_the_edited_chunks_of_the_edited_file(engine, embedder, repo):
    idx(engine, repo)
    rows = engine.lance.query("code_chunks", None, ["id", "path", "content", "vector"]).to_pylist()
    before = {r["path"]: r["id"] for r in rows}
    go_vectors = {r["content"]: r["vector"] for r in rows if r["path"] == "gosrc/mathutil.go"}
    first = embedder.texts_encoded
    r = idx(engine, repo)
    assert embedder.texts_encoded == first and r.files_indexed == 0 and r.files_unchanged == 18
    gopath = repo / "gosrc" / "mathutil.go"
    gopath.write_text(gopath.read_text().replace("total := 0", "total := 0 // running sum"))
    r = idx(engine, repo)
    go = engine.lance.query("code_chunks", "path = 'gosrc/mathutil.go'", ["content", "vector"]).to_pylist()
    edited = [c for c in go if "running sum" in c["content"]]
    assert r.files_indexed == 1 and len(go) > len(edited) >= 1
    # the file is cut again, but only the chunk whose text changed goes through the model
    assert embedder.texts_encoded - first == len(edited) == r.chunks_embedded
    assert all(c["vector"] == go_vectors[c["content"]] for c in go if c not in edited)
    after = {r["path"]: r["id"] for r in engine.lance.query("code_chunks", None, ["id", "path"]).to_pylist()}
    assert {p: i for p, i in after.items() if p != "gosrc/mathutil.go"} == \
        {p: i for p, i in before.items() if p != "gosrc/mathutil.go"}
    r = idx(engine, repo, force=True)
    assert r.chunks_embedded == r.chunks  # --force re-embeds everything


def test_touching_a_file_without_changing_it_embeds_nothing(engine, embedder, repo):
    idx(engine, repo)
    n = embedder.texts_encoded
    os.utime(repo / "app" / "main.py", (time.time() + 5, time.time() + 5))
    r = idx(engine, repo)
    assert r.files_indexed == 0 and embedder.texts_encoded == n
    assert engine.code_files("demo")["app/main.py"]["mtime"] == pytest.approx(time.time() + 5, abs=5)


def test_deleting_and_renaming_files_removes_their_chunks_symbols_and_edges(engine, repo):
    idx(engine, repo)
    (repo / "app" / "config.py").unlink()
    (repo / "web" / "format.ts").rename(repo / "web" / "fmt.ts")
    r = idx(engine, repo)
    assert r.files_removed == 2 and r.files_indexed == 1
    assert engine.lance.count("code_chunks", "path = 'app/config.py'") == 0
    assert engine.lance.count("symbols", "path = 'app/config.py'") == 0
    assert engine.lance.count("symbol_edges", "path = 'app/config.py'") == 0
    assert engine.lance.count("code_chunks", "path = 'web/fmt.ts'") > 0
    assert not engine.find_symbols("parse_config")
    assert all(h.record["path"] != "app/config.py" for h in engine.search_code("parse_config settings", limit=20))
    edges = edge_set(engine)
    assert ("main", "calls", "load_settings") not in edges and ("main", "calls", "?load_settings") in edges
    # the import names a file that is gone: the call is unresolved, not guessed from the renamed file
    assert ("UserHandler.handle", "calls", "?formatName") in edges and ("", "imports", "?./format") in edges
    assert engine.stats()["healthy"]


def test_an_interrupted_run_resumes_where_it_stopped(tmp_path, repo):
    class Failing(HashEmbedder):
        calls = 0

        def encode(self, texts):
            Failing.calls += 1
            if Failing.calls == 3:
                raise RuntimeError("killed")
            return super().encode(texts)

    cfg = Config(index_batch_files=4)
    eng = Engine(tmp_path / "d", config=cfg, embedder=Failing())
    with pytest.raises(RuntimeError):
        index_project(eng, repo, project="demo")
    done = set(eng.code_files("demo"))
    assert 0 < len(done) < 18
    eng.close()
    emb = HashEmbedder()
    eng = Engine(tmp_path / "d", config=cfg, embedder=emb)
    r = index_project(eng, repo, project="demo")
    assert r.files_indexed == 18 - len(done) and r.files_unchanged == len(done)
    full = Engine(tmp_path / "d2", config=cfg, embedder=HashEmbedder())
    ref = index_project(full, repo, project="demo")
    assert (r.chunks, r.symbols, r.edges) == (ref.chunks, ref.symbols, ref.edges)
    assert edge_set(eng) == edge_set(full)


def test_a_run_waits_for_another_process_indexing_the_project_then_finds_it_done(engine, repo, tmp_path):
    import hashlib
    import threading

    from filelock import FileLock

    # the other process: a second engine on the data directory, holding the project's index lock for its run
    other = Engine(engine.data_dir, embedder=HashEmbedder())
    held = FileLock(str(engine.data_dir / f".index-{hashlib.sha1(b'demo').hexdigest()[:16]}.lock"))
    held.acquire()
    phases, result = [], {}
    waiting = Indexer(engine, repo, project="demo", progress=lambda phase, *a: phases.append(phase))
    t = threading.Thread(target=lambda: result.update(report=waiting.run()))
    t.start()
    deadline = time.time() + 10
    while "wait" not in phases and time.time() < deadline:
        time.sleep(0.02)
    assert phases == ["wait"] and engine.lance.count("code_chunks") == 0
    done = Indexer(other, repo, project="demo")._run(force=False)
    held.release()
    t.join(timeout=60)
    assert done.files_indexed == 18 and result["report"].files_indexed == 0
    assert result["report"].files_unchanged == 18 and result["report"].chunks == done.chunks
    # a run cancelled while it waits gives up without writing
    held.acquire()
    bored = Indexer(engine, repo, project="demo")
    t = threading.Thread(target=lambda: result.update(cancelled=bored.run(force=True)))
    t.start()
    time.sleep(0.2)
    bored.cancelled.set()
    t.join(timeout=10)
    held.release()
    assert result["cancelled"].errors and result["cancelled"].files_indexed == 0
    other.close()


def test_an_index_cut_by_an_older_chunker_is_cut_again_once(engine, repo):
    from codebase.chunker import CHUNKER_VERSION

    assert idx(engine, repo).files_indexed == 18
    hashes = engine.lance.query("files", None, ["content_hash"]).column("content_hash").to_pylist()
    assert all(h.startswith(f"c{CHUNKER_VERSION}:") for h in hashes)
    # as an index written before the chunker recorded its version: bare file hashes, same sizes and mtimes
    rows = engine.lance.query("files").to_pylist()
    engine.lance.upsert("files", [{**r, "content_hash": r["content_hash"].split(":", 1)[1]} for r in rows])
    again = idx(engine, repo)
    assert again.files_indexed == 18 and again.chunks_embedded == 0  # same chunk texts: their vectors are kept
    assert idx(engine, repo).files_indexed == 0


def test_a_failed_write_leaves_the_code_index_as_it_was(engine, repo, monkeypatch):
    idx(engine, repo)
    before = {t: engine.lance.count(t) for t in ("code_chunks", "symbols", "files")}
    main_chunks = engine.code_files("demo")["app/main.py"]["chunks"]
    p = repo / "app" / "main.py"
    p.write_text(p.read_text() + "\n\ndef extra():\n    return 1\n")
    monkeypatch.setattr(engine.text, "write", lambda *a, **k: (_ for _ in ()).throw(OSError("disk full")))
    with pytest.raises(StoreError):
        idx(engine, repo)
    monkeypatch.undo()
    assert {t: engine.lance.count(t) for t in before} == before
    assert engine.code_files("demo")["app/main.py"]["chunks"] == main_chunks
    r = idx(engine, repo)
    assert r.files_indexed == 1 and engine.find_symbols("extra")


def test_changing_the_model_reembeds_code_too(tmp_path, repo):
    eng = Engine(tmp_path / "d", embedder=HashEmbedder())
    idx(eng, repo)
    n = eng.lance.count("code_chunks")
    eng.close()

    class Other(HashEmbedder):
        name = "other-model"

    other = Other(dimension=32)
    eng = Engine(tmp_path / "d", embedder=other)
    assert other.texts_encoded == n
    assert len(eng.lance.query("code_chunks", None, ["vector"], limit=1).column("vector")[0]) == 32
    assert eng.search_code("checksum", limit=3, project="demo")[0].record["path"] == "csrc/checksum.c"


def test_search_code_by_identifier_and_by_a_callers_name(engine, repo):
    idx(engine, repo)
    top = engine.search_code("normalize_sku", limit=3)[0]
    assert top.title == "function normalize_sku" and top.record["path"] == "php/Cart.php"
    assert (top.record["start_line"], top.record["end_line"]) == (18, 21)
    # parse_config's text never names load_settings: the graph leg reaches it through the call edge
    hits = engine.search_code("load_settings", limit=5)
    found = {h.title: h for h in hits}
    assert "def parse_config" in found
    assert found["def parse_config"].explanation.ranks["graph"] is not None
    assert "load_settings" in found["def parse_config"].explanation.graph_path


def test_a_module_level_alias_is_found_called_and_searched_as_its_definition(engine, tmp_path):
    src = tmp_path / "site"
    src.mkdir()
    (src / "trans.py").write_text("def lazy(func, *types):\n    return func\n\n\ndef gettext(message):\n"
                                  "    return message\n\n\ngettext_lazy = lazy(gettext, str)\n")
    (src / "views.py").write_text("from trans import gettext_lazy\n\n\ndef page_title():\n"
                                  "    return gettext_lazy('Welcome')\n")
    index_project(engine, src, project="site")
    [sym] = engine.find_symbols("gettext_lazy", project="site")
    assert (sym["kind"], sym["path"], sym["start_line"], sym["signature"]) == \
        ("variable", "trans.py", 9, "gettext_lazy = lazy(gettext, str)")
    assert [r["qualname"] for r in engine.symbol_graph("gettext_lazy", "callers")["results"]] == ["page_title"]
    # the graph leg reaches the module code that defines it before the code that calls it
    top = engine.search_code("gettext_lazy", mode="graph", project="site")[0]
    assert (top.record["path"], top.record["chunk_type"], top.explanation.graph_path[0]) == \
        ("trans.py", "module", "gettext_lazy")


def test_a_c_macro_is_found_called_and_searched_as_its_definition(engine, tmp_path):
    src = tmp_path / "clib"
    src.mkdir()
    (src / "lobject.h").write_text("#ifndef lobject_h\n#define lobject_h\n\n#include <stddef.h>\n\n"
                                   "#define setobj(L,o1,o2) \\\n  { (o1)->value_ = (o2)->value_; }\n\n"
                                   "typedef struct { int n; } Table;\n\n#endif\n")
    (src / "lapi.c").write_text('#include "lobject.h"\n\nvoid lua_copy (Table *a, Table *b) {\n'
                                "  setobj(0, a, b);\n}\n")
    index_project(engine, src, project="clib")
    [sym] = engine.find_symbols("setobj", project="clib")
    assert (sym["kind"], sym["path"], sym["start_line"], sym["end_line"]) == ("macro", "lobject.h", 6, 7)
    assert [r["qualname"] for r in engine.symbol_graph("setobj", "callers")["results"]] == ["lua_copy"]
    top = engine.search_code("setobj", mode="graph", project="clib")[0]
    assert (top.record["path"], top.record["chunk_type"], top.explanation.graph_path[0]) == \
        ("lobject.h", "module", "setobj")


def test_search_code_filters(engine, repo):
    idx(engine, repo)
    assert {h.record["language"] for h in engine.search_code("area of a shape", languages=["rust"])} == {"rust"}
    assert all(h.record["path"].startswith("web/") for h in engine.search_code("handle request",
                                                                                path_prefix="web/"))
    assert {h.record["chunk_type"] for h in engine.search_code("area", chunk_types="method")} == {"method"}
    with pytest.raises(NotFoundError, match="unknown project: nope"):
        engine.search_code("area", project="nope")
    with pytest.raises(ValidationError):
        engine.search_code("")
    with pytest.raises(ValidationError):
        engine.search_code("x", languages=[""])


def test_bm25_text_of_code_splits_and_keeps_identifiers(engine, repo):
    idx(engine, repo)
    unfiltered = check_filters(engine.config, None, None, None, None, None, None, True)
    ids, _ = engine.text.search("sku normalize", unfiltered, 0, 5, "code")
    titles = [engine.get_chunks([i])[0]["breadcrumb"] for i in ids]
    assert "function normalize_sku" in titles
    ids, _ = engine.text.search("normalizesku", unfiltered, 0, 5, "code")
    assert ids  # the whole identifier, lowercased without separators


def test_find_symbols_orders_exact_before_partial(engine, repo):
    idx(engine, repo)
    names = [r["qualname"] for r in engine.find_symbols("load")]
    assert names[0] == "JsonLoader.load"
    assert set(names) >= {"load_settings", "JsonLoader", "BaseLoader"}
    # a Rust trait's required method (`fn area(&self) -> f64;`) is a symbol too
    assert [r["qualname"] for r in engine.find_symbols("area", kind="method")] == \
        ["Area.area", "Circle.area", "Square.area"]


def test_delete_project_drops_code_but_not_memories(engine, repo):
    mid = engine.store("remember the deploy script", project="demo")
    idx(engine, repo)
    counts = engine.delete_project("demo")
    assert counts["code_chunks"] > 0
    assert all(engine.lance.count(t) == 0 for t in ("code_chunks", "symbols", "symbol_edges", "files"))
    assert engine.get([mid])[0].project == "demo"
    assert engine.stats()["healthy"]


# ---- bad input --------------------------------------------------------------
def test_hostile_files_are_skipped_counted_and_never_stop_the_run(engine, repo, monkeypatch):
    (repo / "node_modules" / "lib").mkdir(parents=True)
    (repo / "node_modules" / "lib" / "index.js").write_text("function vendored() {}")
    (repo / ".env").write_text("API_KEY=secret")
    (repo / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----")
    (repo / "server.pem").write_text("cert")
    (repo / "blob.py").write_bytes(b"\x00\x01\x02binary\x00" * 100)
    (repo / "latin1.py").write_bytes("def caf\xe9():\n    return 'd\xe9j\xe0 vu'\n".encode("latin-1"))
    with open(repo / "huge.py", "wb") as fh:  # 50 MB, sparse
        fh.truncate(50 * 1024 * 1024)
    (repo / "debug.log").write_text("ignored by .gitignore")
    (repo / "generated").mkdir()
    (repo / "generated" / "out.py").write_text("x = 1")
    (repo / ".memorygraphignore").write_text("docs/\n")
    (repo / "broken.py").write_text("def (((:\n  ]]] !!!\n")
    (repo / "loop").symlink_to(repo)
    (repo / "locked.py").write_text("def locked(): pass\n")
    real_read = Path.read_bytes

    def deny(self):
        if self.name == "locked.py":
            raise PermissionError(13, "Permission denied")
        return real_read(self)

    monkeypatch.setattr(Path, "read_bytes", deny)
    r = idx(engine, repo)
    assert r.skipped["secret"] == 3 and r.skipped["too_large"] == 1 and r.skipped["binary"] == 1
    assert r.too_large == ["huge.py"]  # named, so a user can raise the limit for it
    assert r.skipped["vendored_or_build"] == 1 and r.skipped["unreadable"] == 1
    assert r.skipped["ignored"] == 3  # debug.log, generated/, docs/ (.memorygraphignore)
    assert r.skipped["symlink_loop"] == 1
    assert r.decode_errors == 1 and r.decoded_as == {"latin1.py": "cp1252"} and r.parse_errors >= 1
    assert any("locked.py" in e for e in r.errors)
    paths = set(engine.code_files("demo"))
    assert {"latin1.py", "broken.py"} <= paths
    assert not paths & {".env", "id_rsa", "server.pem", "blob.py", "huge.py", "debug.log", "docs/GUIDE.md",
                        "node_modules/lib/index.js", "generated/out.py", "locked.py"}
    assert engine.search_code("café déjà vu", limit=3)[0].record["path"] == "latin1.py"  # read as Windows-1252
    assert [s["qualname"] for s in engine.find_symbols("café", project="demo")] == ["café"]


def test_minified_bundles_lock_files_and_files_of_numbers_are_skipped_by_what_they_are(tmp_path):
    """Judged by name (lock files) or by their start: a minified bundle, a data file of numbers. Code full of
    numbers, a short one-line module and prose stay."""
    root = tmp_path / "web"
    rows = "".join(f"{i * 0.25:.4f} {i * 1.5:.4f} {-i:.1f}\n" for i in range(400))
    files = {
        "static/vendor.js": "!function(e){" + "var a=e.b,c=function(d){return d*2};" * 200 + "}(window);",
        "static/site.css": "body{margin:0}" + ".c{padding:1px 2px;color:#fff}" * 200,
        "index.js": "export * from './a'; export * from './b'; export * from './c'; " * 3,
        "app.js": "\n".join(f"function step{i}(x) {{ return x + {i}; }}" for i in range(300)),
        "data/raster.txt": rows, "data/points.json": "[" + ",".join(f"[{i}.5, {-i}.25]" for i in range(900)) + "]",
        "tables.py": "WIDTHS = [\n" + "".join(f"    ({i}, {i + 3}, 2),\n" for i in range(600)) + "]\n",
        "NOTES.txt": "The raster above is read by load_raster, one row of floats per line.\n" * 100,
        "pnpm-lock.yaml": "lockfileVersion: '9.0'\n" + "  /left-pad@1.3.0:\n    resolution: {integrity: x}\n" * 50,
        "go.sum": "github.com/pkg/errors v0.9.1 h1:abc=\n", "dist.min.mjs": "export const a=1;",
    }
    write_files(root, files)
    r = scan(root)
    assert {f.path for f in r.files} == {"index.js", "app.js", "tables.py", "NOTES.txt"}
    assert (r.skipped["minified"], r.skipped["data"], r.skipped["generated"]) == (2, 2, 3)
    assert r.examples["static/vendor.js"] == "minified" and r.examples["data/raster.txt"] == "data"


@pytest.mark.parametrize("data, text, encoding", [
    ("café = 'déjà vu'\n".encode("utf-8-sig"), "café = 'déjà vu'\n", "utf-8"),
    ("def café(): return '“déjà”'\n".encode("cp1252"), "def café(): return '“déjà”'\n", "cp1252"),
    (b"x = '\x81\xe9'\n", "x = '\x81é'\n", "latin-1"),  # 0x81 is not Windows-1252
    ("# -*- coding: KOI8_R -*-\ns = 'привет'\n".encode("koi8-r"), "# -*- coding: KOI8_R -*-\ns = 'привет'\n",
     "koi8-r"),
    ("naïve = 'résumé ü'".encode() + b"\xff\n", "naïve = 'résumé ü'\ufffd\n", "utf-8, damaged"),
])
def test_decode_reads_legacy_encodings(data, text, encoding):
    from codebase.indexer import decode
    assert decode(data) == (text, encoding)


def test_empty_repository_missing_path_and_file_path(engine, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    r = index_project(engine, empty, project="empty")
    assert (r.files_scanned, r.chunks, r.symbols) == (0, 0, 0)
    with pytest.raises(ValidationError, match="does not exist"):
        index_project(engine, tmp_path / "nope")
    f = tmp_path / "file.py"
    f.write_text("x = 1")
    with pytest.raises(ValidationError, match="is a file"):
        index_project(engine, f)


def test_symlinks_leaving_the_root_are_not_followed(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret_code.py").write_text("def leaked(): pass\n")
    root = tmp_path / "root"
    root.mkdir()
    (root / "a.py").write_text("def a(): pass\n")
    (root / "link").symlink_to(outside)
    (root / "file_link.py").symlink_to(outside / "secret_code.py")
    res = scan(root)
    assert [f.path for f in res.files] == ["a.py"]
    assert res.skipped["outside_root"] == 2


def test_project_is_detected_from_the_folder_and_kept_apart_from_a_namesake(engine, tmp_path, repo):
    other = tmp_path / "elsewhere" / "repo"
    other.mkdir(parents=True)
    (other / "x.py").write_text("def x(): pass\n")
    a = Indexer(engine, repo)
    a.run()
    b = Indexer(engine, other)
    assert a.project == "repo" and b.project.startswith("repo-")


def _wait(pred, timeout=30.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.05)
    return False


def test_the_watcher_reindexes_after_a_change_and_a_delete(engine, repo):
    from codebase.watcher import Watcher

    reports = []
    w = Watcher(engine, repo, project="demo", debounce=0.2, on_report=reports.append).start()
    try:
        assert _wait(lambda: w.runs >= 1)
        assert reports[0].files_indexed == 18
        st = w.status()
        assert st["runs"] == 1 and st["files_indexed"] == 18 and st["error"] is None and st["last_run"] > 0
        (repo / "app" / "extra.py").write_text("def brand_new_helper():\n    return 42\n")
        assert _wait(lambda: engine.find_symbols("brand_new_helper"))
        (repo / "app" / "extra.py").unlink()
        assert _wait(lambda: any(r.files_removed == 1 for r in reports))
        assert not engine.find_symbols("brand_new_helper")
        assert not w.relevant(str(repo / "node_modules" / "x.js"))
    finally:
        w.stop()


def test_a_failed_watcher_run_is_reported_and_the_next_change_retries(engine, repo):
    from codebase.watcher import Watcher

    w = Watcher(engine, repo, project="demo", debounce=0.2)
    real = w.indexer.run

    def broken(*a, **k):
        raise OSError("disk full")

    w.indexer.run = broken
    w.start()
    try:
        assert _wait(lambda: w.status()["error"] is not None)
        assert w.status()["error"] == "re-indexing failed: disk full" and w.runs == 0
        w.indexer.run = real
        (repo / "app" / "extra.py").write_text("def brand_new_helper():\n    return 42\n")
        assert _wait(lambda: w.runs == 1)
        assert w.status()["error"] is None and engine.find_symbols("brand_new_helper")
    finally:
        w.stop()


def test_a_single_leg_mode_ranks_by_that_leg_even_where_hybrid_gives_it_no_weight(engine, repo):
    idx(engine, repo)
    prose = "where do we load the application settings from"
    assert engine.config.code_weights.bm25 == 0  # prose code queries are left to the vector leg in hybrid
    hits = engine.search_code(prose, mode="bm25", limit=3)
    assert hits and all(h.explanation.ranks["bm25"] for h in hits)
    assert [h.explanation.ranks["bm25"] for h in hits] == sorted(h.explanation.ranks["bm25"] for h in hits)


def ledger_project(src: Path) -> Path:
    """A long function (cut into windows at index time) beside two short ones."""
    src.mkdir()
    steps = "".join(f"    total += invoice.line_{i} * rate  # reconcile ledger line {i}\n" for i in range(60))
    (src / "ledger.py").write_text(f"def reconcile_ledger(invoice, rate):\n    total = 0\n{steps}    return total\n\n\n"
                                   "def close_ledger(book):\n    return book.close()\n")
    (src / "other.py").write_text("def reconcile_accounts(a, b):\n    return a == b\n")
    return src


def test_the_windows_of_one_long_definition_are_one_result(tmp_path, embedder):
    src = ledger_project(tmp_path / "src")
    eng = Engine(tmp_path / "data", config=Config(), embedder=embedder)
    try:
        index_project(eng, src, project="books")
        query = "reconcile ledger invoice line rate"
        eng.config = eng.config.with_(collapse_groups=False)
        apart = eng.search_code(query, limit=10, mode="bm25")
        eng.config = eng.config.with_(collapse_groups=True)
        one = eng.search_code(query, limit=10, mode="bm25")
    finally:
        eng.close()
    assert sum(h.title == "def reconcile_ledger" for h in apart) > 1  # the definition was cut into windows
    assert [h.title for h in one].count("def reconcile_ledger") == 1
    assert one[0].id == apart[0].id  # its best window stands for it
    best = next(h.record for h in one if h.title == "def reconcile_ledger")
    assert (best["definition_start_line"], best["definition_end_line"]) == (1, 63)
    assert 1 <= best["start_line"] <= best["end_line"] <= 63 and best["end_line"] - best["start_line"] < 62
    assert all("definition_start_line" not in h.record for h in one if h.title != "def reconcile_ledger")
    assert {h.title for h in one} == {h.title for h in apart}  # every other answer is still there


def test_a_pool_of_windows_is_read_deeper_until_it_holds_enough_answers(tmp_path, embedder):
    # a pool of 4 fused candidates: the long function's windows alone would fill it
    config = Config(candidates_min=4, rerank_factor=1)
    eng = Engine(tmp_path / "data", config=config, embedder=embedder)
    try:
        index_project(eng, ledger_project(tmp_path / "src"), project="books")
        hits = eng.search_code("reconcile ledger", limit=3, mode="bm25")
        eng.config = config.with_(collapse_groups=False)
        windows = eng.search_code("reconcile ledger", limit=config.rerank_pool(3), mode="bm25")
    finally:
        eng.close()
    assert [h.title for h in windows].count("def reconcile_ledger") > 2  # the first pool: mostly one function
    assert sorted(h.title for h in hits) == ["def close_ledger", "def reconcile_accounts", "def reconcile_ledger"]


def test_a_hub_symbol_in_the_query_does_not_personalise_ppr(tmp_path, embedder):
    # helper_io is called by five functions (7 neighbours: a hub at graph_hub_degree=4); parse_kestrel by two (4)
    src = tmp_path / "src"
    src.mkdir()
    bodies = ["def helper_io(x):\n    return x\n", "def parse_kestrel(x):\n    return x * 2\n"]
    for i in range(5):
        extra = "    parse_kestrel(x)\n" if i < 2 else ""
        bodies.append(f"def job_{i}(x):\n    helper_io(x)\n{extra}    return {i}\n")
    bodies.append("def unrelated(x):\n    return x - 1\n")
    for i, body in enumerate(bodies):
        (src / f"m{i}.py").write_text(body)
    eng = Engine(tmp_path / "data", config=Config(graph_hub_degree=4), embedder=embedder)
    try:
        index_project(eng, src, project="hubs")
        assert eng.code_graph.degree(eng.symbol_index.find("helper_io")) > 4
        hub = eng.search_code("helper_io job", limit=10)
        assert len(hub) >= 5
        assert {h.explanation.ppr_factor for h in hub} == {1.0}
        specific = eng.search_code("parse_kestrel job", limit=10)
        assert min(h.explanation.ppr_factor for h in specific) < 1.0
        # without PageRank (use_ppr=False, or Config.code_ppr): no damping and no subgraph built
        timings: dict[str, float] = {}
        plain = eng.search_code("parse_kestrel job", limit=10, use_ppr=False, timings=timings)
        assert {h.explanation.ppr_factor for h in plain} == {1.0} and "ppr_edges" not in timings
        assert {h.id for h in plain} == {h.id for h in specific}
    finally:
        eng.close()
