"""Walk a project: honour .gitignore and .memorygraphignore, skip what must never be indexed, detect languages."""

from __future__ import annotations

import fnmatch
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from memory_graph.errors import ValidationError

from .languages import DATA_LANGUAGES, MINIFIED_LANGUAGES, detect_language

#: folders never entered: vendored code, build output, caches, VCS metadata.
SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", "node_modules", "bower_components", "vendor", ".venv", "venv", "env",
    "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox", ".nox", "dist", "build", "target",
    "out", ".next", ".nuxt", ".cache", ".gradle", ".idea", ".vscode", "coverage", "htmlcov", ".eggs",
    "site-packages", ".terraform", "Pods", "DerivedData", ".memory-graph", ".hypothesis",
})
#: TypeScript's and JavaScript's project configs, which may declare module aliases
MODULE_CONFIG = re.compile(r"^(?:tsconfig|jsconfig)(?:\.[\w.-]+)?\.json$")
#: file names and patterns that look like secrets: never read, never indexed.
SECRET_PATTERNS = (
    ".env", ".env.*", "*.env", ".envrc", "*.pem", "*.key", "*.p12", "*.pfx", "*.crt", "*.cer", "*.der",
    "*.jks", "*.keystore", "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", ".netrc", ".pgpass", ".npmrc",
    ".pypirc", "credentials", "credentials.json", "*.secret", "*secrets.y*ml", "*.gpg", "*.asc",
    "service-account*.json", ".htpasswd",
)
#: generated files: minified bundles, lock files, maps.
GENERATED_PATTERNS = ("*.min.js", "*.min.mjs", "*.min.cjs", "*.min.css", "*.map", "*.lock", "package-lock.json",
                      "npm-shrinkwrap.json", "pnpm-lock.yaml", "go.sum", "Package.resolved", "*.pb.go", "*_pb2.py",
                      "*.generated.*", "*.snap")
#: a minified file's lines average more than this many bytes (Linguist's threshold)
MINIFIED_MEAN_LINE = 110
#: a data file's start has fewer letters than this fraction of its characters: numbers, not words. In the
#: 10,100 files of the 17 real project folders benchmarks/probes/scan_probe.py names (Django, Flask, rich, zod, rxjs,
#: React Native, client_golang, Rust crates, ...) three are below it, test data of Django's (coordinates;
#: rasters/raster.numpy.txt, 0.04 letters, would be 1,740 chunks); one CSS file is minified
DATA_MAX_LETTERS = 0.15
#: files smaller than this are never judged minified or data by their start (a one-line barrel file stays)
GENERATED_MIN_BYTES = 4096
BINARY_EXTENSIONS = frozenset({
    ".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico", ".webp", ".pdf", ".zip", ".gz", ".tgz", ".bz2", ".xz",
    ".7z", ".rar", ".jar", ".war", ".class", ".so", ".dylib", ".dll", ".exe", ".o", ".a", ".pyc", ".pyd",
    ".whl", ".bin", ".dat", ".db", ".sqlite", ".parquet", ".lance", ".npy", ".npz", ".pt", ".onnx", ".mp3",
    ".mp4", ".wav", ".mov", ".woff", ".woff2", ".ttf", ".otf", ".eot", ".psd",
})


@dataclass
class SourceFile:
    """A file the indexer should read."""

    path: str          # relative to the root, with forward slashes
    abspath: Path
    language: str
    size: int
    mtime: float


@dataclass
class ScanResult:
    root: Path
    files: list[SourceFile] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)
    #: relative path -> reason, for the first skipped files (for diagnostics; counted in ``skipped``)
    examples: dict[str, str] = field(default_factory=dict)
    #: relative paths of the tsconfig*.json and jsconfig*.json files seen (codebase.tsconfig reads their aliases)
    configs: list[str] = field(default_factory=list)

    def skip(self, path: str, reason: str) -> None:
        self.skipped[reason] += 1
        if len(self.examples) < 200:
            self.examples[path] = reason


def not_a_project(folder: Path) -> str | None:
    """Why a folder is no project to index whole, or None: a home folder or the file system's root holds
    everything (an hour of embedding, and every secret a name pattern misses)."""
    try:
        home = Path.home().resolve()
    except (RuntimeError, OSError):  # no HOME
        home = None
    if folder == home:
        return "the home folder"
    if folder == Path(folder.anchor):
        return "the file system's root"
    return None


def check_root(path: str | os.PathLike) -> Path:
    """The resolved project folder. Raises ValidationError if it does not exist, is not a folder, or is a home
    folder or the file system's root."""
    root = Path(path).expanduser()
    try:
        exists, is_dir = root.exists(), root.is_dir()
    except (OSError, ValueError):  # a name too long for the file system, a NUL byte
        exists = is_dir = False
    if not exists:
        raise ValidationError(f"{str(path)[:200]} does not exist", hint="give the path of a project folder")
    if not is_dir:
        raise ValidationError(f"{path} is a file, not a folder", hint="give the folder that contains it")
    root = root.resolve()
    if why := not_a_project(root):
        raise ValidationError(f"{root} is {why}, not a project to index",
                              hint="give a project's folder: a git repository, or the folder holding its code")
    return root


def _ignore_spec(folder: Path) -> pathspec.PathSpec | None:
    lines: list[str] = []
    for name in (".gitignore", ".memorygraphignore"):
        try:
            lines += (folder / name).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
    return pathspec.PathSpec.from_lines("gitwildmatch", lines) if lines else None


