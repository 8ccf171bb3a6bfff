#!/usr/bin/env python3
"""Benchmark: `streamctl topics read -o json` against kcat and Kafka's ConsoleConsumer, same topic, same run.

    .venv/bin/python -m bench.read_records [--records 1000000] [--runs 3] [--warmup 1] [--topic bench-records]
                                           [--small 100000]

Uses the Kafka cluster of the current config context (its kafka.bootstrap_servers; plaintext
only: the baselines are given no credentials). Creates TOPIC (6 partitions, replication 3 on a
cluster of 3 brokers or more, else 1) if missing and fills it with web-log-like JSON records of
~200 bytes (13-byte keys) through one batching Producer (linger 50 ms, no compression) until
it holds --records; a topic that already holds that many is left as it is (reruns are cheap).
After a fill, waits for the brokers to go quiet when they run on this machine (bench/scene.py).

Then runs every command --warmup times (the first run is reported: the cold figure), and times,
as whole processes taking turns, their output to /dev/null (median of --runs: the warm figure):
  streamctl        `streamctl topics read TOPIC --from-beginning --limit N --max-bytes 1KiB*N -o json`
                   (JSON Lines; --max-bytes so that --limit is what stops it: the default 64 MiB
                   would stop it a third of the way through a million ~200-byte records)
  streamctl small  the same with --limit SMALL (--small, 100k): memory must not grow with the count
  kcat             `kcat -b BOOTSTRAP -C -t TOPIC -e -o beginning -J -q -c N` (Debian's kcat; skipped,
                   saying so, when it is not installed)
  floor            bench/records_floor.py: a minimal Python process reading the same records with
                   the same client and printing the same JSON Lines, nothing else (what Python
                   and confluent-kafka cost before streamctl adds anything)
  ConsoleConsumer  Kafka's, from the fetched jar set, as kafka-console-consumer.sh runs it
                   (java -Xmx512M ... --from-beginning --max-messages N); skipped without java/jars
Each run's peak resident memory: the process tree's RSS summed, sampled every 20 ms (psutil), and
the kernel's high-water mark of its largest process (GNU time's %M, when /usr/bin/time is GNU
time), plus its CPU seconds (user + system).
Then one more run of each, its output counted: every tool must have printed N records (one a
line), else the exit status is 1. The issue's command as written (no --max-bytes) is counted too.
Targets: streamctl within 3x of kcat (warm), faster than ConsoleConsumer, peak RSS under 200 MB
at both sizes. Cold and warm figures, records/s, the ratios, the memory and the load average
(before and after) are printed. Progress goes to stderr, the figures to stdout.
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from bench.check_vs_kafka_cli import STREAMCTL
from bench.connect_status import _local_pid
from bench.scene import wait_until_quiet

PARTITIONS = 6
RSS_TARGET_MB = 200
KCAT_RATIO_TARGET = 3.0
SAMPLE_EVERY = 0.02  # seconds between two readings of a run's resident memory
CONSOLE_CONSUMER = ("org.apache.kafka.tools.consumer.ConsoleConsumer",  # Kafka 3.7+ (kafka-tools jar)
                    "kafka.tools.ConsoleConsumer")  # before 3.7 (kafka_2.13 jar)


def say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000, help="records to read (and the topic holds)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=1,
                        help="untimed rounds of every command first (the first one is reported)")
    parser.add_argument("--topic", default="bench-records")
    parser.add_argument("--small", type=int, default=100_000,
                        help="streamctl's second, smaller read (--limit), for memory against the count")
    parser.add_argument("--quiet-limit", type=float, default=120,
                        help="seconds at most to wait for local brokers to go quiet after a fill")
    args = parser.parse_args()
    if args.records < 1 or args.runs < 1 or args.warmup < 1:
        raise SystemExit("--records, --runs and --warmup must be at least 1")
    args.small = min(args.small, args.records)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    bootstrap, client_config = _target()
    topic = _prepare(client_config, args.topic, args.records)
    brokers = [pid for hostport in bootstrap.split(",") if (pid := _local_pid(f"http://{hostport.strip()}"))]
    if topic["filled"] and brokers:
        waited, cores = wait_until_quiet(brokers, limit=args.quiet_limit)
        say(f"brokers quiet after {waited:.0f} s more ({cores:.2f} of a core)" if cores < 0.25 else
            f"brokers still busy {waited:.0f} s later ({cores:.2f} of a core): measured anyway")

    commands, skipped = _commands(bootstrap, args.topic, args.records, args.small)
    env = dict(os.environ)  # the same config and state as the caller's streamctl
    say(f"timing {', '.join(commands)}: {args.warmup} warm-up rounds (the first reported), "
        f"then {args.runs} runs taking turns")
    load_before = os.getloadavg()
    first, samples = timed({name: c.argv for name, c in commands.items()}, env, args.runs, args.warmup)
    load_after = os.getloadavg()
    counted = _verify(commands, env)
    ok = _report(args, bootstrap, topic, commands, skipped, first, samples, counted, (load_before, load_after))
    sys.exit(0 if ok else 1)


# ---- the cluster and the topic ---------------------------------------------------------------------

def _target() -> tuple[str, dict[str, str]]:
    """The current context's bootstrap servers and librdkafka config."""
    from streamctl.config import load_config

    try:
        ctx = load_config().context()
    except Exception as exc:  # noqa: BLE001 - any config error
        raise SystemExit(f"no usable config context: {exc}") from None
    config = ctx.kafka.client_config()
    if config.get("security.protocol", "plaintext").lower() != "plaintext":
        raise SystemExit(f"context '{ctx.name}' uses {config['security.protocol']}: kcat and ConsoleConsumer "
                         "are given no credentials here (not supported)")
    say(f"context '{ctx.name}': Kafka at {ctx.kafka.bootstrap_servers}")
    return ctx.kafka.bootstrap_servers, config


