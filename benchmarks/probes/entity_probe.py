"""python -m benchmarks.probes.entity_probe: precision and recall of entity extraction (linking.extract) and of
definitions (linking.aliases) on the hand-labelled notes of benchmarks/devnotes/entities.txt, matched by normal
form (linking.norm). Lists what was missed and what was extracted beyond the labels."""

from __future__ import annotations

import argparse


def main(argv=None) -> int:
    argparse.ArgumentParser(prog="python -m benchmarks.probes.entity_probe", description=__doc__).parse_args(argv)
    from memory_graph.linking import aliases, extract, norm

    from ..devnotes import FOLDER, load_notes

    notes = {d.id: d.text for d in load_notes()}
    found = labelled = hit = 0
    a_found = a_labelled = a_hit = 0
    missed, extra = [], []
    for line in (FOLDER / "entities.txt").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        nid, _, rest = (x.strip() for x in line.partition("|"))
        items = [x.strip() for x in rest.split(";") if x.strip()]
        want = {norm(x) for x in items if "=" not in x}
        want_alias = {tuple(norm(p) for p in x.split("=")) for x in items if "=" in x}
        got = {norm(c.name) for c in extract(notes[nid])}
        got_alias = {(norm(a), norm(b)) for a, b in aliases(notes[nid])}
        got |= {a for a, _ in got_alias}  # an alias a definition makes is an entity too
        found, labelled, hit = found + len(got), labelled + len(want), hit + len(got & want)
        a_found, a_labelled, a_hit = a_found + len(got_alias), a_labelled + len(want_alias), \
            a_hit + len(got_alias & want_alias)
        missed += [f"{nid}:{x}" for x in sorted(want - got)]
        extra += [f"{nid}:{x}" for x in sorted(got - want)]
    print(f"entities: {labelled} labelled, {found} extracted; precision {hit / max(found, 1):.3f}, "
          f"recall {hit / max(labelled, 1):.3f}")
    print(f"definitions: {a_labelled} labelled, {a_found} found; precision {a_hit / max(a_found, 1):.3f}, "
          f"recall {a_hit / max(a_labelled, 1):.3f}")
    print("missed:", " ".join(missed))
    print("beyond the labels:", " ".join(extra))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
