"""Lint a Flume agent definition: the mistakes Flume itself only logs while dropping parts.

Each problem is one line, `FILE:LINE: key: problem`. What is checked: keys Flume does not
read, duplicate keys, undeclared or unconfigured components, missing or unknown types,
sources and sinks without (or with missing) channels, channels nothing uses, missing required
properties of the common types, sink groups, channel selectors and interceptors that name
what does not exist.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from streamctl.flume import catalog as flume_types
from streamctl.flume import definition as flume_config
from streamctl.flume.definition import Agent, Component, FlumeConfig

SINGULAR = {"sources": "source", "channels": "channel", "sinks": "sink", "sinkgroups": "sink group",
            "configfilters": "config filter"}


@dataclass(frozen=True, order=True)
class Problem:
    line: int
    key: str
    message: str

    def format(self, label: str) -> str:
        line = f"{label}:{self.line}: {self.key}: {self.message}"
        # A key may hold a newline (written `\n` in the file): shown escaped, the problem stays one line.
        return "".join(c if c.isprintable() else repr(c)[1:-1] for c in line)


def lint_file(path: str | Path) -> list[Problem]:
    """Problems in the file (an unreadable file raises a one-line UsageError)."""
    return lint(flume_config.read(path))


def lint_text(text: str) -> list[Problem]:
    return lint(flume_config.parse(text))


def lint(config: FlumeConfig) -> list[Problem]:
    problems: list[Problem] = []
    for entry in config.entries:
        if entry.bad_escape:
            problems.append(Problem(entry.line, entry.key, "malformed \\uXXXX escape: Flume (java.util.Properties) "
                                                            "refuses to load the whole file"))
    for earlier, later in config.duplicates:
        problems.append(Problem(later.line, later.key,
                                f"set again; the value on line {earlier.line} is ignored"))
    if not config.agents:
        problems.append(Problem(1, "(file)", "no agent defined"))
    for agent in config.agents.values():
        problems += _agent(agent)
    return sorted(set(problems))


def _agent(agent: Agent) -> list[Problem]:
    out: list[Problem] = []
    for entry in agent.other:
        out.append(Problem(entry.line, entry.key,
                           "not a Flume setting (expected AGENT.sources|channels|sinks|sinkgroups"
                           "|configfilters[.NAME.PROPERTY])"))
    if agent.other and not agent.declarations and not agent.components:
        return out  # not an agent at all, just stray keys
    if not agent.declared("channels"):
        out.append(Problem(agent.first_line, f"{agent.name}.channels",
                           "no channels declared (Flume drops the whole agent)"))
    if not agent.declared("sources") and not agent.declared("sinks"):
        out.append(Problem(agent.first_line, f"{agent.name}.sources",
                           "no sources or sinks declared (Flume drops the whole agent)"))
    for component in agent.components.values():
        out += _declaration(agent, component)
    channels = set(agent.declared("channels"))
    used = {name for source in agent.of_kind("sources") for name in source.names("channels")}
    used |= {name for sink in agent.of_kind("sinks") for name in sink.names("channel")}
    for source in _valid(agent, "sources"):
        out += _source(source, source.names("channels"), channels)
    for sink in _valid(agent, "sinks"):
        out += _sink(sink, channels)
    for name in agent.declared("channels"):
        if name not in used:
            channel = agent.component("channels", name)
            out.append(Problem(channel.line, f"{channel.prefix}", "channel is not bound to any source or sink"))
    out += _sink_groups(agent)
    for component in _valid(agent, "channels") + _valid(agent, "configfilters"):
        out += _required(component)
    return out


def _declaration(agent: Agent, component: Component) -> list[Problem]:
    """Declared and configured, with a known type."""
    kind_word = SINGULAR[component.kind]
    if component.declared_line is None:
        first = min(component.properties.values(), key=lambda e: e.line)
        return [Problem(first.line, first.key, f"{kind_word} {component.name!r} is configured but not "
                                               f"declared in {agent.name}.{component.kind}")]
    if component.kind == "sinkgroups":
        return []  # a sink group has no type; checked in _sink_groups
    if not component.properties:
        return [Problem(component.declared_line, f"{agent.name}.{component.kind}",
                        f"{kind_word} {component.name!r} is declared but never configured")]
    type_value = component.get("type")
    if not type_value:
        return [Problem(component.line, f"{component.prefix}.type", f"{kind_word} has no type")]
    _, known = flume_types.resolve(component.kind, type_value)
    if not known:
        return [Problem(component.properties["type"].line, f"{component.prefix}.type",
                        f"unknown {kind_word} type {type_value!r}")]
    return []


def _valid(agent: Agent, kind: str) -> list[Component]:
    """Declared components of `kind` with a known type (the ones Flume would build)."""
    out = []
    for component in agent.of_kind(kind):
        type_value = component.get("type")
        if component.declared_line is not None and type_value and flume_types.resolve(kind, type_value)[1]:
            out.append(component)
    return out


def _source(source: Component, bound: list[str], channels: set[str]) -> list[Problem]:
    out: list[Problem] = []
    if not bound:
        hint = " (sources take `channels`, plural)" if source.get("channel") else ""
        out.append(Problem(source.line, f"{source.prefix}.channels", f"source is not bound to a channel{hint}"))
    else:
        line = source.properties["channels"].line
        for name in bound:
            if name not in channels:
                out.append(Problem(line, f"{source.prefix}.channels", f"channel {name!r} is not declared"))
    out += _required(source)
    out += _selector(source, bound)
    out += _interceptors(source)
    return out


def _sink(sink: Component, channels: set[str]) -> list[Problem]:
    out: list[Problem] = []
    channel = sink.get("channel")
    if not channel:
        hint = " (sinks take `channel`, singular)" if sink.get("channels") else ""
        out.append(Problem(sink.line, f"{sink.prefix}.channel", f"sink has no channel{hint}"))
    elif len(channel.split()) > 1:
        out.append(Problem(sink.properties["channel"].line, f"{sink.prefix}.channel",
                           "a sink drains exactly one channel"))
    elif channel not in channels:
        out.append(Problem(sink.properties["channel"].line, f"{sink.prefix}.channel",
                           f"channel {channel!r} is not declared"))
    out += _required(sink)
    return out


def _required(component: Component) -> list[Problem]:
    class_name, _ = flume_types.resolve(component.kind, component.get("type") or "")
    out: list[Problem] = []
    for need in flume_types.REQUIRED.get(class_name, []) if class_name is not None else []:
        options = need if isinstance(need, tuple) else (need,)
        if not any(component.get(option) for option in options):
            out.append(Problem(component.line, f"{component.prefix}.{options[0]}",
                               f"missing required property{_alternatives(options)}"))
    if class_name == flume_types.SOURCE_ALIASES["taildir"]:
        for group in component.names("filegroups"):
            if not component.get(f"filegroups.{group}"):
                out.append(Problem(component.properties["filegroups"].line,
                                   f"{component.prefix}.filegroups.{group}",
                                   f"file group {group!r} has no file pattern"))
    return out


def _alternatives(options: tuple[str, ...]) -> str:
    return f" (or {', '.join(options[1:])})" if len(options) > 1 else ""


def _selector(source: Component, bound: list[str]) -> list[Problem]:
    selector_type = source.get("selector.type")
    out: list[Problem] = []
    if selector_type:
        _, known = flume_types.resolve("selector", selector_type)
        if not known:
            out.append(Problem(source.properties["selector.type"].line, f"{source.prefix}.selector.type",
                               f"unknown channel selector type {selector_type!r}"))
    for key, entry in source.properties.items():
        if key.startswith(("selector.mapping.", "selector.optional")) or key == "selector.default":
            for name in entry.value.split():
                if name not in bound:
                    out.append(Problem(entry.line, f"{source.prefix}.{key}",
                                       f"channel {name!r} is not one of the source's channels"))
    return out


def _interceptors(source: Component) -> list[Problem]:
    out: list[Problem] = []
    names = source.names("interceptors")
    for name in names:
        type_value = source.get(f"interceptors.{name}.type")
        if not type_value:
            line = source.properties["interceptors"].line
            out.append(Problem(line, f"{source.prefix}.interceptors.{name}.type", "interceptor has no type"))
        elif not flume_types.resolve("interceptors", type_value)[1]:
            out.append(Problem(source.properties[f"interceptors.{name}.type"].line,
                               f"{source.prefix}.interceptors.{name}.type",
                               f"unknown interceptor type {type_value!r}"))
    for key, entry in source.properties.items():
        parts = key.split(".")
        if parts[0] == "interceptors" and len(parts) > 2 and parts[1] not in names:
            out.append(Problem(entry.line, f"{source.prefix}.{key}",
                               f"interceptor {parts[1]!r} is not listed in {source.prefix}.interceptors"))
    return out


def _sink_groups(agent: Agent) -> list[Problem]:
    out: list[Problem] = []
    sinks = set(agent.declared("sinks"))
    owner: dict[str, str] = {}
    for group in agent.of_kind("sinkgroups"):
        if group.declared_line is None:
            continue  # reported as undeclared
        members = group.names("sinks")
        if not members:
            line = group.properties["sinks"].line if "sinks" in group.properties else group.line
            out.append(Problem(line, f"{group.prefix}.sinks", "sink group has no sinks"))
        for name in members:
            line = group.properties["sinks"].line
            if name not in sinks:
                out.append(Problem(line, f"{group.prefix}.sinks", f"sink {name!r} is not declared"))
            elif name in owner:
                out.append(Problem(line, f"{group.prefix}.sinks",
                                   f"sink {name!r} is already in sink group {owner[name]!r}"))
            else:
                owner[name] = group.name
        processor = group.get("processor.type")
        if processor and not flume_types.resolve("processor", processor)[1]:
            out.append(Problem(group.properties["processor.type"].line, f"{group.prefix}.processor.type",
                               f"unknown sink processor type {processor!r}"))
        for key, entry in group.properties.items():
            if key.startswith("processor.priority."):
                name = key.removeprefix("processor.priority.")
                if name not in members:
                    out.append(Problem(entry.line, f"{group.prefix}.{key}",
                                       f"priority for sink {name!r}, which is not in the group"))
    return out
