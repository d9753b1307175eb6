"""A past period a query asks about ("in March", "last month", "in 2025-04"), and the stage that favours the
memories written in it. Pure functions; ``now`` is an argument."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import Mapping

_MONTHS = {m: i for i, names in enumerate((
    ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
    ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
    ("december", "dec")), start=1) for m in names}
# a month is read as one only where it cannot be an ordinary word: "May" capitalised, not the verb "may"
_MONTH = re.compile(r"\b(?:in|during|of|since|before|after|until|by|early|late|mid|last)?\s*"
                    r"(January|February|March|April|May|June|July|August|September|October|November|December|"
                    r"Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\b\.?(?:\s+(\d{4}))?")
_ISO = re.compile(r"\b(\d{4})-(\d{2})(?:-(\d{2}))?\b")
_RELATIVE = re.compile(r"\b(last|previous|this) (week|month|year)\b|\byesterday\b", re.IGNORECASE)


def _month_span(year: int, month: int) -> tuple[float, float]:
    start = datetime(year, month, 1, tzinfo=timezone.utc)
    end = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=timezone.utc)
    return start.timestamp(), end.timestamp()


def asked_period(query: str, now: float) -> tuple[float, float] | None:
    """The [start, end) in epoch seconds of the past period a query names, or None.

    A month without a year is its latest occurrence that has begun by ``now``; "this month" or "this year" is
    no past period. Only the first period named counts.
    """
    today = datetime.fromtimestamp(now, timezone.utc)
    m = _ISO.search(query)
    if m and 1 <= int(m.group(2)) <= 12:
        year, month, day = int(m.group(1)), int(m.group(2)), m.group(3)
        if day:
            try:
                start = datetime(year, month, int(day), tzinfo=timezone.utc)
            except ValueError:
                return None
            return start.timestamp(), (start + timedelta(days=1)).timestamp()
        return _month_span(year, month)
    m = _MONTH.search(query)
    if m:
        month = _MONTHS[m.group(1).lower().rstrip(".")]
        year = int(m.group(2)) if m.group(2) else today.year - (month > today.month)
        start, end = _month_span(year, month)
        return (start, end) if start <= now else None
    m = _RELATIVE.search(query)
    if m:
        if m.group(0).lower() == "yesterday":
            day = today.replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(days=1)
            return day.timestamp(), (day + timedelta(days=1)).timestamp()
        which, unit = m.group(1).lower(), m.group(2).lower()
        if which == "this":
            return None
        if unit == "week":
            return (today - timedelta(days=14)).timestamp(), (today - timedelta(days=7)).timestamp()
        if unit == "month":
            year, month = (today.year, today.month - 1) if today.month > 1 else (today.year - 1, 12)
            return _month_span(year, month)
        return datetime(today.year - 1, 1, 1, tzinfo=timezone.utc).timestamp(), \
            datetime(today.year, 1, 1, tzinfo=timezone.utc).timestamp()
    return None


def period_factors(created: Mapping[str, float], period: tuple[float, float], boost: float) -> dict[str, float]:
    """1 + ``boost`` for each memory written within ``period``, 1 for the others."""
    start, end = period
    return {d: (1.0 + boost if start <= t < end else 1.0) for d, t in created.items()}