def _prepare(config: dict[str, str], topic: str, records: int) -> dict[str, object]:
    """The topic, created if missing, holding at least `records` (filled up to that when it
    holds fewer). Returns what the report says about it."""
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({**config, "log_level": "0"})
    md = admin.list_topics(timeout=30)
    meta = md.topics.get(topic)
    if meta is None or meta.error is not None:
        rf = 3 if len(md.brokers) >= 3 else 1
        say(f"creating {topic}: {PARTITIONS} partitions, replication {rf}")
        admin.create_topics([NewTopic(topic, PARTITIONS, rf)], operation_timeout=60,
                            request_timeout=60)[topic].result(timeout=120)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # until every partition has a leader
            meta = admin.list_topics(topic, timeout=30).topics.get(topic)
            if meta and meta.error is None and len(meta.partitions) == PARTITIONS and \
                    all(p.leader >= 0 for p in meta.partitions.values()):
                break
            time.sleep(0.5)
    partitions = len(meta.partitions)
    if partitions != PARTITIONS:
        raise SystemExit(f"topic {topic} exists with {partitions} partitions, not {PARTITIONS}: "
                         "pick another --topic (or delete it)")
    rf = len(next(iter(meta.partitions.values())).replicas)
    held = _held(config, topic)
    filled = False
    if held < records:
        say(f"{topic} holds {held} records: producing {records - held} more")
        _fill(config, topic, records - held, seed=held)
        held = _held(config, topic)
        filled = True
        if held < records:
            raise SystemExit(f"{topic} holds only {held} records after filling, not {records}")
    else:
        say(f"{topic} already holds {held} records (>= {records}): not filled")
    return {"name": topic, "partitions": partitions, "rf": rf, "held": held, "filled": filled,
            "sizes": _sizes(config, topic)}


def _held(config: dict[str, str], topic: str) -> int:
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer({**config, "group.id": "bench-read-records-watermarks", "log_level": "0"})  # never joined
    try:
        return sum(high - low for low, high in
                   (consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=30) for p in range(PARTITIONS)))
    finally:
        consumer.close()


def _sizes(config: dict[str, str], topic: str, sample: int = 2000) -> tuple[float, float]:
    """Mean key and value bytes of the first records of partition 0."""
    from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, TopicPartition

    consumer = Consumer({**config, "group.id": "bench-read-records-sizes", "log_level": "0",
                         "enable.auto.commit": "false", "enable.partition.eof": "true"})
    keys, values = [], []
    try:
        consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])  # assigned, never joined
        deadline = time.monotonic() + 30
        while len(values) < sample and time.monotonic() < deadline:
            for message in consumer.consume(500, timeout=1):
                if message.error() is None:
                    keys.append(len(message.key() or b""))
                    values.append(len(message.value() or b""))
                elif message.error().code() == KafkaError._PARTITION_EOF:
                    deadline = 0
    finally:
        consumer.close()
    return (statistics.mean(keys) if keys else 0.0), (statistics.mean(values) if values else 0.0)


