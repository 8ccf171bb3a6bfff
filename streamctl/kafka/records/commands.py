"""`topics read`, `topics produce`, `topics copy` and `groups peek`: records, always bounded, never
moving anyone's offsets (reads assign partitions themselves; they never join or commit a group).
The topics and groups click groups (topics/commands.py, groups/commands.py) list these commands."""

from __future__ import annotations

import csv
import functools
import os
import sys
from contextlib import contextmanager
from pathlib import Path

import click

from streamctl.kafka.completion import complete_group, complete_topic
from streamctl.kafka.records.copy import CHUNK_RECORDS
from streamctl.model.records import headers_of, key_of, value_of
from streamctl.ops.preview import EXECUTE
from streamctl.session import Session

FORMATS = click.Choice(["table", "json", "csv", "raw"])
TABLE_MAX_BYTES = 64 * 1024 * 1024  # a table holds its rows until it prints them


@contextmanager
def _reader(session: Session):
    from streamctl.backends.kafka.client import KafkaError
    from streamctl.backends.kafka.records import RecordReader

    ctx = session.context()
    try:
        with RecordReader(ctx.kafka.client_config(), ctx.kafka.timeout) as reader:
            yield ctx, reader
    except KafkaError as exc:
        raise KafkaError(f"Kafka at {ctx.kafka.bootstrap_servers}: {exc}") from None


_SELECTION_OPTIONS = (
    click.option("--partition", "-p", "partitions", type=click.IntRange(min=0), multiple=True,
                 help="Only these partitions (repeatable; default all)."),
    click.option("--offset", type=click.IntRange(min=0), help="Start at this offset (in each partition read)."),
    click.option("--from-time", help="Start at the first record at or after a time: ISO 8601 or -1h, -30m, -2d."),
    click.option("--from-beginning", is_flag=True, help="Start at the log start (the default)."),
    click.option("--last", type=click.IntRange(min=1), help="Start N records before each partition's end."),
    click.option("--key", "key_filter", metavar="TEXT", help="Keep records whose key contains TEXT."),
    click.option("--value", "value_filter", metavar="TEXT", help="Keep records whose value contains TEXT."),
    click.option("--value-regex", metavar="RE", help="Keep records whose value matches RE."),
    click.option("--field", "fields", metavar="PATH=VALUE", multiple=True,
                 help="Keep JSON values whose field equals VALUE (repeatable)."),
    click.option("--header", "headers", metavar="NAME[=VALUE]", multiple=True, help="Keep records with this header."),
    click.option("--since", metavar="TIME", help="Keep records at or after TIME (ISO 8601 or -1h)."),
    click.option("--until", metavar="TIME", help="Keep records before TIME."),
)


def selection_options(command):
    """The options `topics read` and `topics copy` choose records with, handed to the command
    as one `selection` (formats.Selection)."""

    @functools.wraps(command)
    def with_selection(*args, partitions, offset, from_time, from_beginning, last, key_filter, value_filter,
                       value_regex, fields, headers, since, until, **kwargs):
        from streamctl.kafka.records.formats import Selection

        selection = Selection(tuple(partitions), offset, from_time, from_beginning, last, key_filter, value_filter,
                              value_regex, tuple(fields), tuple(headers), since, until)
        return command(*args, selection=selection, **kwargs)

    for option in reversed(_SELECTION_OPTIONS):
        with_selection = option(with_selection)
    return with_selection


@click.command("read")
@click.argument("topic", shell_complete=complete_topic)
@selection_options
@click.option("--limit", type=click.IntRange(min=1), default=100, show_default=True, help="Records at most.")
@click.option("--max-bytes", type=click.IntRange(min=1),
              help="Key and value bytes at most (default: 64 MiB for a table, which is held until printed; "
                   "JSON, CSV and raw stream out, bounded by --limit).")
@click.option("--follow", "-f", is_flag=True, help="Keep reading new records until interrupted.")
@click.option("-o", "--output", type=FORMATS, default="table", show_default=True,
              help="table, json (JSON Lines, one record a line, a masked value listed in its `masked`), "
                   "csv, or raw values.")
