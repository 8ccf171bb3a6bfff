"""Offset CSVs that only the cluster can judge (a partition the topic lacks, an unknown topic or
group), against the session sandbox: one line, exit 3, and the group's committed offsets, the
audit log and the undo files stay as they were. Odd but valid files plan without changing."""

from __future__ import annotations

import pytest

from tests.badinput.harness import Case, Workspace, ids, json_out, run_case
from tests.integration.kafka_helpers import commit, produce, unique

pytestmark = pytest.mark.integration

CONFIG = """\
current-context: it
contexts:
  it:
    kafka: {bootstrap_servers: "{bootstrap}", timeout: 10}
"""
CSV = "{ws}/o.csv"
RESET = ("groups", "reset-offsets", "{group}", "--from-file", CSV)
UNDO = "state/streamctl/undo/it/{group}/20260101T000000000000Z.csv"
BASE = {0: 100, 1: 50, 2: 40}


def csv_case(id: str, content: str, error: str, args: tuple[str, ...] = RESET) -> Case:
    return Case(id, (*args, "--execute"), error, config=CONFIG, files={"o.csv": content})


def _plan(*changes: tuple[int, int, int, str]):
    def check(result, workspace):
        plan = json_out(result)
        assert [(c["object"], c["before"], c["after"], c["note"]) for c in plan["changes"]] == [
            (workspace.fill(f"{{topic}}/{p}"), before, after, workspace.fill(note)) for p, before, after, note in changes]
    return check


CASES = [
    csv_case("partition the topic lacks", "{topic},7,5\n", "topic '{topic}' has no partition 7 (partitions 0-2)"),
    csv_case("unknown topic", "nosuch-{topic},0,5\n", "no topic 'nosuch-{topic}' in the cluster"),
    csv_case("file lacks the --topic partition", "{topic},1,5\n", f"{CSV}: no offset for {{topic}}/0",
             args=(*RESET, "--topic", "{topic}:0")),
    csv_case("unknown group", "{topic},0,5\n", "no consumer group 'nosuch-{group}' in the cluster",
             args=("groups", "reset-offsets", "nosuch-{group}", "--from-file", CSV)),
    Case("damaged undo file", ("groups", "undo-reset", "{group}", "--execute"),
         f"{{ws}}/{UNDO}:2: partition and offset must be whole numbers", config=CONFIG,
         files={UNDO: "{topic},0,5\n{topic},one,5\n"}),
    Case("byte-order mark (dry run plans it)", (*RESET, "-o", "json"), code=0, config=CONFIG,
         files={"o.csv": "\ufeff{topic},0,5\n"}, stdout=None,
         stderr="dry run: nothing changed; add --execute to apply\n",
         check=_plan((0, 100, 5, "replays 95 records"))),
    Case("offset past the log end (dry run clamps it)", (*RESET, "-o", "json"), code=0, config=CONFIG,
         files={"o.csv": "{topic},2,99999999999999999999\n"}, stdout=None,
         stderr="dry run: nothing changed; add --execute to apply\n",
         check=_plan((2, 40, 300, "requested 99999999999999999999 is past the log end: clamped to 300"))),
]


@pytest.fixture(scope="module")
def scene(sandbox):
    """A topic of 3 partitions x 300 records and an idle group that committed BASE."""
    topic, group = unique("badcsv"), unique("badcsvg")
    sandbox.admin().create_topic(topic, 3, 3)
    produce(sandbox.bootstrap_servers, topic, 900, partitions=3)
    commit(sandbox.bootstrap_servers, group, {(topic, p): o for p, o in BASE.items()})
    return topic, group


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_bad_offsets_file_against_the_cluster(case, tmp_path, sandbox, scene):
    topic, group = scene
    admin = sandbox.admin()
    expected = {(topic, p): o for p, o in BASE.items()}
    assert admin.committed(group) == expected
    run_case(case, Workspace(tmp_path, bootstrap=sandbox.bootstrap_servers, topic=topic, group=group))
    assert admin.committed(group) == expected, "committed offsets changed"