PATHS = ("/api/v1/orders/{n}", "/api/v1/users/{n}/cart", "/static/js/app.{h}.js", "/search?q=item+{n}&page=2",
         "/checkout/{n}/confirm", "/api/v1/products/{n}/reviews", "/img/catalog/{h}.webp", "/")
AGENTS = ("Mozilla/5.0 (X11; Linux x86_64; rv:131.0) Gecko/20100101 Firefox/131.0",
          "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) Safari/604.1",
          "curl/8.5.0", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/129.0 Safari/537.36",
          "python-httpx/0.27.2")
METHODS = ("GET",) * 8 + ("POST", "PUT")
STATUSES = (200,) * 16 + (201, 204, 301, 304, 400, 404, 404, 500, 503)


def _records(seed: int):
    """(key, value): a web server's access log as JSON, ~200 bytes a value."""
    rng = random.Random(seed)
    start = time.time() - 3600
    for i in itertools.count():
        stamp = datetime.fromtimestamp(start + i * 0.0036, UTC).isoformat(timespec="milliseconds")
        n, h = rng.randrange(1, 99_999), f"{rng.getrandbits(32):08x}"
        path = rng.choice(PATHS).format(n=n, h=h)
        value = (f'{{"ts":"{stamp[:-6]}Z","host":"web-{rng.randrange(1, 13):02d}",'
                 f'"ip":"10.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(1, 255)}",'
                 f'"method":"{rng.choice(METHODS)}","path":"{path}","status":{rng.choice(STATUSES)},'
                 f'"bytes":{rng.randrange(120, 90_000)},"ms":{rng.randrange(1, 900)},'
                 f'"ua":"{rng.choice(AGENTS)}"}}')
        yield f"session-{rng.randrange(100_000):05d}".encode(), value.encode()


def _fill(config: dict[str, str], topic: str, count: int, seed: int) -> None:
    from confluent_kafka import Producer

    producer = Producer({**config, "linger.ms": "50", "batch.size": "1000000", "compression.type": "none",
                         "queue.buffering.max.messages": "200000", "log_level": "0"})
    failures: list[str] = []

    def report(error, _message) -> None:
        if error is not None:
            failures.append(error.str())

    started = time.perf_counter()
    for n, (key, value) in enumerate(itertools.islice(_records(seed), count), 1):
        while True:
            try:
                producer.produce(topic, value, key, on_delivery=report)
                break
            except BufferError:  # the local queue is full: let deliveries drain it
                producer.poll(0.1)
        if n % 1000 == 0:
            producer.poll(0)
        if n % 100_000 == 0:
            say(f"produced {n}/{count} ({time.perf_counter() - started:.0f} s)")
    left = producer.flush(600)
    if left or failures:
        raise SystemExit(f"filling {topic}: {left} records undelivered, {len(failures)} failed "
                         f"({failures[0] if failures else '-'})")
    say(f"produced {count} records in {time.perf_counter() - started:.1f} s")


# ---- the commands ----------------------------------------------------------------------------------

@dataclass
class Command:
    argv: list[str]
    shown: str
    expected: int  # records it must print


def _commands(bootstrap: str, topic: str, records: int, small: int) -> tuple[dict[str, Command], dict[str, str]]:
    """name -> Command, and name -> why a baseline is skipped."""
    def streamctl(limit: int) -> list[str]:
        return [STREAMCTL, "topics", "read", topic, "--from-beginning", "--limit", str(limit),
                "--max-bytes", str(limit * 1024), "-o", "json"]

    commands = {"streamctl": Command(streamctl(records), "", records)}
    if small < records:
        commands["streamctl small"] = Command(streamctl(small), "", small)
    skipped = {}
    commands["floor"] = Command([sys.executable, "-m", "bench.records_floor", bootstrap, topic, str(records)],
                                "", records)
    if kcat := shutil.which("kcat") or shutil.which("kafkacat"):
        commands["kcat"] = Command([kcat, "-b", bootstrap, "-C", "-t", topic, "-e", "-o", "beginning", "-J", "-q",
                                    "-c", str(records)], "", records)
    else:
        skipped["kcat"] = "kcat is not installed: its baseline is skipped (Debian: apt-get install kcat)"
    try:
        argv = _console_consumer(bootstrap, topic, records)
    except Exception as exc:  # noqa: BLE001 - no java, jars never fetched, no such class
        skipped["ConsoleConsumer"] = f"ConsoleConsumer skipped: {exc}"
    else:
        commands["ConsoleConsumer"] = Command(argv, "", records)
    for command in commands.values():
        command.shown = shlex.join(command.argv) + " > /dev/null"
    return commands, skipped


