"""ZooKeeper adapter on kazoo: browse, walk, watch and change znodes, every call bounded.

Generic on purpose (Kafka, HBase, Hadoop HA and Solr keep state here); the Kafka views are a
layer on top (streamctl.zookeeper.kafka_znodes). Reads use a read-only-capable session (kazoo
`read_only=True`); a backend for changes is opened with `read_only=False`.

Walking many znodes goes through kazoo's async API with bounded pipelining: up to `window`
requests are outstanding on the one session at a time. ZooKeeper answers a session's requests
in order, so the walker waits for a burst of answers at once. The session runs on
streamctl.backends.kazoo_handler, which keeps kazoo's threads but spends far fewer syscalls
(and GIL hand-offs) per request than kazoo's stock handler.
"""

from __future__ import annotations

import importlib.util
import logging
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Self

from kazoo.client import KazooClient
from kazoo.exceptions import (
    AuthFailedError,
    BadVersionError,
    KazooException,
    NoAuthError,
    NodeExistsError,
    NoNodeError,
    NotEmptyError,
    SessionClosedRequireSaslError,
    ZookeeperError,
)
from kazoo.handlers.threading import KazooTimeoutError
from kazoo.recipe.watchers import ChildrenWatch, DataWatch

from streamctl.backends.failure import describe
from streamctl.backends.kazoo_handler import pipeline_handler
from streamctl.backends.kazoo_session import failed_login_is_auth_failure, gc_paused, start_within
from streamctl.backends.zookeeper_data import depth_of, join, validate_path
from streamctl.errors import StreamctlError, UsageError
from streamctl.model.zookeeper import Child, Subscription, TreeNode, Walked, ZAcl, ZNode, ZStat

DEFAULT_WINDOW = 1024  # outstanding requests while walking
MIN_SESSION_TIMEOUT = 6.0  # seconds; ZooKeeper clamps to [2, 20] ticks anyway

# Connection trouble becomes our one-line errors, not kazoo's log lines on stderr.
logging.getLogger("kazoo").addHandler(logging.NullHandler())


class ZooKeeperError(StreamctlError):
    """ZooKeeper could not be read or changed (unreachable, timed out, refused)."""


class NoSuchZnode(UsageError):
    """The path names no znode."""


class ZnodeConflict(StreamctlError):
    """A change was refused: the znode changed since it was read, exists, or is not empty."""


