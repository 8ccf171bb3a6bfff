"""Damaged Spark checkpoint and progress files: `jobs checkpoint` reports each damage as one
problem line (the file is read, nothing crashes; `check` turns problems into a WARN), an
unusable directory is one error line."""

from __future__ import annotations

import pytest

from tests import repo
from tests.badinput.harness import Case, Workspace, ids, json_out, run_case

META = '{"id":"q1"}'
OFFSETS = b'v1\n{"batchWatermarkMs":0,"batchTimestampMs":1700000000000}\n{"weblogs":{"0":5,"1":7}}\n'
COMMIT = b'v1\n{"nextBatchWatermarkMs":0}\n'
GOOD = {"cp/metadata": META, "cp/offsets/0": OFFSETS, "cp/commits/0": COMMIT}


def checkpoint(id: str, files: dict, problems: list[str], **expect) -> Case:
    """`jobs checkpoint` on GOOD overlaid with `files` (None removes one): these problems, these fields."""
    layout = {**GOOD, **files}

    def check(result, _workspace):
        data = json_out(result)
        assert data["problems"] == problems
        for key, value in expect.items():
            got = data
            for part in key.split("."):
                got = got[part]
            assert got == value, key

    return Case(id, ("jobs", "checkpoint", "{ws}/cp", "-o", "json"), code=0, stdout=None, check=check,
                files={k: v for k, v in layout.items() if v is not None})


CASES = [
    checkpoint("truncated offsets", {"cp/offsets/1": b'v1\n{"batchWatermarkMs":0}\n'},
               ["offsets/1: truncated (1 line(s) after the header; expected metadata and one line per source)"],
               latest_planned=1, latest_committed=0, in_flight=1, planned=None),
    checkpoint("unknown header", {"cp/offsets/0": b"v7\n" + OFFSETS[3:]},
               ["offsets/0: unknown header 'v7' (expected v1 or v2)"], committed=None),
    checkpoint("binary offsets", {"cp/offsets/0": b"\x00\x00\xff\xfe\x01garbage"},
               ["offsets/0: unknown header '\ufffd\ufffd\\x01garbage' (expected v1 or v2)"], committed=None),
    checkpoint("corrupt metadata", {"cp/metadata": '{"id":'},
               ['metadata: not the JSON {"id": ...} Spark writes'], query_id=None),
    checkpoint("missing metadata", {"cp/metadata": None}, ["metadata: missing (no query id)"], query_id=None),
    checkpoint("commit without offsets", {"cp/commits/3": COMMIT}, ["commits/3 has no offsets/3"],
               latest_committed=3, committed=None),
    checkpoint("corrupt commit", {"cp/commits/0": b'v1\n{"nextBatchWatermarkMs":\n'}, ["commits/0: corrupt JSON"],
               next_watermark_ms=None),
    checkpoint("source line nested too deeply",
               {"cp/offsets/0": b'v1\n{"batchWatermarkMs":0}\n' + b"[" * 50_000 + b"]" * 50_000 + b"\n"},
               ["offsets/0: truncated or corrupt JSON"], committed=None),
    checkpoint("watermark past year 9999",
               {"cp/offsets/0": OFFSETS.replace(b'"batchWatermarkMs":0', b'"batchWatermarkMs":1000000000000000000')},
               [], **{"committed.watermark_ms": 10**18, "committed.watermark": None}),
    checkpoint("watermark infinite",
               {"cp/offsets/0": OFFSETS.replace(b'"batchWatermarkMs":0', b'"batchWatermarkMs":1e999')},
               [], **{"committed.watermark_ms": None}),
    checkpoint("partition not a number", {"cp/offsets/0": OFFSETS.replace(b'"1":7', "\"\u00b2\":7".encode())},
               [], **{"committed.kafka_offsets": {"weblogs": {"0": 5}}}),
    checkpoint("crc and tmp files are not batches", {"cp/offsets/.1.crc": b"\xff", "cp/commits/2.tmp": b"x",
                                                     "cp/offsets/\u00b2": b"v1\n"},
               [], latest_planned=0, latest_committed=0),
    Case("no such directory", ("jobs", "checkpoint", "{ws}/nope"), "{ws}/nope: no such checkpoint directory", code=1),
    Case("a file, not a directory", ("jobs", "checkpoint", "{ws}/cp"),
         "{ws}/cp: a file, not a checkpoint directory", files={"cp": "v1\n"}, code=1),
]

PROGRESS_CONFIG = """\
current-context: p
contexts:
  p:
    kafka: {bootstrap_servers: "127.0.0.1:{dead}", timeout: 2}
    spark: {jobs: {stats: {checkpoint_dir: "{ws}/missing-cp", progress_file: "{ws}/progress.jsonl"}}}
"""


def _progress_skipped(result, _workspace):
    view = json_out(result)
    assert view["name"] == "stats" and view["rates"] is None and view["last_event"] == "progress"
    assert view["checkpoint_error"].endswith("missing-cp: no such checkpoint directory")


