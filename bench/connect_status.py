#!/usr/bin/env python3
"""Benchmark: `streamctl connect list` against a shell loop of one curl per connector, same worker, same run.

    .venv/bin/python -m bench.connect_status [--connectors 200] [--runs 5] [--warmup 2] [--url URL]
                                             [--concurrency 4] [--heap-stop 0.85]

Uses the Connect worker of the current config context (its connect.urls[0]), or --url (which
must be a worker of that context's cluster: streamctl reads its own config). Creates N
FileStreamSink connectors bench-sink-000 ... (topic weblog-stats, files in a temporary
directory) through the REST API, a few at a time (409 while the worker rebalances: asked again
after a short pause), waits until every one is listed with its status and a task, and, when the
worker runs on this machine, until it goes quiet (under a quarter of a core for 5 s, at most
2 min). While creating, a local worker's live heap is read after each wave (jcmd GC.run +
GC.heap_info): past --heap-stop of its maximum no more are created and the benchmark stops
(a worker started with -XX:+ExitOnOutOfMemoryError would otherwise die).

Then runs every command --warmup times (the first run is reported: the cold figure), and times,
as whole processes taking turns (median of --runs, the warm figure):
  streamctl  `streamctl connect list -o json`: every connector with status, one REST call
  curl loop  what a user scripts without a tool, one invocation of the whole loop per run:
               sh -c 'for n in $(curl -s URL/connectors | jq -r ".[]"); do
                        curl -s URL/connectors/$n/status; done'
             (without jq: the names are read once up front and the loop runs over that fixed
             list, `for n in NAME...`, which spares the loop its listing call)
  check      `streamctl check --component connect --format json`
Then one more run of each, its output read: both sides must have seen every connector (equal
counts, all N benchmark connectors), else the exit status is 1.
Targets: streamctl >= 10x faster than the curl loop; check under 1 s. Cold and warm figures,
the ratios and the load average are printed. The benchmark connectors and their consumer groups
(connect-bench-sink-NNN) are deleted at the end, whatever happens; others are left alone.
Progress goes to stderr, the figures to stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from bench.check_vs_kafka_cli import STREAMCTL, timed
from bench.scene import wait_until_quiet

PREFIX = "bench-sink-"
TOPIC = "weblog-stats"
SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"
WAVE = 10  # connectors created between two readings of the worker's heap
RETRY_PAUSE = 0.5  # seconds before asking again after a 409 (rebalance) or a worker time-out


def say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connectors", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=2,
                        help="untimed rounds of every command first (the first one is reported)")
    parser.add_argument("--url", help="a Connect worker's REST URL (default: the current context's first)")
    parser.add_argument("--concurrency", type=int, default=4, help="connectors created/deleted at a time")
    parser.add_argument("--heap-stop", type=float, default=0.85,
                        help="stop creating past this fraction of a local worker's max heap (live, after a GC)")
    parser.add_argument("--settle-timeout", type=float, default=600,
                        help="seconds to wait for every connector to be listed with a task")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so that the finally below runs

    url, bootstrap = _target(args.url)
    names = [f"{PREFIX}{i:03d}" for i in range(args.connectors)]
    client = httpx.Client(base_url=url, timeout=httpx.Timeout(120.0), headers={"Accept": "application/json"})
    worker = _local_pid(url)
    tmp = Path(tempfile.mkdtemp(prefix="streamctl-connect-bench-"))
    tmp.chmod(0o755)
    env = dict(os.environ)  # the same config and state as the caller's streamctl
    others = sorted(n for n in _get(client, "/connectors") if not n.startswith(PREFIX))
    heap: list[tuple[int, float, float]] = []  # (connectors, live MB, max MB) after each wave
    try:
        say(f"worker {url} (pid {worker or 'not on this machine'}); its connectors: {', '.join(others) or 'none'}")
        setup_s = _create(client, names, tmp, args, worker, heap)
        settle_s, states = _settle(client, names, args.settle_timeout)
        quiet = ""
        if worker:
            waited, cores = wait_until_quiet([worker])
            quiet = (f"worker quiet after {waited:.0f} s more ({cores:.2f} of a core)" if cores < 0.25 else
                     f"worker still busy {waited:.0f} s later ({cores:.2f} of a core): measured anyway")
            say(quiet)
        commands = _commands(url, client)
        say(f"timing: {args.warmup} warm-up rounds (the first reported), then {args.runs} runs taking turns")
        load_before = os.getloadavg()
        first, samples = timed({name: (argv, ok) for name, (argv, ok, _) in commands.items()},
                               env, args.runs, args.warmup)
        load_after = os.getloadavg()
        seen = _verify(commands, env)
        if worker:
            heap.append((len(names), *_heap_mb(worker, collect=False)))
    finally:
        _teardown(client, names, bootstrap)
        client.close()
        shutil.rmtree(tmp, ignore_errors=True)

    ok = _report(args, url, others, commands, first, samples, seen, states, heap,
                 (setup_s, settle_s, quiet), (load_before, load_after))
    sys.exit(0 if ok else 1)


# ---- the worker ----------------------------------------------------------------------------------

def _target(url: str | None) -> tuple[str, str | None]:
    """The worker's URL and the context's Kafka bootstrap (for deleting the sinks' groups)."""
    from streamctl.config import load_config

    try:
        ctx = load_config().context()
    except Exception as exc:  # noqa: BLE001 - any config error: --url alone still works
        if not url:
            raise SystemExit(f"no --url and no usable config context: {exc}") from None
        say(f"config: {exc}; streamctl will probably not reach {url}")
        return url.rstrip("/"), None
    if ctx.connect is None and not url:
        raise SystemExit(f"context '{ctx.name}' has no connect: section; pass --url")
    if ctx.connect is not None and ctx.connect.auth is not None:
        raise SystemExit("the Connect REST API needs credentials here: the curl loop has none (not supported)")
    urls = [u.rstrip("/") for u in (ctx.connect.urls if ctx.connect else [])]
    if url and url.rstrip("/") not in urls:
        say(f"--url {url} is not among context '{ctx.name}''s connect.urls {urls}: "
            "streamctl reads those (the connector counts will tell)")
    return (url or urls[0]).rstrip("/"), ctx.kafka.bootstrap_servers


def _local_pid(url: str) -> int | None:
    """The process listening on the URL's port when the worker runs on this machine."""
    import psutil

    parts = urlsplit(url)
    if parts.hostname not in ("localhost", "127.0.0.1", "::1", "0.0.0.0"):
        return None
    port = parts.port or 80
    try:
        return next((c.pid for c in psutil.net_connections("tcp")
                     if c.status == psutil.CONN_LISTEN and c.laddr.port == port and c.pid), None)
    except psutil.Error:
        return None


def _heap_mb(pid: int, collect: bool = True) -> tuple[float, float]:
    """(used, max) heap in MB of a local JVM; used right after a full GC (the live set) when
    `collect`. (nan, nan) without jcmd."""
    if not shutil.which("jcmd"):
        return float("nan"), float("nan")
    if collect:
        subprocess.run(["jcmd", str(pid), "GC.run"], capture_output=True, timeout=60)
    info = subprocess.run(["jcmd", str(pid), "GC.heap_info"], capture_output=True, text=True, timeout=60).stdout
    flags = subprocess.run(["jcmd", str(pid), "VM.flags"], capture_output=True, text=True, timeout=60).stdout
    # the generations' (or regions') "used NNNK", not Metaspace's
    heap_lines = [line for line in info.splitlines() if "Metaspace" not in line and "class space" not in line]
    used = sum(int(k) for line in heap_lines for k in re.findall(r"\bused (\d+)K", line)) / 1024
    limit = re.search(r"MaxHeapSize=(\d+)", flags)
    return used, (int(limit.group(1)) / 2**20 if limit else float("nan"))


def _get(client: httpx.Client, path: str, **params):
    response = client.get(path, params=params)
    response.raise_for_status()
    return response.json()


def _with_retries(call, what: str, done=lambda r: r.is_success, attempts: int = 240) -> httpx.Response:
    """Call until done(response): a 409 (the worker is rebalancing) or a 5xx (a request timed out
    in the worker) is asked again after RETRY_PAUSE."""
    for _ in range(attempts):
        try:
            response = call()
        except httpx.TransportError as exc:
            last = str(exc)
        else:
            if done(response):
                return response
            if response.status_code != 409 and response.status_code < 500:
                raise SystemExit(f"{what}: {response.status_code} {response.text[:300]}")
            last = f"{response.status_code} {response.text[:200]}"
        time.sleep(RETRY_PAUSE)
    raise SystemExit(f"{what}: still failing after {attempts} attempts: {last}")


def _create(client, names, tmp: Path, args, worker: int | None, heap: list) -> float:
    """Create the connectors in waves of WAVE, `concurrency` at a time; after each wave, a local
    worker's live heap. Stops (SystemExit) before a wave that would take it past --heap-stop at the
    growth per connector seen so far. Returns the seconds it took."""
    def create(name: str) -> None:
        body = {"name": name, "config": {"connector.class": SINK, "tasks.max": "1", "topics": TOPIC,
                                         "file": str(tmp / f"{name}.txt")}}
        _with_retries(lambda: client.post("/connectors", json=body), f"create {name}",
                      done=lambda r: r.is_success or (r.status_code == 409 and "already exists" in r.text))

    started = time.perf_counter()
    if worker:
        used, limit = _heap_mb(worker)
        heap.append((0, used, limit))
        say(f"worker heap before: {used:.0f} MB live of {limit:.0f} MB")
    with ThreadPoolExecutor(max_workers=args.concurrency) as pool:
        for wave in range(0, len(names), WAVE):
            batch = names[wave:wave + WAVE]
            if worker and len(heap) >= 2:
                # the growth per connector since the start: one wave's reading is noisy (+-30 MB:
                # records in flight, a rebalance under way)
                (n0, used0, _), (n1, used1, limit) = heap[0], heap[-1]
                per = max(0.0, (used1 - used0) / max(1, n1 - n0))
                if max(used1, used1 + per * len(batch)) > args.heap_stop * limit:
                    raise SystemExit(
                        f"the worker's live heap would pass {args.heap_stop:.0%} of its {limit:.0f} MB with "
                        f"{wave + len(batch)} benchmark connectors (+{per:.1f} MB each): stopped at {wave} "
                        f"before it runs out (live heap by connectors: {_heap_curve(heap)})")
            list(pool.map(create, batch))
            made = wave + len(batch)
            line = f"created {made}/{len(names)} ({time.perf_counter() - started:.0f} s)"
            if worker:
                used, limit = _heap_mb(worker)
                heap.append((made, used, limit))
                line += f"; worker heap {used:.0f} MB live of {limit:.0f} MB"
            say(line)
    return time.perf_counter() - started


def _settle(client, names, limit: float) -> tuple[float, dict[str, int]]:
    """Wait until every connector is listed with its status and a task; their connector states."""
    started = time.perf_counter()
    wanted = set(names)
    while True:
        listing = _get(client, "/connectors", expand="status")
        ready = {n: e["status"] for n, e in listing.items()
                 if n in wanted and e.get("status", {}).get("connector", {}).get("state")
                 and e["status"].get("tasks")}
        states: dict[str, int] = {}
        for status in ready.values():
            states[status["connector"]["state"]] = states.get(status["connector"]["state"], 0) + 1
        tasks = [t["state"] for s in ready.values() for t in s["tasks"]]
        waited = time.perf_counter() - started
        say(f"listed with a task: {len(ready)}/{len(names)}; connectors {states}; "
            f"tasks running {tasks.count('RUNNING')}, failed {tasks.count('FAILED')} ({waited:.0f} s)")
        if len(ready) == len(names):
            return waited, states
        if waited > limit:
            raise SystemExit(f"only {len(ready)} of {len(names)} connectors listed with a task after {limit:.0f} s")
        time.sleep(2)


def _teardown(client, names, bootstrap: str | None) -> None:
    """Delete the benchmark's connectors (404: never made or already gone), wait until none is
    listed, then their consumer groups. Never raises: the first failure is reported."""
    say(f"deleting the {len(names)} benchmark connectors")
    try:
        present = set(_get(client, "/connectors"))
        mine = [n for n in names if n in present]
        with ThreadPoolExecutor(max_workers=4) as pool:
            list(pool.map(lambda n: _with_retries(lambda: client.delete(f"/connectors/{n}"), f"delete {n}",
                                                  done=lambda r: r.is_success or r.status_code == 404), mine))
        deadline = time.monotonic() + 120
        while (left := [n for n in _get(client, "/connectors") if n.startswith(PREFIX)]) and time.monotonic() < deadline:
            time.sleep(1)
        say(f"benchmark connectors left: {len(left)}")
    except BaseException as exc:  # noqa: BLE001 - still try the groups
        say(f"deleting the connectors failed: {exc!r}; delete {PREFIX}* by hand")
    if bootstrap:
        _delete_groups(bootstrap, [f"connect-{n}" for n in names])


def _delete_groups(bootstrap: str, groups: list[str]) -> None:
    from confluent_kafka.admin import AdminClient

    admin = AdminClient({"bootstrap.servers": bootstrap, "log_level": "0"})
    try:
        listed = {g.group_id for g in admin.list_consumer_groups(request_timeout=30).result(timeout=30).valid}
        pending = [g for g in groups if g in listed]
        for _ in range(30):  # a group is not empty until its task's consumer has left
            if not pending:
                break
            futures = admin.delete_consumer_groups(pending, request_timeout=30)
            failed = []
            for group, future in futures.items():
                try:
                    future.result(timeout=60)
                except Exception as exc:  # noqa: BLE001
                    if "GROUP_ID_NOT_FOUND" not in str(exc):
                        failed.append(group)
            pending = failed
            if pending:
                time.sleep(2)
        say(f"benchmark consumer groups deleted; left: {len(pending)}")
    except Exception as exc:  # noqa: BLE001
        say(f"deleting the connect-{PREFIX}* consumer groups failed: {exc!r}")


# ---- the commands ----------------------------------------------------------------------------------

def _commands(url: str, client) -> dict[str, tuple[list[str], tuple[int, ...], str]]:
    """name -> (argv, exit statuses accepted, how it is shown)."""
    q = shlex.quote(url)
    if shutil.which("jq"):
        loop = (f'for n in $(curl -s {q}/connectors | jq -r ".[]"); do '
                f"curl -s {q}/connectors/$n/status; done")
        shown = loop
    else:  # the names read once up front: the loop over that fixed list
        names = " ".join(shlex.quote(n) for n in sorted(_get(client, "/connectors")))
        loop = f"for n in {names}; do curl -s {q}/connectors/$n/status; done"
        shown = f"for n in <the {len(names.split())} names, read once up front>; do curl -s {q}/connectors/$n/status; done"
    return {
        "streamctl": ([STREAMCTL, "connect", "list", "-o", "json"], (0,), "streamctl connect list -o json"),
        "loop": (["sh", "-c", loop], (0,), shlex.join(["sh", "-c", shown])),
        # 1 WARN, 2 CRIT are the cluster's state (a failed connector), not a failed check
        "check": ([STREAMCTL, "check", "--component", "connect", "--format", "json"], (0, 1, 2),
                  "streamctl check --component connect --format json"),
    }


def _verify(commands, env) -> dict[str, object]:
    """One more run of each command, its output read: the connectors each saw."""
    out = {}
    for name, (argv, ok, _) in commands.items():
        result = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
        if result.returncode not in ok:
            raise SystemExit(f"{name} failed ({result.returncode}): {result.stderr[-500:]}")
        out[name] = result.stdout
    listed = [c["name"] for c in json.loads(out["streamctl"])["connectors"]]
    statuses, text, at = [], out["loop"], 0
    decoder = json.JSONDecoder()
    while (at := _skip_space(text, at)) < len(text):  # the loop prints the bodies back to back
        body, at = decoder.raw_decode(text, at)
        if "connector" in body and "name" in body:  # a 404 body has error_code instead
            statuses.append(body["name"])
    report = json.loads(out["check"])
    counted = next((m["value"] for m in report["metrics"] if m["name"] == "connect_connectors"), None)
    return {"streamctl": listed, "loop": statuses, "check": counted, "check_state": report["state"]}


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at


# ---- the report ------------------------------------------------------------------------------------

def _heap_curve(heap) -> str:
    return ", ".join(f"{n}: {used:.0f}" for n, used, _ in heap) + " MB"


def _report(args, url, others, commands, first, samples, seen, states, heap, setup, loads) -> bool:
    warm = {name: statistics.median(values) for name, values in samples.items()}
    ours, loop, check = warm["streamctl"], warm["loop"], warm["check"]
    expected = args.connectors + len(others)
    counts = {side: len(seen[side]) for side in ("streamctl", "loop")}
    bench = {side: sum(1 for n in seen[side] if n.startswith(PREFIX)) for side in ("streamctl", "loop")}
    counted_ok = counts["streamctl"] == counts["loop"] and bench["streamctl"] == bench["loop"] == args.connectors
    fmt = lambda loadavg: " / ".join(f"{v:.2f}" for v in loadavg)  # noqa: E731
    print()
    print(f"worker {url}: {args.connectors} FileStreamSink connectors ({TOPIC}) + {len(others)} others "
          f"({', '.join(others) or '-'}); created in {setup[0]:.0f} s, all listed with a task "
          f"{setup[1]:.0f} s later, connector states {states}" + (f"; {setup[2]}" if setup[2] else ""))
    if heap:
        print(f"worker heap, live after a GC, by benchmark connectors (max {heap[-1][2]:.0f} MB): "
              f"{_heap_curve(heap[:-1])}; after the runs (no GC) {heap[-1][1]:.0f} MB")
    print(f"whole processes, taking turns; cold = the first run, warm = median of {args.runs} runs after "
          f"{args.warmup} warm-up rounds (the first included); "
          f"load average (1/5/15 min) {fmt(loads[0])} before, {fmt(loads[1])} after, {os.cpu_count()} cores")
    print(f"  streamctl connect list -o json      warm {ours:7.3f} s   cold {first['streamctl']:7.3f} s   "
          f"saw {counts['streamctl']} connectors")
    print(f"  curl loop (1 + 1 per connector)     warm {loop:7.3f} s   cold {first['loop']:7.3f} s   "
          f"saw {counts['loop']} connectors")
    print(f"  streamctl check --component connect warm {check:7.3f} s   cold {first['check']:7.3f} s   "
          f"state {seen['check_state']}, counted {seen['check']} connectors")
    for name in ("streamctl", "loop", "check"):
        print(f"  each run of {name:9}:", " ".join(f"{t:.3f}" for t in samples[name]))
    print(f"  the loop: {commands['loop'][2]}")
    print(f"ratio curl loop / streamctl list, warm = {loop / ours:5.1f}x   (target >= 10x: "
          f"{'met' if loop / ours >= 10 else 'NOT met'})")
    print(f"ratio curl loop / streamctl list, cold = {first['loop'] / first['streamctl']:5.1f}x")
    print(f"check --component connect under 1 s:  warm {'yes' if check < 1 else 'NO'} ({check:.3f} s), "
          f"cold {'yes' if first['check'] < 1 else 'NO'} ({first['check']:.3f} s)   (target < 1 s)")
    print(f"connectors seen: streamctl {counts['streamctl']} ({bench['streamctl']} benchmark), "
          f"curl loop {counts['loop']} ({bench['loop']} benchmark), expected {expected} "
          f"({args.connectors} benchmark): {'equal' if counted_ok else 'NOT EQUAL'}")
    return counted_ok


if __name__ == "__main__":
    main()