class ZooKeeperBackend:
    """One ZooKeeper session, opened on first use; close() (or `with`) ends it."""

    def __init__(self, hosts: str, timeout: float = 10.0, auth: Iterable[tuple[str, str]] = (),
                 sasl: dict | None = None, tls: dict | None = None, read_only: bool = True,
                 window: int = DEFAULT_WINDOW):
        self.hosts = hosts
        self.timeout = timeout
        self.read_only = read_only
        self.window = max(1, window)
        options = {"auth_data": list(auth) or None, "sasl_options": sasl, **(tls or {})}
        self.client_options = {k: v for k, v in options.items() if v is not None}  # secrets: never print
        self._client: KazooClient | None = None
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings, read_only: bool = True, timeout: float | None = None) -> ZooKeeperBackend:
        """From a context's `zookeeper` section (streamctl.zookeeper.settings.ZooKeeperSettings)."""
        auth = [(settings.auth.scheme, settings.auth.credential.get_secret_value())] if settings.auth else []
        sasl = None
        if settings.sasl:
            s = settings.sasl
            sasl = {k: v for k, v in {
                "mechanism": s.mechanism, "username": s.username,
                "password": s.password.get_secret_value() if s.password else None,
                "service": s.service, "principal": s.principal}.items() if v is not None}
        tls = None
        if settings.tls:
            t = settings.tls
            tls = {"use_ssl": True, "verify_certs": t.verify_certs,
                   "ca": str(t.ca) if t.ca else None,
                   "certfile": str(t.certfile) if t.certfile else None,
                   "keyfile": str(t.keyfile) if t.keyfile else None,
                   "keyfile_password": t.keyfile_password.get_secret_value() if t.keyfile_password else None}
        return cls(settings.hosts, timeout=timeout or settings.timeout, auth=auth, sasl=sasl, tls=tls,
                   read_only=read_only)

    # ---- session -----------------------------------------------------------------------

    def connect(self) -> KazooClient:
        with self._lock:
            if self._client is None:
                self._client = self._start()
            return self._client

    def _start(self) -> KazooClient:
        if self.client_options.get("sasl_options") and importlib.util.find_spec("puresasl") is None:
            raise ZooKeeperError("ZooKeeper SASL needs the pure-sasl package: pip install pure-sasl")
        client = KazooClient(
            hosts=self.hosts, timeout=max(MIN_SESSION_TIMEOUT, self.timeout), handler=pipeline_handler(),
            read_only=self.read_only,
            connection_retry={"max_tries": -1, "delay": 0.1, "backoff": 2, "max_delay": 1.0},
            command_retry={"max_tries": 3, "delay": 0.1, "deadline": self.timeout},
            **self.client_options,
        )
        if self.client_options.get("sasl_options"):
            failed_login_is_auth_failure(client)
        try:
            start_within(client, self.timeout)
        except KazooTimeoutError:
            raise ZooKeeperError(f"ZooKeeper unreachable at {self.hosts}: "
                                 f"no session within {self.timeout:g} s") from None
        except AuthFailedError:
            client.stop()
            raise self._refused() from None
        except KazooException as exc:
            client.stop()
            raise ZooKeeperError(f"ZooKeeper at {self.hosts}: {_reason(exc)}") from None
        return client

    def _refused(self) -> ZooKeeperError:
        return ZooKeeperError(f"ZooKeeper at {self.hosts} refused the credentials (auth failed)")

    def close(self) -> None:
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.stop()
            client.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _wait(self, result, what: str):
        """The async result's value within the per-call timeout; kazoo errors become ours."""
        try:
            return result.get(timeout=self.timeout)
        except KazooTimeoutError:
            raise ZooKeeperError(f"no answer from ZooKeeper within {self.timeout:g} s ({what})") from None
        except (NoNodeError, BadVersionError, NodeExistsError, NotEmptyError):
            raise
        except NoAuthError:
            raise ZooKeeperError(f"not authorised: {what}") from None
        except AuthFailedError:  # the SASL login failed after the session was set up
            raise self._refused() from None
        except SessionClosedRequireSaslError:
            raise ZooKeeperError(f"ZooKeeper at {self.hosts} requires SASL authentication: "
                                 "set zookeeper.sasl in the context") from None
        except (ZookeeperError, KazooException) as exc:
            raise ZooKeeperError(f"{what}: {_reason(exc)}") from None

    # ---- reads ---------------------------------------------------------------------------

    def get(self, path: str) -> ZNode:
        validate_path(path)
        client = self.connect()
        try:
            data, stat = self._wait(client.get_async(path), f"reading {path}")
        except NoNodeError:
            raise NoSuchZnode(f"no znode {path}") from None
        return ZNode(path, data or b"", ZStat(*stat))

    def stat(self, path: str) -> ZStat:
        found = self.exists(path)
        if found is None:
            raise NoSuchZnode(f"no znode {path}")
        return found

    def exists(self, path: str) -> ZStat | None:
        validate_path(path)
        stat = self._wait(self.connect().exists_async(path), f"checking {path}")
        return None if stat is None else ZStat(*stat)

    def acls(self, path: str) -> tuple[list[ZAcl], ZStat]:
        validate_path(path)
        try:
            acls, stat = self._wait(self.connect().get_acls_async(path), f"reading the ACLs of {path}")
        except NoNodeError:
            raise NoSuchZnode(f"no znode {path}") from None
        return [ZAcl(a.id.scheme, a.id.id, a.perms) for a in acls], ZStat(*stat)

    def children(self, path: str) -> tuple[list[str], ZStat]:
        validate_path(path)
        try:
            names, stat = self._wait(self.connect().get_children_async(path, include_data=True),
                                     f"listing {path}")
        except NoNodeError:
            raise NoSuchZnode(f"no znode {path}") from None
        return sorted(names), ZStat(*stat)

    def ls(self, path: str) -> tuple[ZStat, list[Child]]:
        """The node's Stat and each child's, the children's stats pipelined."""
        names, stat = self.children(path)
        paths = [join(path, name) for name in names]
        stats = self._pipelined(paths, lambda c, p: c.exists_async(p), "stat")
        return stat, [Child(name, p, None if stats[p] is None else ZStat(*stats[p]))
                      for name, p in zip(names, paths)]

    def get_many(self, paths: Iterable[str]) -> dict[str, ZNode | None]:
        """Data and Stat of many znodes, pipelined; None for those that do not exist."""
        found = self._pipelined(list(paths), lambda c, p: c.get_async(p), "read")
        return {p: None if v is None else ZNode(p, v[0] or b"", ZStat(*v[1])) for p, v in found.items()}

    def children_many(self, paths: Iterable[str]) -> dict[str, list[str] | None]:
        """Children of many znodes, pipelined; None for those that do not exist."""
        found = self._pipelined(list(paths), lambda c, p: c.get_children_async(p), "list")
        return {p: None if v is None else sorted(v) for p, v in found.items()}

    def _pipelined(self, paths: list[str], request: Callable, verb: str) -> dict:
        """One request per path with at most `window` outstanding; NoNode answers None."""
        client = self.connect()
        results: dict = {}
        inflight: deque = deque()
        todo = iter(paths)
        with gc_paused():
            for path in todo:
                inflight.append((path, request(client, path)))
                if len(inflight) >= self.window:
                    self._settle(inflight.popleft(), results, verb)
            while inflight:
                self._settle(inflight.popleft(), results, verb)
        return results

    def _settle(self, pending, results: dict, verb: str) -> None:
        path, result = pending
        try:
            results[path] = self._wait(result, f"{verb} {path}")
        except NoNodeError:
            results[path] = None

    def walk(self, root: str, max_depth: int | None = None,
             descend: Callable[[str, int], bool] | None = None) -> Iterator[Walked]:
        """Every znode under `root` (included) breadth-first, up to `max_depth` levels below it.

        One getChildren2 per node (children and the node's own Stat in one answer); nodes at
        the depth limit are still read, so their child counts are known. `descend(path, depth)`
        may prune a subtree. A node deleted while walking is skipped.
        """
        validate_path(root)
        client = self.connect()
        base = depth_of(root)
        todo: deque[str] = deque([root])
        inflight: deque = deque()
        with gc_paused():
            while todo or inflight:
                while todo and len(inflight) < self.window:
                    path = todo.popleft()
                    inflight.append((path, client.get_children_async(path, include_data=True)))
                if not inflight[0][1].ready():
                    self._wait_burst(inflight)
                path, result = inflight.popleft()
                try:
                    names, stat = self._wait(result, f"listing {path}")
                except NoNodeError:
                    if path == root:
                        raise NoSuchZnode(f"no znode {root}") from None
                    continue
                depth = depth_of(path) - base
                listed = (max_depth is None or depth < max_depth) and (descend is None or descend(path, depth))
                names = sorted(names) if listed else None
                yield Walked(path, depth, ZStat(*stat), None if names is None else tuple(names))
                if names:
                    prefix = path if path != "/" else ""
                    todo.extend(f"{prefix}/{name}" for name in names)

    def _wait_burst(self, inflight: deque) -> None:
        """Sleep until a burst of answers is in, not one wake-up per answer.

        ZooKeeper answers a session's requests in order, so once the burst's last request is
        answered the earlier ones are too; the caller then takes them without waiting, and the
        connection thread is not interrupted by this thread for every single answer.
        """
        burst = max(1, min(len(inflight), self.window // 4))
        path, result = inflight[burst - 1]
        try:
            result.get(timeout=self.timeout)
        except KazooTimeoutError:
            raise ZooKeeperError(f"no answer from ZooKeeper within {self.timeout:g} s (listing {path})") from None
        except (ZookeeperError, KazooException):
            pass  # reported when its turn comes; here it only ends the wait

    def tree(self, root: str, max_depth: int | None = None) -> TreeNode:
        """The subtree as TreeNodes with du-like totals (nodes, data bytes) per node."""
        nodes: dict[str, TreeNode] = {}
        order: list[TreeNode] = []
        top: TreeNode | None = None
        for walked in self.walk(root, max_depth):
            node = TreeNode(walked.path, walked.stat, walked.children is not None,
                            subtree_bytes=walked.stat.data_length)
            node.complete = node.listed or walked.stat.num_children == 0
            nodes[walked.path] = node
            order.append(node)
            if top is None:
                top = node
            else:
                nodes[walked.path.rsplit("/", 1)[0] or "/"].children.append(node)
        for node in reversed(order):  # children before parents: breadth-first, reversed
            for child in node.children:
                node.subtree_nodes += child.subtree_nodes
                node.subtree_bytes += child.subtree_bytes
                node.complete = node.complete and child.complete
        if top is None:  # the walk yields its root first, or raises
            raise ZooKeeperError(f"{root}: nothing walked")
        return top

    def find(self, root: str, glob) -> list[Walked]:
        """Znodes under `root` whose path matches a streamctl.backends.zookeeper_data.PathGlob."""
        base = depth_of(root)
        return [w for w in self.walk(root, descend=lambda p, d: glob.may_match_below(base + d))
                if glob.matches(w.path)]

    # ---- watches --------------------------------------------------------------------------

    def subscribe_children(self, path: str, callback: Callable[[list[str]], None]) -> Subscription:
        """Call `callback(sorted children)` now and on every change until cancelled.

        The path must exist. Callbacks run on kazoo's event thread: keep them short (the
        dashboard posts a message). The watch survives reconnects within the session.
        """
        if self.exists(path) is None:
            raise NoSuchZnode(f"no znode {path}")
        sub = Subscription(path, "children")

        def on_change(children):
            if sub.cancelled:
                return False
            callback(sorted(children))
            return None

        ChildrenWatch(self.connect(), path, on_change)
        return sub

    def subscribe_data(self, path: str, callback: Callable[[ZNode | None], None]) -> Subscription:
        """Call `callback(ZNode or None when absent)` now and on every data change until cancelled."""
        validate_path(path)
        sub = Subscription(path, "data")

        def on_change(data, stat):
            if sub.cancelled:
                return False
            callback(None if stat is None else ZNode(path, data or b"", ZStat(*stat)))
            return None

        DataWatch(self.connect(), path, on_change)
        return sub

    # ---- changes (the plans and checks live in streamctl.zookeeper.plans) ---------------------------

    def create(self, path: str, data: bytes, makepath: bool = False) -> str:
        validate_path(path)
        self._writable()
        try:
            return self._wait(self.connect().create_async(path, data, makepath=makepath), f"creating {path}")
        except NodeExistsError:
            raise ZnodeConflict(f"refused: {path} already exists") from None
        except NoNodeError:
            raise NoSuchZnode(f"cannot create {path}: its parent does not exist (use --parents)") from None

    def set(self, path: str, data: bytes, version: int) -> ZStat:
        """Write data only if the znode is still at `version` (ZooKeeper checks it atomically)."""
        validate_path(path)
        self._writable()
        try:
            stat = self._wait(self.connect().set_async(path, data, version), f"writing {path}")
        except BadVersionError:
            now = self.exists(path)
            raise ZnodeConflict(f"refused: {path} changed since it was read (version {version} expected, "
                                f"now {now.version if now else 'deleted'})") from None
        except NoNodeError:
            raise NoSuchZnode(f"no znode {path} (deleted meanwhile)") from None
        return ZStat(*stat)

    def delete_nodes(self, nodes: list[tuple[str, int]]) -> int:
        """Delete (path, version) pairs, deepest first, each only if still at that version.

        Deletes of one depth are pipelined; stops at the first refusal. Returns how many went.
        """
        self._writable()
        client = self.connect()
        done = 0
        by_depth: dict[int, list[tuple[str, int]]] = {}
        for path, version in nodes:
            by_depth.setdefault(depth_of(validate_path(path)), []).append((path, version))
        for depth in sorted(by_depth, reverse=True):
            batch = [(p, v, client.delete_async(p, v)) for p, v in by_depth[depth]]
            for path, version, result in batch:
                try:
                    self._wait(result, f"deleting {path}")
                    done += 1
                except NoNodeError:
                    continue  # already gone: the goal holds
                except BadVersionError:
                    raise ZnodeConflict(f"refused: {path} changed since it was read "
                                        f"(version {version} expected); {done} znode(s) deleted") from None
                except NotEmptyError:
                    raise ZnodeConflict(f"refused: {path} gained children since it was read; "
                                        f"{done} znode(s) deleted") from None
        return done

    def _writable(self) -> None:
        if self.read_only:
            raise ZooKeeperError("this ZooKeeper session was opened read-only")


def _reason(exc: BaseException) -> str:
    return describe(exc)
