"""Checks on caller input: each failure is a ValidationError that says how to fix it."""

from __future__ import annotations

import logging
import math
import re
from datetime import date, datetime, timezone

from .config import Config
from .errors import ValidationError
from .models import MEMORY_TYPES, Filters, Memory, content_hash, iso, new_id
from .secrets import mask_secrets
from .text import derive_title

log = logging.getLogger(__name__)

_TYPE_RE = re.compile(r"^[a-z][a-z0-9_\-]{0,39}$")


def parse_time(value, name: str = "time") -> float | None:
    """Accept None, epoch seconds, a datetime/date, or an ISO 8601 string; return epoch seconds (UTC)."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise ValidationError(f"{name} must be a date, not a boolean")
    if isinstance(value, (int, float)):
        if not math.isfinite(value) or abs(value) > 1e11:
            raise ValidationError(f"{name}={value!r} is out of range", hint="use epoch seconds or ISO 8601")
        return float(value)
    if isinstance(value, datetime):
        dt = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
        return dt.timestamp()
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=timezone.utc).timestamp()
    if isinstance(value, str):
        text = value.strip()
        if text.lower() == "now":
            return datetime.now(timezone.utc).timestamp()
        try:
            dt = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            raise ValidationError(
                f"{name}={value[:60]!r} is not a valid date",
                hint="use ISO 8601, e.g. 2024-05-01 or 2024-05-01T12:30:00Z",
            ) from None
        return parse_time(dt, name)
    raise ValidationError(f"{name} must be a date string or epoch seconds, not {type(value).__name__}")


def check_span(start: float | None, end: float | None, names: str = "valid_from and valid_until") -> None:
    """Raise ValidationError when a span's end (epoch seconds) is not later than its start."""
    if start is not None and end is not None and end <= start:
        first, second = names.split(" and ")
        shown = [iso(t).replace("+00:00", "Z") for t in (end, start)]
        raise ValidationError(f"{second} ({shown[0]}) must be later than {first} ({shown[1]})",
                              hint="swap them, or leave one out")


_PRIVATE = re.compile(r"<private>.*?(?:</private>|\Z)", re.IGNORECASE | re.DOTALL)


def strip_private(text: str) -> str:
    """Remove every <private>...</private> span (an unclosed tag hides the rest of the text)."""
    return _PRIVATE.sub("", text) if "<private>" in text.lower() else text


def check_content(content, config: Config) -> str:
    if not isinstance(content, str):
        raise ValidationError(f"content must be a string, not {type(content).__name__}")
    if "\x00" in content:
        content = content.replace("\x00", "")
    had_private = "<private>" in content.lower()
    content = strip_private(content)
    content, masked = mask_secrets(content)  # a key or a password pasted into a note is never stored
    if masked:
        log.warning("stored content with %d secret(s) masked: %s", len(masked), ", ".join(sorted(set(masked))))
    if not content.strip():
        if had_private:
            raise ValidationError("content is empty once <private>...</private> parts are removed",
                                  hint="text inside <private> tags is never stored")
        raise ValidationError("content is empty", hint="store some text")
    if len(content) > config.max_content_chars:
        raise ValidationError(
            f"content has {len(content):,} characters; the limit is {config.max_content_chars:,}",
            hint="split it into several memories or raise max_content_chars",
        )
    return encodable(content)


def clean_title(title: str) -> str:
    """A title as it is stored: encodable, without its <private> parts, its secrets masked, stripped."""
    return mask_secrets(strip_private(encodable(title)))[0].strip()


def encodable(text: str) -> str:
    """The text with each lone surrogate (a shell's undecodable byte, a broken escape) replaced by "?": no
    store, nor the model's tokenizer, can encode one."""
    return text.encode("utf-8", "replace").decode("utf-8")


def check_query(query, config: Config) -> str:
    if not isinstance(query, str):
        raise ValidationError(f"query must be a string, not {type(query).__name__}")
    if not query.strip():
        raise ValidationError("query is empty", hint="pass the words to search for")
    if len(query) > config.max_query_chars:
        raise ValidationError(f"query has {len(query):,} characters; the limit is {config.max_query_chars:,}")
    return query.replace("\x00", "").encode("utf-8", "replace").decode("utf-8")


def check_limit(limit, config: Config, name: str = "limit") -> int:
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise ValidationError(f"{name} must be an integer, not {type(limit).__name__}")
    if limit < 1 or limit > config.max_limit:
        raise ValidationError(f"{name}={limit} is out of bounds", hint=f"use 1..{config.max_limit}")
    return limit


def check_offset(offset) -> int:
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise ValidationError(f"offset must be an integer >= 0, got {offset!r}")
    return offset


def check_type(memory_type, name: str = "memory_type") -> str:
    if not isinstance(memory_type, str) or not _TYPE_RE.match(memory_type):
        raise ValidationError(
            f"{name}={memory_type!r} is not valid",
            hint=f"use a lowercase word such as {', '.join(MEMORY_TYPES)}",
        )
    return memory_type


def check_tags(tags, config: Config) -> list[str]:
    if tags is None:
        return []
    if isinstance(tags, str):
        tags = [t for t in re.split(r"[,\s]+", tags) if t]
    if not isinstance(tags, (list, tuple)) or not all(isinstance(t, str) for t in tags):
        raise ValidationError("tags must be a list of strings")
    out: list[str] = []
    for t in tags:
        t = check_text(t.strip().lower(), "tag")
        if not t:
            continue
        if len(t) > 100:
            raise ValidationError(f"tag {t[:30]!r}... is longer than 100 characters")
        if t not in out:
            out.append(t)
    if len(out) > config.max_tags:
        raise ValidationError(f"{len(out)} tags; the limit is {config.max_tags}")
    return out


