"""Which older facts a new memory probably updates (mixed into the Engine): the store-time side of the rule a
search ranks the latest first with (retrieval/updates.py)."""

from __future__ import annotations

import numpy as np

from .models import Filters
from .retrieval.updates import says_change, update_pairs
from .store import sql_filter
from .validation import check_ids


class UpdatesMixin:
    """``may_update``: uses the Engine's config, locks, graph, describe and nearest-memory search."""

    def may_update(self, memory_id: str, limit: int = 3) -> list[tuple[str, float]]:
        """Older facts of the same project that this memory probably updates, by the rule a search ranks the
        latest first with (retrieval/updates.py: a specific entity in common, an older evergreen memory, and a
        cosine of update_min_cosine, or update_marked_cosine when this one says that something changed), most
        alike first: for the caller to retire with ``invalidate(old, superseded_by=new)``."""
        check_ids([memory_id])
        c = self.config
        if c.update_marked_cosine > 1 or limit <= 0:
            return []
        with self._lock:
            self._sync_with_others(locked=False)
        mine = self._describe([memory_id]).get(memory_id)
        if mine is None or not mine.subjects:
            return []
        with self._graph_lock:
            project = self.graph.attrs(memory_id).project if memory_id in self.graph else None
        filters, now = Filters(project=project or "", include_global=False), self._now()
        ids, sims = self._nearest_memories(np.asarray(mine.vector), filters, sql_filter(filters, now), now, 10)
        near = {i: s for i, s in zip(ids, sims) if i != memory_id and s >= c.update_marked_cosine}
        if not near:
            return []
        info = {**self._describe(list(near)), memory_id: mine}
        pairs = [(old, cos) for old, new, cos in update_pairs(info, c.update_marked_cosine) if new == memory_id]
        if not pairs:
            return []
        changed = any(cos < c.update_min_cosine for _, cos in pairs) and \
            says_change(self._texts([memory_id]).get(memory_id, ""))
        found = [(old, round(cos, 3)) for old, cos in pairs if cos >= c.update_min_cosine or changed]
        return sorted(found, key=lambda t: -t[1])[:limit]
