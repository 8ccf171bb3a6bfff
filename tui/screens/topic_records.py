"""A topic's records: the latest N per partition (or from an offset or a time), a value filter,
follow (refresh on the interval) or still, and the selected record in full (JSON pretty-printed).
Reads assign partitions in the Kafka client process; they never join or commit a group."""

from __future__ import annotations

import json

from rich.markup import escape
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import DataTable, Input, Static

from streamctl.errors import UsageError
from streamctl.tui.screens.base import DataScreen
from streamctl.tui.widgets.literal_table import LiteralTable

LATEST = 20


class TopicRecordsScreen(DataScreen):
    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back", id="detail.back"),
        Binding("f", "toggle_follow", "Follow", id="records.follow"),
        Binding("g", "focus_start", "Go to offset/time", id="records.start"),
        Binding("slash", "focus_filter", "Filter", id="records.filter"),
    ]

    def __init__(self, topic: str) -> None:
        super().__init__()
        self.topic = topic
        self.heading = f"Records of {topic}"
        self.follow = True
        self.start: str = ""  # "" (the latest), an offset, or a time (ISO 8601, -1h)
        self.value_filter: str = ""
        self.shown: dict[str, object] = {}
        self.detail_shown = ""  # the text of the record shown in full

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="records-controls"):
            yield Input(placeholder="start: offset, ISO time or -1h (empty: the latest)", id="records-start")
            yield Input(placeholder="value contains", id="records-filter")
        yield Static(id="records-summary")
        table = LiteralTable(id="records", cursor_type="row", zebra_stripes=True)
        table.border_title = "Records"
        yield table
        with VerticalScroll(id="record-detail"):
            yield Static(id="record-text")

    def on_mount(self) -> None:
        self.query_one("#records", DataTable).add_columns("partition", "offset", "timestamp", "key", "value")
        super().on_mount()

    def _tick(self) -> None:
        if self.follow:
            super()._tick()

    def fetch(self):
        offset = int(self.start) if self.start.isdigit() else None
        from_time = self.start if self.start and offset is None else None
        return self.source.topic_records(self.topic, LATEST, offset, from_time, self.value_filter or None)

    def show(self, records) -> None:
        from streamctl.kafka.records.formats import preview, timestamp_text

        table = self.query_one("#records", DataTable)
        table.clear()
        self.shown = {}
        for r in records:
            key = f"{r.partition}:{r.offset}"
            self.shown[key] = r
            table.add_row(str(r.partition), str(r.offset), timestamp_text(r.timestamp), preview(r.key, 24),
                          preview(r.value, 80), key=key)
        where = f"from {self.start}" if self.start else f"the latest {LATEST} per partition"
        filtered = f", values containing {self.value_filter!r}" if self.value_filter else ""
        self.query_one("#records-summary", Static).update(
            escape(f"{len(records)} record(s), {where}{filtered} · follow {'on' if self.follow else 'off'}"))
        if records and not self.detail_shown:
            self._detail(records[-1])

    @on(DataTable.RowHighlighted, "#records")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        key = event.row_key.value if event.row_key else None
        record = self.shown.get(key) if key is not None else None
        if record is not None:
            self._detail(record)

    def _detail(self, record) -> None:
        self.detail_shown = detail_text(record)
        self.query_one("#record-text", Static).update(escape(self.detail_shown))

    @on(Input.Submitted, "#records-start")
    def _start(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if text and not text.isdigit():
            from streamctl.kafka.records.formats import parse_time

            try:
                parse_time(text)
            except UsageError as exc:
                self.notify(str(exc), severity="error")
                return
        self.start = text
        self.follow = not text  # a chosen start stays put until asked to follow
        self.reload()

    @on(Input.Submitted, "#records-filter")
    def _filter(self, event: Input.Submitted) -> None:
        self.value_filter = event.value
        self.reload()

    def action_toggle_follow(self) -> None:
        self.follow = not self.follow
        self.notify(f"follow {'on' if self.follow else 'off'}")
        self.reload()

    def action_focus_start(self) -> None:
        self.query_one("#records-start", Input).focus()

    def action_focus_filter(self) -> None:
        self.query_one("#records-filter", Input).focus()


def detail_text(record) -> str:
    """The whole record: coordinates, key, headers, and the value (JSON pretty-printed)."""
    from streamctl.kafka.records.formats import preview, timestamp_text

    lines = [(f"{record.topic}/{record.partition} offset {record.offset} · {timestamp_text(record.timestamp)} "
             f"({record.timestamp_type})"), f"key: {preview(record.key, 200)}"]
    lines += [f"header {k}: {preview(v, 200)}" for k, v in record.headers]
    value = record.value
    try:
        body = json.dumps(json.loads(value), indent=2, ensure_ascii=False) if value else preview(value)
    except (ValueError, RecursionError):
        body = preview(value, 4000)
    return "\n".join([*lines, "", body])
