"""What a reassignment leaves on disk, in the XDG state dir (each written atomically):
the undo file (every moved partition's replicas before, as a plan file for `reassign execute
--plan`), the record of the throttles streamctl set, which `reassign status` and `cancel`
remove once nothing moves, also when the process that set them is gone, and the partitions
whose preferred leaders `execute --elect-leaders` asked `status` to elect once they moved.
While an `execute` sets the throttles and starts its move, their record names it (pid and start
time): a `status` run meanwhile, when nothing moves yet, leaves the throttles to it instead of
taking them away."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import psutil

from streamctl import paths
from streamctl.atomic import write_atomic


def write_undo(context: str, replicas_before: dict[tuple[str, int], list[int]]) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")
    path = paths.undo_dir("reassign", context) / f"{stamp}.json"
    partitions = [{"topic": t, "partition": p, "replicas": r} for (t, p), r in sorted(replicas_before.items())]
    write_atomic(path, json.dumps({"version": 1, "partitions": partitions}, indent=2) + "\n")
    return path


def throttles_file(context: str) -> Path:
    return paths.state_dir() / "reassign" / f"{paths.undo_dir(context).name}-throttles.json"


def record_throttles(context: str, brokers: list[int], topics: list[str]) -> None:
    """Add these brokers and topics to the record (a second execute adds to the first one's), and
    name this process as starting a move until done_starting()."""
    known = recorded_throttles(context)
    merged = {"brokers": sorted(set(known["brokers"]) | set(brokers)), "topics": sorted(set(known["topics"]) | set(topics)),
              "starting": {"pid": os.getpid(), "since": psutil.Process().create_time()}}
    write_atomic(throttles_file(context), json.dumps(merged, indent=2) + "\n")


def done_starting(context: str) -> None:
    """This process has started its move (or failed to): the record no longer names it."""
    if throttles_file(context).exists():  # a `status` may have removed throttles and record meanwhile
        write_atomic(throttles_file(context), json.dumps(recorded_throttles(context), indent=2) + "\n")


def starting_execute(context: str) -> int | None:
    """The pid of the `execute` the record names as starting a move, while that process lives."""
    try:
        starting = _read_record(throttles_file(context)).get("starting") or {}
        process = psutil.Process(starting["pid"])
        alive = process.create_time() == starting["since"] and process.status() != psutil.STATUS_ZOMBIE
    except (OSError, KeyError, TypeError, psutil.NoSuchProcess):
        return None  # no record, no such process, or a damaged record: nobody is starting
    return process.pid if alive else None


def recorded_throttles(context: str) -> dict[str, list]:
    data = _read_record(throttles_file(context))
    return {"brokers": list(data.get("brokers", [])), "topics": list(data.get("topics", []))}


def forget_throttles(context: str) -> None:
    throttles_file(context).unlink(missing_ok=True)


def elections_file(context: str) -> Path:
    return paths.state_dir() / "reassign" / f"{paths.undo_dir(context).name}-elect-leaders.json"


def record_elections(context: str, partitions: list[tuple[str, int]]) -> None:
    """Ask for the preferred leaders of these partitions once nothing moves (added to a wish recorded before)."""
    wanted = sorted(set(recorded_elections(context)) | set(partitions))
    write_atomic(elections_file(context), json.dumps({"partitions": [list(p) for p in wanted]}, indent=2) + "\n")


def recorded_elections(context: str) -> list[tuple[str, int]]:
    entries = _read_record(elections_file(context)).get("partitions")
    return [(e[0], e[1]) for e in entries if isinstance(e, list) and len(e) == 2 and isinstance(e[0], str)
            and type(e[1]) is int] if isinstance(entries, list) else []


def forget_elections(context: str) -> None:
    elections_file(context).unlink(missing_ok=True)


def _read_record(path: Path) -> dict:
    """A record's data; {} when there is none or it is damaged (start over: what it names is read back anyway)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):  # none (FileNotFoundError), or damaged
        return {}
    return data if isinstance(data, dict) else {}
