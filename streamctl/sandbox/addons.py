"""Demo components the sandbox runs after Kafka (the Flume agent, the Spark job, the Connect
worker), found by name
so the sandbox never imports the launchers that build on it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING
from collections.abc import Callable

from streamctl.jvm import maven

if TYPE_CHECKING:
    from streamctl.sandbox.stack import Sandbox
    from streamctl.sandbox.state import SandboxState, Service


@dataclass(frozen=True)
class Addon:
    """A demo component the sandbox runs after Kafka (the Flume agent, the Spark job).

    An add-on lives in `streamctl.agents.sandbox_addon` or `streamctl.jobs.sandbox_addon` as
    a module-level `ADDON`; `up` starts its services after the brokers answer.
    """

    role: str
    artifact_sets: tuple[maven.ArtifactSet, ...] = ()
    # New services for a fresh stack (ports picked, configs written, topics created).
    plan: Callable[[Sandbox, SandboxState], list[Service]] = lambda sb, st: []
    ready: Callable[[Sandbox, SandboxState, Service], bool] = lambda sb, st, sv: True
    # A fragment merged into the `sandbox` context (e.g. {"flume": {"agents": {...}}}).
    context: Callable[[SandboxState], dict] = lambda st: {}
    secure: bool = False  # also runs against the SASL (--secure) sandbox
    distributed_only: bool = False  # runs on the --distributed sandbox only (HDFS, the Spark cluster)


ADDON_MODULES = ("streamctl.jobs.hdfs_addon", "streamctl.agents.sandbox_addon", "streamctl.jobs.cluster_addon",
                 "streamctl.jobs.sandbox_addon",
                 "streamctl.jobs.streams_addon", "streamctl.connect.sandbox_addon")


def addons() -> list[Addon]:
    """The add-ons this install ships, in start order."""
    import importlib
    import importlib.util

    found = []
    for name in ADDON_MODULES:
        if importlib.util.find_spec(name) is not None:
            found.append(importlib.import_module(name).ADDON)
    return found
