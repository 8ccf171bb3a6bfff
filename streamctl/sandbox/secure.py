"""The secure sandbox (`sandbox up --secure [--kraft]`): what it adds to the plain stack.

- Kafka: one SASL_PLAINTEXT listener per broker with SCRAM-SHA-512, used by clients and
  between brokers alike (user `broker`); streamctl connects as the SCRAM user `streamctl`.
  An authorizer decides who may do what (AclAuthorizer in ZooKeeper mode, StandardAuthorizer
  in KRaft mode): `broker` and `streamctl` are super users (the Connect worker logs in as
  `streamctl`); `monitor` has exactly the ACLs of read-only monitoring (MONITOR_ACLS), granted
  the same way in both modes, and no ACL means no access.
- ZooKeeper mode: the SCRAM credentials are written into ZooKeeper with Kafka's own
  ConfigCommand before the brokers start.
- KRaft mode: the SCRAM credentials go into the metadata log when each node's storage is
  formatted (`kafka-storage format --add-scram`, through a 0600 argument file, so no password
  is on a command line). The CONTROLLER listener (Raft between controllers, registrations and
  heartbeats of the brokers) speaks SASL PLAIN as `broker`, the JAAS file's one user: SCRAM
  cannot serve it, since SCRAM credentials live in the metadata log that this listener
  replicates (KAFKA-15513). So `broker` is also the controllers' principal, and a super user
  because the authorizer checks ClusterAction on the controller listener too.
- ZooKeeper (ZooKeeper mode): SASL DIGEST-MD5 (a JAAS `Server` section lists the users), enforced for every
  session (`enforce.auth.enabled`); the brokers log in as `kafka` (JAAS `Client` section)
  and create their znodes with ACLs (`zookeeper.set.acl=true`: creator-all, plus world-read
  except for the credentials under /config/users). streamctl logs in as `streamctl`, so it
  reads Kafka's znodes but cannot change them or read the stored SCRAM credentials.

Passwords are random, one file each (mode 0600) under <root>/secrets/ (mode 0700); JAAS
files holding them are 0600 as well. The `sandbox` context refers to the files with
`${file:...}`, so config.yaml never holds a password, and nothing here prints one.
"""

from __future__ import annotations

import os
import secrets
import subprocess
from pathlib import Path

from streamctl.atomic import write_atomic
from streamctl.errors import StreamctlError
from streamctl.jvm import maven

SCRAM_MECHANISM = "SCRAM-SHA-512"
ZK_MECHANISM = "DIGEST-MD5"
CLIENT_USER = "streamctl"  # Kafka SCRAM user and ZooKeeper SASL user of streamctl
BROKER_USER = "broker"  # Kafka SCRAM user between brokers
MONITOR_USER = "monitor"  # Kafka SCRAM user with the read-only monitoring ACLs only
SUPER_USERS = (BROKER_USER, CLIENT_USER)
MONITOR_CONTEXT = "sandbox-monitor"
ZK_BROKER_USER = "kafka"  # ZooKeeper SASL user of the brokers (and of Kafka's tools)

CONTROLLER_MECHANISM = "PLAIN"  # KRaft's CONTROLLER listener (see the module docstring)
SCRAM_USERS = ((BROKER_USER, "kafka-broker"), (CLIENT_USER, "kafka-streamctl"), (MONITOR_USER, "kafka-monitor"))

# secret file -> what it is the password of (KRaft mode: the Kafka ones only)
KAFKA_SECRETS = {
    "kafka-streamctl": f"Kafka SCRAM user {CLIENT_USER}",
    "kafka-broker": f"Kafka SCRAM user {BROKER_USER}",
    "kafka-monitor": f"Kafka SCRAM user {MONITOR_USER}",
}
SECRETS = {
    **KAFKA_SECRETS,
    "zookeeper-streamctl": f"ZooKeeper SASL user {CLIENT_USER}",
    "zookeeper-kafka": f"ZooKeeper SASL user {ZK_BROKER_USER}",
}