CASES += [
    Case(f"progress {name}", ("jobs", "status", "stats", "-o", "json"), code=0, config=PROGRESS_CONFIG,
         stdout=None, check=_progress_skipped, files={"progress.jsonl": line})
    for name, line in {
        "batch id word": '{"event":"progress","batchId":"abc"}\n',
        "rate not a number": '{"event":"progress","batchId":1,"inputRowsPerSecond":{"x":1}}\n',
        "event time not an object": '{"event":"progress","batchId":1,"eventTime":"late"}\n',
    }.items()
]


def _torn_last_line_skipped(result, _workspace):
    view = json_out(result)
    assert view["rates"]["batch_id"] == 1 and view["rates"]["num_input_rows"] == 3


CASES.append(Case("progress torn last line", ("jobs", "status", "stats", "-o", "json"), code=0,
                  config=PROGRESS_CONFIG, stdout=None, check=_torn_last_line_skipped, files={
                      "progress.jsonl": '{"event":"progress","batchId":1,"numInputRows":3}\n'
                                        '{"event":"progress","batchId":2,"num'}))


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_damaged_checkpoint(case, tmp_path):
    run_case(case, Workspace(tmp_path))


# `jobs state --rows` on a copy of the real checkpoint (tests/fixtures/spark): what the files answer
# is said before any Spark session starts, in one line.
REAL_CHECKPOINT = repo.FIXTURES / "spark" / "checkpoint-weblog-stats"


def real_checkpoint(stateless: bool = False) -> dict[str, bytes]:
    files = {f"cp/{p.relative_to(REAL_CHECKPOINT)}": p.read_bytes() for p in REAL_CHECKPOINT.rglob("*") if p.is_file()}
    return {path: data for path, data in files.items() if not (stateless and path.startswith("cp/state/"))}


ROWS_CASES = [
    Case("rows of a stateless checkpoint", ("jobs", "state", "{ws}/cp", "--rows"),
         "{ws}/cp: no state stores (a stateless query): no rows to read", code=1, files=real_checkpoint(stateless=True)),
    Case("rows of an unknown operator", ("jobs", "state", "{ws}/cp", "--rows", "--operator", "7"),
         "{ws}/cp: no stateful operator 7 (operators: 0)", files=real_checkpoint()),
    Case("rows of an unknown store", ("jobs", "state", "{ws}/cp", "--rows", "--store", "right-keyToNumValues"),
         "operator 0 has no store 'right-keyToNumValues' (stores: default)", files=real_checkpoint()),
    Case("rows of a batch not committed", ("jobs", "state", "{ws}/cp", "--rows", "--batch", "40"),
         "batch 40 is not committed (the last committed batch is 32)", files=real_checkpoint()),
    Case("rows of a remote checkpoint", ("jobs", "state", "hdfs://namenode:8020/cp", "--rows"),
         "--rows reads local checkpoints only, and hdfs://namenode:8020/cp is not one (copy it to a local folder; "
         "`jobs state` without --rows reads it where it is)"),
    Case("rows of no directory", ("jobs", "state", "{ws}/nope", "--rows"),
         "{ws}/nope: no such checkpoint directory", code=1),
    Case("a rows option without --rows", ("jobs", "state", "{ws}/cp", "--operator", "0"),
         "--operator goes with --rows", files=real_checkpoint()),
]


@pytest.mark.parametrize("case", ROWS_CASES, ids=ids(ROWS_CASES))
def test_state_rows_refused_from_the_files(case, tmp_path):
    run_case(case, Workspace(tmp_path))


# A real Spark 3.5 checkpoint (tests/fixtures/capture_spark35_checkpoint.py): the same state files as
# Spark 4's and no operator metadata, said in one problem line; --rows refusals as for Spark 4's.
SPARK35_CHECKPOINT = repo.FIXTURES / "spark" / "checkpoint-spark35"
SPARK35_FILES = {f"cp/{p.relative_to(SPARK35_CHECKPOINT)}": p.read_bytes()
                 for p in SPARK35_CHECKPOINT.rglob("*") if p.is_file()}
SPARK35_NO_METADATA = "state/0: no operator metadata (state/0/_metadata/metadata; Spark 4 writes it, Spark 3.5 does not)"


def _spark35_state(result, _workspace):
    data = json_out(result)
    assert data["problems"] == [SPARK35_NO_METADATA] and data["state_batch"] == data["latest_committed"] == 4
    [op] = data["operators"]
    assert (op["operator_name"], op["partitions"], op["latest_version"]) == (None, [0, 1], 5)


SPARK35_CASES = [
    Case("spark 3.5 state", ("jobs", "state", "{ws}/cp", "-o", "json"), code=0, stdout=None,
         check=_spark35_state, files=SPARK35_FILES),
    Case("spark 3.5 rows of a batch not committed", ("jobs", "state", "{ws}/cp", "--rows", "--batch", "9"),
         "batch 9 is not committed (the last committed batch is 4)", files=SPARK35_FILES),
    Case("spark 3.5 rows of an unknown operator", ("jobs", "state", "{ws}/cp", "--rows", "--operator", "1"),
         "{ws}/cp: no stateful operator 1 (operators: 0)", files=SPARK35_FILES),
]


@pytest.mark.parametrize("case", SPARK35_CASES, ids=ids(SPARK35_CASES))
def test_spark35_checkpoint(case, tmp_path):
    run_case(case, Workspace(tmp_path))
