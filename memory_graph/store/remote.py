"""A store on object storage: which URIs are remote, whether several machines may write to one, and where
the local, derived state of each lives.

LanceDB reads and writes its tables on S3, GCS and Azure and commits with conditional writes (a put that
fails when the object exists): two writers that commit at once then retry instead of overwriting each other.
That holds only where the object store honours them: AWS S3 since August 2024, Google Cloud Storage and Azure
Blob Storage. An S3-compatible server at another endpoint (MinIO, Ceph, R2, moto, ...) may or may not; there
the user says so (``store_conditional_writes``), or promises a single writer (``store_single_writer``).
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from urllib.parse import urlsplit

from ..errors import ConfigError

#: URI schemes LanceDB opens on object storage
REMOTE_SCHEMES = ("s3", "gs", "az")
#: the environment variables that point the S3 client at another endpoint than AWS's own
ENDPOINT_VARS = ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT")


def check_uri(uri: str) -> str:
    """The URI without a trailing slash. Raises ConfigError for anything but s3://, gs:// or az://BUCKET/PREFIX."""
    parts = urlsplit(uri.strip())
    if parts.scheme not in REMOTE_SCHEMES or not parts.netloc:
        raise ConfigError(f"store URI {uri!r} is not one memory-graph opens",
                          hint="use s3://BUCKET/PREFIX, gs://BUCKET/PREFIX or az://CONTAINER/PREFIX, or leave "
                               "MEMORY_GRAPH_STORE_URI unset for the data directory's own store")
    if parts.username or parts.password or parts.query:
        raise ConfigError(f"store URI {shown(uri)!r} carries credentials or options",
                          hint="give credentials in the standard variables (AWS_ACCESS_KEY_ID, "
                               "AWS_SECRET_ACCESS_KEY, ...), never in the URI")
    return uri.strip().rstrip("/")


def shown(uri: str) -> str:
    """The URI as it may be printed: no user or password."""
    parts = urlsplit(uri)
    host = parts.hostname or ""
    return f"{parts.scheme}://{host}{parts.path}"


def endpoint() -> str | None:
    """The S3 endpoint the environment names (an S3-compatible server), None for AWS's own."""
    return next((os.environ[v] for v in ENDPOINT_VARS if os.environ.get(v, "").strip()), None)


def conditional_writes(uri: str, setting: str) -> bool | None:
    """Whether the store behind ``uri`` refuses a conditional put of an existing object: True, False, or None
    when nobody knows (an S3-compatible server with ``setting`` "auto")."""
    if setting == "yes":
        return True
    if setting == "no":
        return False
    scheme = urlsplit(uri).scheme
    if scheme in ("gs", "az"):
        return True
    return True if endpoint() is None else None


def check_writers(uri: str, setting: str, single_writer: bool) -> None:
    """Refuse a shared store on which concurrent commits could overwrite each other, unless the user promised
    one writer at a time. Raises ConfigError saying which setting to change."""
    if single_writer or conditional_writes(uri, setting):
        return
    why = ("the object store is told not to honour conditional writes" if setting == "no" else
           f"the S3-compatible server at {endpoint()} may not honour conditional writes")
    raise ConfigError(
        f"{shown(uri)}: {why}, so two machines writing at once could overwrite each other's commits",
        hint="if the server refuses a put with If-None-Match: * on an existing object (moto does), set "
             "MEMORY_GRAPH_STORE_CONDITIONAL_WRITES=yes; if only one process writes at a time, set "
             "MEMORY_GRAPH_STORE_SINGLE_WRITER=true")


def derived_dir(data_dir: Path, uri: str) -> Path:
    """The local folder of a remote store's derived state (text index, caches, locks): one per URI under the
    data directory, so that one data directory can serve several stores and its own."""
    slug = re.sub(r"[^A-Za-z0-9]+", "-", shown(uri).split("://", 1)[1]).strip("-")[:40]
    digest = hashlib.sha256(uri.encode()).hexdigest()[:10]
    return data_dir / "stores" / f"{slug}-{digest}"


def local_dir(data_dir: Path, store_uri: str, conditional: str, single_writer: bool) -> tuple[Path, str]:
    """(the folder of the local state, the store URI or "") for a data directory and ``Config.store_uri``:
    the data directory itself for its own store; for one on object storage, that store's folder under it,
    once the URI is valid and several writers are safe on it (else ConfigError)."""
    if not store_uri.strip():
        return data_dir, ""
    uri = check_uri(store_uri)
    check_writers(uri, conditional, single_writer)
    return derived_dir(data_dir, uri), uri
