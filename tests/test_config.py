"""Config from the environment: field variables, and those of fields' former names."""

from __future__ import annotations

import logging

import pytest

from memory_graph import Config
from memory_graph.config import RENAMED
from memory_graph.errors import ConfigError


def test_a_variable_of_a_former_field_name_is_read_as_the_new_field_with_a_warning(monkeypatch, caplog):
    monkeypatch.setenv("MEMORY_GRAPH_EXACT_SEARCH_MAX_ROWS", "7")
    with caplog.at_level(logging.WARNING, logger="memory_graph"):
        assert Config.from_env().vector_copy_max_rows == 7
    assert "MEMORY_GRAPH_VECTOR_COPY_MAX_ROWS" in caplog.text
    monkeypatch.setenv("MEMORY_GRAPH_VECTOR_COPY_MAX_ROWS", "9")  # the new name wins
    assert Config.from_env().vector_copy_max_rows == 9
    monkeypatch.setenv("MEMORY_GRAPH_EXACT_FILTER_WINDOW", "x")
    with pytest.raises(ConfigError, match="EXACT_FILTER_WINDOW=.x. is not a valid int"):
        Config.from_env()
    fields = set(Config.__dataclass_fields__)
    assert set(RENAMED.values()) <= fields and not set(RENAMED) & fields


def test_the_type_help_names_every_type_and_the_ageless_ones_are_the_defaults():
    """TYPES_HELP tells agents which types age; it must follow Config.evergreen_types."""
    from memory_graph.models import MEMORY_TYPES, TYPES_HELP

    assert all(t in TYPES_HELP for t in MEMORY_TYPES)
    assert set(Config().evergreen_types) == {"semantic", "fact", "procedural", "decision", "preference"}
    assert "less with age" in TYPES_HELP
