"""How a Spark job is run: spark-submit from the pyspark install, the Kafka connector jars, and
a per-job folder under the state dir. Never imports pyspark (spark-submit runs it).

    <state>/jobs/<name>/spec.json   how to run it (master, script, arguments, jars, UI port, log)
    <state>/jobs/<name>/run.json    the last start: pid + create_time, log offset, app id, UI URL

`python -m streamctl.spark.launcher run SPEC` records its own pid and execs spark-submit, so the
recorded pid IS the driver JVM (spark-submit's scripts exec java) whoever spawned it: `jobs start`
or the sandbox, which keeps the same argv across restarts.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import re
import signal
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path

import psutil

from streamctl import paths
from streamctl.atomic import write_atomic
from streamctl.backends.checkpoint_store import is_remote
from streamctl.errors import ExitCode, StreamctlError, UsageError
from streamctl.jvm import maven
from streamctl.jvm import processes as procs
from streamctl.jvm.java import java_home_env

PYSPARK_PIN = "4.2.0"  # pyproject's `spark` extra pins the same version
DRIVER_MEMORY = "768m"
DEFAULT_MASTER = "local[2]"
STOP_GRACE = 30.0  # seconds for the query to stop between batches, before SIGTERM/SIGKILL

# Jobs streamctl ships: name -> (script in streamctl.jobs, the jobs/ folder; default arguments).
SHIPPED = {
    "weblog-stats": ("weblog_stats.py", ["--input-topic", "weblogs", "--output-topic", "weblog-stats",
                                         "--trigger-seconds", "5", "--starting-offsets", "earliest"]),
}

_DRIVER_LINE = re.compile(r"weblog_stats: application (\S+) ui (\S+)")
_APP_ID = re.compile(r"\b(local-\d{10,}|app-\d{14}-\d{4,}|application_\d+_\d+|spark-[0-9a-f]{32})\b")
_UI_BOUND = re.compile(r"Bound SparkUI to \S+ and started at (http://\S+)|SparkUI.*started at (http://\S+)")


def pyspark_version() -> str | None:
    try:
        return importlib.metadata.version("pyspark")
    except importlib.metadata.PackageNotFoundError:
        return None


def pyspark_home() -> Path | None:
    """The installed pyspark package folder, found without importing pyspark."""
    spec = importlib.util.find_spec("pyspark")
    return Path(spec.origin).parent if spec and spec.origin else None


def spark_submit() -> Path:
    home = pyspark_home()
    if home is None:
        raise StreamctlError("pyspark is not installed: pip install 'streamctl[spark]'")
    script = home / "bin" / "spark-submit"
    if not script.exists():
        raise StreamctlError(f"{script} is missing: reinstall pyspark")
    return script


CONNECTOR = maven.register(maven.ArtifactSet(
    "spark-kafka",
    f"the Spark {pyspark_version() or PYSPARK_PIN} Kafka connector (spark-sql-kafka-0-10)",
    (f"org.apache.spark:spark-sql-kafka-0-10_2.13:{pyspark_version() or PYSPARK_PIN}",),
))


_JAR = re.compile(r"^(?P<artifact>.+)-(?P<version>\d[^/]*)\.jar$")


def artifact_name(jar: str) -> str:
    """'kafka-clients-3.9.2.jar' -> 'kafka-clients' (the version is the last '-<digit>...' part)."""
    match = _JAR.match(jar)
    return match.group("artifact") if match else jar.removesuffix(".jar")


def connector_jars(jars_root: Path | None = None) -> list[str]:
    """The fetched connector jars that pyspark does not already ship (no second, other version)."""
    lib = Path(maven.classpath(CONNECTOR, jars_root)).parent
    home = pyspark_home()
    shipped = {artifact_name(j.name) for j in (home / "jars").glob("*.jar")} if home else set()
    return sorted(str(j) for j in lib.glob("*.jar") if artifact_name(j.name) not in shipped)


# ---- the job folder -------------------------------------------------------------------------

def runs_dir() -> Path:
    return paths.state_dir() / "jobs"


@dataclass
class JobSpec:
    name: str
    script: str  # absolute path of the PySpark script
    master: str
    bootstrap_servers: str
    checkpoint_dir: str
    progress_file: str
    ui_port: int
    log: str
    job_args: list[str] = field(default_factory=list)
    jars: list[str] = field(default_factory=list)
    driver_memory: str = DRIVER_MEMORY
    sandbox: dict | None = None  # {"root": ..., "service": ...} when the sandbox runs it
    conf: dict[str, str] = field(default_factory=dict)  # more --conf pairs (executor memory, cores.max)

    @property
    def local(self) -> bool:
        return self.master.startswith("local")

    @property
    def ui_url(self) -> str:
        return f"http://127.0.0.1:{self.ui_port}"


@dataclass
class RunRecord:
    name: str
    pid: int
    create_time: float
    started_at: float
    master: str
    log: str
    log_offset: int  # where this run's output starts in the (appended) log
    argv: list[str]
    app_id: str | None = None
    ui_url: str | None = None

    @property
    def alive(self) -> bool:
        return procs.is_alive(self.pid, self.create_time)


def spec_path(name: str, root: Path | None = None) -> Path:
    return (root or runs_dir()) / name / "spec.json"


def run_path(name: str, root: Path | None = None) -> Path:
    return (root or runs_dir()) / name / "run.json"


def save_spec(spec: JobSpec, root: Path | None = None) -> Path:
    path = spec_path(spec.name, root)
    write_atomic(path, json.dumps(asdict(spec), indent=2) + "\n", mode=0o644)
    return path


def load_spec(name: str, root: Path | None = None) -> JobSpec | None:
    return _load(spec_path(name, root), JobSpec)


def load_run(name: str, root: Path | None = None) -> RunRecord | None:
    return _load(run_path(name, root), RunRecord)


def save_run(record: RunRecord, root: Path | None = None) -> None:
    write_atomic(run_path(record.name, root), json.dumps(asdict(record), indent=2) + "\n", mode=0o644)


def known_jobs(root: Path | None = None) -> list[str]:
    """Names with a spec under the runs folder."""
    folder = root or runs_dir()
    try:
        return sorted(p.parent.name for p in folder.glob("*/spec.json"))
    except OSError:
        return []


def _load(path: Path, cls):
    try:
        return cls(**json.loads(path.read_text()))
    except FileNotFoundError:
        return None
    except (ValueError, TypeError, RecursionError) as exc:
        reason = " ".join(str(exc).split())  # one line, whatever the file's keys hold
        raise StreamctlError(f"{path} is unreadable ({reason}); delete it to start over") from None


def new_spec(name: str, bootstrap_servers: str, *, master: str = DEFAULT_MASTER,
             checkpoint_dir: str | Path | None = None, progress_file: Path | None = None,
             log: Path | None = None, ui_port: int | None = None, extra_args: Sequence[str] = (),
             jars_root: Path | None = None, root: Path | None = None,
             sandbox: dict | None = None, conf: dict[str, str] | None = None) -> JobSpec:
    """A spec for a shipped job: its script and defaults, the folder's paths unless given."""
    if name not in SHIPPED:
        raise UsageError(f"no shipped job {name!r} (shipped: {', '.join(SHIPPED)})")
    script, defaults = SHIPPED[name]
    folder = (root or runs_dir()) / name
    if is_remote(str(checkpoint_dir or "")):  # on HDFS: the progress file stays on the driver's host
        checkpoint = str(checkpoint_dir)
        progress = Path(progress_file or folder / "progress.jsonl")
    else:
        checkpoint = str(Path(checkpoint_dir or folder / "checkpoint").expanduser().absolute())
        progress = Path(progress_file or Path(checkpoint).parent / "progress.jsonl")
    return JobSpec(
        name=name, script=str(resources.files("streamctl.jobs").joinpath(script)), master=master,
        bootstrap_servers=bootstrap_servers, checkpoint_dir=checkpoint,
        progress_file=str(progress.expanduser().absolute()),
        ui_port=ui_port or procs.free_ports(1)[0], log=str(log or folder / "driver.log"),
        job_args=[*defaults, *extra_args], jars=connector_jars(jars_root), sandbox=sandbox, conf=dict(conf or {}),
    )


