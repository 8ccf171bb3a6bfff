"""A fleet of contexts for the tests of `check --all-contexts` and the dashboard's Fleet screen:
the ZooKeeper-mode and the KRaft sandboxes side by side, plus a context whose Kafka is a closed port."""

from __future__ import annotations

import os

import yaml

from tests.integration.kafka_helpers import free_address


def sandbox_context(running) -> dict:
    return yaml.safe_load(running.config_path.read_text())["contexts"]["sandbox"]


def fleet_config(tmp_path, sandbox, kraft_sandbox, **more: dict) -> dict[str, str]:
    """A config with the two sandboxes' contexts (zk, kraft), a dead one and `more`; the env to use it."""
    contexts = {"zk": sandbox_context(sandbox), "kraft": sandbox_context(kraft_sandbox),
                "dead": {"kafka": {"bootstrap_servers": free_address(), "timeout": 5}}, **more}
    path = tmp_path / "fleet.yaml"
    path.write_text(yaml.safe_dump({"current-context": "zk", "contexts": contexts}))
    return {**os.environ, "STREAMCTL_CONFIG": str(path), "XDG_STATE_HOME": str(tmp_path / "state")}
