"""Records for the dashboard: the latest N of a topic (or from an offset or a time), and the
record at each of a group's committed offsets. Module-level functions of a Kafka backend, so
the dashboard runs them in its Kafka client process (KafkaProcess.call_with_admin), masked
there before anything crosses back."""

from __future__ import annotations

from streamctl.model.records import Record

MAX_RECORDS = 500  # what one screen holds at most


def latest(backend, topic: str, last: int = 20, offset: int | None = None, from_time: str | None = None,
           value: str | None = None, mask: tuple[str, ...] = ()) -> list[Record]:
    """The last `last` records of each partition (or from `offset` / `from_time`), newest last,
    keeping those whose value contains `value`."""
    from streamctl.backends.kafka.records import RecordReader
    from streamctl.kafka.records.formats import RecordFilter, parse_time, start_offsets
    from streamctl.kafka.records.masking import Masker

    keep = RecordFilter.parse(value=value or None)
    masker = Masker.from_config(mask)
    with RecordReader(backend.client_config, backend.timeout) as reader:
        partitions = reader.partitions(topic)
        starts = start_offsets(reader, topic, partitions, offset=offset,
                               from_time=parse_time(from_time) if from_time else None,
                               from_beginning=False, last=None if offset is not None or from_time else last)
        found = []
        for record in reader.read(topic, starts):
            if keep.keeps(record):
                found.append(masker.apply(record))
                if len(found) >= MAX_RECORDS:
                    break
    return sorted(found, key=lambda r: (r.timestamp or 0, r.partition, r.offset))


def at_offsets(backend, positions: dict[tuple[str, int], int],
               mask: tuple[str, ...] = ()) -> dict[tuple[str, int], Record | None]:
    """The record at each (topic, partition)'s offset: None where there is none yet."""
    from streamctl.backends.kafka.records import RecordReader
    from streamctl.kafka.records.masking import Masker

    masker = Masker.from_config(mask)
    out: dict[tuple[str, int], Record | None] = {}
    with RecordReader(backend.client_config, backend.timeout) as reader:
        for (topic, partition), offset in sorted(positions.items()):
            low, high = reader.watermarks(topic, partition)
            out[(topic, partition)] = None
            if max(offset, low) < high:
                stream = reader.read(topic, {partition: max(offset, low)})
                record = next(stream, None)
                stream.close()
                out[(topic, partition)] = masker.apply(record) if record else None
    return out
