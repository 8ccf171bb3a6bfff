"""`streamctl sandbox up --name NAME`: a second, small sandbox (KRaft, one broker, Kafka only)
beside the session's, in the same config file and state dir; `check --all-contexts` sees both, and
`sandbox down --name` takes away only its own context."""

from __future__ import annotations

import json

import pytest
import yaml

from streamctl.sandbox.stack import recorded_ports

pytestmark = pytest.mark.integration

NAME = "small"
TIMEOUT = 30


def contexts(sandbox) -> dict:
    return yaml.safe_load(sandbox.config_path.read_text())


def test_a_named_sandbox_runs_beside_the_session_one_and_leaves_only_with_its_context(sandbox):
    before = contexts(sandbox)
    assert before["current-context"] == "sandbox" and NAME not in before["contexts"]
    try:
        up = sandbox.cli("sandbox", "up", "--name", NAME, "--kraft", "--brokers", "1", "--kafka-only", timeout=300)
        assert up.returncode == 0, up.stderr
        assert (f"context '{NAME}' written to {sandbox.config_path}; current-context stays 'sandbox': "
                f"use --context {NAME}, or switch with `streamctl contexts use {NAME}`") in up.stdout
        after = contexts(sandbox)
        assert after["current-context"] == "sandbox"
        assert after["contexts"] == {**before["contexts"], NAME: after["contexts"][NAME]}  # the others untouched
        small = after["contexts"][NAME]["kafka"]["bootstrap_servers"]
        assert int(small.rsplit(":", 1)[1]) not in recorded_ports(sandbox.sandbox.state())

        status = sandbox.cli("sandbox", "status", "-o", "json")
        assert status.returncode == 0, status.stderr
        rows = {(r["sandbox"], r["name"]): r["state"] for r in json.loads(status.stdout)}
        assert rows[NAME, "kafka-1"] == "running" and rows["sandbox", "kafka-1"] == "running"

        check = sandbox.cli("check", "--all-contexts", "--component", "kafka", "-o", "json",
                            "--timeout", str(TIMEOUT), timeout=TIMEOUT + 60)
        report = {entry["context"]: entry["check"] for entry in json.loads(check.stdout)["contexts"]}
        assert {"sandbox", NAME} <= set(report), check.stdout
        for name in ("sandbox", NAME):
            assert report[name]["components"]["kafka"]["evaluated"], report[name]["summary"]
        brokers = sandbox.cli("--context", NAME, "brokers", "-o", "json")
        assert [b["id"] for b in json.loads(brokers.stdout)["brokers"]] == [1], brokers.stderr

        again = sandbox.cli("sandbox", "up", "--name", NAME, "--kraft", "--brokers", "1", "--kafka-only")
        assert again.returncode == 3 and len(again.stderr.splitlines()) == 1, again.stderr
        assert f"sandbox '{NAME}' is already running" in again.stderr
    finally:
        down = sandbox.cli("sandbox", "down", "--name", NAME, "--wipe", timeout=120)
    assert down.returncode == 0, down.stderr
    assert f"context(s) {NAME} removed from {sandbox.config_path}" in down.stdout
    assert contexts(sandbox) == before  # only its own context went; current-context as it was
    assert sandbox.cli("sandbox", "status", "--name", NAME).returncode == 3  # unknown once wiped
    assert all(s.alive for s in sandbox.sandbox.state().services)  # the session's sandbox runs on
