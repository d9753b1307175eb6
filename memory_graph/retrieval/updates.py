"""Latest first: among memories about the same subject, a newer one that says much the same ranks above the
fact it updates. Pure functions over ids, scores and what the caller knows of each candidate."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Callable, Mapping

import numpy as np

from .mmr import submatrix

if TYPE_CHECKING:
    from .pipeline import Candidate

#: words with which a note says that something changed: "now", "moved to", "instead of", "was upgraded"...
#: (matched in the lowercased text, sooner than case-blind: it runs over every memory when the graph loads)
CHANGE_MARKERS = re.compile(
    r"\b(?:now|no longer|any ?more|instead(?: of)?|moved|moves|migrated|switched|replaced|changed|changes|"
    r"upgraded|downgraded|raised|lowered|increased|decreased|reduced|renamed|resized|retired|deprecated|"
    r"shut down|deleted|since|from (?:version |v)?[\w.]+ to)\b")


def says_change(text: str) -> bool:
    """Whether a text says that something changed ("sessions now live in PostgreSQL")."""
    return CHANGE_MARKERS.search(text.lower()) is not None


def update_pairs(info: Mapping[str, "Candidate"], marked_cosine: float,
                 subjects: Callable[[list[str]], Mapping[str, frozenset]],
                 similarity: tuple[Mapping[str, int], np.ndarray] | None = None) -> list[tuple[str, str, float]]:
    """(old, new, cosine) for every pair where ``new`` may update ``old``: ``old`` states a fact (an evergreen
    memory: semantic, decision, a preference...; an episode is an event, which a later one does not undo),
    ``new`` is younger, both name a specific entity in common and their cosine reaches ``marked_cosine``.
    Oldest first.

    ``subjects(ids)`` gives the specific entities each of ``ids`` names (those it leaves out name none); it is
    asked only of the candidates in a pair close enough, which on entity-rich text spares reading every
    candidate's entities. ``similarity``: the candidates' cosines when the caller has them (each id's row and
    the matrix, ``mmr.similarity_matrix``), else they are computed here.
    """
    ids = [d for d, c in info.items() if c.vector is not None]
    if len(ids) < 2:
        return []
    if similarity is not None:
        at = [similarity[0][d] for d in ids]
        cos = similarity[1] if at == list(range(len(similarity[1]))) else submatrix(similarity[1], at)
    else:
        mat = np.stack([np.asarray(info[d].vector, dtype=np.float64) for d in ids])
        mat /= np.maximum(np.linalg.norm(mat, axis=1, keepdims=True), 1e-12)
        cos = mat @ mat.T  # every pair at once: a Python loop of pairs cost a millisecond a search
    created = [info[d].created_at for d in ids]
    olds = np.flatnonzero([info[d].evergreen for d in ids])
    # the rows of the evergreen memories alone, and only the pairs close enough are looked at in Python
    when = np.asarray(created)
    rows, cols = np.nonzero((cos[olds] >= marked_cosine) & (when[None, :] > when[olds][:, None]))
    if not len(rows):
        return []
    rows = olds[rows].tolist()
    cols = cols.tolist()
    named = subjects(sorted({ids[k] for k in (*rows, *cols)}))
    empty: frozenset = frozenset()
    # the pairs with an entity in common first (a few of the close pairs on entity-rich notes), then only those
    # sorted: oldest first (by creation, then id), and each one's newer memories in the same order
    common = [(i, j) for i, j in zip(rows, cols)
              if not named.get(ids[i], empty).isdisjoint(named.get(ids[j], empty))]
    common.sort(key=lambda p: (created[p[0]], ids[p[0]], created[p[1]], ids[p[1]]))
    return [(ids[i], ids[j], float(cos[i, j])) for i, j in common]


def latest_first(scores: Mapping[str, float], pairs: list[tuple[str, str, float]], min_cosine: float,
                 changed: Mapping[str, bool], min_ratio: float = 0.0) -> tuple[dict[str, float], dict[str, str]]:
    """Scores where each memory updated by another candidate trades places with it if it scored higher.

    A pair of ``update_pairs`` is an update when its cosine reaches ``min_cosine``, or when the newer memory
    says that something changed (``changed``, from ``says_change``), and the newer one answers the query about
    as well: its score is at least ``min_ratio`` of the older one's (two notes on one service that the query
    tells apart are about different things). Pairs are taken oldest first, so of a chain
    (200 ms, then 500, then 1500) the latest comes first. Returns the new scores and, for each updated memory,
    the id of its newest update among the candidates. Only the order within a pair changes (their scores are
    swapped): the query's other results keep their places, and decay, applied before, cannot put a replaced
    memory above its replacement.
    """
    out = dict(scores)
    replaced: dict[str, str] = {}
    for old, new, cos in pairs:
        if old in out and new in out and (cos >= min_cosine or changed.get(new, False)):
            if out[new] < min_ratio * out[old]:
                continue
            if out[old] > out[new]:
                out[old], out[new] = out[new], out[old]
            replaced[old] = new
    return out, replaced