def _matches(name: str, patterns: tuple[str, ...]) -> bool:
    low = name.lower()
    return any(fnmatch.fnmatchcase(low, p) for p in patterns)


def looks_binary(head: bytes) -> bool:
    """A NUL byte in the first 8 KiB, or mostly non-text bytes."""
    if not head:
        return False
    if b"\x00" in head:
        return True
    text_bytes = bytes(range(32, 127)) + b"\n\r\t\f\b"
    nontext = sum(1 for b in head if b not in text_bytes and b < 128)
    return nontext / len(head) > 0.3


def machine_made(language: str, head: bytes) -> str | None:
    """Why a file's start (its first 8 KiB) says no one wrote it to be read: "minified" JavaScript or CSS
    (lines over ``MINIFIED_MEAN_LINE`` bytes on average), "data" (text, JSON, YAML, ... with under
    ``DATA_MAX_LETTERS`` letters: numbers); else None."""
    if language in MINIFIED_LANGUAGES and len(head) / (head.count(b"\n") + 1) > MINIFIED_MEAN_LINE:
        return "minified"
    if language in DATA_LANGUAGES:
        text = head.decode("utf-8", errors="replace")
        if sum(ch.isalpha() for ch in text) < DATA_MAX_LETTERS * len(text):
            return "data"
    return None


def scan(root: str | os.PathLike, max_file_bytes: int = 1_000_000, extra_skip_dirs: tuple[str, ...] = (),
         max_notebook_bytes: int = 20_000_000) -> ScanResult:
    """Every indexable file under ``root``, with counts of what was skipped and why.

    Skipped: ignored (.gitignore, .memorygraphignore, nested ones too), vendored or build folders, secrets,
    generated (by name), minified or data (by their start), binary, too large, unknown type, unreadable,
    symlink loops and links leaving the root.
    """
    base = check_root(root)
    result = ScanResult(base)
    skip_dirs = SKIP_DIRS | set(extra_skip_dirs)
    seen_dirs: set[tuple[int, int]] = set()
    # (folder, rel prefix, [(spec, rel of the folder that owns the spec)])
    stack: list[tuple[Path, str, list[tuple[pathspec.PathSpec, str]]]] = [(base, "", [])]
    while stack:
        folder, rel, specs = stack.pop()
        try:
            st = folder.stat()
            if (st.st_dev, st.st_ino) in seen_dirs:
                result.skip(rel or ".", "symlink_loop")
                continue
            seen_dirs.add((st.st_dev, st.st_ino))
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            result.skip(rel or ".", "unreadable")
            continue
        own = _ignore_spec(folder)
        specs = specs + [(own, rel)] if own else specs
        subdirs = []
        for entry in entries:
            relpath = f"{rel}{entry.name}"
            try:
                is_link = entry.is_symlink()
                is_dir = entry.is_dir()
            except OSError:
                result.skip(relpath, "unreadable")
                continue
            if _ignored(specs, relpath, is_dir):
                result.skip(relpath, "ignored")
                continue
            if is_dir:
                if entry.name in skip_dirs or entry.name.endswith(".egg-info"):
                    result.skip(relpath, "vendored_or_build")
                    continue
                if is_link:
                    target = Path(entry.path).resolve()
                    if not target.is_relative_to(base):
                        result.skip(relpath, "outside_root")
                        continue
                subdirs.append((Path(entry.path), relpath + "/", specs))
                continue
            _consider(result, entry, relpath, is_link, base,
                      max_notebook_bytes if entry.name.endswith(".ipynb") else max_file_bytes)
        stack.extend(reversed(subdirs))
    result.files.sort(key=lambda f: f.path)
    return result


def _ignored(specs: list[tuple[pathspec.PathSpec, str]], relpath: str, is_dir: bool) -> bool:
    for spec, owner in specs:
        sub = relpath[len(owner):]
        if spec.match_file(sub + ("/" if is_dir else "")):
            return True
    return False


def _consider(result: ScanResult, entry: os.DirEntry, relpath: str, is_link: bool, base: Path,
              max_file_bytes: int) -> None:
    name = entry.name
    if _matches(name, SECRET_PATTERNS):
        result.skip(relpath, "secret")
        return
    if _matches(name, GENERATED_PATTERNS):
        result.skip(relpath, "generated")
        return
    if Path(name).suffix.lower() in BINARY_EXTENSIONS:
        result.skip(relpath, "binary")
        return
    try:
        if is_link and not Path(entry.path).resolve().is_relative_to(base):
            result.skip(relpath, "outside_root")
            return
        st = entry.stat()
        if not entry.is_file():
            result.skip(relpath, "not_a_file")
            return
        if st.st_size > max_file_bytes:
            result.skip(relpath, "too_large")
            return
        with open(entry.path, "rb") as fh:
            head = fh.read(8192)
    except OSError:
        result.skip(relpath, "unreadable")
        return
    if looks_binary(head):
        result.skip(relpath, "binary")
        return
    if MODULE_CONFIG.match(name):
        result.configs.append(relpath)
    lang = detect_language(relpath, head)
    if lang is None:
        result.skip(relpath, "unknown_type")
        return
    if st.st_size >= GENERATED_MIN_BYTES and (why := machine_made(lang, head)):
        result.skip(relpath, why)
        return
    result.files.append(SourceFile(relpath, Path(entry.path), lang, st.st_size, st.st_mtime))
