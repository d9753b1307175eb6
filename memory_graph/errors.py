"""One exception hierarchy: every error the engine raises on purpose is a MemoryGraphError."""

from __future__ import annotations


class MemoryGraphError(Exception):
    """Base class of every error memory-graph raises on purpose.

    ``hint`` says how a caller can fix the problem, when it can.
    """

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        self.message = message
        self.hint = hint
        super().__init__(f"{message} ({hint})" if hint else message)


class ValidationError(MemoryGraphError):
    """An argument is missing, malformed or out of bounds; nothing was changed."""


class NotFoundError(MemoryGraphError):
    """An id or name does not exist."""

    def __init__(self, kind: str, ids: list[str] | str, *, hint: str | None = None,
                 message: str | None = None) -> None:
        ids = [ids] if isinstance(ids, str) else list(ids)
        self.kind = kind
        self.ids = ids
        shown = ", ".join(ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
        # "unknown entity: Kestrel": a reference may be a name as well as an id
        super().__init__(
            message or (f"unknown {kind}: {shown}" if len(ids) == 1 else f"unknown {kind} ids: {shown}"),
            hint=hint or f"list or search to find valid {kind} ids",
        )


class BusyError(MemoryGraphError):
    """Another run (an index run, in this process or another) holds what the call needs; nothing was changed."""


class StoreError(MemoryGraphError):
    """A store failed during a write; the write was rolled back."""


class ConfigError(MemoryGraphError):
    """The configuration or the data directory cannot be used as given."""


class ReadOnlyError(MemoryGraphError):
    """The data directory cannot be written now (a read-only file system or directory, a full disk holding an
    unfinished write); reads still work, and nothing was changed."""
