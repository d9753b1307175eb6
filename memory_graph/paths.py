"""What a project-relative path says about its file: a test, or its folder's own module."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import PurePosixPath

_TEST_DIRS = frozenset({"test", "tests", "__tests__", "__mocks__", "spec", "specs", "testdata"})
# test_x.py, conftest.py, tests.py, x_test.go, x.test.ts, x.spec.js, XTest.java, XTests.cs, and Ruby's x_spec.rb
# (pod_spec.go and TableSpec.ts are not tests)
_TEST_STEM = re.compile(r"^(?:test_.*|tests?|conftest)$|(?:_test|_tests|\.test|\.spec)$|[a-z0-9]Tests?$")
#: folders of a library's own modules: a tests.py there is a module of the library (Jinja's template tests,
#: src/jinja2/tests.py), where a Django app's tests.py (blog/tests.py) holds the app's tests
_LIBRARY_DIRS = frozenset({"src", "lib"})


@lru_cache(maxsize=8_192)  # asked of every candidate of every code search
def is_test_path(path: str) -> bool:
    """Whether a project-relative path is a test file by the usual conventions (folders and file names)."""
    *folders, name = path.split("/")
    stem = name.rsplit(".", 1)[0]
    if stem in ("test", "tests") and _LIBRARY_DIRS.intersection(folders[:-1]):
        return bool(_TEST_DIRS.intersection(folders))
    return bool(_TEST_DIRS.intersection(folders)) or bool(_TEST_STEM.search(stem)) or name.endswith("_spec.rb")


def is_package_file(path: PurePosixPath) -> bool:
    """Whether a file is its folder's module: ``__init__.py``, ``index.js``, ``mod.rs``, Lua's ``init.lua``."""
    return path.stem in ("__init__", "index", "mod") or path.name == "init.lua"
