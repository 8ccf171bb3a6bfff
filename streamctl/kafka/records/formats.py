"""Records for people and for files: where a read starts, which records it keeps, how a record
is printed (table preview, JSON Lines, CSV, raw) and read back for producing (masking: masking.py).

A JSON line keeps every byte: `key`/`value` hold text when the bytes are UTF-8, else
`key_b64`/`value_b64` hold them in base64; headers likewise. `topics produce --format json`
reads the same lines, so an export produces back exactly (timestamps when asked).
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC

from streamctl.errors import UsageError
from streamctl.kafka.records.masking import MASK, json_document, masked_in
from streamctl.model.records import OutgoingRecord, Record

PREVIEW = 60  # characters of a value in a table


# ---- where a read starts ---------------------------------------------------------------------

def parse_time(text: str, option: str = "--from-time") -> int:
    """A start or end time (streamctl.times: ISO 8601, -1h, PT1H) -> epoch ms."""
    from streamctl.times import parse_time as parse

    return parse(text, option)


def start_offsets(reader, topic: str, partitions: list[int], *, offset: int | None, from_time: int | None,
                  from_beginning: bool, last: int | None) -> dict[int, int]:
    """The first offset to read per partition; an --offset outside the log is an error naming
    the valid range."""
    if from_time is not None:
        return reader.offsets_for_time(topic, partitions, from_time)
    starts = {}
    for p in partitions:
        low, high = reader.watermarks(topic, p)
        if offset is not None:
            if not low <= offset <= high:
                raise UsageError(f"--offset {offset} is out of range for {topic}/{p}: valid offsets are "
                                 f"{low}..{high - 1}" if high > low else
                                 f"--offset {offset} is out of range for {topic}/{p}: it holds no record "
                                 f"(log start and end {low})")
            starts[p] = offset
        elif last is not None:
            starts[p] = max(low, high - last)
        else:
            starts[p] = low
    return starts


# ---- which records a read or a copy takes ---------------------------------------------------------

@dataclass(frozen=True)
class Selection:
    """The records `topics read` and `topics copy` take: partitions, where each starts, which it
    keeps. Raw option text, so that it names a copy the same way on every run (`-1h` included)."""

    partitions: tuple[int, ...] = ()
    offset: int | None = None
    from_time: str | None = None
    from_beginning: bool = False
    last: int | None = None
    key: str | None = None
    value: str | None = None
    value_regex: str | None = None
    fields: tuple[str, ...] = ()
    headers: tuple[str, ...] = ()
    since: str | None = None
    until: str | None = None

    def keep(self) -> RecordFilter:
        starts_given = sum(x is not None for x in (self.offset, self.from_time, self.last)) + self.from_beginning
        if starts_given > 1:
            raise UsageError("give one of --offset, --from-time, --from-beginning, --last")
        return RecordFilter.parse(self.key, self.value, self.value_regex, self.fields, self.headers,
                                  self.since, self.until)

    def starts(self, reader, topic: str) -> dict[int, int]:
        """The first offset to read in each chosen partition of `topic`."""
        start_ms = parse_time(self.from_time) if self.from_time else None
        known = reader.partitions(topic)
        chosen = sorted(set(self.partitions)) or known
        if missing := [p for p in chosen if p not in known]:
            raise UsageError(f"topic {topic!r} has no partition {missing[0]} (partitions 0..{len(known) - 1})")
        return start_offsets(reader, topic, chosen, offset=self.offset, from_time=start_ms,
                             from_beginning=self.from_beginning, last=self.last)

    def as_dict(self) -> dict:
        from dataclasses import asdict

        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items() if v not in (None, False, ())}


# ---- which records it keeps ------------------------------------------------------------------

@dataclass(frozen=True)
class RecordFilter:
    key: str | None = None  # substring of the key
    value: str | None = None  # substring of the value
    value_regex: re.Pattern | None = None
    fields: tuple[tuple[str, str], ...] = ()  # JSON value: dotted path == value (as text)
    headers: tuple[tuple[str, str | None], ...] = ()  # header present (and equal, when given)
    since: int | None = None  # ms, inclusive
    until: int | None = None  # ms, exclusive

    @classmethod
    def parse(cls, key=None, value=None, value_regex=None, fields=(), headers=(), since=None, until=None):
        try:
            pattern = re.compile(value_regex) if value_regex else None
        except re.error as exc:
            raise UsageError(f"--value-regex {value_regex!r}: {exc}") from None
        pairs = []
        for spec in fields:
            path, sep, wanted = spec.partition("=")
            if not sep or not path:
                raise UsageError(f"--field {spec!r}: expected PATH=VALUE, like status=500 or user.id=7")
            pairs.append((path, wanted))
        wanted_headers = []
        for spec in headers:
            name, sep, wanted = spec.partition("=")
            if not name:
                raise UsageError(f"--header {spec!r}: expected NAME or NAME=VALUE")
            wanted_headers.append((name, wanted if sep else None))
        return cls(key, value, pattern, tuple(pairs), tuple(wanted_headers),
                   parse_time(since, "--since") if since else None, parse_time(until, "--until") if until else None)

    @property
    def active(self) -> bool:
        return any((self.key, self.value, self.value_regex, self.fields, self.headers,
                    self.since is not None, self.until is not None))

    def keeps(self, record: Record) -> bool:
        if self.since is not None and (record.timestamp is None or record.timestamp < self.since):
            return False
        if self.until is not None and (record.timestamp is None or record.timestamp >= self.until):
            return False
        if self.key is not None and self.key.encode() not in (record.key or b""):
            return False
        if self.value is not None and self.value.encode() not in (record.value or b""):
            return False
        if self.value_regex is not None and not self.value_regex.search(_text(record.value)):
            return False
        if self.headers and not all(_has_header(record, name, wanted) for name, wanted in self.headers):
            return False
        if self.fields:
            document = json_document(record.value)
            return document is not None and all(_field_text(document, path) == wanted for path, wanted in self.fields)
        return True


def _has_header(record: Record, name: str, wanted: str | None) -> bool:
    return any(k == name and (wanted is None or (v or b"").decode("utf-8", "replace") == wanted)
               for k, v in record.headers)


def _field_text(document, path: str) -> str | None:
    for part in path.split("."):
        if isinstance(document, dict) and part in document:
            document = document[part]
        elif isinstance(document, list) and part.isdigit() and int(part) < len(document):
            document = document[int(part)]
        else:
            return None
    if isinstance(document, str):
        return document
    return json.dumps(document)


def _text(data: bytes | None) -> str:
    return data.decode("utf-8", "replace") if data is not None else ""


# ---- printing -----------------------------------------------------------------------------------

def to_json_line(record: Record) -> str:
    """One JSON object on one line."""
    return to_json_lines([record])[:-1]


def to_json_lines(batch: list[Record]) -> str:
    """A JSON object per record, a line each (newline-ended): written by hand around the C string
    encoder, the topic encoded once a batch (json.dumps of a dict costs ~4x more, a million times
    per export)."""
    lines: list[str] = []
    append = lines.append
    topics: dict[str, str] = {}
    for topic, partition, offset, timestamp, timestamp_type, key, value, headers, masked in batch:
        if (quoted := topics.get(topic)) is None:
            quoted = topics[topic] = _string(topic)
        try:  # UTF-8 key and value, the common case, without a call per field
            data = (f'"key": {"null" if key is None else _string(key.decode())}, '
                    f'"value": {"null" if value is None else _string(value.decode())}')
        except UnicodeDecodeError:
            data = f'{_bytes_field("key", key)}, {_bytes_field("value", value)}'
        listed = ", ".join(f'{{"key": {_string(k)}, {_bytes_field("value", v)}}}' for k, v in headers) \
            if headers else ""
        append(f'{{"topic": {quoted}, "partition": {partition}, "offset": {offset}, '
               f'"timestamp": {"null" if timestamp is None else timestamp}, "timestamp_type": "{timestamp_type}", '
               f'{data}, "headers": [{listed}]'
               f'{", " + _masked_field_list(masked) if masked else ""}}}\n')
    return "".join(lines)


_string = json.encoder.encode_basestring  # a JSON string literal, non-ASCII kept


def _masked_field_list(masked: tuple[str, ...]) -> str:
    """`"masked": [...]`: the record's values replaced by the mask (`topics produce` refuses it)."""
    return f'"masked": [{", ".join(map(_string, masked))}]'


