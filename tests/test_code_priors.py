"""Test files and prose rank below the code they test or describe, unless the query asks for them."""

from __future__ import annotations

import pytest

from codebase import index_project
from memory_graph import Config, Engine
from memory_graph.code_search import asks_for_docs, asks_for_tests, is_test_path
from memory_graph.errors import ConfigError


@pytest.mark.parametrize("path", [
    "tests/helpers.py", "src/pkg/tests/data.json", "test_retry.py", "pkg/conftest.py", "app/tests.py",
    "retry_test.go", "lib/retry.test.ts", "lib/retry.spec.js", "src/__tests__/retry.tsx", "app/user_spec.rb",
    "src/test/java/RetryTest.java", "Retry.Tests/RetryTests.cs", "pkg/testdata/in.txt", "test.py",
    "django/contrib/auth/tests.py", "src/tests.py", "src/pkg/test_tests.py", "lib/pkg/tests/tests.py",
])
def test_test_paths(path):
    assert is_test_path(path)


@pytest.mark.parametrize("path", [
    "src/click/testing.py", "latest.py", "contest.py", "src/attestation.py", "protest/x.py", "Test.java",
    "src/retry.py", "docs/testing.md", "lib/testimony.ts", "pkg/pod_spec.go", "src/TableSpec.ts", "ABTest.java",
    "src/jinja2/tests.py", "lib/pkg/test.py",  # a library's own modules (Jinja's template tests), not its tests
])
def test_paths_that_are_not_tests(path):
    assert not is_test_path(path)


def test_queries_that_ask_for_tests():
    assert asks_for_tests("where do we test the retry of uploads")
    assert asks_for_tests("pytest fixture for a database")
    assert asks_for_tests("what does tests/test_retry.py cover")
    assert not asks_for_tests("retry a failed upload")
    assert not asks_for_tests("attestation of a latest contest")


@pytest.fixture
def project(tmp_path):
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "tests").mkdir()
    (repo / "src" / "upload.py").write_text(
        'def retry_upload(path):\n    """Retry a failed upload."""\n    return send(path)\n')
    # the test repeats the question's words: by similarity alone it would come first
    (repo / "tests" / "test_upload.py").write_text(
        'def test_retry_upload():\n    """Retry a failed upload three times."""\n'
        '    assert retry_upload("a")\n')
    return repo


def search(tmp_path, repo, embedder, query, **cfg):
    eng = Engine(tmp_path / "data", config=Config(**cfg), embedder=embedder)
    try:
        index_project(eng, repo, project="demo")
        return [(h.record["path"], h.explanation.prior_factor) for h in eng.search_code(query, limit=2)]
    finally:
        eng.close()


def test_a_test_file_ranks_below_the_code_unless_asked_for(tmp_path, project, embedder):
    q = "retry a failed upload"
    assert search(tmp_path, project, embedder, q, code_test_factor=1.0) == [
        ("tests/test_upload.py", 1.0), ("src/upload.py", 1.0)]
    assert search(tmp_path, project, embedder, q) == [("src/upload.py", 1.0), ("tests/test_upload.py", 0.8)]
    assert search(tmp_path, project, embedder, "test: " + q) == [
        ("tests/test_upload.py", 1.0), ("src/upload.py", 1.0)]


def test_the_factors_are_checked():
    with pytest.raises(ConfigError, match="code_test_factor"):
        Config(code_test_factor=0)
    with pytest.raises(ConfigError, match="code_prose_factor"):
        Config(code_prose_factor=1.5)


def test_queries_that_ask_for_docs():
    assert asks_for_docs("where is the retry policy documented")
    assert asks_for_docs("README install steps")
    assert asks_for_docs("what does docs/uploads.rst say about retries")
    assert not asks_for_docs("retry a failed upload")
    assert not asks_for_docs("parse a document from a text file")


def test_prose_ranks_below_the_code_it_describes_unless_asked_for(tmp_path, embedder):
    repo = tmp_path / "repo"
    (repo / "docs").mkdir(parents=True)
    (repo / "upload.py").write_text(
        'def retry_upload(path):\n    """Retry a failed upload."""\n    return send(path)\n')
    # the guide repeats the question's words: by similarity alone it would come first
    (repo / "docs" / "uploads.md").write_text("# Upload retries\n\nretry_upload retries a failed upload.\n")
    q = "retry a failed upload"
    assert search(tmp_path, repo, embedder, q, code_prose_factor=1.0) == [
        ("docs/uploads.md", 1.0), ("upload.py", 1.0)]
    assert search(tmp_path, repo, embedder, q) == [("upload.py", 1.0), ("docs/uploads.md", 0.8)]
    assert search(tmp_path, repo, embedder, q + " (docs)") == [("docs/uploads.md", 1.0), ("upload.py", 1.0)]