def _console_consumer(bootstrap: str, topic: str, records: int) -> list[str]:
    """kafka-console-consumer.sh's command line (its -Xmx512M, kafka-run-class.sh's flags), from
    the fetched Kafka jar set; the class where this Kafka version keeps it."""
    from streamctl.jvm import maven
    from streamctl.jvm.java import tool_argv

    artifact_set = next((s for s in (maven.KAFKA, maven.KAFKA_KRAFT) if maven.is_fetched(s)), maven.KAFKA)
    maven.classpath(artifact_set)  # a clear error when never fetched
    folder = maven.lib_dir(artifact_set)
    entries = {c: c.replace(".", "/") + ".class" for c in CONSOLE_CONSUMER}
    found = None
    for jar in sorted(folder.glob("kafka*.jar")):
        with zipfile.ZipFile(jar) as archive:
            names = set(archive.namelist())
        found = next((c for c, entry in entries.items() if entry in names), None)
        if found:
            break
    if not found:
        raise RuntimeError(f"none of {', '.join(CONSOLE_CONSUMER)} in {folder}")
    return tool_argv(found, "--bootstrap-server", bootstrap, "--topic", topic, "--from-beginning",
                     "--max-messages", str(records), "--timeout-ms", "120000", artifact_set=artifact_set)


# ---- running and timing ----------------------------------------------------------------------------

@dataclass
class Run:
    seconds: float
    cpu: float  # user + system seconds of the process and its waited-for children
    rss_mb: float  # peak of the process tree's resident memory summed, sampled every SAMPLE_EVERY
    maxrss_mb: float  # the kernel's high-water mark of its largest process (GNU time's %M); 0: unknown
    lines: int | None  # lines printed, when counted

    @property
    def peak_mb(self) -> float:
        return max(self.rss_mb, self.maxrss_mb)


def _gnu_time() -> str | None:
    """GNU time, for the kernel's peak RSS of a process forked from a small one: a child forked
    from this Python process would inherit its ~60 MB high-water mark across exec."""
    path = "/usr/bin/time"
    if not os.access(path, os.X_OK):
        return None
    result = subprocess.run([path, "--version"], capture_output=True, text=True)
    return path if "GNU" in result.stdout + result.stderr else None


GNU_TIME = _gnu_time()


def run(argv: list[str], env: dict[str, str], count: bool = False, timeout: float = 1800) -> Run:
    """One whole process, its output to /dev/null (or counted, a line a record), its memory sampled."""
    import psutil

    with tempfile.TemporaryFile() as err, tempfile.NamedTemporaryFile(prefix="bench-time-") as maxrss:
        wrapped = [GNU_TIME, "-f", "%M", "-o", maxrss.name, *argv] if GNU_TIME else argv
        started = time.perf_counter()
        proc = subprocess.Popen(wrapped, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE if count else subprocess.DEVNULL, stderr=err)
        peak, done = [0], threading.Event()

        def sample() -> None:
            try:
                root = psutil.Process(proc.pid)
                tree, listed = [], 0.0
                while not done.is_set():
                    now = time.monotonic()
                    if now - listed > (0.5 if tree else SAMPLE_EVERY):  # listing children reads all of /proc
                        children = root.children(recursive=True)
                        tree, listed = (children if GNU_TIME else [root, *children]), now  # not time itself
                    total = 0
                    for p in tree:
                        try:
                            total += p.memory_info().rss
                        except psutil.Error:
                            pass
                    peak[0] = max(peak[0], total)
                    done.wait(SAMPLE_EVERY)
            except psutil.Error:
                pass  # gone

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        killer = threading.Timer(timeout, _kill_tree, (proc.pid,))
        killer.start()
        lines = None
        try:
            if count:
                lines = 0
                while chunk := proc.stdout.read1(1 << 20):
                    lines += chunk.count(b"\n")
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            took = time.perf_counter() - started
            killer.cancel()
            done.set()
            sampler.join()
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
        if proc.stdout:
            proc.stdout.close()
        if proc.returncode != 0:
            err.seek(0)
            tail = err.read().decode(errors="replace").strip()[-800:]
            raise SystemExit(f"{Path(argv[0]).name} ... failed ({proc.returncode}) after {took:.1f} s: {tail}")
        reported = Path(maxrss.name).read_text().split() if GNU_TIME else []
        kernel_kb = int(reported[-1]) if reported and reported[-1].isdigit() else 0
    return Run(took, usage.ru_utime + usage.ru_stime, peak[0] / 2**20, kernel_kb / 1024, lines)


