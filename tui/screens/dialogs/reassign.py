"""The reassignment forms (`reassign execute --<job> --throttle RATE [--elect-leaders]`): the
throttle and whether to elect the preferred leaders after the move, for one job (decommission a
broker, give a broker its share, rebalance, or a topic's new replication factor); the plan dialog
then shows each move."""

from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.widgets import Checkbox, Input

from streamctl.dashboard.operations import OperationRequest
from streamctl.errors import UsageError
from streamctl.kafka.reassign.plans import Job, parse_rate
from streamctl.tui.screens.dialogs.form import FORM_CSS, FormDialog, whole_number


class ReassignDialog(FormDialog):
    """One job, fixed by the screen that opens it: the throttle and the elect checkbox."""

    DEFAULT_CSS = FORM_CSS.format(name="ReassignDialog")

    def __init__(self, job: Job, heading: str) -> None:
        super().__init__()
        self.job = job
        self.heading = heading

    def fields(self) -> ComposeResult:
        yield Input(placeholder="replication throttle per broker, bytes/s (e.g. 10MB)", id="throttle")
        yield Checkbox("elect preferred leaders after the move", id="elect-leaders")

    def job_asked(self) -> Job:
        return self.job

    def request(self) -> OperationRequest:
        job = self.job_asked()
        rate = parse_rate(self.value("throttle"))
        return self.source.reassign(job, rate, self.query_one("#elect-leaders", Checkbox).value)


def decommission(broker: int) -> ReassignDialog:
    return ReassignDialog(Job(decommission=broker), f"Decommission broker {broker}: move every replica off it")


def add_broker(broker: int) -> ReassignDialog:
    return ReassignDialog(Job(add_broker=broker),
                          f"Give broker {broker} its share of replicas and leaders")


def rebalance() -> ReassignDialog:
    return ReassignDialog(Job(rebalance=True), "Rebalance: even out bytes on disk and preferred leaders")


class ReplicationFactorDialog(ReassignDialog):
    """A topic's new replication factor, then the throttle and the elect checkbox."""

    DEFAULT_CSS = FORM_CSS.format(name="ReplicationFactorDialog")

    def __init__(self, topic: str) -> None:
        super().__init__(Job(replication_factor=f"{topic}="), f"Change the replication factor of {escape(topic)}")
        self.topic = topic

    def fields(self) -> ComposeResult:
        yield Input(placeholder="new replication factor", id="rf")
        yield from super().fields()

    def job_asked(self) -> Job:
        factor = whole_number(self.value("rf"), "new replication factor")
        if factor < 1:
            raise UsageError(f"new replication factor: must be 1 or more, got {factor}")
        return Job(replication_factor=f"{self.topic}={factor}")
