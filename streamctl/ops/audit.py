"""The audit log: one JSON line per executed mutation, appended with fsync.

Failed mutations are recorded too, and those whose outcome is unknown (the answer was lost and
the re-read failed: `unknown`). The file lives at $XDG_STATE_HOME/streamctl/audit.jsonl.
"""

from __future__ import annotations

import getpass
import json
import socket
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from streamctl import paths
from streamctl.atomic import append_durable
from streamctl.errors import StreamctlError

# What every record has (the `audit` command prints them).
RECORD_KEYS = frozenset({"time", "user", "context", "operation", "summary", "result"})


def audit_path() -> Path:
    return paths.state_dir() / "audit.jsonl"


def record(operation: str, parameters: dict[str, Any], result: str, *, context: str | None,
           summary: str = "", before: Any = None, after: Any = None, error: str | None = None,
           note: str | None = None, path: Path | None = None) -> dict:
    """Append one record; `result` is "ok", "failed" or "unknown" (a change whose answer was lost
    and whose re-read failed: it may have been made). `note`: how an "ok" was known (a re-read
    after a lost answer). Returns what was written."""
    entry = {
        "time": datetime.now(UTC).isoformat(timespec="milliseconds"),
        "user": f"{_user()}@{socket.gethostname()}",
        "context": context,
        "operation": operation,
        "parameters": parameters,
        "summary": summary,
        "result": result,
        "error": error,
        "before": before,
        "after": after,
    }
    if note:
        entry["note"] = note
    append_durable(path or audit_path(), json.dumps(entry, default=str, sort_keys=False))
    return entry


def read(since: datetime | None = None, path: Path | None = None) -> Iterator[dict]:
    """Records in file order, from `since` on; a damaged line is an error naming its number."""
    path = path or audit_path()
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StreamctlError(f"{path}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise StreamctlError(f"{path}: not UTF-8 text") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            when = datetime.fromisoformat(entry["time"])
            when = when if when.tzinfo else when.astimezone()  # comparable with an aware `since`
            if not entry.keys() >= RECORD_KEYS:
                raise KeyError("a record key is missing")
        except (ValueError, KeyError, TypeError, AttributeError, OverflowError, OSError, RecursionError):
            raise StreamctlError(f"{path}:{number}: not an audit record") from None
        if since is None or when >= since:
            yield entry


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"
