"""The command line, in-process with typer's runner, on a temporary data directory and the real model."""

from __future__ import annotations

import json
import re

import pytest



def test_store_search_get_list_invalidate_delete(run):
    mid = json.loads(run("store", "Orion is the codename for the billing-api rewrite", "--type", "semantic",
                         "--tags", "billing,names", "--importance", "7", "--project", "acme",
                         "--json").stdout)["id"]
    other = run("store", "billing-api times out when the cache is cold").stdout.strip()
    hits = json.loads(run("search", "What problems does Orion have?", "--explain", "--json").stdout)
    assert {h["id"] for h in hits} == {mid, other}
    assert "explain" in hits[0] and "ppr_factor" in hits[0]["explain"]
    assert json.loads(run("search", "Orion", "--project", "acme", "--type", "semantic", "--mode", "bm25",
                          "--json").stdout)[0]["id"] == mid
    rec = json.loads(run("get", mid, "--json").stdout)[0]
    assert rec["tags"] == ["billing", "names"] and rec["importance"] == 7 and rec["project"] == "acme"
    listing = json.loads(run("list", "--limit", "1", "--json").stdout)
    assert listing["total"] == 2 and [m["id"] for m in listing["items"]] == [other]
    by_importance = json.loads(run("list", "--order-by", "importance", "--limit", "1", "--json").stdout)
    assert [m["id"] for m in by_importance["items"]] == [mid]
    assert re.search(rf"{mid}.*\b7\s*│", run("list", "--order-by", "importance").stdout)
    assert "not one of created_at, updated_at, importance" in run("list", "--order-by", "size", ok=False).output
    assert json.loads(run("list", "--created-before", "2020-01-01", "--json").stdout)["total"] == 0
    assert json.loads(run("search", "Orion", "--created-after", "2020-01-01", "--json").stdout)[0]["id"] == mid
    assert json.loads(run("search", "Orion", "--created-before", "2020-01-01", "--json").stdout) == []
    wrong = run("search", "Orion", "--created-after", "2026-12-01", "--created-before", "2026-01-01", ok=False)
    assert wrong.exit_code == 2 and "must be later than created_after" in " ".join(wrong.output.split())
    run("invalidate", other, "--reason", "fixed in v2")
    assert other not in [h["id"] for h in json.loads(run("search", "cache times out", "--json").stdout)]
    assert json.loads(run("delete", mid, "--json").stdout) == {"deleted": 1}
    stats = json.loads(run("stats", "--json").stdout)
    assert stats["counts"]["memories"] == 1 and stats["healthy"]
    assert "no results" in run("search", "Orion codename", "--mode", "bm25").stdout
    assert "no memory is in project 'acm'" in run("search", "Orion", "--project", "acm").stderr


def test_a_superseded_memory_is_marked_wherever_a_table_shows_it(run):
    old = run("store", "Session storage uses Redis with a TTL of 24 hours", "--valid-from", "2026-01-05",
              "--source", "docs/adr/0007-sessions.md").stdout.strip()
    new = run("store", "Sessions moved from Redis to signed cookies").stdout.strip()
    run("invalidate", old, "--superseded-by", new, "--at", "2026-02-01")
    assert old not in run("search", "session TTL Redis").stdout
    found = run("search", "session TTL Redis", "--include-invalid")
    assert old in found.stdout and "(ended" in found.stdout and "2026-02-01)" in found.stdout
    assert f"{old} is superseded by {new}" in found.stdout
    assert f"{old} is superseded by {new}" in run("list").stdout
    assert f"{old} is superseded by {new}" in run("timeline", new).stdout
    as_json = json.loads(run("search", "session TTL", "--include-invalid", "--json").stdout)
    assert {h["id"]: h.get("superseded_by") for h in as_json} == {old: new, new: None}
    # as of January only the Redis memory held, and the cookie one was not yet stored
    assert [h["id"] for h in json.loads(run("search", "sessions", "--as-of", "2026-01-20", "--json").stdout)] == [old]
    assert [m["id"] for m in json.loads(run("list", "--valid-at", "2026-01-20", "--json").stdout)["items"]] == [old]
    assert json.loads(run("get", old, "--json").stdout)[0]["source"] == "docs/adr/0007-sessions.md"