def _kill_tree(pid: int) -> None:
    """Kill a run that went over its time (GNU time's child first: killing time leaves it running)."""
    import psutil

    try:
        root = psutil.Process(pid)
        for p in [*root.children(recursive=True), root]:
            p.kill()
    except psutil.Error:
        pass


def timed(commands: dict[str, list[str]], env: dict[str, str], runs: int,
          warmup: int) -> tuple[dict[str, Run], dict[str, list[Run]]]:
    """Each command's first run, and each of the `runs` after `warmup` rounds, the commands
    taking turns (as bench/check_vs_kafka_cli.timed, with /dev/null output and memory)."""
    def one(name: str, argv: list[str], what: str) -> Run:
        result = run(argv, env)
        say(f"{name} {what}: {result.seconds:.2f} s, cpu {result.cpu:.2f} s, peak RSS {result.peak_mb:.0f} MB "
            f"(load {os.getloadavg()[0]:.1f})")
        return result

    first = {name: one(name, argv, "cold run") for name, argv in commands.items()}
    for round_ in range(warmup - 1):
        for name, argv in commands.items():
            one(name, argv, f"warm-up {round_ + 2}/{warmup}")
    samples: dict[str, list[Run]] = {name: [] for name in commands}
    for n in range(runs):
        for name, argv in commands.items():
            samples[name].append(one(name, argv, f"run {n + 1}/{runs}"))
    return first, samples


def _verify(commands: dict[str, Command], env: dict[str, str]) -> dict[str, Run]:
    """One more run of each command, its output counted; and the issue's streamctl command as
    written (no --max-bytes: the default 64 MiB)."""
    counted = {}
    for name, command in commands.items():
        counted[name] = run(command.argv, env, count=True)
        say(f"{name} counted: {counted[name].lines} lines (expected {command.expected})")
    literal = list(commands["streamctl"].argv)
    at = literal.index("--max-bytes")
    del literal[at:at + 2]
    counted["as written"] = run(literal, env, count=True)
    say(f"streamctl without --max-bytes counted: {counted['as written'].lines} lines")
    return counted


# ---- the report ------------------------------------------------------------------------------------

