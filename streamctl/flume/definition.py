"""Read a Flume agent definition (Java properties) into agents and their components.

Only the shape Flume itself reads (FlumeConfiguration): `<agent>.sources|channels|sinks|
sinkgroups|configfilters = names` declare components, `<agent>.<kind>.<name>.<property>`
configures them. Every key remembers its line, so problems can point at it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from streamctl.errors import UsageError

KINDS = ("sources", "channels", "sinks", "sinkgroups", "configfilters")


@dataclass(frozen=True)
class Entry:
    key: str
    value: str
    line: int
    bad_escape: bool = False  # a `\u` not followed by 4 hex digits: Java refuses the whole file


@dataclass
class Component:
    """One declared or configured source, channel, sink, sink group or config filter."""

    agent: str
    kind: str  # one of KINDS
    name: str
    declared_line: int | None = None  # line of the `<agent>.<kind> = ...` naming it
    properties: dict[str, Entry] = field(default_factory=dict)  # relative key -> entry

    @property
    def prefix(self) -> str:
        return f"{self.agent}.{self.kind}.{self.name}"

    @property
    def line(self) -> int:
        """Where to point: its type, else its first property, else its declaration."""
        if "type" in self.properties:
            return self.properties["type"].line
        if self.properties:
            return min(e.line for e in self.properties.values())
        return self.declared_line or 1

    def get(self, key: str) -> str | None:
        entry = self.properties.get(key)
        return entry.value if entry else None

    def names(self, key: str) -> list[str]:
        """A whitespace-separated list property (`channels = c1 c2`)."""
        return (self.get(key) or "").split()


@dataclass
class Agent:
    name: str
    declarations: dict[str, Entry] = field(default_factory=dict)  # kind -> `<agent>.<kind>` entry
    components: dict[tuple[str, str], Component] = field(default_factory=dict)
    other: list[Entry] = field(default_factory=list)  # keys Flume does not read

    def of_kind(self, kind: str) -> list[Component]:
        return [c for (k, _), c in self.components.items() if k == kind]

    def declared(self, kind: str) -> list[str]:
        entry = self.declarations.get(kind)
        return entry.value.split() if entry else []

    def component(self, kind: str, name: str) -> Component:
        key = (kind, name)
        if key not in self.components:
            self.components[key] = Component(self.name, kind, name)
        return self.components[key]

    def sink_channels(self) -> dict[str, str]:
        """sink name -> the channel it drains (as written)."""
        return {s.name: s.get("channel") for s in self.of_kind("sinks") if s.get("channel")}

    @property
    def first_line(self) -> int:
        lines = [e.line for e in self.declarations.values()] + [c.line for c in self.components.values()]
        return min(lines, default=1)


@dataclass
class FlumeConfig:
    entries: list[Entry]
    agents: dict[str, Agent]
    duplicates: list[tuple[Entry, Entry]]  # (earlier, later): Java properties keep the later


# ---- Java properties ----------------------------------------------------------------

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


# ---- Flume's shape ------------------------------------------------------------------


def build(entries: list[Entry]) -> FlumeConfig:
    agents: dict[str, Agent] = {}
    seen: dict[str, Entry] = {}
    duplicates = []
    for entry in entries:
        if entry.key in seen:
            duplicates.append((seen[entry.key], entry))
        seen[entry.key] = entry
    for entry in seen.values():  # the value that wins, in file order of its first key
        agent_name, _, rest = entry.key.partition(".")
        agent = agents.setdefault(agent_name, Agent(agent_name))
        kind, _, tail = rest.partition(".")
        if kind in KINDS and not tail:
            agent.declarations[kind] = entry
        elif kind in KINDS and "." in tail:
            name, _, prop = tail.partition(".")
            agent.component(kind, name).properties[prop] = entry
        else:
            agent.other.append(entry)
    for agent in agents.values():
        for kind, entry in agent.declarations.items():
            for name in entry.value.split():
                agent.component(kind, name).declared_line = entry.line
    entries_sorted = sorted(entries, key=lambda e: e.line)
    return FlumeConfig(entries_sorted, agents, duplicates)


def parse(text: str) -> FlumeConfig:
    return build(parse_properties(text))


def read(path: str | Path) -> FlumeConfig:
    """Parse a file; an unreadable one is a one-line UsageError."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{path}: is a directory") from None
    except OSError as exc:
        raise UsageError(f"{path}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not UTF-8 text") from None
    return parse(text)


def sink_bindings(path: str | Path | None, agent: str) -> dict[str, str]:
    """sink -> channel of `agent` in its config file; empty when the file is absent or unreadable."""
    if path is None:
        return {}
    try:
        config = read(path)
    except UsageError:
        return {}
    found = config.agents.get(agent)
    return found.sink_channels() if found else {}