@click.pass_obj
def topics_read(session: Session, topic: str, selection, limit, max_bytes, follow, output) -> None:
    """Records of a topic, from where you say, filtered, as a table, JSON Lines, CSV or raw.
    Secrets are masked; `topics copy` copies records exactly.

    \b
    Examples:
      streamctl topics read weblogs --last 5
      streamctl topics read weblogs --from-time -1h --value-regex 'status=5..' -o json
      streamctl topics read weblogs -f --header trace-id
    """
    from streamctl.kafka.records.masking import Masker

    keep = selection.keep()
    with _reader(session) as (ctx, reader):
        starts = selection.starts(reader, topic)
        masker = Masker.from_config(ctx.records.mask)
        if max_bytes is None and output == "table":
            max_bytes = TABLE_MAX_BYTES
        # A table waits for its last row: when following, each record is printed as it comes.
        shown = write_records(reader.read_batches(topic, starts, follow=follow), keep, masker,
                       "lines" if follow and output == "table" else output, limit, max_bytes)
    if output == "table":
        click.echo(f"{shown} record(s)", err=True)


def write_records(batches, keep, masker, output: str, limit: int, max_bytes: int | None) -> int:
    """Print kept records as they come (a batch per fetch); stops at `limit` records or at the
    first record that reaches `max_bytes`."""
    out = sys.stdout
    table_rows: list = []
    emit = _emitter(output, out, table_rows)
    shown, size, interrupted = 0, 0, False
    try:
        for batch in _kept(batches, keep if keep.active else None, masker):
            batch, used, done = _take(batch, limit - shown, None if max_bytes is None else max_bytes - size)
            emit(batch)
            shown, size = shown + len(batch), size + used
            if done:
                break
    except KeyboardInterrupt:
        interrupted = True
    finally:
        out.flush()
        if table_rows:
            from streamctl.kafka.records.render import records_table

            records_table(table_rows)
    if interrupted:
        # Ctrl-C ends the command now: what was read is printed, and the consumer (it never
        # committed anything) is not closed: librdkafka's close and teardown can wait on brokers.
        sys.stdout.flush()
        sys.stderr.write(f"{shown} record(s)\n")
        sys.stderr.flush()
        os._exit(130)
    return shown


def _kept(batches, keep, masker):
    """Each batch's records that `keep` keeps (all when None), masked; empty batches skipped."""
    for batch in batches:
        if kept := [r for r in batch if keep.keeps(r)] if keep else batch:
            yield masker.apply_all(kept)


def _take(batch: list, room: int, byte_room: int | None) -> tuple[list, int, bool]:
    """The records of `batch` that fit in `room` more records and, unless `byte_room` is None,
    up to the first that reaches `byte_room` bytes; their bytes; whether that ends the read."""
    taken = batch[:room]
    done = len(taken) == room
    if byte_room is None:
        return taken, 0, done
    if not any(map(headers_of, taken)):  # the usual case: the batch's bytes summed in C
        used = len(b"".join(filter(None, map(key_of, taken)))) + len(b"".join(filter(None, map(value_of, taken))))
        if used < byte_room:
            return taken, used, done
    used = 0
    for i, record in enumerate(taken):
        used += record.size
        if used >= byte_room:
            return taken[:i + 1], used, True
    return taken, used, done


def _emitter(output: str, out, table_rows: list):
    """Prints a batch of records in `output` form (a table collects them in `table_rows`)."""
    from streamctl.kafka.records import formats

    if output == "json":
        return lambda batch: out.write(formats.to_json_lines(batch))
    if output == "csv":
        writer = csv.writer(out)
        writer.writerow(["partition", "offset", "timestamp", "key", "value", "headers"])
        return lambda batch: writer.writerows(map(formats.csv_row, batch))
    if output == "raw":
        return lambda batch: out.buffer.write(b"".join([(r.value or b"") + b"\n" for r in batch]))
    if output == "lines":
        def lines(batch):
            out.write("".join([formats.text_line(r) + "\n" for r in batch]))
            out.flush()
        return lines
    return table_rows.extend


@click.command("produce")
@click.argument("topic", shell_complete=complete_topic)
@click.option("--from", "source", type=click.Path(path_type=Path, dir_okay=False, exists=True),
              help="Read records from this file (default: stdin).")
@click.option("--format", "input_format", type=click.Choice(["lines", "json"]), default="lines", show_default=True,
              help="lines: one value a line; json: JSON Lines as `topics read -o json` writes them.")
@click.option("--key-separator", metavar="SEP", help="lines: the key is what comes before SEP.")
@click.option("--keep-timestamps", is_flag=True, help="json: produce with the records' own timestamps.")
@click.option("--keep-partitions", is_flag=True, help="json: produce into the records' own partitions.")
@EXECUTE
@click.option("-o", "--output", type=click.Choice(["table", "json"]), default="table", show_default=True,
              help="Output format.")
