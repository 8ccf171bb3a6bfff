"""The sandbox's Kafka Connect worker: one distributed-mode worker (`ConnectDistributed` from the
Kafka jar set, which carries connect-runtime) with `connect-file` of the same Kafka version on
its plugin.path, and the demo sink `weblog-archive` writing topic weblog-stats to a file.

The worker's REST API listens on a free loopback port; its config, offset and status topics
are created by the worker itself. Its sink commits as the consumer group connect-weblog-archive.
On a --tls sandbox the worker talks to the brokers' mutual-TLS listeners and its REST API is
HTTPS only, requiring a client certificate (PKCS12 stores: Jetty reads no PEM).
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from streamctl.atomic import write_atomic
from streamctl.jvm import maven
from streamctl.jvm import processes as procs
from streamctl.sandbox import secure as sandbox_secure
from streamctl.sandbox import tls as sandbox_tls
from streamctl.sandbox.addons import Addon, Shape
from streamctl.sandbox.stack import JVM_FLAGS, Sandbox
from streamctl.sandbox.state import SandboxState, Service

SERVICE = "connect"
GROUP_ID = "streamctl-sandbox-connect"
HEAP = "256m"
DEMO_CONNECTOR = "weblog-archive"
DEMO_TOPIC = "weblog-stats"

CONNECT_FILE = maven.register(maven.ArtifactSet(
    "connect-file", f"Kafka Connect's file connectors {maven.KAFKA_ZK_VERSION}",
    (f"org.apache.kafka:connect-file:{maven.KAFKA_ZK_VERSION}",)))
CONNECT_FILE_KRAFT = maven.register(maven.ArtifactSet(
    "connect-file-kraft", f"Kafka Connect's file connectors {maven.KAFKA_KRAFT_VERSION}",
    (f"org.apache.kafka:connect-file:{maven.KAFKA_KRAFT_VERSION}",)))


def demo_connector(root: Path) -> dict[str, str]:
    """FileStreamSink from weblog-stats to <root>/data/connect/weblog-archive.txt."""
    return {
        "connector.class": "org.apache.kafka.connect.file.FileStreamSinkConnector",
        "tasks.max": "1",
        "topics": DEMO_TOPIC,
        "file": str(root / "data" / "connect" / f"{DEMO_CONNECTOR}.txt"),
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
    }


def url(state: SandboxState) -> str | None:
    workers = state.by_role("connect")
    return _rest_url(state, workers[0]) if workers else None


def _rest_url(state: SandboxState, worker: Service) -> str:
    return f"{'https' if sandbox_tls.enabled(state) else 'http'}://127.0.0.1:{worker.port}"


def worker_properties(root: Path, state: SandboxState, port: int, plugins: Path,
                      stores: tuple[Path, Path, str] | None = None) -> str:
    """The worker's properties; `stores` (keystore, truststore, password) on a --tls sandbox."""
    replication = min(3, state.brokers)
    props: dict[str, object] = {
        "bootstrap.servers": sandbox_tls.bootstrap_servers(state) if stores else state.bootstrap_servers,
        "group.id": GROUP_ID,
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        "config.storage.topic": "connect-configs", "offset.storage.topic": "connect-offsets",
        "status.storage.topic": "connect-status",
        "config.storage.replication.factor": replication, "offset.storage.replication.factor": replication,
        "status.storage.replication.factor": replication,
        "offset.storage.partitions": 3, "status.storage.partitions": 3,
        "listeners": f"http://127.0.0.1:{port}",
        "rest.advertised.host.name": "127.0.0.1", "rest.advertised.port": port,
        "plugin.path": plugins,
        # Kafka's own plugins carry ServiceLoader manifests: no classpath scan at start.
        "plugin.discovery": "service_load",
        # Sink offsets committed every 10 s: the demo group shows lag between commits.
        "offset.flush.interval.ms": 10_000,
        "scheduled.rebalance.max.delay.ms": 10_000,
    }
    if state.secure:  # the login itself is in the JAAS file (java_client_jaas)
        for prefix in ("", "producer.", "consumer.", "admin."):
            props |= {prefix + key: value for key, value in sandbox_secure.JAVA_CLIENT_PROPERTIES.items()}
    if stores:
        props |= https_properties(port, *stores)
    return "".join(f"{key}={value}\n" for key, value in props.items())


