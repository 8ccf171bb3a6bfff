"""Record codecs, filters and masking: every byte survives a JSON line, filters keep what they
say, secrets never reach an output."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamctl.errors import UsageError
from streamctl.kafka.records.formats import (
    RecordFilter,
    parse_json_lines,
    parse_lines,
    parse_time,
    preview,
    to_json_line,
)
from streamctl.kafka.records.masking import MASK, Masker
from streamctl.model.records import Record

maybe_bytes = st.none() | st.binary(max_size=64)


def _record(value: bytes | None = b"v", key: bytes | None = None, headers=(), timestamp=1_700_000_000_000) -> Record:
    return Record("t", 0, 7, timestamp, "create", key, value, tuple(headers))


@given(key=maybe_bytes, value=maybe_bytes,
       headers=st.lists(st.tuples(st.text(min_size=1, max_size=8), maybe_bytes), max_size=3))
def test_a_json_line_keeps_every_byte(key, value, headers):
    line = to_json_line(_record(value, key, headers))
    (back,) = parse_json_lines([line], "dump", keep_timestamps=True, keep_partitions=True)
    assert (back.key, back.value, back.headers, back.partition, back.timestamp) == \
        (key, value, tuple(headers), 0, 1_700_000_000_000)


def test_lines_with_a_key_separator():
    assert [(r.key, r.value) for r in parse_lines(["a:1", "no key", "b:2:3"], ":")] == \
        [(b"a", b"1"), (None, b"no key"), (b"b", b"2:3")]


@pytest.mark.parametrize("line, message", [
    ("{not json", "dump:1: not a record line"),
    ("[1]", "expected a JSON object"),
    ('{"value": "x", "partition": -1}', "partition -1 is not a partition number"),
    ('{"value_b64": "@@"}', "dump:1: not a record line"),
])
def test_bad_json_lines_name_the_line(line, message):
    with pytest.raises(UsageError, match=message):
        list(parse_json_lines([line], "dump", keep_timestamps=False, keep_partitions=True))


def test_relative_and_absolute_times():
    assert abs(parse_time("-1h") - (time.time() - 3600) * 1000) < 5000
    assert parse_time("2026-11-25T12:00:00Z") == 1795608000000
    with pytest.raises(UsageError, match="a time before now like -1h"):
        parse_time("yesterday")


def test_filters_keep_what_they_say():
    record = _record(json.dumps({"status": 500, "user": {"id": 7}}).encode(), b"user-7", [("kind", b"odd")])
    assert RecordFilter.parse(fields=["status=500", "user.id=7"]).keeps(record)
    assert not RecordFilter.parse(fields=["status=200"]).keeps(record)
    assert RecordFilter.parse(key="user-", headers=["kind=odd"]).keeps(record)
    assert not RecordFilter.parse(headers=["kind=even"]).keeps(record)
    assert RecordFilter.parse(value_regex=r'"id": \d').keeps(record)
    assert not RecordFilter.parse(since="2030-01-01T00:00:00Z").keeps(record)
    assert not RecordFilter.parse(fields=["status=500"]).keeps(_record(b"\xff not json"))


def test_masking_defaults_and_configured_paths():
    masker = Masker.from_config(["value.card.number", "headers.x-internal"])
    record = _record(b'{"card": {"number": "4111"}, "Password": "p", "n": 1}',
                     headers=[("Authorization", b"Bearer x"), ("x-internal", b"s"), ("trace", b"t")])
    masked = masker.apply(record)
    assert json.loads(masked.value) == {"card": {"number": MASK}, "Password": MASK, "n": 1}
    assert masked.headers == (("Authorization", MASK.encode()), ("x-internal", MASK.encode()), ("trace", b"t"))
    assert masked.masked == ("headers.Authorization", "headers.x-internal", "value.card.number", "value.Password")
    plain = _record(b'{"n": 1}')
    assert masker.apply(plain) is plain
    with pytest.raises(UsageError, match=r"expected value\.PATH or headers\.NAME"):
        Masker.from_config(["card_number"])


def test_every_spelling_of_password_and_the_other_secret_names_are_masked_by_default():
    masker = Masker.from_config()
    names = ["password", "dbPasswd", "Passwort", "client_secret", "accessToken", "authorization", "api_key", "apiKey"]
    record = _record(json.dumps({**dict.fromkeys(names, "s3cr3t"), "pass": "p", "n": 1}).encode())
    assert json.loads(masker.apply_all([record])[0].value) == {**dict.fromkeys(names, MASK), "pass": "p", "n": 1}


def test_masking_finds_fields_named_in_any_case_or_by_glob():
    masker = Masker.from_config(["value.cardNumber", "value.card.*", "value.items.0.pin?"])
    record = _record(b'{"cardNumber": "4111", "card": {"cvv": "123"}, "items": [{"pin1": "0000"}], "n": 1}')
    assert json.loads(masker.apply(record).value) == {
        "cardNumber": MASK, "card": {"cvv": MASK}, "items": [{"pin1": MASK}], "n": 1}


def test_masking_a_batch_looks_at_each_record_only_when_one_may_need_it():
    masker = Masker.from_config(["value.card.number"])
    plain = [_record(b'{"n": %d}' % i) for i in range(3)]
    assert masker.apply_all(plain) is plain
    mixed = [*plain, _record(b'{"card": {"number": "4111"}}'), _record(b'{"token": "t"}'),
             _record(b'{"n": 4}', headers=[("authorization", b"x")])]
    masked = masker.apply_all(mixed)
    assert masked == [masker.apply(r) for r in mixed]
    assert json.loads(masked[3].value) == {"card": {"number": MASK}} and json.loads(masked[4].value) == {"token": MASK}
    assert masked[5].headers == (("authorization", MASK.encode()),)
    split = [_record(b'{"pass": 1}'), _record(b'{"word": 2}')]  # no needle across two values
    assert masker.apply_all(split) is split


def test_previews_are_bounded_and_show_binary_as_hex():
    assert preview(bytes(range(10))) == "0x00010203040506070809"
    assert len(preview(b"y" * 10_000_000)) == 61
    assert preview("ключ".encode()) == "ключ" and preview(None) == "null"
    assert preview(b"line\nbreak\x1b[31m") == "line\\nbreak\\x1b[31m"


def test_a_masked_record_says_what_was_masked_and_cannot_be_produced_back():
    masker = Masker.from_config(["value.card.number"])
    record = _record(b'{"card": {"number": "4111"}, "password": "p", "n": 1}',
                     headers=[("Authorization", b"Bearer x"), ("trace", b"t")])
    line = json.loads(to_json_line(masker.apply(record)))
    assert line["masked"] == ["headers.Authorization", "value.card.number", "value.password"]
    assert "masked" not in json.loads(to_json_line(masker.apply(_record(b'{"n": 1}'))))
    dump = ['{"value": "fine"}', json.dumps(line)]
    with pytest.raises(UsageError, match=r"dump:2: record holds a masked value \(headers.Authorization\)"):
        list(parse_json_lines(dump, "dump", keep_timestamps=False, keep_partitions=False))


@pytest.mark.parametrize("line, field", [
    ('{"value": "x", "headers": [{"key": "token", "value": "******"}]}', "headers.token"),
    ('{"value": "{\\"user\\": {\\"pin\\": \\"******\\"}}"}', "value.user.pin"),
])
def test_an_export_without_the_masked_list_is_refused_where_it_holds_the_mask(line, field):
    with pytest.raises(UsageError, match=rf"dump:1: record holds a masked value \({field}\)"):
        list(parse_json_lines([line], "dump", keep_timestamps=False, keep_partitions=False))


def test_a_record_alone_in_a_batch_takes_at_most_its_bytes_plus_framing():
    from streamctl.kafka.records.formats import record_batch_bytes

    assert record_batch_bytes(None, None, ()) == 97
    assert record_batch_bytes(b"k", b"v" * 100, (("h", b"xy"),)) == 97 + 101 + 13


def test_a_selection_names_its_options_as_given():
    from streamctl.kafka.records.formats import Selection

    selection = Selection(partitions=(1,), since="-1h", fields=("a=1",))
    assert selection.as_dict() == {"partitions": [1], "since": "-1h", "fields": ["a=1"]}
    with pytest.raises(UsageError, match="give one of --offset"):
        Selection(offset=1, last=2).keep()