# sandbox mode -> what `sandbox status` says of its security
SUMMARY = {
    "zookeeper": (f"Kafka SASL_PLAINTEXT/{SCRAM_MECHANISM} with ACLs, "
                  f"ZooKeeper SASL {ZK_MECHANISM} required, Kafka's znodes under ACLs"),
    "kraft": (f"Kafka SASL_PLAINTEXT/{SCRAM_MECHANISM} with ACLs (StandardAuthorizer), "
              f"controller listener SASL {CONTROLLER_MECHANISM}"),
}


def secret_names(kraft: bool) -> dict[str, str]:
    return KAFKA_SECRETS if kraft else SECRETS

# What a read-only monitoring principal needs (resource type, name, operation), each the
# answer to a request the authorizer refused without it (tests/security/test_monitor_acls.py):
MONITOR_ACLS = (
    ("Cluster", "kafka-cluster", "DescribeConfigs"),  # a broker's configs: ZooKeeper or KRaft mode, roles
    ("Cluster", "kafka-cluster", "Describe"),  # KRaft: the controller quorum (DescribeQuorum, check --component quorum)
    ("Topic", "*", "Describe"),              # metadata (a topic without it is not listed), offsets
    ("Topic", "*", "DescribeConfigs"),       # min.insync.replicas, retention
    ("Group", "*", "Describe"),              # list and describe groups, committed offsets (OffsetFetch),
                                             # and FindCoordinator for the record readers' group ids
    ("Topic", "*", "Read"),                  # records: lag in time, topics read, groups peek
)
ADDONS_SKIPPED = ("--secure starts Kafka (and ZooKeeper in ZooKeeper mode) and the Connect worker (which logs in with SCRAM): "
                  "the demo Flume agent and Spark job do not speak SASL")


class Secrets:
    """The sandbox's generated passwords, one 0600 file each under <root>/secrets/."""

    def __init__(self, root: Path):
        self.folder = Path(root) / "secrets"

    def path(self, name: str) -> Path:
        return self.folder / f"{name}.password"

    def ensure(self, names=SECRETS) -> None:
        """Create any missing password (random, URL-safe, so it needs no quoting anywhere)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        os.chmod(self.folder, 0o700)
        for name in names:
            if not self.path(name).exists():
                write_atomic(self.path(name), secrets.token_urlsafe(24) + "\n", mode=0o600)

    def get(self, name: str) -> str:
        try:
            return self.path(name).read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise StreamctlError(f"sandbox secret {self.path(name)} is unreadable ({exc.strerror}); "
                                 "run `streamctl sandbox down --wipe`") from None

    def values(self) -> list[str]:
        """The passwords this sandbox has (a KRaft one has no ZooKeeper passwords)."""
        return [self.get(name) for name in SECRETS if self.path(name).exists()]

    def scrub(self, text: str) -> str:
        """`text` with every sandbox password replaced by ***."""
        for value in self.values():
            text = text.replace(value, "***")
        return text


# ---- server configs --------------------------------------------------------------------------

def zookeeper_properties() -> dict[str, object]:
    """Added to zookeeper.properties (ZooKeeper turns unknown keys into zookeeper.* properties)."""
    return {
        "authProvider.1": "org.apache.zookeeper.server.auth.SASLAuthenticationProvider",
        "enforce.auth.enabled": "true",
        "enforce.auth.schemes": "sasl",
    }


def broker_properties(port: int) -> dict[str, object]:
    """Replaces the broker's listener settings and adds SASL and ZooKeeper ACLs."""
    listener = f"SASL_PLAINTEXT://127.0.0.1:{port}"
    return {
        "listeners": listener,
        "advertised.listeners": listener,
        "inter.broker.listener.name": "SASL_PLAINTEXT",
        "sasl.enabled.mechanisms": SCRAM_MECHANISM,
        "sasl.mechanism.inter.broker.protocol": SCRAM_MECHANISM,
        "zookeeper.set.acl": "true",
        "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
        "super.users": ";".join(f"User:{user}" for user in SUPER_USERS),
        "allow.everyone.if.no.acl.found": "false",
    }


