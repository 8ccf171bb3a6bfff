"""One topic: per partition leader, replicas, ISR (out-of-sync replicas highlighted),
watermarks; its configs; the groups consuming it; who can do what on it (its ACL pane)."""

from __future__ import annotations

from rich.markup import escape
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import DataTable, Static

from streamctl.errors import UsageError
from streamctl.kafka import serialize
from streamctl.kafka.acls.access import Rights
from streamctl.tui.screens.base import DataScreen
from streamctl.tui.widgets.acl_pane import AclPane
from streamctl.tui.widgets.cells import cell
from streamctl.tui.widgets.literal_table import LiteralTable


class TopicDetailScreen(DataScreen):
    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back", id="detail.back"),
        Binding("a", "add_partitions", "Add partitions", id="topic.add_partitions"),
        Binding("t", "alter_config", "Alter config", id="topic.alter_config"),
        Binding("f", "change_replication_factor", "Replication factor", id="topic.replication_factor",
                tooltip="change this topic's replication factor (a reassignment, throttled)"),
        Binding("r", "records", "Records", id="topic.records"),
        Binding("n", "create_acl", "New ACL", id="topic.acl_create", tooltip="create an ACL on this topic"),
        Binding("d", "delete_acl", "Delete ACL", id="topic.acl_delete",
                tooltip="delete the selected ACL row's bindings (the plan shows what each principal then loses)"),
        Binding("p", "principal_acls", "Principal's ACLs", id="topic.acl_principal",
                tooltip="what the selected ACL row's principal may do, across resources"),
    ]

    def __init__(self, topic: str) -> None:
        super().__init__()
        self.topic = topic
        self.heading = f"Topic {topic}"

    def compose_body(self) -> ComposeResult:
        yield Static(id="topic-summary")
        partitions = LiteralTable(id="partitions", cursor_type="row", zebra_stripes=True)
        partitions.border_title = "Partitions"
        yield partitions
        with Horizontal(id="topic-side"):
            configs = LiteralTable(id="configs", cursor_type="row")
            configs.border_title = "Configs"
            yield configs
            groups = LiteralTable(id="consumers", cursor_type="row")
            groups.border_title = "Consumed by"
            yield groups
        yield AclPane(self.topic, id="acl-pane")

    def on_mount(self) -> None:
        self.query_one("#partitions", DataTable).add_columns("partition", "leader", "replicas", "ISR",
                                                             "low", "high", "messages")
        self.query_one("#configs", DataTable).add_columns("key", "value")
        self.query_one("#consumers", DataTable).add_columns("group")
        super().on_mount()

    def reload(self) -> None:
        super().reload()
        self.query_one(AclPane).reload()

    def fetch(self):
        snap = self.source.kafka_snapshot(lag_time=False)
        topic = snap.topic(self.topic)
        if topic is None:
            raise UsageError(f"topic {self.topic!r} is not in the cluster any more")
        return topic, serialize.consuming_groups(snap, self.topic)

    def show(self, data) -> None:
        topic, groups = data
        self.query_one("#topic-summary", Static).update(
            f"[b]{escape(topic.name)}[/b] · partitions {len(topic.partitions)} · rf {topic.replication_factor}"
            f" · internal {'yes' if topic.internal else 'no'}")
        table = self.query_one("#partitions", DataTable)
        table.clear()
        for p in topic.partitions:
            isr = Text(",".join(map(str, p.isr)))
            out_of_sync = [r for r in p.replicas if r not in p.isr]
            if out_of_sync:
                isr.append(f"  out: {','.join(map(str, out_of_sync))}", style="bold red")
            leader = Text("none", style="bold red") if p.offline else str(p.leader)
            table.add_row(str(p.partition), leader, ",".join(map(str, p.replicas)), isr,
                          cell(p.low), cell(p.high), cell(p.messages), key=str(p.partition))
        configs = self.query_one("#configs", DataTable)
        configs.clear()
        for key, value in sorted(topic.configs.items()):
            configs.add_row(key, value)
        consumers = self.query_one("#consumers", DataTable)
        consumers.clear()
        for group in groups or ["(none)"]:
            consumers.add_row(group)

    def action_records(self) -> None:
        from streamctl.tui.screens.topic_records import TopicRecordsScreen

        self.app.push_screen(TopicRecordsScreen(self.topic))

    def action_add_partitions(self) -> None:
        from streamctl.tui.screens.dialogs.add_partitions import AddPartitionsDialog

        self.app.open_operation(AddPartitionsDialog(self.topic))

    def action_alter_config(self) -> None:
        from streamctl.tui.screens.dialogs.alter_config import AlterConfigDialog

        self.app.open_operation(AlterConfigDialog(self.topic))

    def action_change_replication_factor(self) -> None:
        from streamctl.tui.screens.dialogs.reassign import ReplicationFactorDialog

        self.app.open_operation(ReplicationFactorDialog(self.topic))

    def action_create_acl(self) -> None:
        from streamctl.tui.screens.dialogs.acl_forms import CreateAclDialog

        self.app.open_operation(CreateAclDialog(Rights("", "*", "Topic", self.topic, "Literal", (), ())))

    def action_delete_acl(self) -> None:
        from streamctl.tui.screens.dialogs.acl_forms import DeleteAclDialog

        # No row: the topic's literal bindings of every principal (`acls delete --topic T`), planned first.
        row = self.query_one(AclPane).selected() or Rights("", "", "Topic", self.topic, "Literal", (), ())
        self.app.open_operation(DeleteAclDialog(row))

    def action_principal_acls(self) -> None:
        from streamctl.tui.screens.principal_acls import PrincipalAclsScreen

        if (row := self.query_one(AclPane).selected()) is None:
            self.notify("no ACL row selected (the ACL pane lists none)", severity="warning")
        else:
            self.app.push_screen(PrincipalAclsScreen(row.principal))
