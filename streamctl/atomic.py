"""Crash-safe file writes: a reader sees the old file or the new one, never a torn one."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomic(path: str | os.PathLike, data: str | bytes, mode: int = 0o600) -> None:
    """Write to a temp file in the same directory, fsync it, rename it over `path`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode() if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def append_durable(path: str | os.PathLike, line: str) -> None:
    """Append one line and fsync it before returning (audit logs, histories).

    A line torn by a crash mid-append is closed first, so it stays one damaged line instead
    of swallowing the record appended after it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as f:
        torn = f.tell() > 0 and os.pread(f.fileno(), 1, f.tell() - 1) != b"\n"
        text = ("\n" if torn else "") + (line if line.endswith("\n") else line + "\n")
        f.write(text.encode("utf-8"))
        f.flush()
        os.fsync(f.fileno())


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
