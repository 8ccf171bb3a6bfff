"""The operations' forms turn what was typed into one call of the dashboard source's operation
(its arguments parsed), or keep the form open with a one-line reason; no services."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from streamctl.kafka.reassign.plans import Job
from streamctl.tui.screens.dialogs import reassign
from streamctl.tui.screens.dialogs.add_partitions import AddPartitionsDialog
from streamctl.tui.screens.dialogs.alter_config import AlterConfigDialog
from streamctl.tui.screens.dialogs.create_topic import CreateTopicDialog
from streamctl.tui.screens.dialogs.form import FormDialog
from streamctl.tui.screens.dialogs.reset_offsets import ResetOffsetsDialog
from streamctl.tui.screens.dialogs.restart_connector import RestartConnectorDialog
from tests.tui.form_app import FormApp, run_form


async def submit(make_form: Callable[[], FormDialog], fields: dict[str, str] | None = None, checks: dict[str, bool] | None = None,
                 mode: str | None = None) -> FormApp:
    app, _ = await run_form(make_form, fields, checks, {"mode": mode} if mode is not None else None, size=(100, 30))
    return app


@pytest.mark.parametrize("make_form, fields, checks, mode, call", [
    (CreateTopicDialog, {"name": "orders", "partitions": "6", "rf": "2", "configs": "retention.ms=60000"}, None, None,
     ("create_topic", "orders", 6, 2, {"retention.ms": "60000"})),
    (lambda: AddPartitionsDialog("orders"), {"total": "12"}, None, None, ("add_partitions", "orders", 12)),
    (lambda: AlterConfigDialog("orders"), {"pairs": "retention.ms=1000, cleanup.policy="}, None, None,
     ("alter_config", "orders", {"retention.ms": "1000", "cleanup.policy": None})),
    (lambda: ResetOffsetsDialog("billing"), {"value": "-5", "topics": "orders:0,1 payments"}, None, "shift-by",
     ("reset_offsets", "billing", [("orders", [0, 1]), ("payments", None)], False, "shift-by", "-5")),
    (lambda: RestartConnectorDialog("weblog-archive", only_failed=True), {}, {"include-tasks": False}, None,
     ("restart_connector", "weblog-archive", False, True)),
    (lambda: reassign.decommission(3), {"throttle": "20MB"}, None, None,
     ("reassign", Job(decommission=3), 20_000_000, False)),
    (lambda: reassign.add_broker(4), {"throttle": "5MiB"}, {"elect-leaders": True}, None,
     ("reassign", Job(add_broker=4), 5 * 1024**2, True)),
    (reassign.rebalance, {"throttle": "1000000"}, {"elect-leaders": True}, None,
     ("reassign", Job(rebalance=True), 1_000_000, True)),
    (lambda: reassign.ReplicationFactorDialog("orders"), {"rf": "3", "throttle": "10MB"}, None, None,
     ("reassign", Job(replication_factor="orders=3"), 10_000_000, False)),
])
async def test_a_form_asks_the_source_for_its_operation(make_form, fields, checks, mode, call):
    app = await submit(make_form, fields, checks, mode)
    assert app.source.calls == [call]
    [request] = app.dismissed
    assert request.title == call[0]


@pytest.mark.parametrize("make_form, fields, mode, error", [
    (CreateTopicDialog, {"name": "orders", "partitions": "six"}, None,
     "partitions: expected a whole number, got 'six'"),
    (lambda: AlterConfigDialog("orders"), {"pairs": " , "}, None, "give at least one key=value"),
    (lambda: ResetOffsetsDialog("billing"), {"value": ""}, "to-offset", "to-offset needs a value"),
    (lambda: reassign.decommission(3), {"throttle": "0"}, None, "--throttle '0': must be above 0 bytes per second"),
    (reassign.rebalance, {"throttle": "fast"}, None, "--throttle 'fast': give bytes per second, e.g. 10MB or 5000000"),
    (lambda: reassign.ReplicationFactorDialog("orders"), {"rf": "three", "throttle": "10MB"}, None,
     "new replication factor: expected a whole number, got 'three'"),
    (lambda: reassign.ReplicationFactorDialog("orders"), {"rf": "0", "throttle": "10MB"}, None,
     "new replication factor: must be 1 or more, got 0"),
])
async def test_bad_input_keeps_the_form_open_with_one_line(make_form, fields, mode, error):
    app = await submit(make_form, fields, mode=mode)
    assert app.error == error
    assert app.source.calls == [] and app.dismissed == []
