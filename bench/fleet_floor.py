"""The floor under `check --all-contexts` on this machine: the reads check makes for each
context, made for N contexts at once in one warm process, and nothing else (no interpreter
start, no imports, no rules, history judging or output, no forked child).

    .venv/bin/python -m bench.fleet_floor CONFIG [--sizes 1,6] [--runs 5]

For every context of CONFIG named c1..cN (bench/fleet_check.py writes them), in a thread each:
Kafka's snapshot as check's Kafka collector asks it (the lag history's known record times and
topic configs included, so a warm run sends what a warm check sends) and, when the context has
a ZooKeeper section, the ensemble probe (four-letter words, AdminServer) and the Kafka znodes
the cross-check compares. floor(N) - floor(1) is what N-1 more contexts' requests cost here,
the brokers and ZooKeeper sharing the cores with us: `check` over N contexts cannot take less
than its one-context time plus that.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from pathlib import Path


def read_context(ctx, store: Path) -> None:
    """check's reads of one context (streamctl/kafka/collect.py, streamctl/zookeeper/collect.py)."""
    from streamctl.backends.kafka.client import Deadline
    from streamctl.backends.kafka.cluster import KafkaBackend
    from streamctl.kafka.health import Filters
    from streamctl.kafka.history import HistoryRequest, snapshot_with_history

    thresholds = ctx.thresholds
    request = HistoryRequest(store, ctx.name, thresholds.allowed_lag, thresholds.stall_window_seconds)
    zk = threading.Thread(target=read_zookeeper, args=(ctx,)) if ctx.zookeeper is not None else None
    if zk is not None:
        zk.start()
    snapshot_with_history(KafkaBackend(ctx.kafka.client_config(), ctx.kafka.timeout), request,
                          deadline=Deadline(ctx.kafka.timeout), group_filter=Filters.from_context(ctx).group,
                          group_members=False)
    if zk is not None:
        zk.join()


def read_zookeeper(ctx) -> None:
    from streamctl.backends.zookeeper import ZooKeeperBackend
    from streamctl.backends.zookeeper_ensemble import probe_ensemble
    from streamctl.zookeeper.kafka_znodes import KafkaZooKeeper

    settings = ctx.zookeeper
    probe_ensemble(settings.hosts, settings.timeout, settings.admin_url)
    zk = ZooKeeperBackend.from_settings(settings, timeout=settings.timeout)
    try:
        kafka_zk = KafkaZooKeeper(zk, settings.chroot)
        if kafka_zk.is_kafka():
            kafka_zk.view()
    finally:
        zk.close()


def floor_seconds(contexts: list, store: Path) -> float:
    """Wall seconds of every context's reads, made at once."""
    threads = [threading.Thread(target=read_context, args=(ctx, store)) for ctx in contexts]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.perf_counter() - started


def measure(config_path: Path, sizes: list[int], runs: int) -> dict[int, float]:
    """Median floor seconds by number of contexts (c1..cN), after one warm-up run each."""
    from streamctl.config import load_config

    config = load_config(config_path)
    found: dict[int, list[float]] = {size: [] for size in sizes}
    with tempfile.TemporaryDirectory(prefix="fleet-floor-") as tmp:
        store = Path(tmp) / "lag.sqlite"
        for size in sizes:  # warm-up: the history's record times and topic configs, as a warm check has them
            floor_seconds([config.context(f"c{i}") for i in range(1, size + 1)], store)
        for _ in range(runs):  # the sizes interleaved: drift on a shared machine hits each alike
            for size in sizes:
                found[size].append(floor_seconds([config.context(f"c{i}") for i in range(1, size + 1)], store))
    return {size: statistics.median(times) for size, times in found.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config", type=Path, help="a config whose contexts are named c1..cN")
    parser.add_argument("--sizes", default="1,6")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    for size, seconds in measure(args.config, [int(n) for n in args.sizes.split(",")], args.runs).items():
        print(f"floor, {size} contexts: {seconds:.3f} s")


if __name__ == "__main__":
    main()