def test_tables_print_whole_ids_at_80_columns_so_they_can_be_copied_into_get(run):
    ids = [run("store", text, "--type", "procedural").stdout.strip() for text in (
        "Orion's deploy runbook: drain the billing-api pods one zone at a time, then flush the cache",
        "Orion's rollback runbook: restore the previous billing-api image and replay the queued invoices")]
    for args in (("search", "Orion runbook billing-api"), ("list",)):
        shown = run(*args).stdout
        assert all(i in shown for i in ids), shown
    assert "procedural" in shown


def test_store_reads_the_content_from_stdin_when_it_is_a_dash(run):
    long = "Why Postgres: SQLite locked under concurrent writes.\n" + "details " * 5_000 + "\n"
    mid = run("store", "-", "--json", input=long.encode()).stdout
    rec = json.loads(run("get", json.loads(mid)["id"], "--json").stdout)[0]
    # the newline that ends piped text (echo, git log) is not part of the memory
    assert rec["content"] == long[:-1] and rec["title"].startswith("Why Postgres")
    bad = run("store", "-", input=b"caf\xe9 au lait", ok=False)
    assert bad.exit_code == 2 and "not UTF-8" in bad.output
    assert json.loads(run("list", "--json").stdout)["total"] == 1


def test_storing_the_same_text_again_keeps_both_and_says_so(run):
    first = run("store", "Deploy failed: migration 0042 locked the orders table", "--project", "shop").stdout.strip()
    again = run("store", "Deploy failed: migration 0042 locked the orders table", "--project", "shop")
    assert f"stored as {first}" in again.stderr and f"delete {again.stdout.strip()}" in again.stderr
    assert json.loads(run("store", "Deploy failed: migration 0042 locked the orders table", "--project", "shop",
                          "--json").stdout)["duplicate_of"] == [first, again.stdout.strip()]
    # another project, or other words, is no repeat
    elsewhere = run("store", "Deploy failed: migration 0042 locked the orders table", "--project", "blog", "--json")
    assert "duplicate_of" not in json.loads(elsewhere.stdout) and "note:" not in elsewhere.stderr
    other = run("store", "Deploy failed: migration 0043 locked the users table", "--project", "shop")
    assert "stored as" not in other.stderr  # no repeat, but alike: it may update them
    assert "similar: " in other.stderr and f"{first} (0." in other.stderr
    assert f"--superseded-by {other.stdout.strip()}" in other.stderr
    assert json.loads(run("list", "--json").stdout)["total"] == 5


def test_update_timeline_and_optimize(run):
    first = run("store", "Orion is the codename for the billing-api rewrite").stdout.strip()
    second = run("store", "billing-api times out when the cache is cold").stdout.strip()
    third = run("store", "Moved the billing-api cache to Redis").stdout.strip()
    changed = json.loads(run("update", second, "--tags", "perf,cache", "--importance", "8", "--json").stdout)
    assert changed["tags"] == ["perf", "cache"] and changed["importance"] == 8
    spans = json.loads(run("update", first, "--valid-from", "2026-01-05", "--valid-until", "2026-03-01",
                           "--json").stdout)
    assert (spans["valid_from"][:10], spans["valid_until"][:10]) == ("2026-01-05", "2026-03-01")
    assert "nothing to change" in run("update", first, ok=False).output
    run("update", second, "--text", "-", input="billing-api times out when the Redis cache is cold\n")
    assert json.loads(run("get", second, "--json").stdout)[0]["content"] == \
        "billing-api times out when the Redis cache is cold"
    t = json.loads(run("timeline", second, "--json").stdout)
    assert ([m["id"] for m in t["before"]], t["anchor"]["id"], [m["id"] for m in t["after"]]) == \
        ([first], second, [third])
    shown = run("timeline", "--query", "Redis cache timeout", "--before", "1", "--after", "0").stdout
    assert second in shown and first in shown and third not in shown
    assert json.loads(run("optimize", "--keep-versions-seconds", "0", "--json").stdout)["disk_bytes"] > 0
    assert json.loads(run("search", "cache cold", "--json").stdout)[0]["id"] == second  # nothing lost
    assert "give an anchor id or a query" in run("timeline", ok=False).output