def kraft_broker_properties(port: int, controller_port: int) -> dict[str, object]:
    """Replaces a KRaft node's listener settings: SCRAM for clients and between brokers, PLAIN
    on the CONTROLLER listener, StandardAuthorizer. `broker` is also the controllers' principal
    (their PLAIN login), hence a super user: the controllers authorize each other's and the
    brokers' requests (ClusterAction) like any other."""
    listener = f"SASL_PLAINTEXT://127.0.0.1:{port}"
    return {
        "listeners": f"{listener},CONTROLLER://127.0.0.1:{controller_port}",
        "advertised.listeners": listener,
        "listener.security.protocol.map": "SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT",
        "inter.broker.listener.name": "SASL_PLAINTEXT",
        "sasl.enabled.mechanisms": SCRAM_MECHANISM,
        "sasl.mechanism.inter.broker.protocol": SCRAM_MECHANISM,
        "listener.name.controller.sasl.enabled.mechanisms": CONTROLLER_MECHANISM,
        "sasl.mechanism.controller.protocol": CONTROLLER_MECHANISM,
        "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        "super.users": ";".join(f"User:{user}" for user in SUPER_USERS),
        "allow.everyone.if.no.acl.found": "false",
    }


def zookeeper_jaas(store: Secrets) -> str:
    users = "\n".join(f'  user_{user}="{store.get(name)}"'
                      for user, name in ((ZK_BROKER_USER, "zookeeper-kafka"),
                                         (CLIENT_USER, "zookeeper-streamctl")))
    return f"Server {{\n  org.apache.zookeeper.server.auth.DigestLoginModule required\n{users};\n}};\n"


def broker_jaas(store: Secrets, kraft: bool = False) -> str:
    """`KafkaServer`: the broker's own SCRAM login; ZooKeeper mode: `Client`, its ZooKeeper
    login (also Kafka's tools'); KRaft mode: `controller.KafkaServer`, the CONTROLLER
    listener's PLAIN login, whose one user (`user_broker`) is the node itself."""
    password = store.get("kafka-broker")
    scram = ("KafkaServer {\n  org.apache.kafka.common.security.scram.ScramLoginModule required\n"
             f'  username="{BROKER_USER}"\n  password="{password}";\n}};\n')
    if kraft:
        return scram + ("controller.KafkaServer {\n  org.apache.kafka.common.security.plain.PlainLoginModule required\n"
                        f'  username="{BROKER_USER}"\n  password="{password}"\n'
                        f'  user_{BROKER_USER}="{password}";\n}};\n')
    return scram + ("Client {\n  org.apache.zookeeper.server.auth.DigestLoginModule required\n"
                    f'  username="{ZK_BROKER_USER}"\n  password="{store.get("zookeeper-kafka")}";\n}};\n')


def write_jaas_files(root: Path, kraft: bool = False) -> dict[str, Path]:
    """Secrets and the JAAS files (0600; ZooKeeper's in ZooKeeper mode only); returns {role: JAAS path}."""
    store = Secrets(root)
    store.ensure(secret_names(kraft))
    conf = Path(root) / "conf"
    files = {"broker": conf / "kafka-jaas.conf"}
    write_atomic(files["broker"], broker_jaas(store, kraft), mode=0o600)
    if not kraft:
        files["zookeeper"] = conf / "zookeeper-jaas.conf"
        write_atomic(files["zookeeper"], zookeeper_jaas(store), mode=0o600)
    return files


def jaas_flag(path: Path) -> str:
    return f"-Djava.security.auth.login.config={path}"


# ---- SCRAM credentials -----------------------------------------------------------------------

