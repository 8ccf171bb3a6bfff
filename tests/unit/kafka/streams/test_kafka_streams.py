"""Kafka Streams apps recognised in snapshots captured from the sandbox's app
(tests/fixtures/capture_streams.py), and the Streams rules."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamctl.kafka.serialize import snapshot_from_dict
from streamctl.kafka.streams.apps import find_apps, internal_role, internal_topic_owners, streams_health
from streamctl.model.health import Severity
from tests import repo

FIXTURES = repo.FIXTURES / "kafka"
APP = "weblog-statuses"
REPARTITION = f"{APP}-by-status-repartition"
CHANGELOG = f"{APP}-status-counts-changelog"


def snapshot(scene: str):
    return snapshot_from_dict(json.loads((FIXTURES / f"streams-{scene}.json").read_text()))


def codes(apps) -> dict[str, Severity]:
    return {f.code: f.severity for f in streams_health(apps)[0]}


@pytest.mark.parametrize("topic, role", [
    (REPARTITION, "repartition"), (CHANGELOG, "changelog"), ("weblogs", None),
    ("other-app-store-changelog", None),  # another app's
    (f"{APP}-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006-topic", "repartition"),
])
def test_internal_topics_are_named_by_the_application_id(topic, role):
    assert internal_role(APP, topic) == role


@given(ids=st.lists(st.sampled_from(["a", "a-b", "app", "a-b-c", "b", "app-x"]), max_size=4),
       topics=st.lists(st.builds("-".join, st.lists(st.sampled_from(
           ["a", "b", "c", "app", "x", "store", "changelog", "repartition", ""]), min_size=1, max_size=5)), max_size=6))
def test_the_owners_of_internal_topics_are_the_ids_internal_role_names(ids, topics):
    owners = internal_topic_owners(topics)
    for app_id in ids:
        assert (app_id in owners) == any(internal_role(app_id, t) for t in topics), (app_id, topics)


def test_a_running_app_with_its_threads_and_topics():
    [app] = find_apps(snapshot("running"), outputs={APP: ["weblog-status-counts"]})
    assert app.status == "RUNNING" and app.group_state == "STABLE"
    assert [(i.threads, i.partitions) for i in app.instances] == [(2, 6)]
    assert [(t.name, t.role) for t in app.topics] == [
        ("weblogs", "input"), (REPARTITION, "repartition"), (CHANGELOG, "changelog"),
        ("weblog-status-counts", "output")]
    lags = {l.topic: 0 for l in snapshot("running").lags if l.group == APP}
    for l in snapshot("running").lags:
        if l.group == APP:
            lags[l.topic] += l.lag
    assert {t.name: t.lag for t in app.topics if t.lag is not None} == lags
    assert app.lag == sum(lags.values())
    assert codes([app]) == {}


def test_the_connect_sink_group_is_no_streams_app():
    snap = snapshot("running")
    assert "connect-weblog-archive" in {g.id for g in snap.groups}
    assert [a.app_id for a in find_apps(snap)] == [APP]


def test_a_stopped_app_with_lag_is_critical():
    [app] = find_apps(snapshot("stopped"))
    assert app.status == "STOPPED" and app.instances == () and app.lag > 0
    assert codes([app]) == {"STREAMS_APP_STOPPED": Severity.CRIT}


def test_a_stopped_app_within_the_allowed_lag_is_idle():
    snap = snapshot("stopped")
    [app] = find_apps(snap, allowed_lag=10**9)
    assert app.status == "IDLE" and codes([app]) == {}


def test_a_stopped_app_is_found_by_its_internal_topics_without_members():
    snap = snapshot("stopped")
    group = snap.group(APP)
    assert group.protocol is None and not group.members  # nothing but the topic names says "Streams"
    assert [a.app_id for a in find_apps(snap)] == [APP]


def test_a_declared_app_is_known_once_its_internal_topics_are_gone():
    snap = snapshot("stopped")
    snap = replace(snap, topics=tuple(t for t in snap.topics if t.name not in (REPARTITION, CHANGELOG)))
    assert find_apps(snap) == []
    [app] = find_apps(snap, outputs={APP: []})
    assert [t.role for t in app.topics] == ["input"]


def test_a_changelog_under_min_isr_is_critical():
    [app] = find_apps(snapshot("changelog-under-min-isr"))
    [changelog] = app.by_role("changelog")
    assert changelog.under_min_isr  # a broker down, min.insync.replicas=3 on the changelog
    assert codes([app])["STREAMS_CHANGELOG_UNDER_MIN_ISR"] is Severity.CRIT
