"""Which jar sets each sandbox shape fetches (`sandbox fetch`, `sandbox up`), and fetch_all's
parallel mvn runs, with a stand-in `mvn` script on PATH (no network, no JVM)."""

from __future__ import annotations

import stat
import time

import pytest

from streamctl.errors import StreamctlError
from streamctl.jvm import maven
from streamctl.sandbox.addons import Shape, addons, fetch_sets, runs_on, shape_sets
from streamctl.sandbox.stack import Sandbox

DEFAULT = {"kafka", "connect-file", "kafka-streams", "flume", "spark-kafka"}
KRAFT = {"kafka-kraft", "connect-file-kraft", "kafka-streams-kraft"}
DISTRIBUTED = {"hadoop-hdfs", "flume-hdfs"}


def names(sets) -> set[str]:
    return {s.name for s in sets}


def test_default_fetch_is_the_zookeeper_stack_without_hdfs():
    assert names(fetch_sets()) == DEFAULT


@pytest.mark.parametrize("kraft, distributed, extra", [
    (True, False, KRAFT),
    (False, True, DISTRIBUTED),
    (True, True, KRAFT | DISTRIBUTED),
])
def test_flags_add_their_shapes_sets(kraft, distributed, extra):
    assert names(fetch_sets(kraft=kraft, distributed=distributed)) == DEFAULT | extra


def test_kafka_set_comes_first_and_no_set_repeats():
    sets = fetch_sets(kraft=True, distributed=True)
    assert sets[0] == maven.KAFKA and len(sets) == len(set(sets))


def test_everything_the_suite_starts_is_in_fetch_kraft_distributed():
    # `make test` runs `sandbox fetch --kraft --distributed`: no shape `up` starts needs more.
    every = names(fetch_sets(kraft=True, distributed=True))
    for shape in (Shape(k, d) for k in (False, True) for d in (False, True)):
        wanted = [a for a in addons() if runs_on(a, shape)]
        assert names(shape_sets(shape, wanted)) <= every, shape


@pytest.mark.parametrize("shape, expected", [
    (Shape(), DEFAULT),
    (Shape(kraft=True), {"kafka-kraft", "connect-file-kraft", "kafka-streams-kraft", "flume", "spark-kafka"}),
    (Shape(distributed=True), DEFAULT | DISTRIBUTED),
    (Shape(kraft=True, distributed=True),
     {"kafka-kraft", "connect-file-kraft", "kafka-streams-kraft", "flume", "spark-kafka"} | DISTRIBUTED),
])
def test_each_shape_runs_its_own_sets(shape, expected):
    assert names(shape_sets(shape, [a for a in addons() if runs_on(a, shape)])) == expected


def mark_fetched(root, sets) -> None:
    for artifact_set in sets:
        folder = maven.lib_dir(artifact_set, root)
        folder.mkdir(parents=True)
        (folder / maven.MARKER).write_text("\n".join(artifact_set.coordinates) + "\n")


@pytest.mark.parametrize("kraft, distributed", [(False, False), (True, False), (False, True)])
def test_up_fetches_exactly_its_shapes_sets(tmp_path, monkeypatch, kraft, distributed):
    shape = Shape(kraft, distributed)
    needed = shape_sets(shape, [a for a in addons() if runs_on(a, shape)])
    mark_fetched(tmp_path, needed)
    monkeypatch.setenv("PATH", str(tmp_path / "no-mvn-here"))
    sandbox = Sandbox(root=tmp_path / "sb", jars_root=tmp_path)

    sandbox.fetch(kraft, distributed=distributed)  # everything cached: mvn is not needed

    for missing in needed:
        (maven.lib_dir(missing, tmp_path) / maven.MARKER).unlink()
        with pytest.raises(StreamctlError, match="mvn not found"):
            sandbox.fetch(kraft, distributed=distributed)
        (maven.lib_dir(missing, tmp_path) / maven.MARKER).write_text("\n".join(missing.coordinates) + "\n")


def test_kafka_only_fetches_kafka_alone(tmp_path, monkeypatch):
    mark_fetched(tmp_path, [maven.KAFKA_KRAFT])
    monkeypatch.setenv("PATH", str(tmp_path / "no-mvn-here"))
    Sandbox(root=tmp_path / "sb", jars_root=tmp_path).fetch(kraft=True, with_addons=False)


FAKE_MVN = """#!/bin/sh
# A stand-in for mvn: logs start and end of each run; set "slow-*" waits for another run to
# start (so two at once are proved, not timed); set "broken" fails like mvn does.
pom=; for arg; do
  case "$arg" in -DoutputDirectory=*) out="${arg#-DoutputDirectory=}";; esac
  [ "$prev" = "-f" ] && pom="$arg"; prev="$arg"
done
name=$(sed -n 's:.*streamctl.sandbox</groupId><artifactId>\\([^<]*\\)</artifactId><version>1</version>.*:\\1:p' "$pom")
echo "start $name" >> "$LOG"
case "$name" in
  broken) echo "[ERROR] Failed to execute goal: no such artifact g:broken:1"; exit 1;;
  slow-*) i=0; while [ "$(grep -c '^start slow-' "$LOG")" -lt 2 ] && [ $i -lt 300 ]; do
            sleep 0.1; i=$((i+1)); done;;
esac
mkdir -p "$out" && touch "$out/$name.jar"
echo "end $name" >> "$LOG"
"""


@pytest.fixture
def fake_mvn(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    mvn = bin_dir / "mvn"
    mvn.write_text(FAKE_MVN)
    mvn.chmod(mvn.stat().st_mode | stat.S_IEXEC)
    log = tmp_path / "mvn.log"
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.setenv("LOG", str(log))
    return log


def sets_named(*set_names: str) -> list[maven.ArtifactSet]:
    return [maven.ArtifactSet(n, f"the set {n}", (f"g:{n}:1",)) for n in set_names]


def test_fetch_all_runs_two_mvn_at_once_and_keeps_the_order(tmp_path, fake_mvn):
    sets = sets_named("slow-a", "slow-b", "c")
    started = time.monotonic()
    fetched = maven.fetch_all(sets, root=tmp_path / "jars", parallel=2)
    assert [f.artifact_set.name for f in fetched] == ["slow-a", "slow-b", "c"]
    assert not any(f.cached for f in fetched)
    assert all(maven.is_fetched(s, tmp_path / "jars") for s in sets)
    log = fake_mvn.read_text().splitlines()
    # Both slow runs started before either ended: they ran side by side.
    assert log.index("start slow-b") < min(log.index("end slow-a"), log.index("end slow-b"))
    assert time.monotonic() - started < 30, "the slow runs waited out their timeout: not parallel"

    again = maven.fetch_all(sets, root=tmp_path / "jars")
    assert all(f.cached for f in again) and len(fake_mvn.read_text().splitlines()) == len(log)


def test_fetch_all_names_the_failed_set_and_starts_no_more(tmp_path, fake_mvn):
    sets = sets_named("broken", "x", "y", "z")
    with pytest.raises(StreamctlError) as err:
        maven.fetch_all(sets, root=tmp_path / "jars", parallel=1)
    assert str(err.value) == "mvn could not resolve broken: Failed to execute goal: no such artifact g:broken:1"
    assert fake_mvn.read_text().splitlines() == ["start broken"]
    assert not maven.is_fetched(sets[0], tmp_path / "jars")
