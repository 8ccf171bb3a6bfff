"""Rich tables of records: a read's records and a group's peek (never Textual)."""

from __future__ import annotations

from streamctl.console import out, simple_table


def records_table(records) -> None:
    """Records: partition, offset, time, key, a bounded value preview, headers (escaped text)."""
    from rich.markup import escape

    from streamctl.kafka.records.formats import preview, timestamp_text

    simple_table("records", ["partition", "offset", "timestamp", "key", "value", "headers"],
                 [[r.partition, r.offset, timestamp_text(r.timestamp), escape(preview(r.key, 24)), escape(preview(r.value)),
                   escape(", ".join(f"{k}={preview(v, 16)}" for k, v in r.headers))] for r in records],
                 frozenset({"partition", "offset"}))


def peek_view(views) -> None:
    """Per partition: where the group stands, then the records it will process next."""
    from rich.markup import escape

    for v in views:
        out.print(f"[bold]{escape(v.topic)}/{v.partition}[/bold] group {escape(v.group)}: committed {v.committed}, "
                  f"log end {v.log_end}, lag {v.lag}, {v.status}", highlight=False)
        if v.error:
            out.print(f"[yellow]{escape(v.error)}[/yellow]", highlight=False)
        if v.records:
            records_table(v.records)
