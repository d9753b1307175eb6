"""What the Engine gives a component that writes: its write section, and what a write must leave behind."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, ContextManager


@dataclass(frozen=True)
class Writes:
    """The Engine's write interface, as a component that writes is given it.

    section(): the write section every write runs in (this process's lock and the data directory's lock file;
    an unfinished write of a killed process undone and other processes' writes caught up first).
    log_change(memories=, entities=, relations=, full=): record what a write changed, inside its LanceDB
    transaction, for other processes to catch up on. after_write(): what follows every write (upkeep, the
    change marker other processes look at, the reads kept between writes dropped). now(): the time a write is
    stamped with. catch_up(): bring this process's views up to other processes' writes before a read.
    """

    section: Callable[[], ContextManager[None]]
    log_change: Callable[..., None]
    after_write: Callable[[], None]
    now: Callable[[], float]
    catch_up: Callable[[], None]
