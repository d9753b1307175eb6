"""The code commands of the CLI, through the installed console script's app."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from conftest import git_repo



def test_index_search_symbols_callers_callees(run, repo):
    report = json.loads(run("index", str(repo), "--project", "demo", "--json").stdout)
    assert report["files_indexed"] == 18 and report["chunks"] > 50 and report["skipped"] == {"unknown_type": 1}
    again = json.loads(run("index", str(repo), "--project", "demo", "--json").stdout)
    assert again["files_indexed"] == 0 and again["chunks_embedded"] == 0
    hits = json.loads(run("search-code", "normalize_sku", "--json", "-n", "3").stdout)
    assert hits[0]["path"] == "php/Cart.php" and hits[0]["title"] == "function normalize_sku"
    explained = run("search-code", "normalize_sku", "-n", "2", "--explain").stdout
    # the table, then a line per result in words: no Python dict, no leg's internal name
    assert explained.count("found by ") == 2 and "words #" in explained and "{" not in explained
    rust = json.loads(run("search-code", "area", "--language", "rust", "--json").stdout)
    assert rust and {h["language"] for h in rust} == {"rust"}
    syms = json.loads(run("symbols", "parse_config", "--json").stdout)
    assert syms[0]["qualname"] == "parse_config" and syms[0]["path"] == "app/config.py"
    assert "app/config.py:1  module config\n" in run("symbols", "config", "--kind", "module").stdout
    assert {s["path"] for s in json.loads(run("symbols", "area", "--path", "rustsrc/", "--json").stdout)} == \
        {"rustsrc/shapes.rs"} < {s["path"] for s in json.loads(run("symbols", "area", "--json").stdout)}
    callers = json.loads(run("callers", "parse_config", "--json").stdout)
    assert [r["qualname"] for r in callers["results"]] == ["load_settings"]
    callees = json.loads(run("callees", "Cart.add", "--json").stdout)
    assert [r["qualname"] for r in callees["results"]] == ["normalize_sku"]
    table = run("callers", "parse_config").stdout
    assert "load_settings" in table
    inherited = run("callers", "JsonLoader.read").stdout
    assert "callers of BaseLoader.read" in inherited and "inherited by JsonLoader" in inherited
    assert "JsonLoader.load" in inherited
    shared = run("callers", "area").stdout  # else an empty answer would read as "nothing calls it"
    assert "also named 'area'" in shared and "Square.area" in shared
    projects = json.loads(run("projects", "--json").stdout)
    assert projects[0]["project"] == "demo" and projects[0]["files"] == 18
    table = run("projects").stdout
    row = next(line for line in table.splitlines() if line.startswith("│ demo "))
    assert "unresolved" in table and row.rstrip(" │").endswith(f"│ {projects[0]['unresolved_edges']}")
    assert json.loads(run("delete-project", "demo", "--json").stdout)["code_chunks"] > 0


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_index_of_a_subfolder_takes_its_whole_git_repository_unless_a_project_is_named(run, tmp_path):
    """What `index --help` says: the git top level is the project; --project indexes the folder alone."""
    repo = git_repo(tmp_path / "shop", {"api/orders.py": "def place_order():\n    return 1\n",
                                         "billing.py": "def charge_card():\n    return 2\n"})
    whole = json.loads(run("index", str(repo / "api"), "--json").stdout)
    assert whole["project"] == "shop" and whole["files_indexed"] == 2
    alone = json.loads(run("index", str(repo / "api"), "--project", "orders", "--json").stdout)
    assert alone["project"] == "orders" and alone["files_indexed"] == 1
    assert [s["path"] for s in json.loads(run("symbols", "charge_card", "--json").stdout)] == ["billing.py"]


def test_code_answers_print_whole_paths_at_80_columns_and_the_definition_of_a_window(run, tmp_path):
    path = "services/billing/invoices/reconciliation/late_payment_reminders.py"
    (tmp_path / "shop" / path).parent.mkdir(parents=True)
    (tmp_path / "shop" / path).write_text("def send_late_payment_reminder(invoice):\n    return invoice.customer\n")
    steps = "".join(f"    total += invoice.line_{i}  # ledger line {i}\n" for i in range(60))
    (tmp_path / "shop" / "ledger.py").write_text(f"def reconcile_ledger(invoice):\n    total = 0\n{steps}"
                                                 "    return total\n")
    (tmp_path / "shop" / "legacy.py").write_bytes("def caf\xe9():\n    return 1\n".encode("latin-1"))
    report = " ".join(run("index", str(tmp_path / "shop"), "--project", "shop").stdout.split())
    assert "not UTF-8 │ 1 (legacy.py as cp1252)" in report
    # the breadcrumb stays whole beside a long path (a table's columns had left it none)
    assert f"{path}:1-2  def send_late_payment_reminder\n" in run("search-code", "late payment reminder").stdout
    assert re.search(r"ledger\.py:\d+-\d+ of 1-63", run("search-code", "reconcile ledger line").stdout)
    assert f"{path}:1" in run("symbols", "send_late_payment_reminder").stdout


def test_code_commands_report_mistakes_clearly(run, tmp_path):
    r = run("index", str(tmp_path / "missing"), ok=False)
    assert r.exit_code == 2 and "does not exist" in " ".join(r.output.split())  # rich wraps long paths
    r = run("callers", "no_such_symbol", ok=False)
    # the hint names the command that helps here, not the MCP tool (search_symbols)
    assert r.exit_code == 2 and "memory-graph symbols finds" in r.output and "search_symbols" not in r.output
    r = run("delete-project", "ghost", ok=False)
    assert r.exit_code == 2 and "ghost" in r.output and "memory-graph projects lists" in r.output
    r = run("search-code", "ledger", "--project", "ghost", ok=False)
    assert r.exit_code == 2 and "unknown project: ghost" in r.output and "memory-graph index indexes" in r.output


@pytest.mark.parametrize("cmd", ["index", "watch", "search-code", "symbols", "callers", "callees", "projects",
                                 "delete-project"])
def test_every_code_command_has_help(run, cmd):
    out = run(cmd, "--help").stdout
    assert "Usage" in out and len(out) > 200


def test_index_names_the_files_too_large_to_index_and_how_to_take_them(run, tmp_path, monkeypatch):
    root = tmp_path / "api"
    root.mkdir()
    (root / "schema.graphql").write_text("type Query {\n" + "".join(f"  f{i}: Int\n" for i in range(40)) + "}\n")
    (root / "app.py").write_text("def serve():\n    return 1\n")
    monkeypatch.setenv("MEMORY_GRAPH_INDEX_MAX_FILE_BYTES", "300")
    result = run("index", str(root), "--project", "api")
    assert "skipped as too large: schema.graphql" in " ".join(result.output.split())
    assert "MEMORY_GRAPH_INDEX_MAX_FILE_BYTES" in result.output
    monkeypatch.setenv("MEMORY_GRAPH_INDEX_MAX_FILE_BYTES", "100000")
    report = json.loads(run("index", str(root), "--project", "api", "--json").stdout)
    assert report["too_large"] == [] and report["files_indexed"] == 1
    assert json.loads(run("symbols", "Query.f7", "--json").stdout)[0]["path"] == "schema.graphql"
