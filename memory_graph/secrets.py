"""Secrets in text, found by what they look like rather than by a file's name: private key blocks, cloud keys,
providers' tokens, passwords in connection strings and high-entropy values given to names such as ``*_KEY``,
``*_SECRET`` or ``password``. Code indexing skips a file that holds one (``find_secret``); a memory, a title and
what a session captures are stored with each one masked (``mask_secrets``), and there also with what a person
writes down (``WRITTEN``): any password in a URL, any value a secret-named variable is given, a password stated
in prose, a JSON Web Token, a bearer token; in code, where a test fixture's ``password = "hunter22"`` must not
hide the file, those stay unflagged.

The rules follow the formats the providers document for their tokens (the same ones gitleaks and GitHub's
secret scanning look for); values given to secret-sounding names count only when they look random (letters
and digits, Shannon entropy of at least ``_MIN_ENTROPY`` bits a character) and are not placeholders, so that
``password = get_password()``, ``API_KEY = os.environ["API_KEY"]`` and ``token: <your token>`` do not.
"""

from __future__ import annotations

import math
import re
from collections import Counter

#: bits a character a value given to a secret-sounding name must reach: random tokens reach 4 and more, words
#: and identifiers ("changeme", "my_password") stay under 3.5
_MIN_ENTROPY = 3.5
#: a secret-sounding name: its key word and what follows it (a search starts at the key word, not at every word)
_KEYWORD = r"(?:secret|passw(?:or)?d|pwd|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth[_-]?token" \
           r"|access[_-]?token|token|client[_-]?secret|credentials?|salt)[\w.-]*"
_PLACEHOLDER = re.compile(r"^(?:x+|\*+|\.+|<[^>]*>|\{[^}]*\}|\$\{?[\w.:-]+\}?|%\(?\w+\)?s?|changeme|change[_-]?me"
                          r"|password|secret|example\w*|your[_-]?\w*|dummy\w*|test\w*|fake\w*|sample\w*|none|null"
                          r"|true|false|redacted|todo)$", re.IGNORECASE)

#: words one of which a secret-sounding name holds (looked for in the lowercased text before its rules run)
_KEYWORDS = ("secret", "passw", "pwd", "key", "token", "credential", "salt")

