"""A real single-node HDFS for `streamctl sandbox up --distributed`: one NameNode and one DataNode
from the Hadoop 3.5.0 jars on Maven Central (the version whose client pyspark 4.2.0 ships),
formatted on first start, WebHDFS on, every port on 127.0.0.1. The demo job checkpoints to
hdfs://127.0.0.1:<rpc port>/streamctl/weblog-stats/checkpoint, and streamctl reads it back over
WebHDFS.

Maven Central's hadoop-hdfs jar lacks the `webapps/` folder both daemons' HTTP servers need; its
`tests` jar carries it, so that jar joins the classpath. Memory: each daemon 256 MiB heap at
most (about 160-230 MB resident, measured with `ps -o rss`).
"""

from __future__ import annotations

import getpass
import subprocess
from typing import Any

from streamctl.errors import StreamctlError
from streamctl.jvm import maven
from streamctl.jvm import processes as procs
from streamctl.sandbox.addons import Addon
from streamctl.sandbox.stack import JVM_FLAGS, Sandbox
from streamctl.sandbox.state import SandboxState, Service

ROLE = "hdfs"
HADOOP_VERSION = "3.5.0"
HEAP = "256m"
HADOOP = maven.register(maven.ArtifactSet(
    "hadoop-hdfs",
    f"Apache Hadoop {HADOOP_VERSION} HDFS (NameNode, DataNode)",
    (f"org.apache.hadoop:hadoop-hdfs:{HADOOP_VERSION}",
     f"org.apache.hadoop:hadoop-hdfs:{HADOOP_VERSION}:tests",  # webapps/ for the HTTP servers
     f"org.apache.hadoop:hadoop-hdfs-client:{HADOOP_VERSION}",  # `provided` in hadoop-hdfs's pom
     f"org.apache.hadoop:hadoop-common:{HADOOP_VERSION}"),
))
NAMENODE = "org.apache.hadoop.hdfs.server.namenode.NameNode"
DATANODE = "org.apache.hadoop.hdfs.server.datanode.DataNode"
LOG4J = """log4j.rootLogger=INFO,console
log4j.appender.console=org.apache.log4j.ConsoleAppender
log4j.appender.console.target=System.err
log4j.appender.console.layout=org.apache.log4j.PatternLayout
log4j.appender.console.layout.ConversionPattern=%d{ISO8601} %p %c{2}: %m%n
"""


def _site(properties: dict[str, str]) -> str:
    body = "".join(f"  <property><name>{k}</name><value>{v}</value></property>\n" for k, v in properties.items())
    return f'<?xml version="1.0"?>\n<configuration>\n{body}</configuration>\n'


def plan(sandbox: Sandbox, state: SandboxState) -> list[Service]:
    if not state.distributed:
        return []
    rpc, http, data_port, data_http, data_ipc = procs.free_ports(5)
    conf = sandbox.root / "conf" / "hadoop"
    data = sandbox.root / "data" / "hdfs"
    conf.mkdir(parents=True, exist_ok=True)
    (conf / "core-site.xml").write_text(_site({
        "fs.defaultFS": f"hdfs://127.0.0.1:{rpc}", "hadoop.tmp.dir": str(data / "tmp")}))
    (conf / "hdfs-site.xml").write_text(_site({
        "dfs.replication": "1",
        "dfs.namenode.name.dir": f"file://{data / 'name'}",
        "dfs.datanode.data.dir": f"file://{data / 'datanode'}",
        "dfs.permissions.enabled": "false",
        "dfs.namenode.rpc-address": f"127.0.0.1:{rpc}",
        "dfs.namenode.http-address": f"127.0.0.1:{http}",
        "dfs.namenode.secondary.http-address": "127.0.0.1:0",
        "dfs.datanode.address": f"127.0.0.1:{data_port}",
        "dfs.datanode.http.address": f"127.0.0.1:{data_http}",
        "dfs.datanode.ipc.address": f"127.0.0.1:{data_ipc}",
        "dfs.datanode.hostname": "127.0.0.1",  # WebHDFS redirects name this address
        "dfs.namenode.datanode.registration.ip-hostname-check": "false",
        "dfs.namenode.safemode.extension": "0",  # writable as soon as the blocks are reported
    }))
    (conf / "log4j.properties").write_text(LOG4J)
    classpath = f"{conf}:{maven.classpath(HADOOP, sandbox.jars_root)}"
    def argv(main):
        return ["java", "-Xms32m", f"-Xmx{HEAP}", *JVM_FLAGS, "-XX:TieredStopAtLevel=1",
                "-cp", classpath, main]
    _format(sandbox, argv(NAMENODE))
    state.extras["hdfs"] = {"url": f"hdfs://127.0.0.1:{rpc}", "webhdfs_url": f"http://127.0.0.1:{http}",
                            "user": getpass.getuser()}
    logs = sandbox.root / "logs"
    return [Service("hdfs-namenode", ROLE, rpc, argv(NAMENODE), str(logs / "hdfs-namenode.log")),
            Service("hdfs-datanode", ROLE, data_port, argv(DATANODE), str(logs / "hdfs-datanode.log"))]


def _format(sandbox: Sandbox, namenode_argv: list[str]) -> None:
    from streamctl.jvm.java import java

    sandbox.report("formatting the HDFS NameNode")
    result = subprocess.run([java(), *namenode_argv[1:], "-format", "-nonInteractive"],
                            capture_output=True, text=True, timeout=120, cwd=sandbox.root)
    if result.returncode != 0:
        lines = (result.stderr or result.stdout).strip().splitlines()
        raise StreamctlError(f"formatting the HDFS NameNode failed: {lines[-1] if lines else result.returncode}")


def checkpoint_url(state: SandboxState, job: str) -> str | None:
    """hdfs://... for a job's checkpoint on the sandbox's HDFS (None: no HDFS here)."""
    hdfs = state.extras.get("hdfs")
    return f"{hdfs['url']}/streamctl/{job}/checkpoint" if hdfs else None


def ready(sandbox: Sandbox, state: SandboxState, service: Service) -> bool:
    """The NameNode active; with the DataNode, one live DataNode and safe mode off (writable)."""
    import httpx

    url = state.extras["hdfs"]["webhdfs_url"]
    try:
        beans: dict[str, Any] = {}  # JMX beans: JSON values
        for name in ("NameNodeStatus", "FSNamesystemState", "NameNodeInfo"):
            answer = httpx.get(f"{url}/jmx", params={"qry": f"Hadoop:service=NameNode,name={name}"}, timeout=2.0)
            beans |= (answer.json().get("beans") or [{}])[0]
    except (httpx.HTTPError, ValueError, IndexError, AttributeError):
        return False
    if service.name == "hdfs-namenode":
        return beans.get("State") == "active"
    return beans.get("NumLiveDataNodes", 0) >= 1 and beans.get("Safemode") == ""


ADDON = Addon(role=ROLE, artifact_sets=lambda shape: (HADOOP,), plan=plan, ready=ready, distributed_only=True)