def test_entity_commands(run):
    mid = run("store", "Orion is the codename for the billing-api rewrite").stdout.strip()
    service = json.loads(run("entity", "Stripe", "--type", "service", "--description", "card payments",
                             "--alias", "stripe-api", "--json").stdout)
    assert service["aliases"] == ["stripe-api"] and service["entity_type"] == "service"
    assert run("entity", "Stripe", "--type", "service").stdout.strip() == service["id"]  # idempotent
    rel = json.loads(run("relate", "billing-api", "stripe-api", "--type", "calls", "--valid-from", "2026-02-01",
                         "--json").stdout)
    assert rel["relation_type"] == "calls" and rel["target"] == service["id"]
    assert rel["valid_from"].startswith("2026-02-01")
    related = json.loads(run("related", "Stripe", "--depth", "2", "--json").stdout)
    assert {"billing-api", "Orion is the codename for the billing-api rewrite"} <= {r["name"] for r in related}
    assert len(related) > 1 and json.loads(run("related", "Stripe", "--depth", "2", "-n", "1", "--json").stdout) \
        == related[:1]
    assert mid in run("related", "Stripe", "--depth", "2").stdout
    listed = json.loads(run("entities", "--json").stdout)
    names = {e["name"] for e in listed}
    assert {"billing-api", "Stripe"} <= names and "Orion" not in names
    assert "Orion" in next(e for e in listed if e["name"] == "billing-api")["aliases"]  # "the codename for"
    assert json.loads(run("entities", "--type", "service", "--json").stdout)[0]["name"] == "Stripe"
    groups = json.loads(run("communities", "--json").stdout)
    assert any({"Stripe", "billing-api"} <= {m["name"] for m in g["members"]} for g in groups)
    assert json.loads(run("delete-entity", rel["id"], "--json").stdout)["kind"] == "relation"
    assert "deleted entity" in run("delete-entity", "Stripe").stdout
    assert "Stripe" not in {e["name"] for e in json.loads(run("entities", "--json").stdout)}
    assert json.loads(run("get", mid, "--json").stdout)[0]["id"] == mid  # memories are kept
    assert "unknown entity: Stripe" in run("related", "Stripe", ok=False).output  # a name is not called an id
    assert "unknown memory: mem_0000" in run("relate", "Orion", "mem_0000", ok=False).output


def test_user_text_that_looks_like_rich_markup_is_printed_as_it_is(run):
    text = "[WIP] parser rewrite: see [/path] and [bold]x[/bold]"
    mid = run("store", text).stdout.strip()
    for args in (("search", "parser rewrite"), ("list",), ("get", mid), ("timeline", mid)):
        shown = " ".join(run(*args).stdout.split())  # tables wrap the title
        assert "[/path]" in shown and "[bold]x[/bold]" in shown, args
    r = run("get", "[/oops]", ok=False)
    assert r.exit_code == 2 and "unknown memory: [/oops]" in r.output


def test_export_import_rebuild(run, tmp_path):
    run("store", "Use ruff for linting")
    run("export", str(tmp_path / "dump.jsonl"))
    assert json.loads(run("import", str(tmp_path / "dump.jsonl"), "--json").stdout)["memories"] == 0
    assert json.loads(run("rebuild", "--json").stdout)["memories"] == 1


def test_prune_entities_lists_then_applies(run):
    run("store", "Orion is the codename for the billing-api rewrite")
    assert json.loads(run("prune-entities", "--json").stdout) == {"applied": False, "entities": []}
    assert "would delete 0 entities" in run("prune-entities").stdout
    assert json.loads(run("prune-entities", "--apply", "--json").stdout)["applied"] is True


@pytest.mark.parametrize("args", [("store", "   "), ("get", "mem_unknown"), ("search", "x", "--as-of", "soon"),
                                  ("search", "x", "--mode", "psychic"), ("delete", "mem_unknown"),
                                  ("invalidate", "mem_unknown"), ("import", "/no/such/file.jsonl"),
                                  ("update", "mem_unknown", "--title", "x"), ("timeline",), ("related", "nothing"),
                                  ("relate", "same", "same"), ("delete-entity", "ent_missing"), ("entity", " ")])