#: (what it is, pattern, whether the match must also look random (its last group), strings one of which the
#: text must hold for the pattern to be tried: a substring test is far cheaper than the search it spares)
RULES: tuple[tuple[str, re.Pattern, bool, tuple[str, ...]], ...] = (
    ("private key", re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
                               r"(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*)"), False,
     ("PRIVATE KEY",)),
    ("AWS access key", re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"), False,
     ("AKIA", "ASIA", "ABIA", "ACCA")),
    ("AWS secret key", re.compile(r"(?i)aws_?secret_?(?:access_?)?key[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9/+=]{40})\b"),
     False, ("secret",)),
    ("GCP service account key", re.compile(r"\"private_key_id\"\s*:\s*\"[0-9a-f]{40}\""), False, ("private_key_id",)),
    ("GitHub token", re.compile(r"(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{60,})\b"),
     False, ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
    ("GitLab token", re.compile(r"glpat-[A-Za-z0-9_-]{20,}"), False, ("glpat-",)),
    ("Slack token", re.compile(r"(?<![A-Za-z0-9])xox[abposr]-[A-Za-z0-9-]{10,}"), False, ("xox",)),
    ("Slack webhook", re.compile(r"hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]{20,}"), False,
     ("hooks.slack.com",)),
    ("Stripe key", re.compile(r"(?<![A-Za-z0-9])(?:sk|rk)_live_[A-Za-z0-9]{20,}"), False, ("k_live_",)),
    ("OpenAI key", re.compile(r"(?<![A-Za-z0-9-])sk-(?:proj-|svcacct-|admin-)?(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{32,}"),
     False, ("sk-",)),
    ("Anthropic key", re.compile(r"sk-ant-[A-Za-z0-9_-]{32,}"), False, ("sk-ant-",)),
    ("Google API key", re.compile(r"AIza[0-9A-Za-z_-]{35}"), False, ("AIza",)),
    ("SendGrid key", re.compile(r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"), False, ("SG.",)),
    ("npm token", re.compile(r"(?<![A-Za-z0-9])npm_[A-Za-z0-9]{36}\b"), False, ("npm_",)),
    ("PyPI token", re.compile(r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}"), False, ("pypi-AgEIcHlwaS5vcmc",)),
    ("Hugging Face token", re.compile(r"(?<![A-Za-z0-9])hf_[A-Za-z]{34}\b"), False, ("hf_",)),
    ("password in a URL", re.compile(r"[a-z][a-z0-9+.-]*://[^\s:/@\"']*:([^\s:/@\"']{3,})@[\w.-]+"), True, ("://",)),
    ("Docker registry credentials", re.compile(r"\"auth\"\s*:\s*\"([A-Za-z0-9+/]{20,}={0,2})\""), True, ('"auth"',)),
    ("kubeconfig credentials", re.compile(r"(?:client-key-data|token):\s*([A-Za-z0-9+/._-]{32,}={0,2})"), True,
     ("client-key-data:", "token:")),
    ("secret assignment", re.compile(  # name = "value", name: 'value', "name": "value", name => "value"
        rf"(?i){_KEYWORD}[\"']?[ \t]*(?::|=|=>|:=)[ \t]*[\"']([^\"'\s]{{8,}})[\"']"), True, _KEYWORDS),
    ("secret assignment", re.compile(  # PHP's define('DB_PASSWORD', 'value')
        rf"(?i)define\(\s*[\"'][\w-]*{_KEYWORD}[\"']\s*,\s*[\"']([^\"'\s]{{8,}})[\"']"), True, ("define(",)),
    ("secret assignment", re.compile(  # NAME=value in .env, shell and ini files, name: value in YAML
        rf"(?im)^[ \t]*(?:export[ \t]+)?[\w.-]*{_KEYWORD}[ \t]*[:=][ \t]*([^\s\"'#;,=]{{12,}}={{0,2}})[ \t]*$"), True,
     _KEYWORDS),
)


#: what a person writes down, masked in what is stored (never decides whether a file is indexed): (what it is,
#: pattern, the test its last group must pass, strings one of which the text must hold)
WRITTEN: tuple[tuple[str, re.Pattern, str, tuple[str, ...]], ...] = (
    ("password in a URL", re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s:/@\"'<>]+:([^\s@/\"'<>]+)@[\w.\[\]-]+", re.I), "given",
     ("://",)),
    ("secret assignment", re.compile(  # DB_PASSWORD=..., export API_TOKEN="...", PGPASSWORD=x psql, token: ...
        r"(?i)\b[\w.-]*?(?:passw(?:or)?d|passwd|pwd|secret(?:[_-]?key)?|token|api[_-]?key|access[_-]?key"
        r"|private[_-]?key|credentials?)\b[\"']?[ \t]*(?:=|:|=>|:=)[ \t]*[\"']?([^\s\"',;\\]{4,})"), "written",
     _KEYWORDS),
    ("password", re.compile(  # "the redis password is s3cr3tP4ss", "root pwd: hunter2"
        r"(?i)\b(?:passw(?:or)?d|passphrase|pwd)\b(?:[ \t]+(?:is|was|=|:)|[ \t]*[:=])[ \t]+[\"'`]?([^\s\"'`,;\\]{4,})"),
     "spelled", ("passw", "pwd", "passphrase")),
    ("JSON Web Token", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.([A-Za-z0-9_-]{16,})"), "any",
     ("eyJ",)),
    ("bearer token", re.compile(r"(?i)\bbearer[ \t]+([A-Za-z0-9._~+/-]{20,}=*)"), "random", ("earer",)),
    ("password on a command line", re.compile(r"\bmysql(?:dump|admin)?\b[^\n]*?[ \t]-p([^\s-][^\s]{3,})"), "given",
     ("mysql",)),
)
#: what a value given to a secret's name is when it names no secret: a reference to one (a variable, an
#: attribute, a format's placeholder), a call, a path
_REFERENCE = re.compile(r"^(?:\$|%|\{|<|\[|\(|os\.|env|process\.env|getenv|self\.|this\.|config\.|settings\.|"
                        r"secrets?\.|vault|keyring|none$|null$|true$|false$|required$|optional$)|[(){}<>\[\]]|%s|%\(|"
                        r"^[a-z_][a-z_.]*[_.][a-z_.]*$", re.I)
#: a word a sentence opens with ("Configuration", "Implementation"): prose, not a password
_CAPITALISED = re.compile(r"^[A-Z][a-z]+$")


def _given(value: str) -> bool:
    """Whether a value written where a secret goes is one: not a placeholder, a reference, a call or a bare
    number, and not already masked."""
    value = value.strip().rstrip(".")
    return len(value) >= 4 and not _PLACEHOLDER.match(value) and not _REFERENCE.search(value) and \
        "secret removed" not in value and any(c.isalpha() for c in value) and not value.startswith(("/", "./"))


def _spelled(value: str) -> bool:
    """Whether a word after "password is" is a password rather than prose ("stored", "expired"): given, and
    holding a digit or a sign besides its letters."""
    return _given(value) and any(not c.isalpha() for c in value.rstrip("."))


def _written(value: str) -> bool:
    """Whether a value a secret-named variable is given is a secret rather than a setting ("auto",
    "required"): given, and holding a digit or a sign besides its letters, or long."""
    return _given(value) and (not value.isalpha() or len(value) >= 12 and not _CAPITALISED.match(value))


_TESTS = {"given": _given, "spelled": _spelled, "written": _written, "random": lambda v: _random(v),
          "any": lambda v: True}


def entropy(value: str) -> float:
    """Shannon entropy of a string's characters, in bits a character."""
    counts = Counter(value)
    return -sum(c / len(value) * math.log2(c / len(value)) for c in counts.values()) if value else 0.0


def _random(value: str) -> bool:
    """Whether a value looks like a generated secret: not a placeholder, a variable or a word, and random."""
    value = value.strip()
    if _PLACEHOLDER.match(value) or value.lower().startswith(("os.", "env", "process.env", "getenv", "self.")):
        return False
    # an expression (a call, an index), an identifier, a dotted name, a path: code that names a secret
    if re.search(r"[()\[\]{}]", value):
        return False
    if re.fullmatch(r"[A-Za-z_][\w.]*(?:\(\))?", value) and not re.search(r"\d", value):
        return False
    if value.startswith(("/", "./", "../", "~/", "http")) and "@" not in value:
        return False
    return entropy(value) >= _MIN_ENTROPY


def _hits(text: str):
    lowered = text.lower()
    for kind, pattern, needs_random, triggers in RULES:
        if not any(t in text or t in lowered for t in triggers):
            continue
        for m in pattern.finditer(text):
            if needs_random and not _random(m.group(m.lastindex or 0)):
                continue
            yield kind, m


def find_secret(text: str | bytes) -> str | None:
    """What kind of secret the text holds (the first rule that matches), or None."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return next((kind for kind, _ in _hits(text)), None)


def _written_hits(text: str):
    lowered = text.lower()
    for kind, pattern, test, triggers in WRITTEN:
        if any(t in text or t in lowered for t in triggers):
            yield from ((kind, m) for m in pattern.finditer(text) if _TESTS[test](m.group(m.lastindex)))


def mask_secrets(text: str) -> tuple[str, list[str]]:
    """The text with each secret replaced by ``[secret removed: kind]``, and the kinds removed: what
    ``find_secret`` finds and what a person writes down (``WRITTEN``)."""
    spans = []
    for kind, m in (*_hits(text), *_written_hits(text)):
        start, end = m.span(m.lastindex) if m.lastindex else m.span()
        spans.append((start, end, kind))
    if not spans:
        return text, []
    out, at, kinds = [], 0, []
    for start, end, kind in sorted(spans):
        if start < at:  # overlaps one already masked
            continue
        out += [text[at:start], f"[secret removed: {kind}]"]
        at = end
        kinds.append(kind)
    return "".join(out) + text[at:], kinds