def _report(args, bootstrap, topic, commands, skipped, first, samples, counted, loads) -> bool:
    warm = {name: statistics.median(r.seconds for r in runs) for name, runs in samples.items()}
    cpu = {name: statistics.median(r.cpu for r in runs) for name, runs in samples.items()}
    peak = {name: max(r.peak_mb for r in [first[name], *runs, counted[name]]) for name, runs in samples.items()}
    sampled = {name: max(r.rss_mb for r in [first[name], *runs, counted[name]]) for name, runs in samples.items()}
    kernel = {name: max(r.maxrss_mb for r in [first[name], *runs, counted[name]]) for name, runs in samples.items()}
    fmt = lambda loadavg: " / ".join(f"{v:.2f}" for v in loadavg)  # noqa: E731
    key_b, value_b = topic["sizes"]
    print()
    print(f"topic {topic['name']} at {bootstrap}: {topic['partitions']} partitions, replication {topic['rf']}, "
          f"{topic['held']} records held (key {key_b:.0f} B, value {value_b:.0f} B on average)"
          f"{', filled by this run' if topic['filled'] else ''}; each tool reads {args.records} from the beginning")
    print(f"whole processes, output to /dev/null, taking turns; cold = the first run, warm = median of "
          f"{args.runs} runs after {args.warmup} warm-up round(s) (the first included); load average "
          f"(1/5/15 min) {fmt(loads[0])} before, {fmt(loads[1])} after, {os.cpu_count()} cores")
    print(f"  {'':34} {'warm s':>8} {'cold s':>8} {'records/s':>10} {'cpu s':>7} {'peak RSS MB':>12}"
          f" {'(sampled':>9} {'kernel)':>8}" + ("" if GNU_TIME else "   (no GNU time: kernel figure 0)"))
    labels = {"streamctl": f"streamctl topics read -o json {args.records // 1000}k",
              "streamctl small": f"streamctl topics read -o json {args.small // 1000}k",
              "floor": "floor (bench/records_floor.py)",
              "kcat": "kcat -C -J", "ConsoleConsumer": "ConsoleConsumer (java -Xmx512M)"}
    for name in samples:
        expected = commands[name].expected
        print(f"  {labels[name]:34} {warm[name]:8.2f} {first[name].seconds:8.2f} {expected / warm[name]:10.0f} "
              f"{cpu[name]:7.2f} {peak[name]:12.0f} {sampled[name]:9.0f} {kernel[name]:8.0f}")
    for name, runs in samples.items():
        print(f"  each run of {name:15}:", " ".join(f"{r.seconds:.2f}" for r in runs),
              "s; cpu", " ".join(f"{r.cpu:.2f}" for r in runs), "s")
    print("  commands:")
    for name, command in commands.items():
        print(f"    {name:15} {command.shown}")
    for reason in skipped.values():
        print(f"  {reason}")

    ours = warm["streamctl"]
    if "kcat" in warm:
        ratio = ours / warm["kcat"]
        print(f"ratio streamctl / kcat, warm = {ratio:5.2f}x   (target <= {KCAT_RATIO_TARGET:g}x: "
              f"{'met' if ratio <= KCAT_RATIO_TARGET else 'NOT met'}); cold = "
              f"{first['streamctl'].seconds / first['kcat'].seconds:.2f}x; cpu = {cpu['streamctl'] / cpu['kcat']:.2f}x")
    else:
        print("ratio streamctl / kcat: not measured (kcat skipped)   (target <= 3x: unknown)")
    if "ConsoleConsumer" in warm:
        ratio = ours / warm["ConsoleConsumer"]
        print(f"ratio streamctl / ConsoleConsumer, warm = {ratio:5.2f}x   (target < 1x, faster: "
              f"{'met' if ratio < 1 else 'NOT met'}); cold = "
              f"{first['streamctl'].seconds / first['ConsoleConsumer'].seconds:.2f}x; "
              f"cpu = {cpu['streamctl'] / cpu['ConsoleConsumer']:.2f}x")
    else:
        print("ratio streamctl / ConsoleConsumer: not measured (ConsoleConsumer skipped)   (target < 1x: unknown)")
    floor = warm["floor"]
    print(f"ratio streamctl / floor, warm = {ours / floor:5.2f}x; cold = "
          f"{first['streamctl'].seconds / first['floor'].seconds:.2f}x; cpu = {cpu['streamctl'] / cpu['floor']:.2f}x"
          + (f"   (the floor itself / ConsoleConsumer = {floor / warm['ConsoleConsumer']:.2f}x)"
             if "ConsoleConsumer" in warm else ""))
    sizes = [name for name in ("streamctl small", "streamctl") if name in peak]
    worst = max(peak[name] for name in sizes)
    curve = ", ".join(f"{commands[name].expected} records {peak[name]:.0f} MB" for name in sizes)
    growth = f"; growth {peak['streamctl'] - peak['streamctl small']:+.0f} MB" if len(sizes) == 2 else ""
    print(f"streamctl peak RSS: {curve}{growth}   (target < {RSS_TARGET_MB} MB whatever the count: "
          f"{'met' if worst < RSS_TARGET_MB else 'NOT met'})")
    others = [f"{name} {peak[name]:.0f} MB" for name in ("kcat", "ConsoleConsumer") if name in peak]
    if others:
        print(f"baselines' peak RSS: {', '.join(others)}")

    counts_ok = all(counted[name].lines == command.expected for name, command in commands.items())
    print("records printed (one more run each, counted): " +
          ", ".join(f"{name} {counted[name].lines}/{command.expected}" for name, command in commands.items()) +
          f": {'all as expected' if counts_ok else 'NOT AS EXPECTED'}")
    print(f"the issue's command as written (no --max-bytes, its default 64 MiB): "
          f"{counted['as written'].lines} of {args.records} records printed")
    return counts_ok


if __name__ == "__main__":
    main()
