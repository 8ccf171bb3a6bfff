"""streamctl against SASL/SCRAM Kafka and SASL ZooKeeper: the right credentials from `${ENV}`
references work; wrong or missing ones give one clear line and a non-zero exit, in time."""

from __future__ import annotations

import json

import pytest

from tests.security.conftest import KAFKA_TIMEOUT, WRONG_PASSWORD
from tests.security.helpers import line_of, one_error_line, topic_with_group

pytestmark = pytest.mark.integration

IN_TIME = KAFKA_TIMEOUT + 5  # the per-call timeout plus the command's start-up


@pytest.fixture(scope="module")
def scene(secure):
    return topic_with_group(secure)


@pytest.fixture
def config(secure, tmp_path):
    return secure.write_context(tmp_path / "env.yaml")


def test_check_topics_groups_and_zk_with_credentials_from_the_environment(secure, scene, config):
    topic, group = scene
    env = secure.password_env()
    check = secure.cli("--config", str(config), "check", "--format", "json", **env)
    report = json.loads(check.stdout)
    assert {name: c["evaluated"] for name, c in report["components"].items()} == {"kafka": True, "zookeeper": True}
    codes = {f["code"]: f["severity"] for f in report["findings"]}
    assert {c: s for c, s in codes.items() if s != "OK"} == {"ZK_ENSEMBLE_SIZE": "WARN"}, report["findings"]
    assert codes["ZK_KAFKA_OK"] == "OK"  # ZooKeeper's view of Kafka matches the Admin API's
    assert check.returncode == 1, check.stderr  # a one-server ensemble warns, nothing else

    topics = secure.cli("--config", str(config), "topics", "list", "-o", "json", **env)
    assert topics.returncode == 0, topics.stderr
    assert topic in {t["name"] for t in json.loads(topics.stdout)}
    groups = secure.cli("--config", str(config), "groups", "list", "-o", "json", **env)
    assert groups.returncode == 0, groups.stderr
    assert group in json.dumps(json.loads(groups.stdout))
    zk = secure.cli("--config", str(config), "zk", "ls", "/", "-o", "json", **env)
    assert zk.returncode == 0, zk.stderr
    assert {"brokers", "config", "controller", "zookeeper"} <= {c["name"] for c in json.loads(zk.stdout)["children"]}
    for result in (topics, groups, zk):
        assert result.stderr == ""


def test_the_sandbox_context_reads_its_file_references(secure, scene):
    topic, _ = scene
    result = secure.cli("--context", "sandbox", "topics", "list", "-o", "json")
    assert result.returncode == 0, result.stderr
    assert topic in {t["name"] for t in json.loads(result.stdout)}
    zk = secure.cli("--context", "sandbox", "zk", "kafka", "-o", "json")
    assert zk.returncode == 0, zk.stderr
    assert json.loads(zk.stdout)["crosscheck"] is not None  # the Admin API answered too


def test_wrong_kafka_password(secure, config):
    result, took = secure.timed_cli("--config", str(config), "topics", "list",
                                    **secure.password_env(kafka=WRONG_PASSWORD))
    assert result.returncode == 1
    assert one_error_line(result) == (
        f"streamctl: error: Kafka at {secure.bootstrap_servers}: metadata request failed: "
        f"sasl_plaintext://{secure.bootstrap_servers}/bootstrap: "
        "SASL authentication error: Authentication failed during authentication due to invalid credentials "
        "with SASL mechanism SCRAM-SHA-512")
    assert took < IN_TIME


def test_wrong_zookeeper_password(secure, config):
    result, took = secure.timed_cli("--config", str(config), "zk", "ls", "/",
                                    **secure.password_env(zookeeper=WRONG_PASSWORD))
    assert result.returncode == 1
    assert one_error_line(result) == (
        f"streamctl: error: ZooKeeper at {secure.zookeeper_hosts} refused the credentials (auth failed)")
    assert took < IN_TIME


@pytest.mark.parametrize("variable, key, args", [
    ("KAFKA_PASSWORD", "kafka.properties.sasl.password", ["topics", "list"]),
    ("ZK_PASSWORD", "zookeeper.sasl.password", ["zk", "ls", "/"]),
])
def test_unset_environment_reference(secure, config, variable, key, args):
    env = {k: v for k, v in secure.password_env().items() if k != variable}
    result, took = secure.timed_cli("--config", str(config), *args, **env)
    assert result.returncode == 3
    assert one_error_line(result) == (
        f"streamctl: error: {config}:{line_of(config, '${' + variable + '}')}: contexts.it.{key}: "
        f"environment variable '{variable}' is not set")
    assert took < IN_TIME


def test_kafka_login_without_a_password(secure, tmp_path):
    config = secure.write_context(tmp_path / "nopass.yaml", kafka_sasl={
        "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "SCRAM-SHA-512", "sasl.username": "streamctl"})
    result, took = secure.timed_cli("--config", str(config), "topics", "list", **secure.password_env())
    assert result.returncode != 0
    assert "sasl.password must be set" in one_error_line(result)
    assert took < IN_TIME


def test_zookeeper_without_credentials(secure, tmp_path):
    config = secure.write_context(tmp_path / "nozk.yaml", zookeeper_sasl={})
    result, took = secure.timed_cli("--config", str(config), "zk", "ls", "/", **secure.password_env())
    assert result.returncode == 1
    assert one_error_line(result) == (
        f"streamctl: error: ZooKeeper at {secure.zookeeper_hosts} requires SASL authentication: "
        "set zookeeper.sasl in the context")
    assert took < IN_TIME


def test_check_with_wrong_passwords_is_critical_and_says_why(secure, config):
    env = secure.password_env(kafka=WRONG_PASSWORD, zookeeper=WRONG_PASSWORD)
    result, took = secure.timed_cli("--config", str(config), "check", **env)
    assert result.returncode == 2
    assert result.stderr == ""  # no traceback from a client thread either
    problems = result.stdout.splitlines()[1:]
    assert (f"[CRIT] kafka cluster: Kafka unreachable at {secure.bootstrap_servers}: metadata request failed: "
            f"sasl_plaintext://{secure.bootstrap_servers}/bootstrap: SASL authentication error: Authentication "
            "failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512") in problems
    assert ("[CRIT] zookeeper session: ZooKeeper answers srvr but a client session failed: "
            f"ZooKeeper at {secure.zookeeper_hosts} refused the credentials (auth failed)") in problems
    assert took < 20 + 5  # within check's own deadline
