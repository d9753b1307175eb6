"""The secret fixture of tests/test_secrets.py through memory-graph's scanner and through detect-secrets (Yelp's,
from PyPI, default plugins), the maintained rule set the scanner was measured against.

    pip install detect-secrets && python -m benchmarks.probes.secret_scanners
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _detect_secrets(name: str, content: str) -> bool:
    from detect_secrets import SecretsCollection
    from detect_secrets.settings import default_settings

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, os.path.basename(name))  # the file name matters to some plugins
        Path(path).write_text(content)
        found = SecretsCollection()
        with default_settings():
            found.scan_file(path)
        return bool(list(found))


def main() -> None:
    sys.path[:0] = [str(ROOT / "tests")]
    from test_secrets import HARMLESS_FILES, SECRET_FILES

    from memory_graph.secrets import find_secret

    scanners = {"memory-graph": lambda name, content: find_secret(content) is not None}
    try:
        import detect_secrets  # noqa: F401
        from importlib.metadata import version

        scanners[f"detect-secrets {version('detect-secrets')}"] = _detect_secrets
    except ImportError:
        print("detect-secrets is not installed (pip install detect-secrets): measuring memory-graph's alone")
    print(f"{'scanner':<24} {'secrets caught':>15} {'false positives':>16}")
    for label, flagged in scanners.items():
        caught = sum(flagged(n, c) for n, c in SECRET_FILES)
        false = sum(flagged(n, c) for n, c in HARMLESS_FILES)
        print(f"{label:<24} {caught:>9} of {len(SECRET_FILES):<3} {false:>10} of {len(HARMLESS_FILES):<3}")


if __name__ == "__main__":
    main()
