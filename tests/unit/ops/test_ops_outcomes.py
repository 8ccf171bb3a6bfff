"""The plan core's outcomes for a change whose answer was lost (streamctl.ops.execute): never
applied again, read back as done, not done, or unknown, and audited so."""

from __future__ import annotations

import pytest

from streamctl.errors import AnswerLost, ExitCode, OutcomeUnknown, StreamctlError, exit_code_for
from streamctl.ops import Change, NotAsPlanned, Plan, audit, execute


@pytest.fixture(autouse=True)
def own_state(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def _plan() -> Plan:
    return Plan("topics.create", "orders", {"name": "orders"}, [Change("topic orders", "partitions", None, 3)])


def _lost_once(calls: list):
    def apply():
        calls.append("apply")
        raise AnswerLost("create_topic: the Kafka client crashed (SIGSEGV) after the change was sent")
    return apply


def test_a_lost_answer_the_re_read_shows_is_done_once_with_a_note():
    calls, plan = [], _plan()
    assert execute(plan, "it", _lost_once(calls), lambda: [["topic orders", "partitions", 3]]) is None
    assert calls == ["apply"]
    [entry] = audit.read()
    assert entry["result"] == "ok" and entry["after"] == [["topic orders", "partitions", 3]]
    assert entry["note"] == plan.read_back and plan.read_back.endswith("the re-read shows the change made")


def test_a_lost_answer_the_re_read_shows_not_made_is_not_done_and_failed():
    def verify():
        raise NotAsPlanned("topic 'orders' was not created as planned")

    with pytest.raises(StreamctlError, match=r"^not done: create_topic: .*the re-read shows it not made: topic") as exc:
        execute(_plan(), "it", _lost_once([]), verify)
    assert exit_code_for(exc.value) == ExitCode.FAILURE
    [entry] = audit.read()
    assert entry["result"] == "failed"


@pytest.mark.parametrize("verify", [None, "unreadable"])
def test_a_lost_answer_without_a_re_read_is_outcome_unknown_exit_4(verify):
    def unreadable():
        raise StreamctlError("metadata request failed: all brokers down")

    with pytest.raises(OutcomeUnknown, match=r"^outcome unknown: re-read before retrying \(create_topic: ") as exc:
        execute(_plan(), "it", _lost_once([]), unreadable if verify else None)
    assert exit_code_for(exc.value) == ExitCode.OUTCOME_UNKNOWN == 4 and "\n" not in str(exc.value)
    [entry] = audit.read()
    assert entry["result"] == "unknown" and entry["error"] == str(exc.value)


def test_a_plain_failure_is_still_failed_and_a_success_ok():
    def refuse():
        raise StreamctlError("topic 'orders' already exists")

    with pytest.raises(StreamctlError, match="already exists"):
        execute(_plan(), "it", refuse, list)
    assert execute(_plan(), "it", lambda: "made", lambda: [["topic orders", "partitions", 3]]) == "made"
    assert [e["result"] for e in audit.read()] == ["failed", "ok"]
    assert "note" not in list(audit.read())[-1]
