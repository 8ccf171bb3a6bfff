"""`topics read` output: records printed a fetch batch at a time stop exactly where --limit and
--max-bytes say, filtered and masked, whatever the batches' sizes."""

from __future__ import annotations

import csv
import io
import json

import pytest

from streamctl.kafka.records.commands import write_records
from streamctl.kafka.records.formats import RecordFilter
from streamctl.kafka.records.masking import MASK, Masker
from streamctl.model.records import Record


def _batches(count: int, per_batch: int, value=lambda i: b'{"n": %d}' % i):
    records = [Record("t", i % 2, i, 1_700_000_000_000 + i, "create", b"k%d" % i, value(i)) for i in range(count)]
    return [records[i:i + per_batch] for i in range(0, count, per_batch)]


def _json_out(capsys) -> list[dict]:
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


@pytest.mark.parametrize("per_batch", [1, 3, 1000])
def test_limit_is_exact_across_batches(capsys, per_batch):
    shown = write_records(iter(_batches(10, per_batch)), RecordFilter.parse(), Masker.from_config(), "json", 7, None)
    assert shown == 7 and [r["offset"] for r in _json_out(capsys)] == list(range(7))


@pytest.mark.parametrize("per_batch", [1, 4, 1000])
def test_max_bytes_stops_at_the_record_that_reaches_it(capsys, per_batch):
    # every record is 2 + 8 = 10 bytes (key k0..k9, value {"n": i})
    shown = write_records(iter(_batches(10, per_batch)), RecordFilter.parse(), Masker.from_config(), "json", 100, 25)
    assert shown == 3 and [r["offset"] for r in _json_out(capsys)] == [0, 1, 2]


def test_filtered_and_masked_in_every_batch(capsys):
    value = lambda i: b'{"n": %d, "token": "t%d"}' % (i, i) if i % 3 == 0 else b'{"n": %d}' % i  # noqa: E731
    keep = RecordFilter.parse(value='"n": ')
    shown = write_records(iter(_batches(9, 2, value)), keep, Masker.from_config(), "json", 100, None)
    printed = _json_out(capsys)
    assert shown == 9 and len(printed) == 9
    assert [json.loads(r["value"]).get("token") for r in printed if json.loads(r["value"])["n"] % 3 == 0] == [MASK] * 3
    assert "t3" not in json.dumps(printed)


def test_csv_has_one_header_and_raw_prints_values(capsys, monkeypatch):
    write_records(iter(_batches(5, 2)), RecordFilter.parse(), Masker.from_config(), "csv", 100, None)
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert rows[0][:2] == ["partition", "offset"] and [r[1] for r in rows[1:]] == ["0", "1", "2", "3", "4"]
    raw = io.TextIOWrapper(io.BytesIO(), write_through=True)
    monkeypatch.setattr("sys.stdout", raw)
    write_records(iter(_batches(3, 2)), RecordFilter.parse(), Masker.from_config(), "raw", 100, None)
    assert raw.buffer.getvalue() == b'{"n": 0}\n{"n": 1}\n{"n": 2}\n'
