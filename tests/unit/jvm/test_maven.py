from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from streamctl.errors import StreamctlError
from streamctl.jvm import maven
from tests import repo

FIXTURES = repo.FIXTURES / "mvn"
NS = {"m": "http://maven.apache.org/POM/4.0.0"}


def test_pom_lists_each_coordinate_as_a_dependency():
    pom = ET.fromstring(maven._pom(maven.KAFKA_KRAFT))
    deps = [
        ":".join(d.find(f"m:{tag}", NS).text for tag in ("groupId", "artifactId", "version"))
        for d in pom.iterfind("m:dependencies/m:dependency", NS)
    ]
    assert deps == list(maven.KAFKA_KRAFT.coordinates)
    assert pom.find("m:packaging", NS).text == "pom"


def test_first_error_reads_real_mvn_output():
    output = (FIXTURES / "missing-artifact.txt").read_text()
    message = maven._first_error(output)
    assert message.startswith("Failed to execute goal on project probe: Could not resolve dependencies")
    assert "\x1b" not in message and "kafka_2.13:jar:99.9.9" in message


def test_fetched_means_marker_matches_coordinates(tmp_path):
    folder = maven.lib_dir(maven.KAFKA, tmp_path)
    folder.mkdir(parents=True)
    assert not maven.is_fetched(maven.KAFKA, tmp_path)
    (folder / maven.MARKER).write_text("org.apache.kafka:kafka_2.13:0.0.1\n")
    assert not maven.is_fetched(maven.KAFKA, tmp_path), "a set of other versions is stale"
    (folder / maven.MARKER).write_text("\n".join(maven.KAFKA.coordinates) + "\n")
    assert maven.is_fetched(maven.KAFKA, tmp_path)
    assert maven.classpath(maven.KAFKA, tmp_path) == f"{folder}/*"


def test_classpath_of_unfetched_set_says_what_to_run(tmp_path):
    with pytest.raises(StreamctlError, match="streamctl sandbox fetch"):
        maven.classpath(maven.KAFKA, tmp_path)


def test_register_adds_a_set_for_fetch():
    extra = maven.register(maven.ArtifactSet("unit-extra", "extra", ("g:a:1",)))
    try:
        assert maven.ARTIFACT_SETS["unit-extra"] is extra
    finally:
        del maven.ARTIFACT_SETS["unit-extra"]
