"""What `check` says when something breaks that should not: a line an operator can act on.

A monitoring line never carries a Python exception name. An unexpected failure (a bug, or a
client error no collector knows) is UNKNOWN with the reason "internal error in the spark
collector; traceback in <state>/check-errors.log"; the file keeps the traceback, the time, the
context and the version for the bug report.
"""

from __future__ import annotations

import os
import traceback
from datetime import UTC, datetime
from pathlib import Path

MAX_BYTES = 1_000_000  # past this the log becomes <name>.1 (one older file kept) before the next entry


def internal_error(where: str, context: str, error: BaseException, path: Path | None = None) -> str:
    """Append `error`'s traceback to the log; the reason to show, naming `where` and the log."""
    from streamctl import paths

    path = path or paths.check_error_log()
    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    entry = (f"{stamp} internal error in {where} (context '{context}', streamctl {_version()}, "
             f"pid {os.getpid()})\n" + "".join(traceback.format_exception(error)) + "\n")
    try:
        _append(path, entry)
    except OSError as exc:
        return f"internal error in {where} (its traceback could not be kept: {path}: {exc.strerror})"
    return f"internal error in {where}; traceback in {path}"


def _append(path: Path, entry: str) -> None:
    """One write in append mode (entries of concurrent runs do not interleave), owner-only."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        if path.stat().st_size > MAX_BYTES:
            os.replace(path, path.with_name(path.name + ".1"))
    except FileNotFoundError:
        pass  # the first entry
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(entry)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("streamctl")
    except PackageNotFoundError:
        return "(not installed)"
