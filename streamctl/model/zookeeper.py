"""ZooKeeper shapes: a znode's Stat and ACLs, decoded data, listings, walks and trees, watches
(no I/O, no UI)."""

from __future__ import annotations

from dataclasses import dataclass, field

# ZooDefs.Perms: READ=1 WRITE=2 CREATE=4 DELETE=8 ADMIN=16, shown as zkCli does ("cdrwa").
PERM_LETTERS = (("c", 4), ("d", 8), ("r", 1), ("w", 2), ("a", 16))


@dataclass(frozen=True)
class ZStat:
    """A znode's Stat, fields in ZooKeeper's order (kazoo's ZnodeStat maps onto it positionally)."""

    czxid: int
    mzxid: int
    ctime: int  # ms since the epoch
    mtime: int
    version: int  # data version
    cversion: int  # children version
    aversion: int  # ACL version
    ephemeral_owner: int  # session id, 0 when persistent
    data_length: int
    num_children: int
    pzxid: int

    @property
    def ephemeral(self) -> bool:
        return self.ephemeral_owner != 0


@dataclass(frozen=True)
class ZAcl:
    scheme: str  # world, digest, ip, sasl, x509, auth
    id: str
    perms: int

    @property
    def perms_text(self) -> str:
        return perms_text(self.perms)


@dataclass(frozen=True)
class DecodedData:
    """Znode data ready to show: kind is empty | json | text | binary."""

    kind: str
    text: str  # pretty JSON, the text itself, or a hex dump
    size: int  # bytes in the znode
    shown: int  # bytes decoded (at most the limit)

    @property
    def truncated(self) -> bool:
        return self.shown < self.size


def perms_text(perms: int) -> str:
    return "".join(letter for letter, bit in PERM_LETTERS if perms & bit)


@dataclass(frozen=True)
class ZNode:
    path: str
    data: bytes
    stat: ZStat


@dataclass(frozen=True)
class Child:
    """One row of `ls`: a child's name and its Stat (None if it vanished meanwhile)."""

    name: str
    path: str
    stat: ZStat | None


@dataclass(frozen=True)
class Walked:
    """One znode met by a walk; children is None below the depth limit (not listed)."""

    path: str
    depth: int
    stat: ZStat
    children: tuple[str, ...] | None


@dataclass
class TreeNode:
    """A subtree with du-like totals over the nodes that were walked."""

    path: str
    stat: ZStat
    listed: bool  # children were fetched (False at the depth limit)
    children: list[TreeNode] = field(default_factory=list)
    subtree_nodes: int = 1
    subtree_bytes: int = 0
    complete: bool = True  # every descendant was walked

    @property
    def name(self) -> str:
        return self.path if self.path == "/" else self.path.rsplit("/", 1)[1]


@dataclass
class Subscription:
    """A live watch; `cancel()` stops the callbacks (kazoo drops the watch on its next event)."""

    path: str
    kind: str  # children | data
    cancelled: bool = False

    def cancel(self) -> None:
        self.cancelled = True
