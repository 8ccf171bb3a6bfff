"""Where a checkpoint lives: a local folder, HDFS through WebHDFS (fsspec's filesystem), or an
S3 bucket (s3fs, an fsspec filesystem).

The checkpoint reader asks a store for five things only: is it a folder, the names in a folder,
does a file exist, its bytes, its modification time. The state reader also asks for a folder's
entries with their sizes, in one listing (WebHDFS LISTSTATUS, S3 ListObjectsV2), never a call per
file. Paths are strings joined with "/".

    /data/cp, ~/cp, file:///data/cp      local
    webhdfs://namenode:9870/cp           WebHDFS at that HTTP address
    hdfs://namenode:8020/cp              WebHDFS at the address the job's context names
                                         (`webhdfs_url`; HDFS's RPC port does not speak HTTP)
    s3a://bucket/cp, s3://bucket/cp      S3, or an S3-compatible server at `s3_endpoint_url`;
                                         credentials from the usual AWS chain (environment,
                                         ~/.aws, an instance role), never the context

A store that does not answer raises StoreUnreachable (the job's reading is then UNKNOWN, not a
broken checkpoint); a missing file raises FileNotFoundError as a local one does.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import NamedTuple
from urllib.parse import urlsplit

from streamctl.backends.failure import describe
from streamctl.errors import StreamctlError, UsageError
from streamctl.model.spark import REMOTE_CHECKPOINT_SCHEMES as REMOTE_SCHEMES


class CheckpointError(StreamctlError):
    """The checkpoint directory cannot be read at all."""


class StoreUnreachable(StreamctlError):
    """The file system holding the checkpoint did not answer."""


class StoreEntry(NamedTuple):
    """One name of a folder's listing: a file and its size in bytes, or a folder (size 0)."""

    name: str
    size: int
    is_dir: bool


class UnusableStore:
    """A location that names no usable store (e.g. hdfs:// without a WebHDFS address)."""

    label = "unusable"

    def __init__(self, reason: str):
        self.reason = reason

    def path(self, location: str) -> str:
        return location

    def is_dir(self, path: str) -> bool:
        raise CheckpointError(self.reason)


def is_remote(location: str) -> bool:
    return urlsplit(str(location)).scheme in REMOTE_SCHEMES


class LocalStore:
    label = "local"

    def path(self, location: str) -> str:
        return urlsplit(location).path if str(location).startswith("file://") else str(location)

    def is_dir(self, path: str) -> bool:
        return os.path.isdir(path)

    def names(self, folder: str) -> Iterator[str]:
        with os.scandir(folder) as entries:
            for entry in entries:
                yield entry.name

    def entries(self, folder: str) -> list[StoreEntry]:
        with os.scandir(folder) as found:
            return [StoreEntry(entry.name, 0 if entry.is_dir() else entry.stat().st_size, entry.is_dir())
                    for entry in found]

    def exists(self, path: str) -> bool:
        return os.path.exists(path)

    def read_bytes(self, path: str) -> bytes:
        with open(path, "rb") as f:
            return f.read()

    def mtime(self, path: str) -> float:
        return os.stat(path).st_mtime


class WebHdfsStore:
    """HDFS over WebHDFS: one HTTP call per question (an OPEN follows one redirect to a DataNode)."""

    def __init__(self, http_url: str, user: str | None = None, timeout: float = 5.0):
        try:
            import fsspec
        except ImportError:
            raise StreamctlError("reading checkpoints on HDFS needs fsspec and requests: "
                                 "pip install 'streamctl[hdfs]'") from None

        parts = urlsplit(http_url)
        if not parts.hostname:
            raise UsageError(f"{http_url}: not a WebHDFS address (http://namenode:9870)")
        self.label = f"HDFS (WebHDFS at {parts.hostname}:{parts.port or 9870})"
        try:
            self.fs = fsspec.filesystem("webhdfs", host=parts.hostname, port=parts.port or 9870,
                                        user=user, use_https=parts.scheme in ("https", "swebhdfs"),
                                        skip_instance_cache=True)
        except Exception as exc:  # noqa: BLE001 - fsspec's constructor asks nothing of the server; be safe anyway
            raise StoreUnreachable(f"{self.label}: {exc}") from None
        adapter = _timeout_adapter(timeout)
        self.fs.session.mount("http://", adapter)
        self.fs.session.mount("https://", adapter)
        self.calls = 0  # HTTP calls asked of the NameNode (tests count them)

    def path(self, location: str) -> str:
        return urlsplit(location).path or "/"

    def _ask(self, call, *args, **kwargs):
        import requests

        self.calls += 1
        try:
            return call(*args, **kwargs)
        except FileNotFoundError:
            raise
        except requests.RequestException as exc:
            raise StoreUnreachable(f"{self.label} does not answer: {describe(exc)}") from None
        except PermissionError as exc:
            raise PermissionError(13, f"{self.label}: {exc}") from None

    def is_dir(self, path: str) -> bool:
        try:
            return self._ask(self.fs.info, path)["type"] == "directory"
        except FileNotFoundError:
            return False

    def names(self, folder: str) -> Iterator[str]:
        for entry in self._ask(self.fs.ls, folder, detail=True):
            yield entry["name"].rstrip("/").rsplit("/", 1)[-1]

    def entries(self, folder: str) -> list[StoreEntry]:
        """One LISTSTATUS: names, lengths and types."""
        return [_entry(item) for item in self._ask(self.fs.ls, folder, detail=True)]

    def exists(self, path: str) -> bool:
        try:
            self._ask(self.fs.info, path)
            return True
        except FileNotFoundError:
            return False

    def read_bytes(self, path: str) -> bytes:
        return self._ask(self.fs.cat_file, path)

    def mtime(self, path: str) -> float:
        return self._ask(self.fs.info, path)["modificationTime"] / 1000.0


