"""`fetch` against Maven Central with the real mvn."""

from __future__ import annotations

import os

import pytest

from streamctl.errors import StreamctlError
from streamctl.jvm import maven

pytestmark = pytest.mark.integration


def test_unresolvable_artifact_fails_cleanly_and_leaves_no_partial_cache(tmp_path):
    bogus = maven.ArtifactSet("bogus", "a version Maven Central does not have",
                              ("org.apache.kafka:kafka_2.13:0.0.0-no-such-version",))
    with pytest.raises(StreamctlError) as err:
        maven.fetch(bogus, root=tmp_path)
    assert "mvn could not resolve bogus" in str(err.value)
    assert "0.0.0-no-such-version" in str(err.value)
    assert "\n" not in str(err.value)
    assert list(tmp_path.iterdir()) == [], "nothing half-fetched is left behind"


def test_cached_set_is_a_no_op_without_mvn(sandbox, monkeypatch):
    # The session sandbox fetched the Kafka set; a re-run must not even need mvn.
    assert maven.is_fetched(maven.KAFKA)
    monkeypatch.setenv("PATH", "/nonexistent")
    assert maven.fetch(maven.KAFKA) == maven.lib_dir(maven.KAFKA)
    jars = os.listdir(maven.lib_dir(maven.KAFKA))
    assert "kafka_2.13-3.9.2.jar" in jars and any(j.startswith("zookeeper-3.") for j in jars)
