"""Read a Flume agent definition (Java properties) into agents and their components.

Only the shape Flume itself reads (FlumeConfiguration): `<agent>.sources|channels|sinks|
sinkgroups|configfilters = names` declare components, `<agent>.<kind>.<name>.<property>`
configures them. Every key remembers its line, so problems can point at it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from streamctl.errors import UsageError
from streamctl.model.properties import Entry, parse_properties

KINDS = ("sources", "channels", "sinks", "sinkgroups", "configfilters")


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
        return {s.name: channel for s in self.of_kind("sinks") if (channel := s.get("channel"))}

    @property
    def first_line(self) -> int:
        lines = [e.line for e in self.declarations.values()] + [c.line for c in self.components.values()]
        return min(lines, default=1)


@dataclass
class FlumeConfig:
    entries: list[Entry]
    agents: dict[str, Agent]
    duplicates: list[tuple[Entry, Entry]]  # (earlier, later): Java properties keep the later


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