class S3Store:
    """S3 (or an S3-compatible server): one request per question, or two for a folder's test
    (a HEAD, then a one-key listing); no retries beyond one, each request bounded by `timeout`."""

    def __init__(self, endpoint_url: str | None = None, timeout: float = 5.0):
        try:
            import s3fs
        except ImportError:
            raise StreamctlError("reading checkpoints on S3 needs s3fs: pip install 'streamctl[s3]'") from None

        where = urlsplit(endpoint_url).netloc if endpoint_url else "AWS"
        self.label = f"S3 ({where})"
        self.calls = 0  # HTTP requests sent (tests count them)
        # Checksums only where S3 requires them: S3-compatible servers refuse the newer headers.
        self.fs = s3fs.S3FileSystem(endpoint_url=endpoint_url, skip_instance_cache=True, use_listings_cache=False,
                                    config_kwargs={"connect_timeout": timeout, "read_timeout": timeout,
                                                   "retries": {"max_attempts": 1},
                                                   "request_checksum_calculation": "when_required",
                                                   "response_checksum_validation": "when_required"})
        self.fs.retries = 1  # s3fs's own retries of a failed connection, with back-off
        self._counting = False

    def path(self, location: str) -> str:
        parts = urlsplit(location)
        return f"{parts.netloc}{parts.path}".rstrip("/")

    def _ask(self, call, *args, **kwargs):
        from botocore.exceptions import BotoCoreError, NoCredentialsError

        if not self._counting:
            self._connect()
        try:
            return call(*args, **kwargs)
        except (FileNotFoundError, PermissionError):
            raise
        except NoCredentialsError:
            raise StoreUnreachable(f"{self.label}: no credentials found (the environment, ~/.aws, "
                                   "an instance role)") from None
        except (BotoCoreError, OSError) as exc:
            raise StoreUnreachable(f"{self.label} does not answer: {describe(exc)}") from None

    def _connect(self) -> None:
        """The client (made on first use, no request yet), and a counter on every request it sends."""
        from botocore.exceptions import BotoCoreError

        try:
            client = self.fs.s3
        except (BotoCoreError, OSError) as exc:
            raise StoreUnreachable(f"{self.label}: {describe(exc)}") from None
        client.meta.events.register("before-send.s3", self._count)
        self._counting = True

    def _count(self, **_kwargs) -> None:
        self.calls += 1

    def is_dir(self, path: str) -> bool:
        return self._ask(self.fs.isdir, path)

    def names(self, folder: str) -> Iterator[str]:
        for name in self._ask(self.fs.ls, folder, detail=False):
            yield name.rstrip("/").rsplit("/", 1)[-1]

    def entries(self, folder: str) -> list[StoreEntry]:
        """One ListObjectsV2 (paged by S3 past 1,000 keys) with a delimiter: keys with sizes, and
        the common prefixes as folders."""
        return [_entry(item) for item in self._ask(self.fs.ls, folder, detail=True)]

    def exists(self, path: str) -> bool:
        return self._ask(self.fs.exists, path)

    def read_bytes(self, path: str) -> bytes:
        return self._ask(self.fs.cat_file, path)

    def mtime(self, path: str) -> float:
        return self._ask(self.fs.info, path)["LastModified"].timestamp()


def store_for(location: str, webhdfs_url: str | None = None, user: str | None = None,
              timeout: float = 5.0, s3_endpoint_url: str | None = None):
    """(store, path inside it) for a checkpoint location."""
    parts = urlsplit(str(location))
    if parts.scheme in ("s3", "s3a"):
        if not parts.netloc:
            raise UsageError(f"{location}: no bucket (s3a://bucket/path)")
        store: S3Store | WebHdfsStore | LocalStore = S3Store(s3_endpoint_url, timeout)
    elif parts.scheme == "webhdfs":
        store = WebHdfsStore(f"http://{parts.netloc}", user, timeout)
    elif parts.scheme == "hdfs":
        if not webhdfs_url:
            raise UsageError(f"{location}: an hdfs:// checkpoint needs the NameNode's WebHDFS address "
                             "(--webhdfs http://namenode:9870, or webhdfs_url in the job's context)")
        store = WebHdfsStore(webhdfs_url, user, timeout)
    elif parts.scheme in ("", "file"):
        store = LocalStore()
    else:
        raise UsageError(f"{location}: {parts.scheme}:// checkpoints are not supported "
                         "(a local path, hdfs://, webhdfs://, s3a:// or s3://)")
    return store, store.path(str(location))


def _entry(item: dict) -> StoreEntry:
    """An fsspec listing's detail (WebHDFS or S3) as a StoreEntry."""
    is_dir = item.get("type") == "directory"
    return StoreEntry(item["name"].rstrip("/").rsplit("/", 1)[-1], 0 if is_dir else int(item.get("size") or 0),
                      is_dir)


def _timeout_adapter(timeout: float):
    """An adapter giving every request of a session this timeout (fsspec's WebHDFS sets none)."""
    import requests.adapters

    default_timeout = timeout

    class TimeoutAdapter(requests.adapters.HTTPAdapter):
        def send(self, request, stream=False, timeout=None, verify=True, cert=None, proxies=None):
            return super().send(request, stream=stream, timeout=timeout or default_timeout, verify=verify,
                                cert=cert, proxies=proxies)

    return TimeoutAdapter()
