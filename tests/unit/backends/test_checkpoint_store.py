"""Where a checkpoint lives: local paths and URLs to stores, and the errors of the ones that
cannot be read (HDFS itself is exercised in tests/faults/test_spark_cluster.py)."""

from __future__ import annotations

import socket

import pytest
from pydantic import ValidationError

from streamctl.backends.checkpoint_store import (
    CheckpointError,
    LocalStore,
    S3Store,
    StoreUnreachable,
    UnusableStore,
    WebHdfsStore,
    store_for,
)
from streamctl.backends.spark import observe_job
from streamctl.errors import UsageError
from streamctl.spark.health import job_health
from streamctl.spark.settings import SparkJob
from streamctl.thresholds import Thresholds


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_locations_name_their_store():
    store, path = store_for("/data/cp")
    assert isinstance(store, LocalStore) and path == "/data/cp"
    assert store_for("file:///data/cp")[1] == "/data/cp"
    store, path = store_for("webhdfs://nn:9870/streamctl/cp")
    assert isinstance(store, WebHdfsStore) and path == "/streamctl/cp" and "nn:9870" in store.label
    store, path = store_for("hdfs://nn:8020/cp", webhdfs_url="http://nn:9870", user="etl")
    assert isinstance(store, WebHdfsStore) and path == "/cp"
    store, path = store_for("s3a://bucket/jobs/cp/", s3_endpoint_url="http://minio:9000")
    assert isinstance(store, S3Store) and path == "bucket/jobs/cp" and store.label == "S3 (minio:9000)"
    assert store_for("s3://bucket/cp")[0].label == "S3 (AWS)"


@pytest.mark.parametrize("location, webhdfs, message", [
    ("hdfs://nn:8020/cp", None, "needs the NameNode's WebHDFS address"),
    ("gs://bucket/cp", None, "gs:// checkpoints are not supported"),
    ("s3a:///cp", None, "no bucket"),
    ("hdfs://nn:8020/cp", "http://", "not a WebHDFS address"),
])
def test_unusable_locations_are_one_line_errors(location, webhdfs, message):
    with pytest.raises(UsageError, match=message):
        store_for(location, webhdfs)


def test_a_silent_namenode_is_unknown_not_a_broken_checkpoint():
    store, path = store_for(f"webhdfs://127.0.0.1:{closed_port()}/cp", timeout=1.0)
    with pytest.raises(StoreUnreachable, match=r"HDFS \(WebHDFS at 127.0.0.1:\d+\) does not answer"):
        store.is_dir(path)
    view = observe_job("etl", path, store=store)
    assert view.checkpoint_unknown and "does not answer" in view.checkpoint_error
    findings, _ = job_health(view, Thresholds())
    assert [(f.severity.value, f.code) for f in findings] == [("UNKNOWN", "SPARK_CHECKPOINT_UNKNOWN")]


def test_a_store_that_cannot_be_used_is_the_jobs_checkpoint_error():
    view = observe_job("etl", "hdfs://nn:8020/cp", store=UnusableStore("hdfs://nn:8020/cp: needs webhdfs_url"))
    assert not view.checkpoint_unknown and view.checkpoint_error == "hdfs://nn:8020/cp: needs webhdfs_url"
    with pytest.raises(CheckpointError):
        UnusableStore("x").is_dir("/")


def test_the_context_keeps_urls_and_expands_local_paths(monkeypatch):
    monkeypatch.setenv("HOME", "/home/ops")
    assert SparkJob(checkpoint_dir="~/cp").checkpoint_dir == "/home/ops/cp"
    assert SparkJob(checkpoint_dir="hdfs://nn:8020/cp").checkpoint_dir == "hdfs://nn:8020/cp"
    assert SparkJob(checkpoint_dir="s3a://bucket/cp").checkpoint_dir == "s3a://bucket/cp"
    with pytest.raises(ValidationError, match="gs:// checkpoints are not supported"):
        SparkJob(checkpoint_dir="gs://bucket/cp")