def https_properties(port: int, keystore: Path, truststore: Path, password: str) -> dict[str, object]:
    """Mutual TLS twice: the REST listener (`listeners.https.` settings, Jetty; `ssl.client.auth`
    is the name RestServerConfig reads) and the worker's Kafka clients (its own, its connectors'
    producers and consumers, its admin client), which each take the settings under their prefix."""
    stores = {"ssl.keystore.type": "PKCS12", "ssl.keystore.location": keystore, "ssl.keystore.password": password,
              "ssl.truststore.type": "PKCS12", "ssl.truststore.location": truststore,
              "ssl.truststore.password": password}
    props: dict[str, object] = {"listeners": f"https://127.0.0.1:{port}", "rest.advertised.listener": "https",
                                "listeners.https.ssl.client.auth": "required"}
    props |= {f"listeners.https.{key}": value for key, value in stores.items()}
    for prefix in ("", "producer.", "consumer.", "admin."):
        props |= {prefix + "security.protocol": "SSL"} | {prefix + key: value for key, value in stores.items()}
    return props


def plan(sandbox: Sandbox, state: SandboxState) -> list[Service]:
    # Made here too when the Spark job's add-on did not run (Kafka-only or secure stacks).
    sandbox.ensure_topics(state, {DEMO_TOPIC: 3})
    kraft = state.mode == "kraft"
    kafka_set = Shape(kraft=kraft).kafka_set
    file_set = CONNECT_FILE_KRAFT if kraft else CONNECT_FILE
    plugins = sandbox.root / "plugins"
    plugin_dir = plugins / "connect-file"
    plugin_dir.mkdir(parents=True, exist_ok=True)
    # Only the connector's own jar: its dependencies are the worker's (kafka-clients, connect-api).
    for jar in maven.lib_dir(file_set, sandbox.jars_root).glob("connect-file-*.jar"):
        link = plugin_dir / jar.name
        if not link.exists():
            link.symlink_to(jar)
    (sandbox.root / "data" / "connect").mkdir(parents=True, exist_ok=True)
    port = procs.free_ports(1)[0]
    conf = sandbox.root / "conf"
    properties = conf / "connect.properties"
    stores = sandbox_tls.java_stores(sandbox.root) if sandbox_tls.enabled(state) else None
    # With TLS it holds the stores' password: 0600.
    write_atomic(properties, worker_properties(sandbox.root, state, port, plugins, stores),
                 mode=0o600 if stores else 0o644)
    log_flag = (f"-Dlog4j2.configurationFile={conf / 'log4j2.properties'}" if kraft
                else f"-Dlog4j.configuration=file:{conf / 'log4j.properties'}")
    jaas = [sandbox_secure.jaas_flag(sandbox_secure.java_client_jaas(sandbox.root))] if state.secure else []
    argv = ["java", "-Xms64m", f"-Xmx{HEAP}", *JVM_FLAGS, *jaas, log_flag,
            "-cp", maven.classpath(kafka_set, sandbox.jars_root),
            "org.apache.kafka.connect.cli.ConnectDistributed", str(properties)]
    return [Service(SERVICE, "connect", port, argv, str(sandbox.root / "logs" / f"{SERVICE}.log"))]


def ready(sandbox: Sandbox, state: SandboxState, service: Service) -> bool:
    """The REST API answers, the demo connector is configured (PUT of a config is idempotent; a
    409 while the worker joins its group is asked again on the next poll) and has a status."""
    base = _rest_url(state, service)
    verify = sandbox_tls.client_ssl_context(sandbox.root) if sandbox_tls.enabled(state) else True
    try:
        with httpx.Client(timeout=5.0, verify=verify) as client:
            if client.get(base + "/").status_code != 200:
                return False
            answer = client.put(f"{base}/connectors/{DEMO_CONNECTOR}/config",
                                content=json.dumps(demo_connector(sandbox.root)),
                                headers={"Content-Type": "application/json"})
            if answer.status_code not in (200, 201):
                return False
            return client.get(f"{base}/connectors/{DEMO_CONNECTOR}/status").status_code == 200
    except httpx.HTTPError:
        return False


def context(state: SandboxState) -> dict:
    """The `connect` section; on a --tls sandbox the context writer adds the client certificate."""
    base = url(state)
    return {"connect": {"urls": [base], "timeout": 10.0}} if base else {}


def connect_sets(shape: Shape) -> tuple[maven.ArtifactSet, ...]:
    """The file connectors of the shape's Kafka version."""
    return (CONNECT_FILE_KRAFT if shape.kraft else CONNECT_FILE,)


ADDON = Addon(role="connect", artifact_sets=connect_sets, plan=plan, ready=ready,
              context=context, secure=True, after=("spark",))  # its demo sink reads the job's output
