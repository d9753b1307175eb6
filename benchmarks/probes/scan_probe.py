"""python -m benchmarks.probes.scan_probe ROOT...: what the code scanner keeps and skips in real projects, and why.

For each folder, the files the indexer would read and the skips by reason (codebase.scanner.scan), then every
file skipped as "minified" or "data" (judged by its start, not its name: the rules most likely to drop a file
someone wrote), and the chunks the chunker would have made of it. The totals line adds the folders up.
Nothing is embedded or written.

The figures in codebase/scanner.py and the README (10,100 files, four skipped by their start, all Django's)
come from one run over 17 folders: the PyPI sdists of Django 5.0.6, click 8.1.7, requests 2.32.3, Flask 3.0.3,
rich 13.7.1, starlette 0.38.6, aiohttp 3.10.5, httpx 0.27.2, redis 5.0.8, pythonnet 3.0.3 and lupa 2.8; the
`npm pack` folders of @tanstack/query-core 5.59.0, zod 3.23.8, rxjs 7.8.1 and react-native 0.76.9; Debian's
golang-github-prometheus-client-golang-dev 1.14.0 (its client_golang folder) and the cargo registry folder
that librust-grep-searcher-dev 0.1.10, librust-h2-dev 0.3.13, librust-hyper-dev 0.14.19 and
librust-serde-json-dev 1.0.87 unpack to.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from codebase import scanner
from codebase.chunker import parse_file
from codebase.indexer import decode
from codebase.languages import detect_language

#: the reasons judged from a file's start
BY_CONTENT = ("minified", "data")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.probes.scan_probe", description=__doc__.split("\n")[0])
    ap.add_argument("roots", nargs="+", type=Path, help="Project folders to scan.")
    args = ap.parse_args(argv)
    total: Counter = Counter()
    for root in args.roots:
        judged: list[tuple[str, str]] = []
        skip = scanner.ScanResult.skip

        def noting(self, path: str, reason: str, _judged=judged, _skip=skip) -> None:
            if reason in BY_CONTENT:
                _judged.append((path, reason))
            _skip(self, path, reason)

        scanner.ScanResult.skip = noting
        try:
            res = scanner.scan(root)
        finally:
            scanner.ScanResult.skip = skip
        total.update(files=len(res.files), **res.skipped)
        print(f"{root}: {len(res.files)} files; skipped " +
              ", ".join(f"{k} {v}" for k, v in sorted(res.skipped.items())))
        for path, reason in judged:
            text, _ = decode((res.root / path).read_bytes())
            chunks = len(parse_file(path, text, detect_language(path) or "text").chunks)
            print(f"  {reason}: {path} ({chunks} chunks)")
            total["chunks not made"] += chunks
    print("total: " + ", ".join(f"{k} {v}" for k, v in sorted(total.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
