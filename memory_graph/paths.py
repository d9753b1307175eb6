"""What a project-relative path says about its file: a test, or its folder's own module."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

_TEST_DIRS = frozenset({"test", "tests", "__tests__", "__mocks__", "spec", "specs", "testdata"})
# test_x.py, conftest.py, tests.py, x_test.go, x.test.ts, x.spec.js, XTest.java, XTests.cs, and Ruby's x_spec.rb
# (pod_spec.go and TableSpec.ts are not tests)
_TEST_STEM = re.compile(r"^(?:test_.*|tests?|conftest)$|(?:_test|_tests|\.test|\.spec)$|[a-z0-9]Tests?$")


def is_test_path(path: str) -> bool:
    """Whether a project-relative path is a test file by the usual conventions (folders and file names)."""
    *folders, name = path.split("/")
    return bool(_TEST_DIRS.intersection(folders)) or bool(_TEST_STEM.search(name.rsplit(".", 1)[0])) or \
        name.endswith("_spec.rb")


def is_package_file(path: PurePosixPath) -> bool:
    """Whether a file is its folder's module: ``__init__.py``, ``index.js``, ``mod.rs``, Lua's ``init.lua``."""
    return path.stem in ("__init__", "index", "mod") or path.name == "init.lua"
