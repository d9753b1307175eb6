"""Six scripted Claude Code sessions on a small invoicing service ("ledger"), for ``benchmarks.hooks_replay``.

Written by hand as such sessions go: prompts, reads and searches that say nothing, commands that fail, edits that
fix them, decisions stated by the user or the assistant. Each probe is a prompt of a later session with the
text its injected context must hold for the agent to need no tool call: a fact an earlier session left.
Prompts that nothing earlier answers must get nothing.
"""

from __future__ import annotations

# a step: ("prompt", text) | ("say", assistant text) | ("read", path) | ("grep", pattern) | ("bash", command,
# output, exit code) | ("edit", path, old, new) | ("write", path, content)
LOOK = [("read", "ledger/__init__.py"), ("grep", "def "), ("bash", "ls ledger", "__init__.py db.py", 0),
        ("bash", "git status", "On branch main", 0), ("read", "README.md"), ("read", "pyproject.toml"),
        ("bash", "git log --oneline -5", "1a2b3c invoices table", 0), ("grep", "TODO"),
        ("bash", "cat setup.cfg", "[flake8]", 0)]

SESSIONS = [
    [  # 1: the database
        ("prompt", "Set up the invoices table. We use Postgres 16 through psycopg 3, not SQLAlchemy."),
        *LOOK,
        ("write", "migrations/001_invoices.sql", "CREATE TABLE invoices (id bigserial primary key, total_cents bigint);"),
        ("edit", "ledger/db.py", "import sqlite3", "import psycopg"),
        ("bash", "pip install 'psycopg[binary]'", "Successfully installed psycopg-3.2.3", 0),
        ("bash", "python -m pytest tests/test_db.py -q",
         "E   psycopg.OperationalError: connection failed: port 5432 refused\n1 failed", 1),
        ("read", "docker-compose.yml"),
        ("edit", "tests/conftest.py", "DSN = 'postgresql://localhost:5432/ledger_test'",
         "DSN = 'postgresql://localhost:5433/ledger_test'"),
        ("bash", "python -m pytest tests/test_db.py -q", "4 passed in 0.52s", 0),
        ("say", "The test database runs in docker compose on port 5433, so the tests' DSN now uses 5433."),
        ("bash", "git commit -am 'invoices table on postgres'", "[main 1a2b3c] invoices table", 0),
        ("grep", "psycopg"), ("read", "ledger/db.py"),
    ],
    [  # 2: totals and money
        ("prompt", "The PDF export crashes on invoices with no line items. Amounts are stored as integer cents, "
                   "never floats."),
        *LOOK,
        ("bash", "python -m pytest tests/test_export.py -q",
         "ledger/totals.py:14: in average_line\nE   ZeroDivisionError: division by zero\n1 failed, 9 passed", 1),
        ("read", "ledger/totals.py"),
        ("edit", "ledger/totals.py", "    return sum(cents) / len(cents)",
         "    return sum(cents) // len(cents) if cents else 0"),
        ("bash", "python -m pytest tests/test_export.py -q", "10 passed in 0.61s", 0),
        ("bash", "ruff check ledger", "All checks passed!", 0),
        ("grep", "float("), ("read", "ledger/export.py"),
        ("edit", "ledger/export.py", "amount = float(row['amount'])", "amount_cents = int(row['amount_cents'])"),
        ("bash", "python -m pytest -q", "41 passed in 2.10s", 0),
    ],
    [  # 3: currency and VAT
        ("prompt", "Add currency support to the export. VAT must always use Decimal with ROUND_HALF_EVEN."),
        *LOOK,
        ("edit", "ledger/vat.py", "return round(net * rate)",
         "return (net * rate).quantize(Decimal('1'), rounding=ROUND_HALF_EVEN)"),
        ("bash", "python -m pytest tests/test_export.py -q",
         "E   KeyError: 'currency'\nFAILED tests/test_export.py::test_legacy_rows - KeyError: 'currency'\n"
         "1 failed, 10 passed", 1),
        ("read", "tests/test_export.py"),
        ("edit", "ledger/export.py", "currency = row['currency']", "currency = row.get('currency', 'EUR')"),
        ("bash", "python -m pytest tests/test_export.py -q", "11 passed in 0.70s", 0),
        ("say", "Legacy rows have no currency column; we decided to default them to EUR rather than migrate."),
        ("grep", "currency"), ("read", "ledger/vat.py"),
        ("bash", "python -m pytest -q", "45 passed in 2.31s", 0),
    ],
    [  # 4: the HTTP client
        ("prompt", "Switch the bank client from requests to httpx, and keep the retry wrapper."),
        *LOOK,
        ("edit", "ledger/bank.py", "import requests", "import httpx"),
        ("edit", "ledger/bank.py", "requests.post(url, json=body, timeout=10)",
         "self.client.post(url, json=body, timeout=10)"),
        ("bash", "python -m pytest tests/test_bank.py -q",
         "E   AttributeError: 'Response' object has no attribute 'json_body'\n1 failed, 5 passed", 1),
        ("edit", "ledger/bank.py", "    return resp.json_body", "    return resp.json()"),
        ("bash", "python -m pytest tests/test_bank.py -q", "6 passed in 0.44s", 0),
        ("bash", "pip uninstall -y requests", "Successfully uninstalled requests-2.32.3", 0),
        ("grep", "requests"), ("read", "ledger/bank.py"),
        ("bash", "python -m pytest -q", "47 passed in 2.40s", 0),
    ],
    [  # 5: the release
        ("prompt", "How do we cut a release? Let's use fly.io for production, app name ledger-prod, deployed by "
                   "`make release`."),
        *LOOK,
        ("write", "Makefile", "release:\n\tgit tag v$(VERSION)\n\tfly deploy --app ledger-prod\n"),
        ("bash", "make release VERSION=0.3.0", "Error: no access token available. Run 'fly auth login'", 2),
        ("bash", "fly auth login", "successfully logged in", 0),
        ("bash", "make release VERSION=0.3.0", "==> Monitoring deployment\nv3 deployed successfully", 0),
        ("read", "fly.toml"), ("grep", "ledger-prod"),
        ("edit", "README.md", "## Deploy", "## Deploy\n\n`make release VERSION=x.y.z` tags and deploys ledger-prod."),
        ("bash", "git push --tags", "* [new tag] v0.3.0 -> v0.3.0", 0),
    ],
    [  # 6: later work that asks about all of it (the probes below)
        ("prompt", "Add a monthly summary endpoint to the API."),
        *LOOK,
        ("edit", "ledger/api.py", "ROUTES = []", "ROUTES = [('/summary/monthly', monthly_summary)]"),
        ("bash", "python -m pytest tests/test_api.py -q", "8 passed in 0.50s", 0),
        ("read", "ledger/api.py"), ("grep", "ROUTES"),
    ],
]

