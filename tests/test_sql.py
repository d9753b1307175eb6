"""SQL: CREATE TABLE, VIEW, FUNCTION, TYPE, INDEX, TRIGGER and SEQUENCE statements are symbols, and every
other table, view or function a statement names is a use of the project's own, in any of its SQL files."""

from __future__ import annotations

import textwrap

from conftest import called_by, spans, write_files

from codebase import index_project
from codebase.chunker import parse_file

SCHEMA = """
    -- Who may buy.
    CREATE TABLE users (
        id SERIAL PRIMARY KEY,
        email TEXT NOT NULL UNIQUE
    );

    CREATE TABLE IF NOT EXISTS public.orders (
        id SERIAL PRIMARY KEY,
        user_id INT REFERENCES Users (id)
    );

    CREATE INDEX orders_user ON orders (user_id);

    CREATE VIEW big_orders AS
        SELECT o.id, u.email FROM orders o JOIN users u ON u.id = o.user_id WHERE o.id > 10;

    CREATE OR REPLACE FUNCTION order_count(uid INT) RETURNS INT AS $$
      SELECT count(*) FROM orders WHERE user_id = uid;
    $$ LANGUAGE sql;
    """

PROJECT = {
    "db/schema.sql": SCHEMA,
    "db/migrations/002_names.sql": """
        ALTER TABLE users ADD COLUMN name TEXT;
        CREATE TRIGGER count_orders AFTER INSERT ON orders FOR EACH ROW EXECUTE FUNCTION order_count();
        """,
    "app/users.py": "def users():\n    return []\n",
}


def test_create_statements_are_symbols():
    parsed = parse_file("db/schema.sql", textwrap.dedent(SCHEMA), "sql")
    assert spans(parsed) == {"users": ("table", 2, 6),  # with the comment above it
                             "orders": ("table", 8, 11), "orders_user": ("index", 13, 13),
                             "big_orders": ("view", 15, 16), "order_count": ("function", 18, 20)}
    signatures = {s.qualname: s.signature for s in parsed.symbols}
    assert signatures["orders"] == "CREATE TABLE IF NOT EXISTS public.orders"
    assert signatures["big_orders"] == "CREATE VIEW big_orders"
    assert signatures["order_count"] == "CREATE OR REPLACE FUNCTION order_count(uid INT) RETURNS INT"
    assert {c.breadcrumb for c in parsed.chunks} == {"table users", "table orders", "index orders_user",
                                                     "view big_orders", "function order_count"}


def test_tables_views_and_functions_named_are_uses():
    called = called_by(PROJECT, "db/")
    # REFERENCES, FROM and JOIN name tables (in any case); an alias or a column's table is no use of its own
    assert called["orders"] == {"schema.sql:users"}
    assert called["big_orders"] == {"schema.sql:orders", "schema.sql:users"}
    assert called["order_count"] == {"?count", "schema.sql:orders"}  # a builtin stays unresolved
    # another file's statements: an ALTER TABLE at the top of a migration, a trigger's table and function;
    # never app/users.py's `users`, another language's
    assert called["count_orders"] == {"schema.sql:orders", "schema.sql:order_count"}
    assert called[""] == {"schema.sql:users"}


def test_a_schema_is_indexed_and_navigated(engine, tmp_path):
    root = write_files(tmp_path / "shop", {p: textwrap.dedent(t) for p, t in PROJECT.items()})
    report = index_project(engine, root, project="shop")
    assert report.parse_errors == 0 and report.files_indexed == len(PROJECT)
    users = engine.symbol_graph("db/schema.sql:users", "callers", project="shop")
    assert {(c["path"], c["qualname"]) for c in users["results"]} == {
        ("db/schema.sql", "orders"), ("db/schema.sql", "big_orders"), ("db/migrations/002_names.sql", "")}