def test_mistakes_get_a_message_not_a_traceback(run, args):
    result = run(*args, ok=False)
    assert result.exit_code == 2
    assert "error:" in result.output and "Traceback" not in result.output


def test_a_mistake_in_what_was_typed_is_told_before_the_stores_open(run, monkeypatch):
    """A limit out of range, a bad date, an unknown mode: refused by the command line itself or by a check
    that runs before the Engine opens (which costs a second or two), naming the flag typed."""
    from memory_graph import engine as engine_module

    def never(*a, **k):
        raise AssertionError("the engine opened")

    monkeypatch.setattr(engine_module.Engine, "__init__", never)
    for args, said in [(("search", "x", "--limit", "0"), "--limit"), (("list", "--limit", "0"), "--limit"),
                       (("search", "x", "--as-of", "soon"), "--as-of 'soon'"),
                       (("list", "--valid-at", "soon"), "--valid-at 'soon'"),
                       (("search", "x", "--mode", "fuzzy"), "--mode 'fuzzy'"),
                       (("search", "x", "--min-score", "2"), "--min-score")]:
        result = run(*args, ok=False)
        assert result.exit_code == 2 and said in " ".join(result.output.split()), args


def test_every_command_has_help(run):
    for cmd in ("store", "search", "get", "list", "invalidate", "delete", "stats", "export", "import", "rebuild",
                "prune-entities", "update", "timeline", "optimize", "entities", "entity", "relate", "related",
                "delete-entity", "communities"):
        out = run(cmd, "--help").stdout
        assert "Usage" in out and len(out) > 200, cmd


@pytest.mark.parametrize("args, said", [(("search", "x", "--mode", "psychic"), "--mode 'psychic' is not one of"),
                                        (("search-code", "x", "--mode", "fuzzy"), "--mode 'fuzzy' is not one of"),
                                        (("index", "/no/such/folder"), "/no/such/folder does not exist"),
                                        (("watch", "/no/such/folder"), "/no/such/folder does not exist")])
def test_a_mistake_in_what_was_typed_is_told_before_the_store_opens(run, tmp_path, args, said):
    result = run(*args, ok=False)
    assert result.exit_code == 2 and said in " ".join(result.output.split())
    assert not (tmp_path / "data").exists()  # no store was opened (nor created) to find it out


def test_stats_and_export_read_as_lines_not_python(run, tmp_path):
    run("store", "Orion is the codename for the billing-api rewrite")
    stats = run("stats").stdout
    assert "counts: 1 memories" in stats and "healthy: yes" in stats and "{" not in stats
    assert re.search(r"^disk: [\d.]+ (KB|MB)$", stats, re.M)
    exported = run("export", str(tmp_path / "out.jsonl")).stdout
    assert " ".join(exported.split()).startswith("exported 1 memories") and "{" not in exported


@pytest.mark.parametrize("args, said", [(("list", "--valid-at", "yesterday"), "--valid-at 'yesterday' is not a valid"),
                                        (("search", "x", "--as-of", "soon"), "--as-of 'soon' is not a valid date"),
                                        (("search", "x", "--limit", "0"), "Invalid value for '--limit'"),
                                        (("list", "--order-by", "size"), "--order-by 'size' is not one of")])
def test_an_error_names_the_flag_that_was_typed(run, args, said):
    result = run(*args, ok=False)
    text = " ".join(result.output.split())
    assert result.exit_code == 2 and said in text and "as_of=" not in text and "limit=" not in text


def test_explain_is_a_table_of_legs_ranks_and_stages_in_words(run):
    run("store", "Orion is the codename for the billing-api rewrite", "--type", "semantic")
    run("store", "billing-api times out when the cache is cold")
    shown = run("search", "What problems does Orion have?", "--explain").stdout
    words = " ".join(shown.split())
    assert all(h in words for h in ("meaning", "words", "graph", "fused", "then"))
    assert "via" in words and "billing-api" in words and "{" not in shown and "ppr=" not in shown
    assert any(w in words for w in ("nothing", "walk", "age", "diversity"))  # (cells wrap in 80 columns)
