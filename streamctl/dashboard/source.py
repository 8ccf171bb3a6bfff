"""What the dashboard reads and does, without any UI: one object per context, built by the
same factory the CLI uses, so tests hand the app a real sandbox context or recorded data.

`DashboardSource` is everything a screen may ask; screens and widgets know that Protocol only.
Every method blocks (network I/O bounded by the context's timeouts): the TUI calls them from
thread workers only (the operations' plan and run too; building an OperationRequest does no I/O).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from streamctl.dashboard import operations
from streamctl.dashboard.operations import OperationRequest
from streamctl.errors import StreamctlError
from streamctl.model.health import Evaluation, Finding, Severity
from streamctl.model.kafka import KafkaSnapshot

if TYPE_CHECKING:
    from concurrent.futures import Future

    from streamctl.backends.connect import ConnectBackend
    from streamctl.backends.zookeeper import ZooKeeperBackend
    from streamctl.backends.zookeeper_ensemble import ServerHealth
    from streamctl.config import Context
    from streamctl.kafka.acls.access import AclView
    from streamctl.kafka.acls.plans import AclChange
    from streamctl.kafka.lag.rules import GroupStatus
    from streamctl.kafka.reassign.plans import Job as ReassignJob
    from streamctl.kafka.reassign.progress import Reading as ReassignReading
    from streamctl.model.connect import ConnectCluster
    from streamctl.model.flume import AgentStatus, Poll
    from streamctl.model.pipeline import PipelineMap
    from streamctl.model.records import Record
    from streamctl.model.spark import JobView
    from streamctl.model.spark_cluster import SparkCluster
    from streamctl.model.spark_state import CheckpointState
    from streamctl.model.streams import StreamsApp
    from streamctl.model.zookeeper import Subscription, ZAcl, ZNode, ZStat
    from streamctl.pipeline.collect import Reading
    from streamctl.thresholds import Thresholds

SAMPLE_EVERY = 60.0  # seconds between this dashboard's lag-history samples

Positions = dict[tuple[str, int], int]  # (topic, partition) -> offset


class ZnodeReader(Protocol):
    """The ZooKeeper reads the ZooKeeper screen makes, on a read-only session."""

    def children(self, path: str) -> tuple[list[str], ZStat]: ...

    def get(self, path: str) -> ZNode: ...

    def acls(self, path: str) -> tuple[list[ZAcl], ZStat]: ...

    def subscribe_data(self, path: str, callback: Callable[[ZNode | None], None]) -> Subscription: ...

    def subscribe_children(self, path: str, callback: Callable[[list[str]], None]) -> Subscription: ...


class DashboardSource(Protocol):
    """Everything a screen may ask: the context's settings, snapshots, and operations (each an
    OperationRequest the plan dialog plans and runs). `Dashboard` reads live clusters; tests
    replay recorded ones (tests/tui/recorded.py)."""

    # ---- the context ------------------------------------------------------------------------

    @property
    def context_name(self) -> str: ...

    @property
    def read_only(self) -> bool: ...

    @property
    def thresholds(self) -> Thresholds: ...

    def context_names(self) -> list[str]: ...  # every context of the config file (switching)

    def read_fleet(self, on_answer: Callable[[str, Evaluation], None]) -> None: ...  # the Fleet screen (fleet.py)

    def close(self) -> None: ...

    # ---- snapshots --------------------------------------------------------------------------

    def kafka_snapshot(self, lag_time: bool = True, group_details: bool = True,
                       topic_configs: bool = True) -> KafkaSnapshot: ...

    def kafka_groups(self) -> tuple[KafkaSnapshot, dict[str, GroupStatus]]: ...

    def kafka_broker_roles(self, broker_ids: Iterable[int]) -> dict[int, str]: ...  # KRaft process.roles by id

    def streams_apps(self) -> list[StreamsApp]: ...

    def pipeline_map(self) -> PipelineMap: ...  # rates over the refreshes of the last minute

    def health(self) -> Evaluation: ...

    def zookeeper(self) -> ZnodeReader | None: ...  # None: no zookeeper section

    def zk_ensemble(self) -> list[ServerHealth]: ...

    def flume_agents(self) -> list[AgentStatus]: ...

    def spark_cluster(self) -> SparkCluster | None: ...  # the standalone Master's, None when none is configured

    def spark_jobs(self, cluster: SparkCluster | None = None) -> list[JobView]: ...

    def spark_job_state(self, view: JobView) -> CheckpointState: ...  # its checkpoint's state stores

    def connect_cluster(self) -> ConnectCluster | None: ...  # None when not configured

    def topic_records(self, topic: str, last: int = 20, offset: int | None = None,
                      from_time: str | None = None, value: str | None = None) -> list[Record]: ...

    def next_records(self, positions: Positions) -> dict[tuple[str, int], Record | None]: ...

    def client_quotas(self) -> list[dict]: ...  # `quotas list -o json`'s rows

    def scram_users(self) -> list[dict]: ...  # `users list -o json`'s rows

    def reassignment(self) -> ReassignReading: ...  # the partitions moving now, bytes copied

    # the bindings `acls list --topic/--principal` shows, grouped per principal, host and pattern
    def kafka_acls(self, topic: str | None = None, principal: str | None = None) -> AclView: ...

    # ---- operations -------------------------------------------------------------------------

    def create_topic(self, name: str, partitions: int, replication_factor: int,
                     configs: dict[str, str]) -> OperationRequest: ...

    def add_partitions(self, topic: str, total: int) -> OperationRequest: ...

    def alter_config(self, topic: str, values: dict[str, str | None]) -> OperationRequest: ...  # None: the default

    def reset_offsets(self, group: str, specs: list[tuple[str, list[int] | None]], all_topics: bool,
                      mode: str, value: str | None) -> OperationRequest: ...

    def elect_leaders(self) -> OperationRequest: ...

    def agent_state(self, name: str, wanted: str) -> OperationRequest: ...  # wanted: running | stopped

    def start_job(self, name: str) -> OperationRequest: ...

    def stop_job(self, name: str) -> OperationRequest: ...

    def connector_state(self, name: str, action: str) -> OperationRequest: ...  # pause resume stop delete

    def restart_connector(self, name: str, include_tasks: bool, only_failed: bool) -> OperationRequest: ...

    def alter_quota(self, entity: dict[str, str | None], sets: dict[str, float],
                    removes: list[str]) -> OperationRequest: ...

    def upsert_user(self, name: str, mechanism: str, password: str, create: bool) -> OperationRequest: ...

    def delete_user(self, name: str, mechanism: str | None) -> OperationRequest: ...  # None: every credential

    def reassign(self, job: ReassignJob, rate: int, elect_leaders: bool) -> OperationRequest: ...  # rate: throttle, bytes/s

    def cancel_reassignment(self) -> OperationRequest: ...

    def create_acl(self, change: AclChange) -> OperationRequest: ...

    def delete_acl(self, change: AclChange) -> OperationRequest: ...


@dataclass
class Dashboard:
    """Live data for one context."""

    ctx: Context
    read_only: bool = False
    health_timeout: float = 15.0
    lag_store: Path | None = None  # None: the XDG state dir
    config_path: Path | None = None  # where the contexts came from (for switching)
    _last_sample: float = float("-inf")  # time.monotonic() of this dashboard's last lag-history sample
    _zk: ZooKeeperBackend | None = None
    _flume_polls: dict[str, Poll] = field(default_factory=dict)
    _connect: ConnectBackend | None = None
    _connect_lock: threading.Lock = field(default_factory=threading.Lock)
    _pipeline_readings: list[Reading] = field(default_factory=list)  # (the pipeline map's earlier readings)
    _reassign_reading: ReassignReading | None = None  # the Overview's previous one (its finding's rate)

    def __post_init__(self) -> None:
        from streamctl import paths
        from streamctl.backends.kafka.process import KafkaProcess

        self.read_only = self.read_only or bool(getattr(self.ctx, "read_only", False))
        # In a child process: librdkafka can abort the process it runs in (see backends/kafka/process.py).
        self.kafka = KafkaProcess(self.ctx.kafka.client_config(), timeout=self.ctx.kafka.timeout,
                                  log_path=paths.state_dir() / "kafka-client.log")
        self.kafka.start()

    @property
    def context_name(self) -> str:
        return self.ctx.name

    @property
    def thresholds(self) -> Thresholds:
        return self.ctx.thresholds

    def context_names(self) -> list[str]:
        from streamctl.config import load_config

        return sorted(load_config(self.config_path).contexts)

    def read_fleet(self, on_answer: Callable[[str, Evaluation], None]) -> None:
        """Every context of the config evaluated at once, each answer handed over as it comes."""
        from streamctl.dashboard.fleet import read_fleet

        read_fleet(self.config_path, on_answer)

    def kafka_snapshot(self, lag_time: bool = True, group_details: bool = True,
                       topic_configs: bool = True) -> KafkaSnapshot:
        """The cluster as every Kafka screen shows it; lag_time=False skips reading the records
        at the committed offsets (screens that show no lag in time); group_details=False lists
        the groups without their members or offsets (screens that only name them);
        topic_configs=False skips the topics' configs (screens that show none)."""
        from streamctl.kafka.health import Filters

        return self.kafka.snapshot(lag_time=lag_time, group_filter=Filters.from_context(self.ctx).group,
                                   group_members=group_details, group_offsets=group_details,
                                   topic_configs=topic_configs)

    def pipeline_map(self) -> PipelineMap:
        """The pipeline map: this refresh's reading paired with the oldest kept of the last minute
        (rates need two readings, and commits land in steps: the longer apart, the steadier)."""
        from streamctl.pipeline.collect import read_once, readings
        from streamctl.pipeline.derive import derive
        from streamctl.pipeline.estimate import MIN_WINDOW, RATE_WINDOW

        now = read_once(self.ctx, self.kafka)
        kept = [r for r in self._pipeline_readings if now.at - r.at <= RATE_WINDOW]
        self._pipeline_readings = [*kept, now]
        before = kept[0] if kept and now.at - kept[0].at >= MIN_WINDOW else now
        return derive(readings(self.ctx, before, now), self.ctx.thresholds)

    def streams_apps(self) -> list[StreamsApp]:
        """The Kafka Streams apps among the groups, with the outputs the context declares."""
        from streamctl.kafka.streams.apps import find_apps

        outputs = {name: app.outputs for name, app in self.ctx.kafka.streams.items()}
        return find_apps(self.kafka_snapshot(lag_time=False), self.ctx.thresholds.allowed_lag, outputs)

    def topic_records(self, topic: str, last: int = 20, offset: int | None = None,
                      from_time: str | None = None, value: str | None = None) -> list[Record]:
        """A topic's latest records (or from an offset or a time), masked, read in the Kafka
        client process like every other Kafka read of the dashboard."""
        from streamctl.kafka.records.browse import latest

        return self.kafka.call_with_admin(latest, topic, last, offset, from_time, value, tuple(self.ctx.records.mask))

    def next_records(self, positions: Positions) -> dict[tuple[str, int], Record | None]:
        """The record at each (topic, partition)'s offset (a group's committed ones), masked."""
        from streamctl.kafka.records.browse import at_offsets

        return self.kafka.call_with_admin(at_offsets, positions, tuple(self.ctx.records.mask))

    def kafka_broker_roles(self, broker_ids: Iterable[int]) -> dict[int, str]:
        return self.kafka.broker_roles(list(broker_ids))

    def kafka_acls(self, topic: str | None = None, principal: str | None = None) -> AclView:
        """Who may do what on `topic` (its name, '*', matching prefixes) or what `principal` may
        do, as `acls list` reads them, in the Kafka client process."""
        from streamctl.kafka.acls.access import read_view

        return read_view(self.kafka, topic, principal)

    def kafka_groups(self) -> tuple[KafkaSnapshot, dict[str, GroupStatus]]:
        """The snapshot (lag in time included) and a Burrow-style status per group from the
        shared lag history (check's cron runs fill it too), judged in the Kafka client process."""
        from streamctl.kafka.health import Filters
        from streamctl.kafka.history import HistoryRequest, snapshot_with_history
        from streamctl.kafka.lag.store import default_path

        thresholds = self.ctx.thresholds
        request = HistoryRequest(self.lag_store or default_path(), self.context_name, thresholds.allowed_lag,
                                 thresholds.stall_window_seconds, record=self._sample_due())
        try:
            return self.kafka.call_with_admin(snapshot_with_history, request,
                                              group_filter=Filters.from_context(self.ctx).group,
                                              topic_configs=False,  # the Groups screen shows none
                                              group_types=True)  # every group's type (ListGroups v5)
        except StreamctlError:
            if request.record:
                self._last_sample = float("-inf")  # nothing recorded: the next refresh samples
            raise

    def _sample_due(self) -> bool:
        """About one lag-history sample a minute from this dashboard, whatever its refresh rate:
        the history keeps the newest samples per partition, and a sample every few seconds would
        push out those check's cron runs add (and with them the stall window's span)."""
        now = time.monotonic()
        if now - self._last_sample < SAMPLE_EVERY:
            return False
        self._last_sample = now
        return True

    # ---- ZooKeeper ------------------------------------------------------------------------

    def zookeeper(self) -> ZooKeeperBackend | None:
        """The context's ZooKeeper session (read-only), opened on first use; None if not configured."""
        settings = getattr(self.ctx, "zookeeper", None)
        if settings is None:
            return None
        if self._zk is None:
            from streamctl.backends.zookeeper import ZooKeeperBackend

            self._zk = ZooKeeperBackend.from_settings(settings, read_only=True)
        return self._zk

    def close(self) -> None:
        """End the ZooKeeper session (and its watches), the Connect client and the Kafka client
        process; the app calls this when it exits or switches context."""
        zk, self._zk = self._zk, None
        if zk is not None:
            zk.close()
        connect, self._connect = self._connect, None
        if connect is not None:
            connect.close()
        self.kafka.close()

    def zk_ensemble(self) -> list[ServerHealth]:
        from streamctl.backends.zookeeper_ensemble import probe_ensemble

        settings = self.ctx.zookeeper
        if settings is None:
            return []
        url = str(settings.admin_url) if settings.admin_url else None
        return probe_ensemble(settings.hosts, settings.timeout, url)

    def spark_cluster(self) -> SparkCluster | None:
        from streamctl.spark import jobs as spark_jobs

        return spark_jobs.read_cluster(self.ctx)

    def spark_jobs(self, cluster: SparkCluster | None = None) -> list[JobView]:
        """JobViews (checkpoint, lag vs log end, liveness, rates, the app on `cluster`) of the
        context's jobs and those launched here, read concurrently (as `jobs status` lists them)."""
        from concurrent.futures import ThreadPoolExecutor

        from streamctl.spark import jobs as spark_jobs

        items = spark_jobs.entries(self.ctx)
        if not items:
            return []
        with ThreadPoolExecutor(max_workers=min(8, len(items)), thread_name_prefix="spark-job") as pool:
            return list(pool.map(lambda item: spark_jobs.observe(item, self.ctx, cluster=cluster), items))

    def spark_job_state(self, view: JobView) -> CheckpointState:
        """The state stores of one job's checkpoint, from its files (`jobs state`'s reading: one
        listing per folder); CheckpointError when the checkpoint is unusable."""
        from streamctl.spark import jobs as spark_jobs

        return spark_jobs.read_job_state(self.ctx, view.name, view.checkpoint_dir, self.ctx.kafka.timeout)

    # ---- Flume ------------------------------------------------------------------------------

    def flume_agents(self) -> list[AgentStatus]:
        """Each configured agent's status, rates against this dashboard's previous poll."""
        from concurrent.futures import ThreadPoolExecutor

        from streamctl.backends.flume import FlumeError, poll, status, unreachable
        from streamctl.flume.definition import sink_bindings

        def one(item):
            name, agent = item
            try:
                current = poll(agent.metrics_url, self.ctx.kafka.timeout)
            except FlumeError as exc:
                return unreachable(name, agent.metrics_url, str(exc))
            previous = self._flume_polls.get(name)
            self._flume_polls[name] = current
            return status(name, agent.metrics_url, current, previous, None,
                          sink_bindings(agent.config_file, name))

        agents = sorted(self.ctx.flume.agents.items())
        if not agents:
            return []
        with ThreadPoolExecutor(max_workers=min(8, len(agents))) as pool:
            return list(pool.map(one, agents))

    # ---- Kafka Connect ------------------------------------------------------------------------

    def connect_backend(self) -> ConnectBackend:
        """The context's Connect REST client, opened on first use and shared by the refreshes and
        the operations (httpx clients may be shared between threads); every call is bounded by
        connect.timeout. Raises UsageError when the context has no connect: section."""
        from streamctl.connect.collect import backend_for, configured
        from streamctl.errors import UsageError

        if not configured(self.ctx):
            raise UsageError(f"context '{self.context_name}' has no connect: section (the workers' REST URLs)")
        with self._connect_lock:  # two screens' first reads must not open two clients
            if self._connect is None:
                self._connect = backend_for(self.ctx)
            return self._connect

    def connect_cluster(self) -> ConnectCluster | None:
        """Every connector with its status, tasks and config (two REST calls), or None when the
        context has no Connect cluster."""
        from streamctl.connect.collect import configured

        return self.connect_backend().cluster() if configured(self.ctx) else None

    def health(self) -> Evaluation:
        """`check`'s evaluation, plus a finding while partitions are being moved (dashboard only:
        ListPartitionReassignments would cost every `check` a Kafka client of its own). The
        listing runs beside the evaluation, so a broker that does not answer costs the Overview
        one timeout, not two in a row."""
        from concurrent.futures import ThreadPoolExecutor

        from streamctl.check.evaluate import configured_components, evaluate

        components = configured_components(self.ctx)
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="reassign-listing") as pool:
            listing = pool.submit(self.reassignment) if "kafka" in components else None
            evaluation = evaluate(self.ctx, components, self.health_timeout, kafka_backend=self.kafka,
                                  record_history=self._sample_due())
            if listing is not None and "kafka" in evaluation.evaluated:
                self._add_reassignment_finding(evaluation, listing)
        return evaluation

    def _add_reassignment_finding(self, evaluation: Evaluation, listing: Future) -> None:
        """KAFKA_REASSIGNMENT_IN_PROGRESS while partitions move, its rate against the previous
        Overview reading; a cluster that does not answer the listing leaves the rule unevaluated."""
        from streamctl.kafka.reassign.progress import figures, summary

        code = "KAFKA_REASSIGNMENT_IN_PROGRESS"
        try:
            now = listing.result()
        except StreamctlError as exc:
            evaluation.rules_unevaluated.setdefault("kafka", {})[code] = str(exc)
            return
        before, self._reassign_reading = self._reassign_reading, now
        if now.partitions:
            evaluation.findings.append(Finding(Severity.WARN, "kafka", "reassignment", code,
                                               summary(figures(before, now)), float(len(now.partitions))))

    # ---- partition reassignments --------------------------------------------------------------

    def reassign_admin(self) -> Any:
        """A ReassignAdmin for the context (kafka-python, each call in a forked child)."""
        from streamctl.backends.kafka.isolated import IsolatedKafka
        from streamctl.backends.kafka.reassign_admin import ReassignAdmin

        return IsolatedKafka(ReassignAdmin, self.ctx.kafka.client_config(), timeout=self.ctx.kafka.timeout)

    def reassignment(self) -> ReassignReading:
        from streamctl.kafka.reassign.follow import take_reading

        return take_reading(self.reassign_admin())


    # ---- operations (see streamctl.dashboard.operations) --------------------------------------

    def create_topic(self, name: str, partitions: int, replication_factor: int,
                     configs: dict[str, str]) -> OperationRequest:
        return operations.create_topic(self.kafka, self.context_name, name, partitions, replication_factor, configs)

    def add_partitions(self, topic: str, total: int) -> OperationRequest:
        return operations.add_partitions(self.kafka, self.context_name, topic, total)

    def alter_config(self, topic: str, values: dict[str, str | None]) -> OperationRequest:
        return operations.alter_config(self.kafka, self.context_name, topic, values)

    def reset_offsets(self, group: str, specs: list[tuple[str, list[int] | None]], all_topics: bool,
                      mode: str, value: str | None) -> OperationRequest:
        return operations.reset_offsets(self.kafka, self.context_name, group, specs, all_topics, mode, value)

    def elect_leaders(self) -> OperationRequest:
        return operations.elect_leaders(self.kafka, self.context_name)

    def agent_state(self, name: str, wanted: str) -> OperationRequest:
        return operations.agent_state(self.ctx, self.config_path, name, wanted)

    def start_job(self, name: str) -> OperationRequest:
        return operations.start_job(self.ctx, name)

    def stop_job(self, name: str) -> OperationRequest:
        return operations.stop_job(self.ctx, name)

    def connector_state(self, name: str, action: str) -> OperationRequest:
        return operations.connector_state(self.ctx, self.connect_backend, name, action)

    def restart_connector(self, name: str, include_tasks: bool, only_failed: bool) -> OperationRequest:
        return operations.restart_connector(self.ctx, self.connect_backend, name, include_tasks, only_failed)

    # ---- client quotas and SCRAM users (kafka-python's and librdkafka's admin requests, each
    # call in a forked child as the CLI makes it: a password reaches it by fork, not by pipe) ----

    def quota_admin(self):
        from streamctl.backends.kafka.isolated import IsolatedKafka
        from streamctl.backends.kafka.quota_admin import QuotaAdmin

        return IsolatedKafka(QuotaAdmin, self.ctx.kafka.client_config(), timeout=self.ctx.kafka.timeout)

    def scram_admin(self):
        from streamctl.backends.kafka.isolated import IsolatedKafka
        from streamctl.backends.kafka.scram_admin import ScramAdmin

        return IsolatedKafka(ScramAdmin, self.ctx.kafka.client_config(), timeout=self.ctx.kafka.timeout)

    def client_quotas(self) -> list[dict]:
        from streamctl.kafka.quotas.plans import listing

        return listing(self.quota_admin().quotas())

    def scram_users(self) -> list[dict]:
        from streamctl.kafka.users.plans import listing

        return listing(self.scram_admin().scram_users())

    def alter_quota(self, entity: dict[str, str | None], sets: dict[str, float],
                    removes: list[str]) -> OperationRequest:
        return operations.alter_quota(self.quota_admin, self.context_name, entity, sets, removes)

    def upsert_user(self, name: str, mechanism: str, password: str, create: bool) -> OperationRequest:
        return operations.upsert_user(self.scram_admin, self.context_name, self._login_user(), name, mechanism,
                                      password, create)

    def delete_user(self, name: str, mechanism: str | None) -> OperationRequest:
        return operations.delete_user(self.scram_admin, self.context_name, self._login_user(), name, mechanism)

    def _login_user(self) -> str | None:
        """The SASL user this context logs in as (a plan warns before it changes its own login)."""
        return self.ctx.kafka.client_config().get("sasl.username")

    def reassign(self, job: ReassignJob, rate: int, elect_leaders: bool) -> OperationRequest:
        return operations.reassign(self.reassign_admin(), self.context_name, job, rate, elect_leaders)

    def cancel_reassignment(self) -> OperationRequest:
        return operations.cancel_reassignment(self.reassign_admin(), self.context_name)

    def create_acl(self, change: AclChange) -> OperationRequest:
        return operations.create_acl(self.kafka, self.context_name, change)

    def delete_acl(self, change: AclChange) -> OperationRequest:
        return operations.delete_acl(self.kafka, self.context_name, change)

def make_dashboard(config_path: Path | None = None, context_name: str | None = None, read_only: bool = False) -> Dashboard:
    """The factory the CLI uses to start the TUI (and the tests to build it the same way)."""
    from streamctl.config import load_config

    ctx = load_config(config_path).context(context_name)
    return Dashboard(ctx, read_only=read_only, config_path=config_path)