def create_scram_users(root: Path, zookeeper_hosts: str, java: str, jvm_flags: list[str],
                       jars_root: Path | None = None, timeout: float = 120) -> None:
    """Kafka's ConfigCommand writes each SCRAM credential into ZooKeeper (as ZooKeeper user
    `kafka`, so the znodes get the brokers' ACLs). The password goes through a 0600 file,
    never the command line."""
    store = Secrets(root)
    conf = Path(root) / "conf"
    cp = maven.classpath(maven.KAFKA, jars_root)
    for user, name in SCRAM_USERS:
        config_file = store.folder / f"scram-{user}.properties"
        write_atomic(config_file, f"{SCRAM_MECHANISM}=password={store.get(name)}\n", mode=0o600)
        try:
            result = subprocess.run(
                [java, "-Xmx128m", *jvm_flags, jaas_flag(conf / "kafka-jaas.conf"),
                 f"-Dlog4j.configuration=file:{conf / 'log4j.properties'}", "-cp", cp,
                 "kafka.admin.ConfigCommand", "--zookeeper", zookeeper_hosts, "--alter",
                 "--entity-type", "users", "--entity-name", user, "--add-config-file", str(config_file)],
                capture_output=True, text=True, timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            raise StreamctlError(f"creating the SCRAM user {user} timed out after {timeout:g}s") from None
        finally:
            config_file.unlink(missing_ok=True)
        if result.returncode != 0 or "Completed updating config" not in result.stdout:
            lines = store.scrub(result.stderr or result.stdout).strip().splitlines()
            raise StreamctlError(f"creating the SCRAM user {user} failed: "
                                 f"{lines[-1] if lines else result.returncode}")


def scram_format_arguments(root: Path) -> list[str]:
    """`kafka-storage format` arguments that put each SCRAM user into a KRaft node's bootstrap
    metadata. They hold the passwords: hand them to Kafka through a 0600 argument file only."""
    store = Secrets(root)
    return [argument for user, name in SCRAM_USERS
            for argument in ("--add-scram", f"{SCRAM_MECHANISM}=[name={user},password={store.get(name)}]")]


# ---- clients ---------------------------------------------------------------------------------

def client_properties(root: Path) -> dict[str, str]:
    """librdkafka settings of the `streamctl` user, password in clear: hand to a client only."""
    return {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": SCRAM_MECHANISM,
            "sasl.username": CLIENT_USER, "sasl.password": Secrets(root).get("kafka-streamctl")}


def java_client_jaas(root: Path) -> Path:
    """A 0600 JAAS file whose `KafkaClient` section logs a Java client (the Connect worker) in as
    the `streamctl` SCRAM user: the password stays out of properties files and command lines."""
    path = Path(root) / "conf" / "client-jaas.conf"
    write_atomic(path, "KafkaClient {\n  org.apache.kafka.common.security.scram.ScramLoginModule required\n"
                       f'  username="{CLIENT_USER}"\n  password="{Secrets(root).get("kafka-streamctl")}";\n}};\n',
                 mode=0o600)
    return path


JAVA_CLIENT_PROPERTIES = {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": SCRAM_MECHANISM}


def context_fragment(root: Path, kraft: bool = False) -> dict:
    """What the `sandbox` context adds: the same settings, passwords as ${file:...} references."""
    store = Secrets(root)
    fragment: dict = {"kafka": {"properties": {
        "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": SCRAM_MECHANISM,
        "sasl.username": CLIENT_USER,
        "sasl.password": f"${{file:{store.path('kafka-streamctl')}}}",
    }}}
    if not kraft:
        fragment["zookeeper"] = {"sasl": {
            "mechanism": ZK_MECHANISM, "username": CLIENT_USER,
            "password": f"${{file:{store.path('zookeeper-streamctl')}}}",
        }}
    return fragment


def monitor_context(context: dict, root: Path) -> dict:
    """The `sandbox-monitor` context: the `sandbox` context logged in to Kafka as `monitor`,
    read-only (Kafka's ACLs hold on the brokers; read-only mode also covers ZooKeeper and the
    Connect worker's REST API, which Kafka's ACLs do not govern)."""
    kafka = context["kafka"]
    properties = {**kafka["properties"], "sasl.username": MONITOR_USER,
                  "sasl.password": f"${{file:{Secrets(root).path('kafka-monitor')}}}"}
    return {**context, "kafka": {**kafka, "properties": properties}, "read_only": True}


# ---- ACLs ------------------------------------------------------------------------------------

def grant_monitor_acls(admin) -> None:
    """The monitoring ACLs for `monitor` (as a super user; granting one again changes nothing)."""
    admin.create_acls([(f"User:{MONITOR_USER}", *acl) for acl in MONITOR_ACLS])
