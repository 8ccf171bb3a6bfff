"""The sandbox's server configs: ZooKeeper's and each broker's properties, and the log4j files."""

from __future__ import annotations

from pathlib import Path

from streamctl.atomic import write_atomic
from streamctl.jvm.java import log4j2_console
from streamctl.sandbox import secure as sandbox_secure
from streamctl.sandbox import tls as sandbox_tls
from streamctl.sandbox.state import SandboxState, Service

LOG4J1 = """\
log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.request.logger=WARN
log4j.logger.state.change.logger=WARN
log4j.logger.org.apache.zookeeper=WARN
"""

LOG4J2 = log4j2_console({"request": "kafka.request.logger", "state": "state.change.logger"})

ZOOKEEPER_HEAP = "128m"
BROKER_HEAP = "512m"


def write_service_configs(root: Path, classpath: str, state: SandboxState, jvm_flags: list[str]) -> None:
    """Each ZooKeeper and broker service's properties and log4j file under root/conf, and its
    argv (into `state`, which the caller saves)."""
    conf = root / "conf"
    conf.mkdir(parents=True, exist_ok=True)
    if state.mode == "kraft":
        (conf / "log4j2.properties").write_text(LOG4J2)
        log_flag = f"-Dlog4j2.configurationFile={conf / 'log4j2.properties'}"
    else:
        (conf / "log4j.properties").write_text(LOG4J1)
        log_flag = f"-Dlog4j.configuration=file:{conf / 'log4j.properties'}"
    jaas = sandbox_secure.write_jaas_files(root, kraft=state.mode == "kraft") if state.secure else {}
    for service in state.services:
        path = conf / f"{service.name}.properties"
        if service.role == "zookeeper":
            path.write_text(zookeeper_properties(root, service, state.admin_port, state.secure))
            main, heap = "org.apache.zookeeper.server.quorum.QuorumPeerMain", ZOOKEEPER_HEAP
        else:
            # 0600: a --tls broker's file holds its private key (a PEM keystore).
            write_atomic(path, broker_properties(root, service, state), mode=0o600)
            main, heap = "kafka.Kafka", BROKER_HEAP
        flags = [sandbox_secure.jaas_flag(jaas[service.role])] if service.role in jaas else []
        service.argv = ["java", "-Xms64m", f"-Xmx{heap}", *jvm_flags, *flags, log_flag,
                        "-cp", classpath, main, str(path)]


def zookeeper_properties(root: Path, service: Service, admin_port: int | None, secure: bool = False) -> str:
    return as_properties({
        "dataDir": root / "data" / "zookeeper",
        "clientPort": service.port,
        "clientPortAddress": "127.0.0.1",
        "tickTime": 2000, "initLimit": 10, "syncLimit": 5, "maxClientCnxns": 0,
        "admin.enableServer": "true",
        "admin.serverAddress": "127.0.0.1",
        "admin.serverPort": admin_port,
        **(sandbox_secure.zookeeper_properties() if secure else {}),
    })

def broker_properties(root: Path, service: Service, state: SandboxState) -> str:
    replication = min(3, state.brokers)
    props: dict[str, object] = {
        "log.dirs": root / "data" / service.name,
        "num.partitions": 1,
        "default.replication.factor": replication,
        "offsets.topic.replication.factor": replication,
        "offsets.topic.num.partitions": 10,
        "transaction.state.log.replication.factor": replication,
        "transaction.state.log.min.isr": min(2, replication),
        "auto.create.topics.enable": "false",
        "group.initial.rebalance.delay.ms": 0,
        # Kafka's defaults: with fewer request threads, a few requests blocked on a stopped
        # ZooKeeper (topic configs) would starve metadata requests as well.
        "num.network.threads": 3, "num.io.threads": 8, "background.threads": 2,
        "num.recovery.threads.per.data.dir": 1, "num.replica.fetchers": 1,
        "replica.lag.time.max.ms": 10000,
        "controlled.shutdown.max.retries": 2,
    }
    listener = f"PLAINTEXT://127.0.0.1:{service.port}"
    if state.mode == "zookeeper":
        props |= {
            "broker.id": service.node_id,
            "listeners": listener,
            "advertised.listeners": listener,
            "zookeeper.connect": state.zookeeper_hosts,
            "zookeeper.session.timeout.ms": 6000,
        }
        if state.secure:
            props |= sandbox_secure.broker_properties(service.port)
    else:
        voters = ",".join(f"{b.node_id}@127.0.0.1:{b.controller_port}"
                          for b in state.by_role("broker"))
        props |= {
            "process.roles": "broker,controller",
            "node.id": service.node_id,
            "controller.quorum.voters": voters,
            "listeners": f"{listener},CONTROLLER://127.0.0.1:{service.controller_port}",
            "advertised.listeners": listener,
            "controller.listener.names": "CONTROLLER",
            "inter.broker.listener.name": "PLAINTEXT",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
        }
        if state.secure:
            assert service.controller_port is not None  # every KRaft node has one
            props |= sandbox_secure.kraft_broker_properties(service.port, service.controller_port)
    if sandbox_tls.enabled(state):
        props = sandbox_tls.broker_properties(props, root, service, state)
    return as_properties(props)


def as_properties(values: dict[str, object]) -> str:
    return "".join(f"{key}={value}\n" for key, value in values.items() if value is not None)
