"""One time syntax for every option that names a moment: `topics read --from-time/--since/--until`,
`groups reset-offsets --by-duration` (and `streams reset`'s), `audit --since`.

`parse_time` takes any of: an ISO 8601 instant (2026-11-25T13:45:00Z; without a zone the local
time zone applies, as in Kafka's tools; a bare date is local midnight), a time before now
(-1h, 30m, -2d, 90s; the minus sign is optional), or an ISO 8601 duration before now (PT1H,
P2D, P1DT2H). `--to-datetime` keeps Kafka's stricter instant (`parse_datetime`).
`short_duration` writes a span back the way a glance needs it (12 s, 4 min, 2 h).
"""

from __future__ import annotations

import re
import time
from datetime import datetime, timedelta

from streamctl.errors import UsageError

_DATETIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_DURATION = re.compile(r"P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?")
_BEFORE_NOW = re.compile(r"-?(\d{1,12})([smhd])")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
FORMS = "ISO 8601 like 2026-11-25T13:45:00Z, a time before now like -1h, -30m, -2d, or an ISO 8601 duration like PT1H"


def parse_time(text: str, option: str, now_ms: int | None = None) -> int:
    """Any of the forms above -> epoch ms (`now_ms`: the present, for a plan computed once)."""
    text = text.strip()
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    relative = _BEFORE_NOW.fullmatch(text)
    if relative:
        stamp = now_ms - int(relative[1]) * _UNITS[relative[2]] * 1000
    elif text.upper().lstrip("-").startswith("P"):
        stamp = now_ms - int(parse_duration(text.lstrip("-"), option).total_seconds() * 1000)
    elif _DATETIME.fullmatch(text) or _DATE.fullmatch(text):
        stamp = _epoch_ms(text if "T" in text else f"{text}T00:00", option, shown=text)
    else:
        raise UsageError(f"{option} {text!r}: expected {FORMS}")
    if stamp < 0:  # Kafka reads negative timestamps as "latest" / "earliest"
        raise UsageError(f"{option} {text!r}: before 1970-01-01T00:00Z")
    return stamp


def parse_datetime(text: str, option: str = "--to-datetime") -> int:
    """ISO 8601 (as the Kafka tool takes it: YYYY-MM-DDTHH:mm:SS.sss, optional zone) -> epoch ms.

    Without a zone the local time zone applies, as in Kafka's tool.
    """
    if not _DATETIME.fullmatch(text):
        raise UsageError(f"{option} {text!r}: expected ISO 8601 like 2026-11-25T13:45:00.000Z")
    return _epoch_ms(text, option, shown=text)


def _epoch_ms(text: str, option: str, shown: str) -> int:
    """A `_DATETIME` text -> epoch ms; errors quote `shown`, the operator's text."""
    zone = re.search(r"[+-](\d{2}):?(\d{2})$", text)
    if zone and (int(zone[1]) > 23 or int(zone[2]) > 59):
        raise UsageError(f"{option} {shown!r}: zone offset out of range (at most ±23:59)")
    try:
        moment = datetime.fromisoformat(text)
        if moment.tzinfo is None:
            moment = moment.astimezone()
        return int(moment.timestamp() * 1000)
    except (ValueError, OverflowError, OSError) as exc:  # e.g. a year outside 1-9999 once in UTC
        raise UsageError(f"{option} {shown!r}: {exc}") from None


def parse_duration(text: str, option: str = "--by-duration") -> timedelta:
    """ISO 8601 duration as Kafka's tool takes it (java.time.Duration): PnDTnHnMn.nS."""
    match = _DURATION.fullmatch(text.upper())
    if not match or text.upper() in ("P", "PT") or text.upper().endswith("T"):
        raise UsageError(f"{option} {text!r}: expected an ISO 8601 duration like PT30M or P1DT2H")
    days, hours, minutes, seconds = match.groups()
    try:
        return timedelta(days=int(days or 0), hours=int(hours or 0), minutes=int(minutes or 0),
                         seconds=float(seconds or 0))
    except OverflowError:
        raise UsageError(f"{option} {text!r}: too long (at most {timedelta.max.days} days)") from None


def short_duration(seconds: float) -> str:
    """12 s, 4 min, 2 h: a span as a glance needs it (an age, an ETA)."""
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.0f} h"
