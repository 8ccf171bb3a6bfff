"""The registry of systems: what each system brings to streamctl, and every list derived from it.

A system declares itself in its own package, in `streamctl/<system>/system.py`: a module-level
`SYSTEM = System(...)` naming its click commands, its `check` collectors, its dashboard screens
and Overview card, its sandbox add-ons and its pipeline node kinds. Everything is named by a
"module:attribute" (or module) string and imported only when used, so `streamctl check` never
loads the TUI or pyspark, and the declarations cost next to nothing at start-up.

The CLI (cli.COMMANDS), `check` (check/evaluate.COLLECTORS), the sandbox
(sandbox/addons.ADDON_MODULES), the dashboard (tui/app.SCREENS, the Overview's cards) and the
pipeline map (model/pipeline.SCREENS) read their lists from here. Adding a system: its package
with a `system.py`, and one line in SYSTEMS below (docs/architecture.md, "The registry of
systems").

This module imports nothing of streamctl's: every layer may read it. It names the declaration
modules of the layers above by string, as the sandbox named its add-ons before.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from functools import cache
from typing import Any

# The declaration modules, each with a module-level SYSTEM; their order is the order of the
# Overview's cards, of `check`'s components and of the sandbox's add-ons (before `after`).
SYSTEMS = (
    "streamctl.kafka.system",
    "streamctl.zookeeper.system",
    "streamctl.flume.system",
    "streamctl.spark.system",
    "streamctl.connect.system",
    "streamctl.pipeline.system",
)

# Mode keys in the order the dashboard lists its modes (footer, help, palette); "1" is the
# Overview's. A mode with another key (a letter: the digits are taken) comes after them, then a
# mode without a key (the palette and the cards still open it).
MODE_KEYS = "1234567890"


@dataclass(frozen=True, slots=True)
class Collector:
    """A `check` component: a module with configured(ctx), SECTION and collect(ctx, deadline_at,
    **options) (the protocol check/evaluate.py states)."""

    module: str
    opt_in: bool = False  # evaluated only when named (`--component`, `--probe`), never by default


@dataclass(frozen=True, slots=True)
class Screen:
    """A dashboard mode."""

    mode: str  # the name switch_mode, cards and pipeline nodes use
    target: str  # "module:Class" of its Screen (imported by the TUI only)
    title: str  # its key's description in the footer, its section title in the help screen
    key: str | None = None  # the key that switches to it, one of MODE_KEYS or a free letter; None: no key


@dataclass(frozen=True, slots=True)
class Card:
    """The system's health card on the Overview: one `check` component's state and figures."""

    component: str  # the check component it shows (a collector's name)
    screen: str  # the mode Enter on the card opens
    figures: tuple[tuple[str, str], ...] = ()  # (metric name, label) shown on the card
    optional: bool = False  # shown only while the context configures the component


@dataclass(frozen=True, slots=True)
class System:
    """What one system brings. Each field is named by string, imported by its user only."""

    name: str
    # Its sections of a context -> "module:Class" of the settings model (config/schema.py's
    # Context has one field per section; a test keeps the two equal).
    settings: dict[str, str] = field(default_factory=dict)
    commands: dict[str, str] = field(default_factory=dict)  # CLI name -> "module:attribute" of a click command
    collectors: dict[str, Collector] = field(default_factory=dict)  # check component -> its collector
    screens: tuple[Screen, ...] = ()
    card: Card | None = None
    addons: tuple[str, ...] = ()  # modules with a module-level ADDON (streamctl.sandbox.addons.Addon)
    node_kinds: dict[str, str] = field(default_factory=dict)  # pipeline node kind -> the mode it opens


@cache
def systems() -> tuple[System, ...]:
    """Every registered system, in SYSTEMS' order."""
    return tuple(importlib.import_module(module).SYSTEM for module in SYSTEMS)


def load(target: str) -> Any:
    """The object a "module:attribute" string names (imports its module)."""
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


# ---- the lists the layers read ---------------------------------------------------------

def commands() -> dict[str, str]:
    """CLI name -> "module:attribute" of every system's click commands."""
    return {name: target for system in systems() for name, target in system.commands.items()}


def collectors() -> dict[str, str]:
    """check component -> collector module: the default ones first, then the opt-in ones."""
    declared = [(name, c) for system in systems() for name, c in system.collectors.items()]
    return {name: c.module for name, c in sorted(declared, key=lambda item: item[1].opt_in)}


def opt_in_collectors() -> frozenset[str]:
    """Components `check` evaluates only when named."""
    return frozenset(name for system in systems() for name, c in system.collectors.items() if c.opt_in)


def screens() -> tuple[Screen, ...]:
    """Every system's dashboard modes: those with a key in MODE_KEYS order, then those with a
    letter key, then the others."""
    declared = [s for system in systems() for s in system.screens]
    return tuple(sorted(declared, key=lambda s: MODE_KEYS.index(s.key) if s.key and s.key in MODE_KEYS
                        else len(MODE_KEYS) + (s.key is None)))


def cards() -> tuple[Card, ...]:
    """The Overview's cards, in SYSTEMS' order."""
    return tuple(system.card for system in systems() if system.card is not None)


def addon_modules() -> tuple[str, ...]:
    """Modules of the sandbox's add-ons, in SYSTEMS' order (the sandbox orders them by `after`)."""
    return tuple(module for system in systems() for module in system.addons)


def node_screens() -> dict[str, str]:
    """Pipeline node kind -> the dashboard mode it opens."""
    return {kind: mode for system in systems() for kind, mode in system.node_kinds.items()}
