"""`topics copy`'s identity: the same copy gets the same id (its transactional.id, resume group
and state file) on every run, and any change of what it copies gets another."""

from __future__ import annotations

from streamctl.kafka.records.copy import CopyRequest, group_of, state_file
from streamctl.kafka.records.formats import Selection


def test_the_same_copy_has_the_same_id_on_every_run_and_another_copy_another():
    request = CopyRequest("dlt", "orders", Selection(since="-1h", fields=("status=500",)), keep_partitions=True)
    same = CopyRequest("dlt", "orders", Selection(since="-1h", fields=("status=500",)), keep_partitions=True)
    assert request.copy_id("b:9092") == same.copy_id("b:9092")
    others = [CopyRequest("dlt", "orders", Selection(since="-2h", fields=("status=500",)), keep_partitions=True),
              CopyRequest("dlt", "orders", Selection(since="-1h", fields=("status=500",))),
              CopyRequest("dlt", "orders2", Selection(since="-1h", fields=("status=500",)), keep_partitions=True),
              CopyRequest("dlt", "orders", Selection(since="-1h", fields=("status=500",)), limit=5,
                          keep_partitions=True)]
    ids = {o.copy_id("b:9092") for o in others} | {request.copy_id("other:9092")}
    assert request.copy_id("b:9092") not in ids and len(ids) == 5


def test_the_resume_point_lives_in_the_state_dir_and_in_a_group_named_for_the_copy(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    copy_id = CopyRequest("dlt", "orders", Selection()).copy_id("b:9092")
    assert state_file(copy_id) == tmp_path / "streamctl" / "copies" / f"{copy_id}.json"
    assert group_of(copy_id) == f"streamctl-copy-{copy_id}"
