"""Znode shapes and decoders: Stat, ACLs, paths, and data shown as JSON, text or a hex dump.

Pure functions and frozen dataclasses (no I/O): the ZooKeeper adapter fills them, every front
end shows them.
"""

from __future__ import annotations

import codecs
import json
import re
from datetime import UTC, datetime
from fnmatch import fnmatchcase

from streamctl.errors import UsageError
from streamctl.model.zookeeper import DecodedData, ZStat

MAX_SHOWN_BYTES = 64 * 1024  # what `get` decodes by default; ZooKeeper allows ~1 MiB per znode
HEX_WIDTH = 16
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")  # not \t \n \r

# ---- paths ---------------------------------------------------------------------------------

def validate_path(path: str) -> str:
    """ZooKeeper's path rules (PathUtils.validatePath); returns the path or raises UsageError."""
    if not path.startswith("/"):
        raise UsageError(f"znode path {path!r} must start with '/'")
    if path == "/":
        return path
    if path.endswith("/"):
        raise UsageError(f"znode path {path!r} must not end with '/'")
    for segment in path[1:].split("/"):
        if segment == "":
            raise UsageError(f"znode path {path!r} has an empty segment ('//')")
        if segment in (".", ".."):
            raise UsageError(f"znode path {path!r}: relative segments ('.', '..') are not allowed")
    if "\x00" in path or _CONTROL.search(path):
        raise UsageError(f"znode path {path!r} has a control character")
    return path


def join(parent: str, name: str) -> str:
    return f"{parent}/{name}" if parent != "/" else f"/{name}"


def parent_of(path: str) -> str:
    head = path.rsplit("/", 1)[0]
    return head or "/"


def depth_of(path: str) -> int:
    return 0 if path == "/" else path.count("/")


class PathGlob:
    """A glob over znode paths: `*` `?` `[..]` within one segment, `**` across any segments.

    A pattern without '/' matches the node's name at any depth (like `find -name`).
    """

    def __init__(self, pattern: str):
        if not pattern:
            raise UsageError("empty glob pattern")
        self.pattern = pattern
        self.by_name = "/" not in pattern
        self.segments = [] if self.by_name else [s for s in pattern.strip("/").split("/") if s]
        self.deepest = None if self.by_name or "**" in self.segments else len(self.segments)

    def matches(self, path: str) -> bool:
        if self.by_name:
            return path != "/" and fnmatchcase(path.rsplit("/", 1)[1], self.pattern)
        parts = [] if path == "/" else path[1:].split("/")
        return _match_segments(self.segments, parts)

    def may_match_below(self, depth: int) -> bool:
        """Whether nodes deeper than `depth` could match (prunes the walk)."""
        return self.deepest is None or depth < self.deepest


def _match_segments(pattern: list[str], parts: list[str]) -> bool:
    if not pattern:
        return not parts
    head, rest = pattern[0], pattern[1:]
    if head == "**":
        return any(_match_segments(rest, parts[i:]) for i in range(len(parts) + 1))
    return bool(parts) and fnmatchcase(parts[0], head) and _match_segments(rest, parts[1:])


# ---- data ----------------------------------------------------------------------------------

def decode_data(data: bytes | None, limit: int = MAX_SHOWN_BYTES) -> DecodedData:
    """JSON objects/arrays pretty-printed, UTF-8 text as is, anything else as a hex dump."""
    raw = data or b""
    size = len(raw)
    if size == 0:
        return DecodedData("empty", "", 0, 0)
    head = raw[:limit]
    text = _utf8_text(head, complete=len(head) == size)
    if text is None:
        return DecodedData("binary", hexdump(head), size, len(head))
    if len(head) == size and text.lstrip()[:1] in ("{", "["):
        try:
            return DecodedData("json", json.dumps(json.loads(text), indent=2, ensure_ascii=False), size, size)
        except (ValueError, RecursionError):  # not JSON, or nested too deeply to pretty-print: text
            pass
    return DecodedData("text", text, size, len(head))


def _utf8_text(chunk: bytes, complete: bool) -> str | None:
    """The chunk as text if it is UTF-8 without control characters (a cut multibyte tail is fine)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        text = decoder.decode(chunk, final=complete)
    except UnicodeDecodeError:
        return None
    if _CONTROL.search(text):
        return None
    return text


def hexdump(data: bytes, width: int = HEX_WIDTH) -> str:
    """`xxd`-like lines: offset, hex bytes, printable ASCII."""
    lines = []
    for offset in range(0, len(data), width):
        chunk = data[offset:offset + width]
        hex_part = " ".join(f"{b:02x}" for b in chunk)
        ascii_part = "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)
        lines.append(f"{offset:08x}  {hex_part:<{width * 3 - 1}}  |{ascii_part}|")
    return "\n".join(lines)


# ---- stat and ACLs -------------------------------------------------------------------------

def iso_ms(ms: int) -> str:
    """Milliseconds since the epoch as ISO 8601 UTC with milliseconds (as is when outside years 1-9999)."""
    try:
        moment = datetime.fromtimestamp(ms / 1000, tz=UTC)
    except (OverflowError, ValueError, OSError):  # e.g. a registration timestamp from a damaged znode
        return f"{ms} ms"
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def stat_rows(stat: ZStat) -> list[tuple[str, int, str]]:
    """Every Stat field as (name, raw value, human form), in zkCli's order."""
    return [
        ("czxid", stat.czxid, hex(stat.czxid)),
        ("ctime", stat.ctime, iso_ms(stat.ctime)),
        ("mzxid", stat.mzxid, hex(stat.mzxid)),
        ("mtime", stat.mtime, iso_ms(stat.mtime)),
        ("pzxid", stat.pzxid, hex(stat.pzxid)),
        ("cversion", stat.cversion, str(stat.cversion)),
        ("dataVersion", stat.version, str(stat.version)),
        ("aclVersion", stat.aversion, str(stat.aversion)),
        ("ephemeralOwner", stat.ephemeral_owner,
         f"session {stat.ephemeral_owner:#x}" if stat.ephemeral else "none (persistent)"),
        ("dataLength", stat.data_length, human_bytes(stat.data_length)),
        ("numChildren", stat.num_children, str(stat.num_children)),
    ]


def stat_dict(stat: ZStat) -> dict:
    """JSON form: raw values plus human times, zxids in hex and the ephemeral owner session."""
    return {
        "czxid": stat.czxid, "czxid_hex": hex(stat.czxid),
        "mzxid": stat.mzxid, "mzxid_hex": hex(stat.mzxid),
        "pzxid": stat.pzxid, "pzxid_hex": hex(stat.pzxid),
        "ctime": stat.ctime, "ctime_iso": iso_ms(stat.ctime),
        "mtime": stat.mtime, "mtime_iso": iso_ms(stat.mtime),
        "version": stat.version, "cversion": stat.cversion, "aversion": stat.aversion,
        "ephemeral_owner": stat.ephemeral_owner,
        "ephemeral_owner_hex": hex(stat.ephemeral_owner) if stat.ephemeral else None,
        "data_length": stat.data_length, "num_children": stat.num_children,
    }


def human_bytes(count: float) -> str:
    if count < 1024:
        return f"{count} B"
    for unit in ("KiB", "MiB", "GiB"):
        count /= 1024
        if count < 1024:
            return f"{count:.1f} {unit}"
    return f"{count:.1f} TiB"
