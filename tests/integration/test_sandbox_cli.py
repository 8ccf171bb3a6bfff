"""`streamctl sandbox ...` and `streamctl brokers` from the shell, against the real sandbox."""

from __future__ import annotations

import json
import os

import pytest

from tests.conftest import run_cli

pytestmark = pytest.mark.integration


def test_status_lists_every_process_running(sandbox):
    result = sandbox.cli("sandbox", "status", "-o", "json")
    assert result.returncode == 0, result.stderr
    rows = {r["name"]: r for r in json.loads(result.stdout)}
    assert {"zookeeper", "kafka-1", "kafka-2", "kafka-3"} <= set(rows)
    assert set(rows) == {s.name for s in sandbox.state.services}  # with the add-ons' services
    assert all(r["state"] == "running" and r["pid"] for r in rows.values())
    assert rows["zookeeper"]["port"] == sandbox.state.by_role("zookeeper")[0].port


def test_status_table_names_services_and_ports(sandbox):
    result = sandbox.cli("sandbox", "status")
    assert result.returncode == 0, result.stderr
    for service in sandbox.state.services:
        assert service.name in result.stdout
        assert str(service.port) in result.stdout


def test_up_twice_reports_running_stack(sandbox):
    before = {s.name: s.pid for s in sandbox.sandbox.state().services}
    result = sandbox.cli("sandbox", "up")
    assert result.returncode == 0, result.stderr
    assert "already running" in result.stderr
    assert {s.name: s.pid for s in sandbox.sandbox.state().services} == before


def test_brokers_json_reads_the_sandbox_context(sandbox):
    result = sandbox.cli("brokers", "-o", "json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [b["id"] for b in data["brokers"]] == [1, 2, 3]
    assert data["controller_id"] in (1, 2, 3)


def _env_without(tmp_path, *tools: str) -> dict[str, str]:
    """PATH holding only what the machine has minus `tools` (through a folder of symlinks)."""
    keep = tmp_path / "bin"
    keep.mkdir()
    for folder in os.environ["PATH"].split(os.pathsep):
        if not os.path.isdir(folder):
            continue
        for entry in os.listdir(folder):
            if entry not in tools and not (keep / entry).exists():
                (keep / entry).symlink_to(os.path.join(folder, entry))
    env = {k: v for k, v in os.environ.items() if k != "JAVA_HOME"}
    env.update(PATH=str(keep), XDG_STATE_HOME=str(tmp_path / "state"),
               XDG_CACHE_HOME=str(tmp_path / "cache"), STREAMCTL_CONFIG=str(tmp_path / "c.yaml"))
    return env


def test_up_without_java_is_one_clear_line(tmp_path):
    result = run_cli("sandbox", "up", env=_env_without(tmp_path, "java"))
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        ("streamctl: error: java not found: install a Java 17+ runtime "
        "(Debian: apt-get install openjdk-17-jre-headless)")
    ]
    assert not (tmp_path / "state" / "streamctl" / "sandbox" / "state.json").exists()


def test_fetch_without_mvn_is_one_clear_line_and_leaves_no_cache(tmp_path):
    result = run_cli("sandbox", "fetch", env=_env_without(tmp_path, "mvn"))
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1] == (
        "streamctl: error: mvn not found: install Apache Maven (Debian: apt-get install maven)"
    )
    jars = tmp_path / "cache" / "streamctl" / "jars"
    assert not jars.exists() or not any(jars.iterdir())


@pytest.mark.parametrize("args, message", [
    (["sandbox", "up", "--brokers", "0"], "--brokers"),
    (["sandbox", "frobnicate"], "No such command"),
    (["--context"], "--context"),
])
def test_bad_arguments_exit_3_with_one_line(tmp_path, args, message):
    result = run_cli(*args, env={**os.environ, "XDG_STATE_HOME": str(tmp_path)})
    assert result.returncode == 3
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("streamctl: error:") and message in lines[0]