def _bytes_field(name: str, data: bytes | None) -> str:
    if data is None:
        return f'"{name}": null'
    try:
        return f'"{name}": {_string(data.decode("utf-8"))}'
    except UnicodeDecodeError:
        return f'"{name}_b64": "{base64.b64encode(data).decode()}"'


def preview(data: bytes | None, width: int = PREVIEW) -> str:
    """A one-line, bounded preview: text when UTF-8 and mostly printable (control characters
    escaped), else hex."""
    if data is None:
        return "null"
    head = data[: width * 4]
    text: str | None
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = head[: exc.start].decode("utf-8") if exc.start >= len(head) - 3 else None  # a cut character
    if text is None or _binary(text):
        shown = data[: width // 2].hex()
        return f"0x{shown}…" if len(data) > width // 2 else f"0x{shown}"
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return text[:width] + "…" if len(text) > width or len(data) > len(head) else text


def _binary(text: str) -> bool:
    """NUL, or more than one character in ten a control character other than whitespace."""
    controls = sum(1 for c in text if not c.isprintable() and c not in "\t\n\r")
    return "\x00" in text or controls * 10 > len(text)


def timestamp_text(ms: int | None) -> str:
    """A record's timestamp as UTC ISO 8601 with milliseconds, '-' when it has none."""
    if ms is None:
        return "-"
    from datetime import datetime

    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def text_line(record: Record) -> str:
    """One record on one line, tab-separated (what a followed table prints as records come)."""
    return "\t".join((str(record.partition), str(record.offset), timestamp_text(record.timestamp),
                      preview(record.key, 24), preview(record.value, 200)))


def csv_row(record: Record) -> list[str]:
    return [str(record.partition), str(record.offset), str(record.timestamp or ""),
            _text(record.key), _text(record.value),
            json.dumps({k: _text(v) for k, v in record.headers}) if record.headers else ""]


def partition_spec(spec: str) -> tuple[str, int]:
    """`TOPIC:P` as --partition takes it."""
    topic, sep, number = spec.rpartition(":")
    if not sep or not topic or not number.isdigit():
        raise UsageError(f"--partition {spec!r}: expected TOPIC:PARTITION, like weblogs:0")
    return topic, int(number)


def record_batch_bytes(key: bytes | None, value: bytes | None, headers) -> int:
    """At most what a record alone in a record batch takes on the wire (the size a topic's
    max.message.bytes bounds): the batch header, the record's varints at their widest, its bytes."""
    size = 61 + 36 + len(key or b"") + len(value or b"")
    return size + sum(10 + len(k.encode()) + len(v or b"") for k, v in headers) if headers else size


# ---- reading back for producing ---------------------------------------------------------------------

def parse_lines(lines: Iterable[str], key_separator: str | None) -> Iterator[OutgoingRecord]:
    for number, line in enumerate(lines, 1):
        line = line.rstrip("\n").rstrip("\r")
        if key_separator is not None and key_separator in line:
            key, value = line.split(key_separator, 1)
            yield OutgoingRecord(value.encode(), key.encode(), line=number)
        else:
            yield OutgoingRecord(line.encode(), line=number)


def parse_json_lines(lines: Iterable[str], source: str, keep_timestamps: bool,
                     keep_partitions: bool) -> Iterator[OutgoingRecord]:
    """JSON Lines as `topics read -o json` writes them (or just {key, value, headers, partition,
    timestamp}); a bad line is one error naming the file and line. A line that carries a masked
    value (its `masked` list, or the mask itself in a header or JSON field) is refused: producing
    it would write the mask in place of the secret."""
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            if not isinstance(entry, dict):
                raise ValueError(f"expected a JSON object, got {type(entry).__name__}")
            headers = tuple((str(h["key"]), _bytes_of(h, "value")) for h in entry.get("headers") or ())
            partition = entry.get("partition") if keep_partitions else None
            stamp = entry.get("timestamp") if keep_timestamps else None
            if partition is not None and (not isinstance(partition, int) or partition < 0):
                raise ValueError(f"partition {partition!r} is not a partition number")
            if stamp is not None and not isinstance(stamp, int):
                raise ValueError(f"timestamp {stamp!r} is not milliseconds")
            record = OutgoingRecord(_bytes_of(entry, "value"), _bytes_of(entry, "key"), headers, partition, stamp,
                                    number)
            masked = (entry.get("masked") or [None])[0] or masked_in(headers, record.value)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            message = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
            raise UsageError(f"{source}:{number}: not a record line ({message})") from None
        if masked:
            raise UsageError(f"{source}:{number}: record holds a masked value ({masked}): producing it would write "
                             f"{MASK} in place of the original; copy the records with `topics copy`")
        yield record


def _bytes_of(entry: dict, name: str) -> bytes | None:
    if f"{name}_b64" in entry:
        return base64.b64decode(entry[f"{name}_b64"], validate=True)
    value = entry.get(name)
    if value is None:
        return None
    if isinstance(value, str):
        return value.encode()
    return json.dumps(value).encode()  # an object written inline: its JSON text
