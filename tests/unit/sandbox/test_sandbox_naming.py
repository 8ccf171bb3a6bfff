"""Several sandboxes side by side: names, their folders, the ports they leave to each other, and
their contexts in one config file beside the user's."""

from __future__ import annotations

import json
import os
from dataclasses import asdict

import pytest
import yaml

from streamctl.config.schema import ConfigError
from streamctl.errors import UsageError
from streamctl.sandbox import context as sandbox_context
from streamctl.sandbox import names
from streamctl.sandbox.stack import Sandbox, recorded_ports
from streamctl.sandbox.state import SandboxState, Service
from tests.conftest import run_cli

USER_CONFIG = """\
# the operator's own file
current-context: prod
contexts:
  prod:  # the real cluster
    kafka: {bootstrap_servers: "kafka-1.prod:9092"}
"""


def kraft_state(port: int = 19092, controller_port: int = 19093) -> SandboxState:
    broker = Service("kafka-1", "broker", port, [], "kafka-1.log", node_id=1, controller_port=controller_port)
    return SandboxState(mode="kraft", brokers=1, services=[broker], cluster_id="x")


def save_state(sandbox: Sandbox, state: SandboxState) -> None:
    sandbox.root.mkdir(parents=True)
    sandbox.state_file.write_text(json.dumps(asdict(state)))


@pytest.mark.parametrize("name", ["kraft", "dr2", "Staging_B", "a-b", "k" * 40])
def test_simple_identifiers_are_names(name):
    assert names.check_name(name) == name


@pytest.mark.parametrize("name", ["", "2kraft", "-x", "a b", "a/b", "..", "a.b", "é", "k" * 41, "x-tls", "x-monitor"])
def test_other_names_are_refused(name):
    with pytest.raises(UsageError, match="sandbox name"):
        names.check_name(name)


def test_the_default_sandbox_keeps_its_folder_and_a_named_one_has_its_own(tmp_path):
    assert names.root("sandbox", tmp_path) == tmp_path / "sandbox"
    assert names.root("kraft", tmp_path) == tmp_path / "sandboxes" / "kraft"
    assert Sandbox(state_dir=tmp_path).root == tmp_path / "sandbox"
    named = Sandbox(name="kraft", state_dir=tmp_path)
    assert (named.root, named.name) == (tmp_path / "sandboxes" / "kraft", "kraft")


