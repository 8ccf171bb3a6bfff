"""The demo ingest pipeline in the sandbox: the `weblogs` Flume agent and its load generator.

Both are services of the one role "flume" (an Addon has one role): the agent itself
(`flume-weblogs`, ready when its metrics endpoint lists its source, channel and sink) and
`loadgen`, the stand-in web server appending access-log lines (ready once it runs; it has no
port, shown as 0 in the state and as - by `sandbox status`). They start, stop and restart together with the rest of the sandbox.
"""

from __future__ import annotations

import sys
from pathlib import Path

from streamctl.backends.flume import FlumeError, fetch
from streamctl.flume import launcher
from streamctl.flume.control import sandbox_agents
from streamctl.jvm import maven
from streamctl.jvm import processes as procs
from streamctl.sandbox.addons import Addon, Shape
from streamctl.sandbox.stack import Sandbox
from streamctl.sandbox.state import SandboxState, Service

ROLE = "flume"
AGENT = "weblogs"
TOPIC = "weblogs"
TOPIC_PARTITIONS = 3
LOADGEN_RATE = 10  # access-log lines a second
AGENT_SERVICE = f"flume-{AGENT}"
LOADGEN_SERVICE = "loadgen"


def plan(sandbox: Sandbox, state: SandboxState) -> list[Service]:
    conf = sandbox.root / "conf"
    conf.mkdir(parents=True, exist_ok=True)
    access_log = sandbox.root / "data" / "weblogs" / "access.log"
    access_log.parent.mkdir(parents=True, exist_ok=True)
    access_log.touch()
    config_file = conf / f"flume-{AGENT}.properties"
    hdfs = state.extras.get("hdfs")  # the --distributed sandbox: fan out to an HDFS sink too
    config_file.write_text(launcher.render(launcher.shipped_definition(f"{AGENT}-hdfs" if hdfs else AGENT), {
        "ACCESS_LOG": access_log,
        "STATE_DIR": sandbox.root / "data" / AGENT_SERVICE,
        "BOOTSTRAP_SERVERS": state.bootstrap_servers,
        **({"HDFS_URL": hdfs["url"]} if hdfs else {}),
    }))
    log4j = conf / "flume-log4j2.properties"
    log4j.write_text(launcher.LOG4J2)
    sandbox.ensure_topics(state, {TOPIC: TOPIC_PARTITIONS})
    port = procs.free_ports(1)[0]
    url = f"http://127.0.0.1:{port}/metrics"
    state.extras["flume"] = {"agents": {AGENT: {
        "service": AGENT_SERVICE, "metrics_url": url, "config_file": str(config_file),
        "access_log": str(access_log), "topic": TOPIC}}}
    logs = sandbox.root / "logs"
    return [
        Service(AGENT_SERVICE, ROLE, port,
                launcher.argv(AGENT, config_file, port, log4j, jars_root=sandbox.jars_root, hdfs=bool(hdfs)),
                str(logs / f"{AGENT_SERVICE}.log")),
        Service(LOADGEN_SERVICE, ROLE, 0,
                [sys.executable, "-m", "streamctl.agents.loadgen", "--file", str(access_log),
                 "--rate", str(LOADGEN_RATE)],
                str(logs / f"{LOADGEN_SERVICE}.log")),
    ]


def ready(sandbox: Sandbox, state: SandboxState, service: Service) -> bool:
    if service.name != AGENT_SERVICE:
        return service.alive
    try:
        payload = fetch(f"http://127.0.0.1:{service.port}/metrics", timeout=2.0)
    except FlumeError:
        return False
    kinds = {key.partition(".")[0] for key in payload}
    return {"SOURCE", "CHANNEL", "SINK"} <= kinds


def context(state: SandboxState) -> dict:
    agents = state.extras.get("flume", {}).get("agents", {})
    return {"flume": {"agents": {
        name: {"metrics_url": a["metrics_url"], "config_file": a["config_file"]}
        for name, a in agents.items()}}}


def access_log(state: SandboxState) -> Path:
    return Path(sandbox_agents(state)[AGENT]["access_log"])


def flume_sets(shape: Shape) -> tuple[maven.ArtifactSet, ...]:
    """Flume, and its HDFS sink on the --distributed stack (the only one with an HDFS)."""
    return (launcher.FLUME, launcher.FLUME_HDFS) if shape.distributed else (launcher.FLUME,)


ADDON = Addon(role=ROLE, artifact_sets=flume_sets, plan=plan, ready=ready,
              context=context, after=("hdfs",))  # --distributed: its HDFS sink writes there
