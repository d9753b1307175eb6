"""Importing LanceDB without the parts of it nothing here uses."""

from __future__ import annotations

import importlib.util
import sys


def _defer_rest_client() -> None:
    """Let ``import lancedb`` skip building LanceDB's REST namespace client, which nothing here uses.

    lancedb imports ``lance_namespace``, which reads only the ``models`` of ``lance_namespace_urllib3_client``;
    but that package's ``__init__`` also imports every REST API class, each method wrapped by pydantic: the
    larger part of lancedb's import (``python -m benchmarks.cli_speed`` shows what a cold command takes). The
    package module is made without running its ``__init__``; the first name asked of it runs the ``__init__``,
    so any other user of the client still finds all of it.
    """
    name = "lance_namespace_urllib3_client"
    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None or not spec.submodule_search_locations:
        return
    module = importlib.util.module_from_spec(spec)

    def load_all(attr: str):
        del module.__getattr__
        spec.loader.exec_module(module)
        try:
            return module.__dict__[attr]
        except KeyError:
            raise AttributeError(f"module {name!r} has no attribute {attr!r}") from None

    module.__getattr__ = load_all
    sys.modules[name] = module


def import_lancedb():
    """The ``lancedb`` module, imported with its REST client deferred (``_defer_rest_client``)."""
    _defer_rest_client()
    import lancedb

    return lancedb
