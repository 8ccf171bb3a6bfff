"""Demo components the sandbox runs after Kafka (the Flume agent, the Spark job, the Connect
worker). Each system names its add-ons in the registry (streamctl/systems.py), the modules
live in streamctl/demo/; the sandbox imports them by name, never the launchers they build on."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from streamctl import systems
from streamctl.jvm import maven

if TYPE_CHECKING:
    from streamctl.sandbox.stack import Sandbox
    from streamctl.sandbox.state import SandboxState, Service


@dataclass(frozen=True)
class Shape:
    """What a stack's jars depend on: Kafka's mode (ZooKeeper or KRaft) and --distributed."""

    kraft: bool = False
    distributed: bool = False

    @property
    def kafka_set(self) -> maven.ArtifactSet:
        return maven.KAFKA_KRAFT if self.kraft else maven.KAFKA


def no_artifacts(shape: Shape) -> tuple[maven.ArtifactSet, ...]:
    return ()


@dataclass(frozen=True)
class Addon:
    """A demo component the sandbox runs after Kafka (the Flume agent, the Spark job).

    An add-on is a module-level `ADDON` in streamctl/demo/, named by its system's declaration;
    `up` starts its services after the brokers answer, each after the roles in `after`.
    """

    role: str
    # The jar sets it runs on a stack of that shape (e.g. Connect's for the shape's Kafka version).
    artifact_sets: Callable[[Shape], tuple[maven.ArtifactSet, ...]] = no_artifacts
    # New services for a fresh stack (ports picked, configs written, topics created).
    plan: Callable[[Sandbox, SandboxState], list[Service]] = lambda sb, st: []
    ready: Callable[[Sandbox, SandboxState, Service], bool] = lambda sb, st, sv: True
    # A fragment merged into the `sandbox` context (e.g. {"flume": {"agents": {...}}}).
    context: Callable[[SandboxState], dict] = lambda st: {}
    secure: bool = False  # also runs against the SASL (--secure) sandbox
    distributed_only: bool = False  # runs on the --distributed sandbox only (HDFS, the Spark cluster)
    after: tuple[str, ...] = ()  # roles planned and started before this one, where the stack has them


ADDON_MODULES = systems.addon_modules()


def addons() -> list[Addon]:
    """The add-ons this install ships, in start order."""
    import importlib
    import importlib.util

    found = [importlib.import_module(name).ADDON for name in ADDON_MODULES
             if importlib.util.find_spec(name) is not None]
    return start_order(found)


def start_order(found: list[Addon]) -> list[Addon]:
    """`found` in the registry's order, each add-on moved behind the roles it names in `after`."""
    roles = {addon.role for addon in found}
    ordered: list[Addon] = []
    waiting = list(found)
    while waiting:
        placed = {addon.role for addon in ordered}
        ready = next((a for a in waiting if all(r in placed or r not in roles for r in a.after)), None)
        if ready is None:
            raise ValueError(f"sandbox add-ons wait on each other: {', '.join(a.role for a in waiting)}")
        ordered.append(ready)
        waiting.remove(ready)
    return ordered


def runs_on(addon: Addon, shape: Shape) -> bool:
    """Whether a stack of this shape (with its demo pipeline) starts the add-on."""
    return shape.distributed or not addon.distributed_only


def shape_sets(shape: Shape, wanted: list[Addon]) -> list[maven.ArtifactSet]:
    """The jar sets a stack of this shape running the `wanted` add-ons needs: Kafka's first."""
    sets = [shape.kafka_set] + [s for addon in wanted for s in addon.artifact_sets(shape)]
    return list(dict.fromkeys(sets))


def fetch_sets(kraft: bool = False, distributed: bool = False) -> list[maven.ArtifactSet]:
    """What `sandbox fetch` resolves: the default shape's sets (ZooKeeper mode, Spark in
    local[2]), plus the KRaft shape's with `kraft` and the --distributed shape's with `distributed`."""
    shapes = [Shape(k, d) for k in (False, True)[:1 + kraft] for d in (False, True)[:1 + distributed]]
    found = addons()
    sets = [s for shape in shapes for s in shape_sets(shape, [a for a in found if runs_on(a, shape)])]
    return list(dict.fromkeys(sets))