# ---- the command line ---------------------------------------------------------------------

def submit_argv(spec: JobSpec) -> tuple[list[str], dict[str, str]]:
    """spark-submit's argv and the environment it needs."""
    conf = {"spark.ui.port": str(spec.ui_port), "spark.ui.showConsoleProgress": "false",
            "spark.sql.shuffle.partitions": "2"}
    env = {"PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable}
    if spec.local:  # everything on the loopback interface
        conf |= {"spark.driver.host": "127.0.0.1", "spark.driver.bindAddress": "127.0.0.1"}
        env["SPARK_LOCAL_IP"] = "127.0.0.1"
    conf |= spec.conf
    env |= java_home_env()
    argv = [str(spark_submit()), "--master", spec.master, "--name", spec.name,
            "--driver-memory", spec.driver_memory]
    for key, value in conf.items():
        argv += ["--conf", f"{key}={value}"]
    if spec.jars:
        argv += ["--jars", ",".join(spec.jars)]
    argv += [spec.script, "--bootstrap-servers", spec.bootstrap_servers,
             "--checkpoint-dir", spec.checkpoint_dir, "--progress-file", spec.progress_file,
             *spec.job_args]
    return argv, env


def launcher_argv(spec_file: Path) -> list[str]:
    """What spawns a job: this module's `run`, which records the pid and execs spark-submit."""
    return [sys.executable, "-m", "streamctl.spark.launcher", "run", str(spec_file)]


def exec_run(spec_file: Path) -> None:
    """Record this process as the job's run, then become spark-submit (same pid)."""
    spec = JobSpec(**json.loads(Path(spec_file).read_text()))
    root = Path(spec_file).parent.parent
    argv, env = submit_argv(spec)
    try:
        offset = os.path.getsize(spec.log)
    except OSError:
        offset = 0
    me = psutil.Process()
    save_run(RunRecord(spec.name, me.pid, me.create_time(), time.time(), spec.master, spec.log,
                       offset, argv, ui_url=spec.ui_url if spec.local else None), root)
    if not is_remote(spec.checkpoint_dir):
        Path(spec.checkpoint_dir).parent.mkdir(parents=True, exist_ok=True)
    Path(spec.progress_file).parent.mkdir(parents=True, exist_ok=True)
    os.execve(argv[0], argv, {**os.environ, **env})


# ---- start, watch, stop ---------------------------------------------------------------------

def spawn(spec: JobSpec, root: Path | None = None) -> None:
    """Start the job detached, outside any sandbox (the run record is written by `run`)."""
    spec_file = save_spec(spec, root)
    procs.spawn(launcher_argv(spec_file), Path(spec.log), cwd=spec_file.parent)


def started(spec: JobSpec, since: float) -> bool:
    """The query reported in since `since`: the progress file was written after it."""
    from streamctl.backends.spark import read_progress_tail

    tail = read_progress_tail(spec.progress_file, max_bytes=64 * 1024, keep=1)
    return bool(tail and tail.modified_at and tail.modified_at >= since - 1.0
                and tail.last_event in ("started", "progress", "idle"))


def wait_started(spec: JobSpec, since: float, root: Path | None = None,
                 timeout: float = 180.0) -> RunRecord:
    """Poll until the new run's query started; a clear error if it exits or takes too long."""
    deadline = time.monotonic() + timeout
    while True:
        record = load_run(spec.name, root)
        fresh = record if record is not None and record.started_at >= since - 1.0 else None
        if fresh is not None and not fresh.alive:
            raise StreamctlError(f"job {spec.name} exited while starting: {_last_error(fresh)} "
                                 f"(log: {fresh.log})")
        if fresh is not None and started(spec, fresh.create_time):
            return refresh_driver_info(fresh, root)
        if time.monotonic() > deadline:
            raise StreamctlError(f"job {spec.name} did not start its query within {timeout:.0f}s "
                                 f"(log: {spec.log})")
        time.sleep(0.5)


def refresh_driver_info(record: RunRecord, root: Path | None = None) -> RunRecord:
    """Fill app id and UI URL from this run's part of the driver log (saved once found)."""
    if record.app_id:
        return record
    app_id, ui_url = driver_info(Path(record.log), record.log_offset)
    if app_id:
        record.app_id = app_id
        record.ui_url = ui_url or record.ui_url
        try:
            save_run(record, root)
        except OSError:  # a read-only state dir (another user's cron): the log stays the source
            pass
    return record


def driver_info(log: Path, offset: int = 0, limit: int = 4 * 1024 * 1024) -> tuple[str | None, str | None]:
    """(application id, UI URL) from a driver log, reading from `offset` (at most `limit` bytes)."""
    try:
        with open(log, "rb") as f:
            f.seek(offset)
            text = f.read(limit).decode("utf-8", errors="replace")
    except OSError:
        return None, None
    app_id = ui_url = None
    for line in text.splitlines():
        if match := _DRIVER_LINE.search(line):
            app_id = match.group(1)
            ui_url = None if match.group(2) == "-" else match.group(2).replace("//localhost:", "//127.0.0.1:")
        elif app_id is None and (match := _APP_ID.search(line)):
            app_id = match.group(1)
        if ui_url is None and (match := _UI_BOUND.search(line)):
            ui_url = (match.group(1) or match.group(2)).rstrip(".,")
    return app_id, ui_url


def driver_processes(record: RunRecord, script: str) -> list[psutil.Process]:
    """The Python driver(s) the JVM started for `script` (they get the graceful SIGTERM)."""
    try:
        children = psutil.Process(record.pid).children(recursive=True)
    except psutil.Error:
        return []
    found = []
    for child in children:
        try:
            if script in child.cmdline():
                found.append(child)
        except psutil.Error:
            continue
    return found


def stop(spec: JobSpec, record: RunRecord, grace: float = STOP_GRACE) -> str:
    """Graceful first: SIGTERM to the Python driver (the query stops between batches and Spark
    shuts down), then SIGTERM to the process group, then SIGKILL. Returns how it ended."""
    if not record.alive:
        return "not running"
    drivers = driver_processes(record, spec.script)
    for driver in drivers:
        try:
            driver.send_signal(signal.SIGTERM)
        except psutil.Error:
            continue
    if drivers and procs.wait_dead(record.pid, record.create_time, grace):
        return "stopped"
    killed = procs.terminate(record.pid, record.create_time, grace=10.0)
    return "killed" if killed else "terminated"


def _last_error(record: RunRecord) -> str:
    lines = procs.tail(Path(record.log), 60)
    for line in reversed(lines):
        if any(word in line for word in ("ERROR", "Exception", "Error:")):
            return line.strip()[:300]
    return lines[-1].strip()[:300] if lines else "no output"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2 or args[0] != "run":
        print("usage: python -m streamctl.spark.launcher run SPEC.json", file=sys.stderr)
        return ExitCode.USAGE
    try:
        exec_run(Path(args[1]))
    except (OSError, StreamctlError, ValueError, TypeError) as exc:
        print(f"streamctl.spark.launcher: error: {exc}", file=sys.stderr)
        return ExitCode.FAILURE
    return ExitCode.OK  # not reached: exec replaced this process


if __name__ == "__main__":
    sys.exit(main())
