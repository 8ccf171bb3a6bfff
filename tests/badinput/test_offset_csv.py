"""Bad offset CSVs (`groups reset-offsets --from-file`, the undo files of `groups undo-reset`):
one line naming the file and row, exit 3, refused before the cluster is asked anything."""

from __future__ import annotations

import pytest

from tests.badinput.harness import Case, Workspace, ids, run_case

RESET = ("groups", "reset-offsets", "g", "--from-file", "{ws}/o.csv", "--execute")
CSV = "{ws}/o.csv"
UNDO = "state/streamctl/undo/dead/g/20260101T000000000000Z.csv"


def csv_case(id: str, content: str | bytes, error: str) -> Case:
    return Case(id, RESET, error, files={"o.csv": content})


CASES = [
    csv_case("semicolons", "t;0;5\n", f"{CSV}:1: expected topic,partition,offset"),
    csv_case("five columns", "g,t,0,5,extra\n", f"{CSV}:1: expected topic,partition,offset"),
    csv_case("partition word", "t,0,5\nt,zero,5\n", f"{CSV}:2: partition and offset must be whole numbers"),
    csv_case("offset fraction", "t,0,5.5\n", f"{CSV}:1: partition and offset must be whole numbers"),
    csv_case("negative partition", "t,-1,5\n", f"{CSV}:1: partition and offset must be whole numbers"),
    csv_case("nul byte", "t,0,5\nt,\x00,1\n", f"{CSV}:2: partition and offset must be whole numbers"),
    csv_case("field over the csv limit", "t,0," + "9" * 200_000 + "\n",
             f"{CSV}:1: not CSV (field larger than field limit (131072))"),
    csv_case("line number after a quoted newline", '"t\nu",0,5\nt,0\n', f"{CSV}:3: expected topic,partition,offset"),
    csv_case("only another group", "other,t,0,5\n", f"{CSV}: no offsets for group 'g'"),
    csv_case("empty", "", f"{CSV}: no offsets for group 'g'"),
    csv_case("blank lines only", "\n , ,\n\n", f"{CSV}: no offsets for group 'g'"),
    csv_case("not utf-8", b"t,0,5\n\xff,1,2\n", f"--from-file {CSV}: not a text file"),
    Case("no such file", ("groups", "reset-offsets", "g", "--from-file", "{ws}/nope.csv"),
         "--from-file {ws}/nope.csv: No such file or directory"),
    Case("a directory", ("groups", "reset-offsets", "g", "--from-file", "{ws}/d"),
         "Invalid value for '--from-file': File '{ws}/d' is a directory.", files={"d/x": ""}),
    Case("damaged undo file", ("groups", "undo-reset", "g", "--execute"),
         f"{{ws}}/{UNDO}:1: expected topic,partition,offset", files={UNDO: "t 0 5\n"}),
    Case("no undo file", ("groups", "undo-reset", "g", "--execute"),
         "no undo file for group 'g' in context 'dead' (looked in {ws}/state/streamctl/undo/dead/g)"),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_bad_offsets_file(case, tmp_path):
    run_case(case, Workspace(tmp_path))
