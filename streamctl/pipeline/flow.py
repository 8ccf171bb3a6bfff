"""The pipeline map drawn as a flow from its sources: each branch one hop, coloured by its health.

Branches start at what nothing writes into (Flume agents, source connectors, external
writers); a node reached a second time (two readers of one topic meeting again downstream) is
named there, marked "(above)", and not drawn again. The same branches feed `pipeline -o tree`
(a rich Tree) and the dashboard (a Textual Tree whose Enter opens the hop's screen).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.text import Text
from rich.tree import Tree

from streamctl.model.pipeline import SCREENS, Hop, Node, PipelineMap, eta_text

HEALTH_STYLE = {"OK": "green", "WARN": "yellow", "CRIT": "bold red", "UNKNOWN": "magenta"}
ROOT_ORDER = ("flume", "connector", "producer", "external", "job", "streams", "group", "topic")
ARROW = "━▶ "


@dataclass
class Branch:
    label: Text
    screen: str  # the dashboard screen the node opens on
    children: list[Branch] = field(default_factory=list)
    rank: int = 0  # the severity rank of the hop into this node (0: OK, or a source)

    @property
    def worst(self) -> int:
        return max([self.rank, *(child.worst for child in self.children)])

    @property
    def size(self) -> int:
        return 1 + sum(child.size for child in self.children)


def branches(pipeline: PipelineMap) -> list[Branch]:
    """One branch per source, each hop a child; nodes in a cycle start a branch of their own."""
    nodes = {n.id: n for n in pipeline.nodes}
    leaving: dict[str, list[Hop]] = {}
    for hop in pipeline.hops:
        leaving.setdefault(hop.source, []).append(hop)
    reached = {hop.target for hop in pipeline.hops}
    ordered = sorted(pipeline.nodes, key=lambda n: (n.id in reached, _rank(n), n.name))
    drawn: set[str] = set()
    found = []
    for node in ordered:
        if node.id in drawn or (node.id in reached and node.id not in leaving):
            continue
        drawn.add(node.id)
        found.append(Branch(_node_text(node), SCREENS[node.kind], _children(node.id, nodes, leaving, drawn)))
    return found


def _children(source: str, nodes: dict[str, Node], leaving: dict[str, list[Hop]], drawn: set[str]) -> list[Branch]:
    found = []
    for hop in sorted(leaving.get(source, []), key=lambda h: h.target):
        target = nodes[hop.target]
        again = target.id in drawn
        drawn.add(target.id)
        label = Text.assemble((ARROW, HEALTH_STYLE[hop.severity.value]), _node_text(target))
        if again:
            label.append(" (above)", style="dim")
        figures = _figures(hop)
        if figures:
            label.append(f"  {figures}", style=HEALTH_STYLE[hop.severity.value] if hop.severity.rank else "dim")
        found.append(Branch(label, SCREENS[target.kind], [] if again else _children(target.id, nodes, leaving, drawn),
                            hop.severity.rank))
    return found


def worst_first(found: list[Branch], limit: int) -> tuple[list[Branch], int]:
    """The sources whose flow holds the worst hop first, whole, up to `limit` nodes (the first
    always); and how many nodes were left out. A large cluster's flow stays a summary: the
    dashboard draws it on every refresh."""
    kept: list[Branch] = []
    used = 0
    for branch in sorted(found, key=lambda b: -b.worst):  # stable: the flow's order among equals
        if kept and used + branch.size > limit:
            continue
        kept.append(branch)
        used += branch.size
    return kept, sum(b.size for b in found) - used


def _node_text(node: Node) -> Text:
    text = Text(node.name, style="bold") if node.kind == "topic" else Text(f"{node.kind} {node.name}")
    if node.state and node.state.upper() not in ("RUNNING", "UP", "STABLE", "ACTIVE"):
        text.append(f" ({node.state.lower()})", style="dim")
    return text


def _figures(hop: Hop) -> str:
    """`12.3/s` into a topic; `backlog 42 · lag 3 s · growing · event time 20 s behind · drains never`
    out of it (the event time: a stateful job's watermark against now)."""
    if hop.reader is None:
        return "" if hop.rate_in is None else f"{hop.rate_in:.1f}/s"
    parts = [hop.severity.value] if hop.severity.rank else []
    if hop.backlog is not None:
        parts.append(f"backlog {hop.backlog}")
    if hop.lag_seconds is not None:
        parts.append(f"lag {hop.lag_seconds:.0f} s")
    if hop.trend != "unknown":
        parts.append(hop.trend)
    if hop.event_time_lag_seconds is not None:
        parts.append(f"event time {hop.event_time_lag_seconds:.0f} s behind")
    eta = eta_text(hop.eta_seconds)
    parts.append(eta if eta == "drained" else f"drains {eta}")
    return " · ".join(parts)


def _rank(node: Node) -> int:
    return ROOT_ORDER.index(node.kind) if node.kind in ROOT_ORDER else len(ROOT_ORDER)


def rich_tree(pipeline: PipelineMap) -> Tree:
    tree = Tree("pipeline", hide_root=True, guide_style="dim")

    def add(parent: Tree, branch: Branch) -> None:
        node = parent.add(branch.label)
        for child in branch.children:
            add(node, child)

    for branch in branches(pipeline):
        add(tree, branch)
    return tree