#: (the session the prompt is asked in, 0-based, prompt, text the injected context must hold)
PROBES = [
    (5, "the database tests cannot connect, which port does the test postgres listen on?", "5433"),
    (5, "the PDF export crashes with ZeroDivisionError again on an empty invoice", "totals.py"),
    (5, "how should VAT amounts be rounded?", "ROUND_HALF_EVEN"),
    (5, "which HTTP library does the bank client use?", "httpx"),
    (5, "are invoice amounts stored as floats?", "integer cents"),
    (5, "test_legacy_rows fails with KeyError: 'currency'", "'EUR'"),
    (5, "how do I deploy to production?", "make release"),
    (5, "make release says no access token available", "fly auth login"),
    (4, "the bank tests fail: 'Response' object has no attribute 'json_body'", "resp.json()"),
    (3, "should I use SQLAlchemy for the new bank_accounts table?", "psycopg"),
    (2, "what does average_line return for an invoice without lines?", "if cents else 0"),
    (5, "which app name does production run under?", "ledger-prod"),
]

#: prompts nothing earlier answers: the hook should inject nothing
UNANSWERED = [
    (5, "write a haiku about autumn leaves"),
    (5, "what is the capital of Mongolia?"),
    (5, "explain the difference between TCP and UDP"),
]