def test_the_state_dir_of_the_environment_holds_them_by_default(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert Sandbox(name="kraft").root == tmp_path / "streamctl" / "sandboxes" / "kraft"
    assert Sandbox().root == tmp_path / "streamctl" / "sandbox"


def test_known_lists_the_sandboxes_with_state_the_default_first(tmp_path):
    assert names.known(tmp_path) == []
    for name in ("zeta", "kraft", "sandbox"):
        save_state(Sandbox(name=name, state_dir=tmp_path), kraft_state())
    (tmp_path / "sandboxes" / "empty").mkdir()  # a folder without state is no sandbox
    assert names.known(tmp_path) == ["sandbox", "kraft", "zeta"]


def test_recorded_ports_hold_every_listener():
    state = kraft_state(19092, 19093)
    state.admin_port = 18080
    state.extras["tls_ports"] = {"1": 19094}
    state.services.append(Service("loadgen", "loadgen", 0, [], "l.log"))
    assert recorded_ports(state) == {19092, 19093, 18080, 19094}


def test_a_sandbox_avoids_the_ports_another_recorded_even_when_they_are_free(tmp_path):
    other = Sandbox(name="kraft", state_dir=tmp_path)
    save_state(other, kraft_state(19092, 19093))  # its broker is stopped: both ports free right now
    mine = Sandbox(state_dir=tmp_path)
    assert mine.ports_of_other_sandboxes() == {19092, 19093}
    assert other.ports_of_other_sandboxes() == set()  # not its own


def test_a_named_context_joins_the_users_file_without_taking_current(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text(USER_CONFIG)
    current = sandbox_context.write(tmp_path, config, kraft_state(), "kraft")
    text = config.read_text()
    data = yaml.safe_load(text)
    assert not current and data["current-context"] == "prod"
    assert set(data["contexts"]) == {"prod", "kraft"}
    assert data["contexts"]["kraft"]["kafka"]["bootstrap_servers"] == "127.0.0.1:19092"
    assert data["contexts"]["kraft"]["managed-by"] == sandbox_context.MANAGED_BY
    assert "# the operator's own file" in text and "# the real cluster" in text


def test_the_default_context_is_current_only_in_a_file_naming_none(tmp_path):
    config = tmp_path / "config.yaml"
    assert not sandbox_context.write(tmp_path, config, kraft_state(), "kraft")
    assert "current-context" not in yaml.safe_load(config.read_text())
    assert sandbox_context.write(tmp_path, config, kraft_state(29092), "sandbox")
    data = yaml.safe_load(config.read_text())
    assert data["current-context"] == "sandbox" and set(data["contexts"]) == {"kraft", "sandbox"}


def test_removing_takes_only_the_sandboxs_own_contexts(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text(USER_CONFIG)
    sandbox_context.write(tmp_path, config, kraft_state(), "kraft")
    sandbox_context.write(tmp_path, config, kraft_state(29092), "other")
    assert sandbox_context.remove(config, "kraft") == ["kraft"]
    data = yaml.safe_load(config.read_text())
    assert set(data["contexts"]) == {"prod", "other"} and data["current-context"] == "prod"
    assert sandbox_context.remove(config, "kraft") == []  # gone already
    assert sandbox_context.remove(config, "prod") == []  # the user's: never removed
    assert "prod" in yaml.safe_load(config.read_text())["contexts"]


def test_a_users_context_of_the_name_is_never_replaced(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text(USER_CONFIG)
    with pytest.raises(ConfigError, match="context 'prod' was not written by streamctl-sandbox"):
        Sandbox(name="prod", state_dir=tmp_path, config_path=config).check_context_replaceable()
    assert config.read_text() == USER_CONFIG


def test_derived_contexts_follow_the_name():
    assert sandbox_context.tls_context_name("sandbox") == "sandbox-tls"
    assert sandbox_context.monitor_context_name("sandbox") == "sandbox-monitor"
    assert sandbox_context.tls_context_name("kraft") == "kraft-tls"
    assert sandbox_context.monitor_context_name("kraft") == "kraft-monitor"


def test_status_without_a_name_lists_every_sandbox_and_with_one_that_one(tmp_path):
    for name, port in (("sandbox", 19092), ("kraft", 29092)):
        state = kraft_state(port, port + 1)
        state.services[0].stopped = True
        save_state(Sandbox(name=name, state_dir=tmp_path / "streamctl"), state)
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path), "STREAMCTL_CONFIG": str(tmp_path / "config.yaml")}

    every = run_cli("sandbox", "status", "-o", "json", env=env, timeout=60)
    assert every.returncode == 0, every.stderr
    assert [(r["sandbox"], r["name"], r["port"], r["state"]) for r in json.loads(every.stdout)] == [
        ("sandbox", "kafka-1", 19092, "stopped"), ("kraft", "kafka-1", 29092, "stopped")]
    table = run_cli("sandbox", "status", env=env, timeout=60)
    assert table.returncode == 0 and table.stdout.count("mode: kraft, 1 broker(s)") == 2, table.stdout
    one = run_cli("sandbox", "status", "--name", "kraft", "-o", "json", env=env, timeout=60)
    assert [(r["sandbox"], r["port"]) for r in json.loads(one.stdout)] == [("kraft", 29092)]


def test_agents_are_controlled_through_the_sandbox_named_after_the_context(tmp_path, monkeypatch):
    from streamctl.flume.plans import local_sandbox

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert local_sandbox(None, "kraft") is None  # no sandbox at all
    for name in ("sandbox", "kraft"):
        save_state(Sandbox(name=name), kraft_state())
    assert local_sandbox(None, "kraft").name == "kraft"
    assert local_sandbox(None, "prod").name == "sandbox"  # a context of the user's: the default one
