"""PlanDialog acts on its workers' results only once they have finished: a dismissal that
cancels a worker still finishing would report a completed operation as cancelled."""

from __future__ import annotations

import pytest
from textual.app import App
from textual.widgets import Button, DataTable
from textual.worker import WorkerState

from streamctl.errors import StreamctlError
from streamctl.ops import Change, Plan
from streamctl.tui.app import READ_ONLY_REFUSAL
from streamctl.tui.screens.plan_dialog import OperationRequest, PlanDialog


def one_change_plan() -> Plan:
    return Plan("topics.create", "orders", {}, [Change("topic orders", "partitions", None, 3)])


class DialogApp(App):
    def __init__(self, run, refusal: str | None = None) -> None:
        super().__init__()
        self.run_operation = run
        self.refusal = refusal
        self.results: list[tuple[str | None, list[WorkerState]]] = []

    def on_mount(self) -> None:
        self.push_screen(PlanDialog(OperationRequest("Create topic", one_change_plan, self.run_operation),
                                    refusal=self.refusal), self.dismissed)

    def dismissed(self, result: str | None) -> None:
        executing = [w.state for w in self.workers if w.group == "execute"]
        self.results.append((result, executing))


async def execute(app: DialogApp, pilot) -> None:
    await app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.click("#execute")
    await app.workers.wait_for_complete()  # raises WorkerCancelled/WorkerFailed
    await pilot.pause()


@pytest.mark.parametrize("attempt", range(10))
async def test_the_dialog_closes_with_the_result_after_its_worker_finished(attempt):
    ran: list[object] = []
    app = DialogApp(lambda plan: ran.append(plan) or "topic orders created")
    async with app.run_test(size=(100, 30)) as pilot:
        await execute(app, pilot)
        assert not isinstance(app.screen, PlanDialog)
    assert len(ran) == 1 and ran[0].target == "orders"
    [(result, states)] = app.results
    assert result == "topic orders created"
    assert all(s == WorkerState.SUCCESS for s in states), states


async def test_a_refused_execution_keeps_the_dialog_open_with_its_reason():
    def refuse(plan):
        raise StreamctlError("topic 'orders' already exists")

    app = DialogApp(refuse)
    async with app.run_test(size=(100, 30)) as pilot:
        await execute(app, pilot)
        assert isinstance(app.screen, PlanDialog)
        assert str(app.screen.query_one("#plan-error").render()) == "topic 'orders' already exists"
    assert app.results == []


async def test_a_bug_in_the_operation_is_shown_not_swallowed():
    app = DialogApp(lambda plan: {}["missing"])
    async with app.run_test(size=(100, 30)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.click("#execute")
        for _ in range(50):
            await pilot.pause(0.02)
        assert isinstance(app.screen, PlanDialog)
        assert "unexpected error: KeyError('missing')" in str(app.screen.query_one("#plan-error").render())


async def test_a_read_only_dialog_shows_the_plan_and_refuses_to_execute_it():
    ran: list[object] = []
    app = DialogApp(lambda plan: ran.append(plan) or "topic orders created", refusal=READ_ONLY_REFUSAL)
    async with app.run_test(size=(100, 30)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, PlanDialog)
        assert dialog.query_one(DataTable).row_count == 1  # the plan: a dry run
        assert dialog.query_one("#execute", Button).disabled
        assert str(dialog.query_one("#plan-error").render()) == READ_ONLY_REFUSAL
        await pilot.click("#execute")
        dialog._execute()  # reached anyway: refused
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen is dialog
    assert ran == [] and app.results == []


def _lost_answer_run(reread):
    """An operation run through the plan core whose answer is lost after it was sent (its Kafka
    client crashed after the call began), then re-read by `reread`."""
    from streamctl.backends.kafka.client import KafkaAnswerLost
    from streamctl.ops import execute as run_plan

    def run(plan):
        def apply():
            raise KafkaAnswerLost("create_topic: the Kafka client crashed (SIGSEGV, librdkafka) after the "
                                  "change was sent: not sent again")

        run_plan(plan, "it", apply, reread)
        return "topic orders created"

    return run


async def test_an_unknown_outcome_is_shown_as_such_and_never_executed_again(tmp_path, monkeypatch):
    from streamctl.backends.kafka.client import KafkaError
    from streamctl.ops import audit

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))

    def unreadable():
        raise KafkaError("metadata request failed: all brokers down")

    app = DialogApp(_lost_answer_run(unreadable))
    async with app.run_test(size=(120, 30)) as pilot:
        await execute(app, pilot)
        assert isinstance(app.screen, PlanDialog)
        assert "outcome unknown" in str(app.screen.query_one("#plan-title").render())
        assert str(app.screen.query_one("#plan-error").render()).startswith(
            "outcome unknown: re-read before retrying (create_topic: the Kafka client crashed")
        assert app.screen.query_one("#execute").disabled
    [entry] = audit.read()
    assert entry["result"] == "unknown" and "all brokers down" in entry["error"]


async def test_a_lost_answer_the_re_read_shows_done_closes_as_done_with_a_note(tmp_path, monkeypatch):
    from streamctl.ops import audit

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    app = DialogApp(_lost_answer_run(lambda: [["topic orders", "partitions", 3]]))
    async with app.run_test(size=(120, 30)) as pilot:
        await execute(app, pilot)
    [(result, _)] = app.results
    assert result.startswith("topic orders created (the answer was lost (create_topic: the Kafka client crashed")
    assert result.endswith("the re-read shows the change made)")
    [entry] = audit.read()
    assert entry["result"] == "ok" and entry["after"] == [["topic orders", "partitions", 3]] and entry["note"]
