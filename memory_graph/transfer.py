"""Export and import as JSON Lines: every record with its vector, so a round trip loses nothing."""

from __future__ import annotations

import json
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from .errors import ValidationError
from .records import embed_text, entity_text, passage_rows

if TYPE_CHECKING:
    from .config import Config
    from .embedding import Embedder
    from .store import LanceStore, TextIndex

Progress = Callable[[int, int], None]
KINDS = ("meta", "memories", "entities", "relations", "mentions")
BATCH = 500


class Transfer:
    """Export and import of the memory records (the code index is not exported).

    ``embedder()`` gives the Engine's model; ``writing()`` is the Engine's write section (its locks, and the
    catch-up with other processes); ``log_full_change()`` tells other processes to reload (inside the
    import's transaction) and ``reload()`` rebuilds this process's derived state after it.
    """

    def __init__(self, config: Config, lance: LanceStore, text: TextIndex, embedder: Callable[[], Embedder],
                 writing: Callable[[], AbstractContextManager], log_full_change: Callable[[], None],
                 reload: Callable[[], None]) -> None:
        self.config, self.lance, self.text = config, lance, text
        self._embedder, self._writing, self._log_full_change, self._reload = embedder, writing, log_full_change, reload

    def export(self, path: str | Path, progress: Progress | None = None) -> dict:
        """Write the memories, entities, relations and mentions (vectors included) to a JSON Lines file; the code
        index is not exported. Returns counts per kind."""
        path = Path(path)
        counts = {}
        total = sum(self.lance.count(k) for k in KINDS[1:])
        done = 0
        tmp = path.with_name(path.name + ".tmp")
        try:
            f = tmp.open("w", encoding="utf-8")
        except (OSError, ValueError) as exc:
            raise ValidationError(f"cannot write {str(path)[:200]}: {getattr(exc, 'strerror', None) or exc}",
                                  hint="give a writable file path") from None
        with f:
            embedder = self._embedder()
            f.write(json.dumps({"_table": "meta", "format": "memory-graph/1", "model": embedder.name,
                                "dimension": embedder.dimension}) + "\n")
            for kind in KINDS[1:]:
                rows = self.lance.query(kind).to_pylist()
                for r in rows:
                    f.write(json.dumps({"_table": kind, **r}, ensure_ascii=False) + "\n")
                counts[kind] = len(rows)
                done += len(rows)
                if progress:
                    progress(done, total)
        tmp.replace(path)
        return counts

    def import_(self, path: str | Path, progress: Progress | None = None) -> dict:
        """Load a file written by export. Records whose id exists are skipped. Vectors are reused when the
        file's model is this engine's model, else the texts are re-embedded."""
        path = Path(path)
        try:
            is_file = path.is_file()
        except (OSError, ValueError):  # a name too long for the file system, a NUL byte
            is_file = False
        if not is_file:
            raise ValidationError(f"{str(path)[:200]} is not a file", hint="give the path of an export file")
        data: dict[str, list[dict]] = {k: [] for k in KINDS}
        with path.open(encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                    kind = rec.pop("_table")
                except (ValueError, KeyError, AttributeError):
                    raise ValidationError(f"{path}:{n} is not a memory-graph export line") from None
                if kind not in data:
                    raise ValidationError(f"{path}:{n}: unknown kind {kind!r}")
                data[kind].append(rec)
        meta = data["meta"][0] if data["meta"] else {}
        embedder = self._embedder()
        same_model = meta.get("model") == embedder.name and meta.get("dimension") == embedder.dimension
        total = sum(len(data[k]) for k in KINDS[1:])
        done = 0
        counts = {}
        with self._writing():
            # one write: a kill part-way leaves nothing of the file (the next writer undoes it) where a write per
            # batch left memories without the entity links and passages of later batches, for good, as a
            # re-run skips the ids already there
            with self.lance.transaction(KINDS[1:] + ("passages",)):
                for kind in KINDS[1:]:
                    rows = data[kind]
                    have = set(self.lance.by_ids(kind, [r["id"] for r in rows], ["id"]).column("id").to_pylist())
                    rows = [r for r in rows if r["id"] not in have]
                    if kind in ("memories", "entities") and rows and not same_model:
                        texts = [embed_text(r["title"], r["content"]) if kind == "memories"
                                 else entity_text(r) for r in rows]
                        for r, v in zip(rows, embedder.encode(texts)):
                            r["vector"] = [float(x) for x in v]
                    for start in range(0, len(rows), BATCH):
                        part = rows[start:start + BATCH]
                        if kind == "memories":
                            self.lance.add("passages", passage_rows(
                                embedder, self.config,
                                [(r["id"], embed_text(r["title"], r["content"])) for r in part]))
                        self.lance.add(kind, part)
                        if kind == "memories":
                            self.text.write(upserts=[(r, "memory") for r in part])
                        done += len(part)
                        if progress:
                            progress(done, total)
                    done += len(data[kind]) - len(rows)
                    counts[kind] = len(rows)
                self._log_full_change()  # other processes reload their graph whole
            self._reload()
        return counts