def check_importance(importance) -> int:
    if isinstance(importance, bool) or not isinstance(importance, int) or not 1 <= importance <= 10:
        raise ValidationError(f"importance must be an integer from 1 to 10, got {importance!r}")
    return importance


def check_text(value: str, name: str) -> str:
    """Reject strings no store can hold: NUL characters and lone surrogates (not encodable as UTF-8)."""
    if "\x00" in value:
        raise ValidationError(f"{name} contains a NUL character")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValidationError(f"{name} is not valid Unicode text (a lone surrogate)") from None
    return value


def check_name(value, name: str, max_len: int = 200) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"{name} must be a non-empty string")
    value = check_text(value.strip(), name)
    if len(value) > max_len:
        raise ValidationError(f"{name} is longer than {max_len} characters")
    return value

def check_names(values, name: str) -> tuple[str, ...]:
    """A filter of one string or several: a tuple of them, each checked as text (empty when None)."""
    if values is None:
        return ()
    if isinstance(values, str):
        values = [values]
    if not all(isinstance(v, str) and v for v in values):
        raise ValidationError(f"{name} must be a list of non-empty strings")
    return tuple(check_text(v, name) for v in values)



def check_filter(value, name: str) -> str | None:
    """An optional filter string: None when empty, else valid text of at most 1,000 characters."""
    if value is None or value == "":
        return None
    if not isinstance(value, str) or len(value) > 1_000:
        raise ValidationError(f"{name} must be a string of at most 1,000 characters")
    return check_text(value, name)


def check_ids(ids, name: str = "ids") -> list[str]:
    if isinstance(ids, str):
        ids = [ids]
    if not isinstance(ids, (list, tuple)) or not all(isinstance(i, str) and i.strip() for i in ids):
        raise ValidationError(f"{name} must be a list of non-empty id strings")
    if not ids:
        raise ValidationError(f"{name} is empty", hint="pass at least one id")
    if len(ids) > 10_000:
        raise ValidationError(f"too many {name} ({len(ids)}); the limit is 10,000")
    return list(dict.fromkeys(check_text(i.strip(), name) for i in ids))


def check_optional_text(value, name: str) -> str:
    """An optional short string field (project, source): stripped, valid text, at most 2,000 characters."""
    if value is None:
        return ""
    if not isinstance(value, str) or len(value) > 2_000:
        raise ValidationError(f"{name} must be a string of at most 2,000 characters")
    return check_text(value.strip(), name)


def prepare_memory(item: dict, now: float, config: Config) -> tuple[Memory, list[str]]:
    """A memory to store from one item of ``store_many`` (stored at ``now`` unless it says when), and the
    entity names it asks to link. Raises ValidationError naming what is wrong; nothing is written."""
    if not isinstance(item, dict):
        raise ValidationError("each memory must be an object with at least 'content'")
    unknown = set(item) - {"content", "memory_type", "title", "tags", "importance", "project", "source",
                           "metadata", "entities", "valid_from", "valid_until", "created_at", "id"}
    if unknown:
        raise ValidationError(f"unknown field(s): {', '.join(sorted(unknown))}")
    content = check_content(item.get("content"), config)
    title = item.get("title") or ""
    if not isinstance(title, str) or len(title) > config.max_title_chars:
        raise ValidationError(f"title must be a string of at most {config.max_title_chars} characters")
    title = clean_title(title) or derive_title(content)
    metadata = item.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise ValidationError("metadata must be a JSON object")
    created = parse_time(item.get("created_at"), "created_at") or now
    m = Memory(
        id=item.get("id") or new_id("mem"), content=content,
        memory_type=check_type(item.get("memory_type") or "episodic"), title=title.strip(),
        tags=check_tags(item.get("tags"), config), importance=check_importance(item.get("importance", 5)),
        project=check_optional_text(item.get("project"), "project"), source=check_optional_text(item.get("source"), "source"),
        metadata=metadata, created_at=created, updated_at=created,
        valid_from=parse_time(item.get("valid_from"), "valid_from"),
        valid_until=parse_time(item.get("valid_until"), "valid_until"), content_hash=content_hash(content))
    check_span(m.valid_from, m.valid_until)
    ents = item.get("entities") or []
    if isinstance(ents, str) or not all(isinstance(e, str) and e.strip() for e in ents):
        raise ValidationError("entities must be a list of entity names or ids")
    return m, [e.strip() for e in ents]


def check_filters(config: Config, project, types, tags, created_after, created_before, as_of, include_invalid,
                  include_global: bool = True) -> Filters:
    """A search's or a listing's filters, validated (times parsed, the project stripped, types and tags
    checked)."""
    if isinstance(types, str):
        types = [types]
    if project is not None and not isinstance(project, str):
        raise ValidationError("project must be a string")
    after, before = parse_time(created_after, "created_after"), parse_time(created_before, "created_before")
    check_span(after, before, "created_after and created_before")
    return Filters(
        project=check_text(project.strip(), "project") if project is not None else None,
        include_global=include_global,
        types=tuple(check_type(t) for t in (types or ())), tags=tuple(check_tags(tags, config)),
        created_after=after, created_before=before,
        as_of=parse_time(as_of, "as_of"), include_invalid=bool(include_invalid))
