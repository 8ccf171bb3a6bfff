"""`streamctl sandbox up` on an ops host's own config: the real command, a real (Kafka-only,
one-broker) sandbox. It joins the file without taking it over: current-context, comments and
mode stay as they were; `--context sandbox` reaches it."""

from __future__ import annotations

import json
import os
import stat

import pytest

from tests.conftest import run_cli

pytestmark = pytest.mark.integration

OPS_HOST = """\
# ops host: nagios runs `streamctl check` from cron against prod
current-context: prod   # never the sandbox

contexts:
  # production, read-only here
  prod:
    read_only: true
    kafka:
      bootstrap_servers: 'kafka1.example:9092'
      properties:
        sasl.password: ${KAFKA_PASSWORD}
# end
"""


def test_sandbox_up_joins_an_ops_hosts_config(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text(OPS_HOST)
    config.chmod(0o644)
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "STREAMCTL_CONFIG": str(config)}
    try:
        up = run_cli("sandbox", "up", "--kafka-only", "--brokers", "1", env=env, timeout=300)
        assert up.returncode == 0, up.stderr
        assert (f"context 'sandbox' written to {config}; current-context stays 'prod': use --context sandbox, "
                "or switch with `streamctl contexts use sandbox`") in up.stdout
        written = config.read_text()
        assert written.startswith(OPS_HOST)  # every line as it was; the sandbox context after it
        assert "  sandbox:\n    managed-by: streamctl-sandbox\n" in written
        assert stat.S_IMODE(config.stat().st_mode) == 0o644
        brokers = run_cli("brokers", "--context", "sandbox", "-o", "json", env=env)
        assert brokers.returncode == 0, brokers.stderr
        assert len(json.loads(brokers.stdout)["brokers"]) == 1
        again = run_cli("sandbox", "up", "--kafka-only", "--brokers", "1", env=env, timeout=300)
        assert again.returncode == 0, again.stderr
        assert config.read_text() == written  # rewritten in place: the same bytes
    finally:
        down = run_cli("sandbox", "down", "--wipe", env=env, timeout=120)
        assert down.returncode == 0, down.stderr
