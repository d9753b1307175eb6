"""What the model reads for a code chunk (``chunk_embed_text``), and what an older layout of it re-embeds."""

from __future__ import annotations

import pytest
from conftest import HashEmbedder

from codebase import index_project
from memory_graph import Engine


def idx(engine, repo, **kw):
    return index_project(engine, repo, project="demo", **kw)


def test_an_older_code_text_layout_is_reembedded_at_open(tmp_path, repo):
    from memory_graph.code import CODE_TEXT_VERSION, chunk_embed_text

    eng = Engine(tmp_path / "d", embedder=HashEmbedder())
    idx(eng, repo)
    n = eng.lance.count("code_chunks")
    rows = eng.lance.query("code_chunks", None, ["path", "breadcrumb", "signature", "content", "vector"]).to_pylist()
    eng.lance.set_meta({"code_text": "1"})
    eng.close()
    emb = HashEmbedder()
    eng = Engine(tmp_path / "d", embedder=emb)
    assert emb.texts_encoded == n
    assert eng.lance.get_meta()["code_text"] == CODE_TEXT_VERSION
    r = rows[0]
    stored = eng.lance.query("code_chunks", None, ["path", "content", "vector"]).to_pylist()
    again = {(x["path"], x["content"]): x["vector"] for x in stored}
    expected = emb.encode([chunk_embed_text(r["path"], r["breadcrumb"], r["signature"], r["content"])])[0]
    assert again[(r["path"], r["content"])] == pytest.approx(list(expected), abs=1e-6)
    eng.close()
    emb = HashEmbedder()
    Engine(tmp_path / "d", embedder=emb).close()
    assert emb.texts_encoded == 0  # the layout is recorded: the next open re-embeds nothing


def test_chunk_embed_text_keeps_scopes_and_missing_signatures_but_not_the_path():
    from memory_graph.code import chunk_embed_text

    assert chunk_embed_text("a/b.py", "def f", "def f(x)", "def f(x):\n    return x") == "def f(x):\n    return x"
    method = chunk_embed_text("a/b.py", "class C > def m", "def m(self)", "    y = 1")
    assert method == "class C\ndef m(self)\n    y = 1"
    assert chunk_embed_text("a/b.py", "", "", "X = 1") == "a/b.py\nX = 1"
    # a signature below a doc comment or decorators, or written over several lines, is read once
    go = "// Get returns the item.\nfunc (s *Store) Get(\n\tid string,\n) Item {\n\treturn s.m[id]\n}"
    assert chunk_embed_text("s.go", "type Store > func Get", "func (s *Store) Get(id string) Item", go) == \
        "type Store\n" + go
    decorated = "@cache\ndef f(x):\n    return x"
    assert chunk_embed_text("a.py", "def f", "def f(x)", decorated) == decorated
    field = '"""Merge a pull request."""\nmerge(\n  """Its id."""\n  id: ID!\n): Result'
    assert chunk_embed_text("s.graphql", "type Mutation > merge", "merge(id: ID!): Result", field) == \
        "type Mutation\n" + field


def test_from_layout_2_only_the_chunks_whose_text_changed_are_reembedded_at_open(tmp_path, repo):
    from memory_graph.code import chunk_embed_text

    eng = Engine(tmp_path / "d", embedder=HashEmbedder())
    idx(eng, repo)
    rows = eng.lance.query("code_chunks", None, ["path", "breadcrumb", "signature", "content"]).to_pylist()
    changed = [r for r in rows if chunk_embed_text(*(r[c] for c in ("path", "breadcrumb", "signature", "content")))
               != chunk_embed_text(*(r[c] for c in ("path", "breadcrumb", "signature", "content")), layout="2")]
    assert 0 < len(changed) < len(rows)  # doc-commented definitions read their signature once now
    eng.lance.set_meta({"code_text": "2"})
    eng.close()
    emb = HashEmbedder()
    eng = Engine(tmp_path / "d", embedder=emb)
    assert emb.texts_encoded == len(changed)
    r = changed[0]
    stored = {(x["path"], x["content"]): x["vector"]
              for x in eng.lance.query("code_chunks", None, ["path", "content", "vector"]).to_pylist()}
    expected = emb.encode([chunk_embed_text(r["path"], r["breadcrumb"], r["signature"], r["content"])])[0]
    assert stored[(r["path"], r["content"])] == pytest.approx(list(expected), abs=1e-6)
    assert eng.search_code("checksum", limit=3, project="demo")[0].record["path"] == "csrc/checksum.c"
    eng.close()


def test_a_file_name_in_a_question_seeds_no_symbol_of_its_extension():
    from memory_graph.text import code_mentions

    assert code_mentions("TemplateDoesNotExist raised when rendering forms.html in the admin view") == \
        "TemplateDoesNotExist"
    assert code_mentions("where does Context.invoke call the callback with ctx.obj") == "Context.invoke . ctx.obj"


@pytest.mark.parametrize("query, phrases", [
    ("ValueError: Invalid fields for <UserSchema(many=False)>: {'nickname'}.", ["invalid fields for"]),
    ("error: missing required argument 'file'", ["missing required argument"]),
    ("Uncaught Error: [MobX] `action` can only be invoked on functions", ["can only be invoked on functions"]),
    ("Uncaught (in promise) TypeError: Cannot read properties of undefined (reading 'map')",
     ["cannot read properties of undefined"]),
    ("E       KeyError: 'no such key in the registry'", ["no such key in the registry"]),
    ('raise "timeout while waiting for the lock" somewhere', ["timeout while waiting for the lock"]),
    ("Every user can only log in once", []),  # prose, no error line, nothing quoted
])
def test_an_error_line_or_a_quoted_string_is_matched_literally(query, phrases):
    from memory_graph.text import literal_phrases, without_error_types

    assert literal_phrases(query) == phrases
    assert "Error:" not in without_error_types(query)  # the type names where it is defined, not raised
