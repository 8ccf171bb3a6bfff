"""Kafka read commands against a cluster that is not there: one line naming the cluster, exit 1."""

from __future__ import annotations

import pytest

from tests.badinput.harness import Case, Workspace
from tests.conftest import run_cli

READS = [("brokers",), ("topics", "list"), ("topics", "describe", "t"), ("groups", "list"),
         ("groups", "describe", "g"), ("groups", "lag"), ("topics", "read", "t"), ("groups", "peek", "g"),
         ("topics", "produce", "t", "--execute")]


@pytest.mark.parametrize("args", READS, ids=" ".join)
def test_a_failed_read_names_the_cluster(args, tmp_path):
    workspace = Workspace(tmp_path)
    workspace.write(Case("unreachable", args))
    result = run_cli(*args, env=workspace.env({}), timeout=60)  # stdin is empty: nothing to produce

    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    [line] = result.stderr.splitlines()
    assert line.startswith(f"streamctl: error: Kafka at 127.0.0.1:{workspace.values['dead']}: metadata request failed: ")
