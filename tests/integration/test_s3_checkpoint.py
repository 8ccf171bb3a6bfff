"""Checkpoints on S3, read from a real S3-compatible server: S3Proxy (org.gaul:s3proxy from Maven
Central, a folder behind the S3 REST API with AWS v4 signatures), started here on a free port.

The checkpoint uploaded is the one captured from the demo job (tests/fixtures/spark): the read
over S3 must equal the local read of the same files, in a bounded number of requests whatever
the history's length; a server that does not answer is one line, never a traceback.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest
import requests

from streamctl.backends.checkpoint_store import S3Store, StoreUnreachable, store_for
from streamctl.backends.spark import read_checkpoint
from streamctl.backends.spark_state import read_state
from streamctl.jvm import maven
from streamctl.jvm.java import java
from streamctl.jvm.processes import free_ports
from tests.conftest import run_cli
from tests.jvm_guard import service_fixture

pytestmark = pytest.mark.integration

S3PROXY = maven.ArtifactSet("s3proxy", "S3Proxy 2.6.0 (an S3-compatible server over a local folder)",
                            ("org.gaul:s3proxy:2.6.0",))
FIXTURE = Path(__file__).parent.parent / "fixtures" / "spark" / "checkpoint-weblog-stats"
KEY, SECRET = "streamctl", "streamctl-secret"


@service_fixture(scope="module")
def s3(tmp_path_factory):
    """The endpoint URL of a running S3Proxy with bucket `checkpoints` holding a short and a long
    history of the captured checkpoint; AWS credentials in the environment, as a user sets them."""
    root = tmp_path_factory.mktemp("s3proxy")
    jars = maven.fetch(S3PROXY)
    port = free_ports(1)[0]
    endpoint = f"http://127.0.0.1:{port}"
    (root / "data").mkdir()
    (root / "s3proxy.properties").write_text("\n".join([
        f"s3proxy.endpoint={endpoint}", "s3proxy.authorization=aws-v2-or-v4",
        f"s3proxy.identity={KEY}", f"s3proxy.credential={SECRET}",
        "jclouds.provider=filesystem-nio2", f"jclouds.filesystem.basedir={root / 'data'}",
        f"jclouds.identity={KEY}", f"jclouds.credential={SECRET}", ""]))
    with open(root / "s3proxy.log", "wb") as log:
        server = subprocess.Popen([java(), "-Xmx128m", "-XX:+UseSerialGC", "-DLOG_LEVEL=info", "-cp", f"{jars}/*",
                                   "org.gaul.s3proxy.Main", "--properties", str(root / "s3proxy.properties")],
                                  stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    patch = pytest.MonkeyPatch()
    patch.setenv("AWS_ACCESS_KEY_ID", KEY)
    patch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    try:
        _wait_for(endpoint, server, root / "s3proxy.log")
        store = S3Store(endpoint)
        store.fs.call_s3("create_bucket", Bucket="checkpoints")
        store.fs.put(str(FIXTURE), "checkpoints/short", recursive=True)
        store.fs.put(str(_long_history(tmp_path_factory.mktemp("long"))), "checkpoints/long", recursive=True)
        yield endpoint
    finally:
        patch.undo()
        server.terminate()
        server.wait(timeout=30)


def _wait_for(endpoint: str, server: subprocess.Popen, log: Path, timeout: float = 60.0) -> None:
    ends = time.monotonic() + timeout
    while time.monotonic() < ends:
        assert server.poll() is None, log.read_text()[-3000:]
        try:
            requests.get(endpoint, timeout=1)
            return
        except requests.RequestException:
            time.sleep(0.3)
    raise AssertionError(f"S3Proxy did not answer at {endpoint} in {timeout:g} s\n{log.read_text()[-3000:]}")


def _long_history(target: Path) -> Path:
    """The captured batches renumbered 9967..9999: a long history with the gap at the start that
    Spark's cleanup (minBatchesToRetain) leaves."""
    long = target / "cp"
    shutil.copytree(FIXTURE, long)
    for folder in ("offsets", "commits"):
        for item in list((long / folder).iterdir()):
            if item.name.isdigit():
                item.rename(item.with_name(str(int(item.name) + 9_967)))
    return long


def test_a_checkpoint_on_s3_reads_as_the_same_files_do_locally(s3):
    local = read_checkpoint(str(FIXTURE))
    store, path = store_for("s3a://checkpoints/short", timeout=5, s3_endpoint_url=s3)
    remote = read_checkpoint(path, store)
    assert not remote.problems and remote.latest_committed == local.latest_committed == 32
    assert (remote.query_id, remote.latest_planned, remote.next_watermark_ms) == \
        (local.query_id, local.latest_planned, local.next_watermark_ms)
    assert remote.planned == local.planned and remote.committed == local.committed
    assert store.fs.ls("checkpoints/short/commits")  # really in the bucket


def test_a_long_history_reads_in_the_same_number_of_requests(s3):
    calls = {}
    for name, latest in (("short", 32), ("long", 9_999)):
        store, path = store_for(f"s3a://checkpoints/{name}", timeout=5, s3_endpoint_url=s3)
        assert read_checkpoint(path, store).latest_committed == latest
        calls[name] = store.calls
    assert calls["short"] == calls["long"] <= 16, calls


def test_state_stores_on_s3_read_as_the_same_files_do_locally_one_listing_per_folder(s3):
    local = read_state(str(FIXTURE))
    store, path = store_for("s3a://checkpoints/short", timeout=5, s3_endpoint_url=s3)
    remote = read_state(path, store)
    assert remote.operators == local.operators and remote.problems == local.problems == ()
    assert remote.state_batch == remote.latest_committed == 32
    checkpoint_only, _ = store_for("s3a://checkpoints/short", timeout=5, s3_endpoint_url=s3)
    read_checkpoint(path, checkpoint_only)
    # state/, state/0/, its metadata file, partitions 0 and 1: not one request per state file (132)
    assert store.calls - checkpoint_only.calls <= 8, (store.calls, checkpoint_only.calls)
    shown = run_cli("jobs", "state", "s3a://checkpoints/short", "--s3-endpoint", s3, "-o", "json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["totals"]["deltas"] == 66


def test_jobs_checkpoint_reads_s3_and_names_a_silent_server_in_one_line(s3, tmp_path):
    shown = run_cli("jobs", "checkpoint", "s3a://checkpoints/short", "--s3-endpoint", s3, "-o", "json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["latest_committed"] == 32
    hole = f"http://127.0.0.1:{free_ports(1)[0]}"
    silent = run_cli("jobs", "checkpoint", "s3a://checkpoints/short", "--s3-endpoint", hole, "--timeout", "2")
    assert silent.returncode == 1 and "Traceback" not in silent.stderr
    assert silent.stderr.strip().splitlines() == [f"streamctl: error: S3 ({hole[7:]}) does not answer: "
                                                  + silent.stderr.split("does not answer: ", 1)[1].strip()]
    missing = run_cli("jobs", "checkpoint", "s3a://checkpoints/nothing-here", "--s3-endpoint", s3)
    assert missing.returncode == 1 and "Traceback" not in missing.stderr, missing.stderr


def test_a_silent_server_is_unreachable_not_a_broken_checkpoint():
    store, path = store_for("s3a://checkpoints/short", timeout=1,
                            s3_endpoint_url=f"http://127.0.0.1:{free_ports(1)[0]}")
    with pytest.raises(StoreUnreachable, match=r"^S3 \(127\.0\.0\.1:\d+\) does not answer"):
        read_checkpoint(path, store)
