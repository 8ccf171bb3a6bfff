"""Java properties files as java.util.Properties.load reads them (escapes, continued lines,
`=`, `:` or blank separators), entries kept in file order with their line numbers: Flume agent
definitions and Kafka Connect connector configs are both written in it."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Entry:
    key: str
    value: str
    line: int
    bad_escape: bool = False  # a `\u` not followed by 4 hex digits: Java refuses the whole file


_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def _unescape(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", text[i + 2:i + 6]):
                out.append(chr(int(text[i + 2:i + 6], 16)))
                i += 6
                continue
            out.append(_ESCAPES.get(nxt, nxt))
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _bad_unicode_escape(text: str) -> bool:
    r"""A `\u` escape without 4 hex digits (java.util.Properties.load throws on it)."""
    i = 0
    while i < len(text) - 1:
        if text[i] == "\\":
            if text[i + 1] == "u" and not re.fullmatch(r"[0-9a-fA-F]{4}", text[i + 2:i + 6]):
                return True
            i += 2
        else:
            i += 1
    return False


def _ends_continued(line: str) -> bool:
    """An odd number of trailing backslashes continues the logical line."""
    return (len(line) - len(line.rstrip("\\"))) % 2 == 1


def parse_properties(text: str) -> list[Entry]:
    """Entries in file order, as java.util.Properties.load reads them (with line numbers)."""
    entries: list[Entry] = []
    lines = re.split(r"\r\n|\r|\n", text)  # Java's line ends only (not str.splitlines' many)
    i = 0
    while i < len(lines):
        start = i + 1
        line = lines[i].lstrip(" \t\f")
        i += 1
        if not line or line[0] in "#!":
            continue
        while _ends_continued(line) and i < len(lines):
            line = line[:-1] + lines[i].lstrip(" \t\f")
            i += 1
        if _ends_continued(line):
            line = line[:-1]
        key, value = _split(line)
        entries.append(Entry(_unescape(key), _unescape(value).strip(), start, _bad_unicode_escape(line)))
    return entries


def _split(line: str) -> tuple[str, str]:
    """Key and raw value: the key ends at the first unescaped '=', ':' or blank."""
    i = 0
    while i < len(line) and line[i] not in "=: \t\f":
        i += 2 if line[i] == "\\" else 1
    key, rest = line[:i], line[i:].lstrip(" \t\f")
    if rest[:1] in ("=", ":"):
        rest = rest[1:].lstrip(" \t\f")
    return key, rest


def as_dict(text: str) -> dict[str, str]:
    """The properties as Java keeps them: a later duplicate key wins."""
    return {e.key: e.value for e in parse_properties(text)}
