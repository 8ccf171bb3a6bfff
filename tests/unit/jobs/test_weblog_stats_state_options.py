"""The demo job's state options (--no-watermark, --state-store) and the sandbox's --state-store,
without starting Spark (the real job runs them in tests/faults/test_spark_state_faults.py)."""

from __future__ import annotations

import pytest

from streamctl.demo.spark_job import state_store_args
from streamctl.jobs import weblog_stats
from streamctl.sandbox.state import SandboxState

REQUIRED = ["--bootstrap-servers", "127.0.0.1:9092", "--checkpoint-dir", "/tmp/cp"]


def test_the_defaults_keep_the_watermark_and_sparks_provider():
    args = weblog_stats.parse_args(REQUIRED)
    assert (args.no_watermark, args.state_store) == (False, "hdfs")
    assert weblog_stats.STATE_STORES["hdfs"] == {}


def test_rocksdb_sets_its_provider_with_changelog_checkpointing():
    args = weblog_stats.parse_args([*REQUIRED, "--no-watermark", "--state-store", "rocksdb"])
    assert args.no_watermark
    conf = weblog_stats.STATE_STORES[args.state_store]
    assert conf["spark.sql.streaming.stateStore.providerClass"].endswith(".RocksDBStateStoreProvider")
    assert conf["spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled"] == "true"


def test_no_watermark_refuses_the_append_only_parquet_sink(capsys):
    with pytest.raises(SystemExit) as exit_info:
        weblog_stats.parse_args([*REQUIRED, "--no-watermark", "--parquet-dir", "/tmp/pq"])
    assert exit_info.value.code == 2
    assert "--no-watermark needs update mode" in capsys.readouterr().err


def test_the_sandbox_job_runs_on_the_state_store_it_was_asked_for():
    assert state_store_args(SandboxState("zookeeper", 3, [])) == []  # Spark's default provider
    assert state_store_args(SandboxState("zookeeper", 3, [], extras={"spark_state_store": "rocksdb"})) == \
        ["--state-store", "rocksdb"]