@click.pass_obj
def topics_produce(session: Session, topic: str, source: Path | None, input_format: str, key_separator,
                   keep_timestamps: bool, keep_partitions: bool, execute: bool, output: str) -> None:
    """Produce records from a file or stdin: a dry run first (count, bytes, partitions).

    \b
    Examples:
      printf 'k1:v1\nk2:v2\n' | streamctl topics produce orders --key-separator :
      streamctl topics produce orders --from records.jsonl --format json --execute
    """
    from streamctl.kafka.records import produce
    from streamctl.ops import require_writable
    from streamctl.ops.preview import finish, show

    ctx = session.context()
    require_writable("topics produce", ctx, session.read_only_flag, execute)
    batch = produce.read_input(source, input_format, key_separator, keep_timestamps, keep_partitions)
    plan = produce.plan(ctx, topic, batch)
    show(plan, output)
    finish(plan, execute, lambda: produce.execute(ctx, plan, batch), nothing="nothing to produce: no records")


@click.command("copy")
@click.argument("source", shell_complete=complete_topic)
@click.argument("destination", shell_complete=complete_topic)
@selection_options
@click.option("--limit", type=click.IntRange(min=1), help="Copy the first N selected records at most (default: all).")
@click.option("--keep-partitions", is_flag=True, help="Each record into its source partition's number.")
@click.option("--keep-timestamps", is_flag=True, help="Each record with its source timestamp.")
@click.option("--restart", is_flag=True,
              help="Forget this copy's resume point: copy from the selection's start again.")
@click.option("--chunk-records", type=click.IntRange(min=1), default=CHUNK_RECORDS, show_default=True,
              help="Records per transaction: a larger copy commits in chunks, each with its resume point.")
@click.option("--max-rate", type=click.IntRange(min=1), metavar="N", help="Records a second at most.")
@EXECUTE
@click.option("-o", "--output", type=click.Choice(["table", "json"]), default="table", show_default=True,
              help="Output format.")
@click.pass_obj
def topics_copy(session: Session, source: str, destination: str, selection, limit, keep_partitions: bool,
                keep_timestamps: bool, restart: bool, chunk_records: int, max_rate, execute: bool, output: str) -> None:
    """Copy records from SOURCE to DESTINATION byte for byte (the exact redrive): never masked,
    never printed. A dry run first (count, bytes, partitions, offsets); records larger than
    DESTINATION takes are refused before anything is written.

    Up to --chunk-records records (100,000) and 256 MiB: one Kafka transaction, all or none.
    Larger: a transaction per chunk, each committing the source position reached with it; a
    re-run of the same command resumes after the last committed chunk, never copying a record
    twice (and a finished copy copies nothing again unless --restart).

    \b
    Examples:
      streamctl topics copy weblogs-dlt weblogs --header error-class=timeout           # the plan
      streamctl topics copy weblogs-dlt weblogs --since -2h --keep-partitions --execute
    """
    from streamctl.kafka.records import copy
    from streamctl.ops import require_writable
    from streamctl.ops.preview import finish, show

    ctx = session.context()
    require_writable("topics copy", ctx, session.read_only_flag)
    request = copy.CopyRequest(source, destination, selection, limit, keep_partitions, keep_timestamps)
    plan = copy.plan(ctx, request, restart, chunk_records)
    show(plan, output)
    finish(plan, execute, lambda: copy.execute(ctx, plan, request, lambda line: click.echo(line, err=True), max_rate),
           nothing=plan.nothing)


@click.command("peek")
@click.argument("group", shell_complete=complete_group)
@click.option("--partition", "partitions", metavar="TOPIC:P", multiple=True,
              help="Only this partition (repeatable; default every lagging one).")
@click.option("--count", type=click.IntRange(min=1, max=100), default=3, show_default=True,
              help="Records from the committed offset on, per partition.")
@click.option("-o", "--output", type=click.Choice(["table", "json"]), default="table", show_default=True,
              help="Output format.")
@click.pass_obj
def groups_peek(session: Session, group: str, partitions, count: int, output: str) -> None:
    """The record each lagging partition's group will process next, and the few after it.

    \b
    Example:
      streamctl groups peek connect-weblog-archive --count 5
    """
    from streamctl.kafka.records import peek

    ctx = session.context()
    views = peek.peek(ctx, group, partitions, count)
    if output == "json":
        import json

        click.echo(json.dumps([v.as_dict() for v in views], indent=2))
        return
    if not views:
        click.echo(f"group {group} lags on no partition: nothing to peek at", err=True)
        return
    from streamctl.kafka.records.render import peek_view

    peek_view(views)
