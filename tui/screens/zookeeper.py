"""ZooKeeper: the ensemble's servers, a lazily loaded znode tree, and the selected znode's
data (decoded), Stat and ACL. Watches on the selected znode keep its pane and children live."""

from __future__ import annotations

from rich.markup import escape
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import DataTable, Static, Tree

from streamctl.backends.zookeeper_data import decode_data, join, stat_rows
from streamctl.dashboard.source import ZnodeReader
from streamctl.errors import StreamctlError, UsageError
from streamctl.model.zookeeper import Subscription
from streamctl.tui.screens.base import DataScreen
from streamctl.tui.widgets.cells import cell
from streamctl.tui.widgets.literal_table import LiteralTable

# A KRaft cluster has no ZooKeeper; a ZooKeeper-mode context may leave it out too.
NOT_CONFIGURED = "no zookeeper section in this context (a KRaft-mode cluster has no ZooKeeper)"


class _Children(Message):
    def __init__(self, node, names: list[str]) -> None:
        self.node, self.names = node, names
        super().__init__()


class _Znode(Message):
    def __init__(self, path: str, znode, acls) -> None:
        self.path, self.znode, self.acls = path, znode, acls
        super().__init__()


class _Changed(Message):
    """A watch fired (from kazoo's thread) for the selected znode."""

    def __init__(self, path: str) -> None:
        self.path = path
        super().__init__()

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, _Changed) and message.path == self.path


class ZooKeeperScreen(DataScreen):
    heading = "ZooKeeper"
    AUTO_FOCUS = "Tree"

    def __init__(self) -> None:
        super().__init__()
        self.selected = "/"
        self.watches: list[Subscription] = []

    def compose_body(self) -> ComposeResult:
        ensemble = LiteralTable(id="ensemble", cursor_type="row")
        ensemble.border_title = "Ensemble"
        yield ensemble
        with Horizontal(id="zk-main"):
            tree: Tree[str] = Tree("/", data="/", id="znodes")
            tree.border_title = "Znodes"
            yield tree
            with Vertical(id="zk-pane"):
                yield Static(id="znode-data")
                stat = LiteralTable(id="znode-stat", cursor_type="row")
                stat.border_title = "Stat"
                yield stat
                yield Static(id="znode-acl")

    def on_mount(self) -> None:
        self.query_one("#ensemble", DataTable).add_columns(
            "server", "mode", "latency min/avg/max ms", "outstanding", "znodes", "watches", "connections", "zxid")
        self.query_one("#znode-stat", DataTable).add_columns("field", "value", "meaning")
        super().on_mount()

    def on_unmount(self) -> None:
        self._unwatch()

    # ---- the ensemble and the root, on the refresh interval --------------------------------

    def fetch(self):
        zk = self.source.zookeeper()
        if zk is None:
            raise UsageError(NOT_CONFIGURED)
        servers = self.source.zk_ensemble()
        names, _ = zk.children("/")
        return servers, sorted(names)

    def show(self, data) -> None:
        servers, root_children = data
        table = self.query_one("#ensemble", DataTable)
        table.clear()
        for s in servers:
            latency = "/".join("-" if v is None else f"{v:.1f}" for v in
                               (s.latency_min_ms, s.latency_avg_ms, s.latency_max_ms))
            mode = s.mode or ("unreachable" if not s.reachable else "-")
            table.add_row(s.server, mode, latency, *(cell(v) for v in
                          (s.outstanding, s.znode_count, s.watch_count, s.connections)),
                          "-" if s.zxid is None else hex(s.zxid))
        tree = self.query_one(Tree)
        if not tree.root.children:
            self._fill(tree.root, root_children)
            tree.root.expand()
            self._load_znode("/")

    # ---- the tree, loaded as it is expanded -------------------------------------------------

    def _fill(self, node, names: list[str]) -> None:
        node.remove_children()
        for name in names:
            node.add(Text(name), data=join(node.data, name), allow_expand=True)

    @on(Tree.NodeExpanded)
    def _expanded(self, event: Tree.NodeExpanded) -> None:
        if event.node.data != "/" or not event.node.children:
            self._load_children(event.node)

    @work(thread=True, exit_on_error=False, group="zk-children")
    def _load_children(self, node) -> None:
        try:
            names, _ = self._zookeeper().children(node.data)
        except StreamctlError as exc:
            self.post_message(_failed(exc))
            return
        self.post_message(_Children(node, sorted(names)))

    @on(_Children)
    def _children_loaded(self, message: _Children) -> None:
        self._fill(message.node, message.names)
        if not message.names:
            message.node.allow_expand = False

    # ---- the selected znode's pane, kept live by watches ----------------------------------

    @on(Tree.NodeHighlighted)
    def _highlighted(self, event: Tree.NodeHighlighted) -> None:
        if self.source.zookeeper() is None:  # the root node of an empty tree (fetch says why)
            return
        assert event.node.data is not None  # every node carries its path
        self.selected = event.node.data
        self._load_znode(self.selected)
        self._watch(self.selected)

    @work(thread=True, exclusive=True, exit_on_error=False, group="zk-znode")
    def _load_znode(self, path: str) -> None:
        try:
            zk = self._zookeeper()
            znode = zk.get(path)
            acls, _ = zk.acls(path)
        except StreamctlError as exc:
            self.post_message(_failed(exc))
            return
        self.post_message(_Znode(path, znode, acls))

    @on(_Znode)
    def _znode_loaded(self, message: _Znode) -> None:
        if message.path != self.selected:
            return
        decoded = decode_data(message.znode.data)
        more = f" (first {decoded.shown} of {decoded.size} bytes)" if decoded.truncated else ""
        body = decoded.text if decoded.kind != "empty" else "(no data)"
        data = self.query_one("#znode-data", Static)
        data.border_title = escape(f"{message.path} · {decoded.kind}{more}")
        data.update(Text(body))
        stat = self.query_one("#znode-stat", DataTable)
        stat.clear()
        for name, value, meaning in stat_rows(message.znode.stat):
            stat.add_row(name, str(value), meaning)
        acl_text = ", ".join(f"{a.scheme}:{a.id} {a.perms_text}" for a in message.acls)
        self.query_one("#znode-acl", Static).update(Text(f"ACL: {acl_text}"))

    def _watch(self, path: str) -> None:
        self._unwatch()

        def changed(*_) -> None:
            self.post_message(_Changed(path))

        try:
            zk = self._zookeeper()
            self.watches = [zk.subscribe_data(path, changed), zk.subscribe_children(path, changed)]
        except StreamctlError as exc:
            self.post_message(_failed(exc))

    def _zookeeper(self) -> ZnodeReader:
        zk = self.source.zookeeper()
        if zk is None:
            raise UsageError("this context has no zookeeper section")
        return zk

    def _unwatch(self) -> None:
        for watch in self.watches:
            watch.cancel()
        self.watches = []

    @on(_Changed)
    def _changed(self, message: _Changed) -> None:
        if message.path != self.selected:
            return
        self._load_znode(message.path)
        node = self.query_one(Tree).cursor_node
        if node is not None and node.data == message.path and node.is_expanded:
            self._load_children(node)


def _failed(exc: Exception):
    from streamctl.tui.messages import LoadFailed

    return LoadFailed(str(exc))

