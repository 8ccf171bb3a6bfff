"""weblog-stats: a PySpark Structured Streaming job over combined-format access-log lines.

    spark-submit --jars <kafka connector jars> weblog_stats.py --bootstrap-servers HOST:PORT \
        --checkpoint-dir DIR [--progress-file FILE] [--trigger-seconds 3] ...

Reads topic `weblogs` from Kafka, parses each line (Apache/NGINX "combined" format), and counts
requests and bytes per event-time window, status class (2xx, 4xx, ...) and path, with a
watermark so that late lines are dropped and closed windows are emitted once (append mode).
Each result row goes to topic `weblog-stats` as JSON:

    {"window_start": "2026-11-25T10:00:00.000Z", "window_end": "2026-11-25T10:00:30.000Z",
     "status_class": "2xx", "path": "/index.html", "requests": 12, "bytes": 30417}

For the state faults only: `--no-watermark` keeps every window in the state (update mode, state
that grows without bound) and `--state-store rocksdb` uses Spark's RocksDB state store provider with
changelog checkpointing (default `hdfs`: Spark's default provider).

A StreamingQueryListener appends every progress event as one JSON line to the progress file
(streamctl reads its tail for rates). SIGTERM stops the query between batches, then Spark.

This is the only module of streamctl that imports pyspark; it runs inside spark-submit.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.streaming import StreamingQueryListener

QUERY_NAME = "weblog-stats"

# host ident user [time] "METHOD path PROTO" status bytes "referer" "agent"
COMBINED = (r'^(\S+) \S+ (\S+) \[([^\]]+)\] "([A-Z]+) (\S+)[^"]*" (\d{3}) (\d+|-)'
            r'(?: "([^"]*)" "([^"]*)")?')
TIME_FORMAT = "dd/MMM/yyyy:HH:mm:ss Z"
PROGRESS_FILE_MAX_BYTES = 16 * 1024 * 1024  # then it is rotated to <file>.1
# --state-store -> the SQL confs it sets (hdfs: Spark's default provider, nothing to set)
STATE_STORES: dict[str, dict[str, str]] = {
    "hdfs": {},
    "rocksdb": {
        "spark.sql.streaming.stateStore.providerClass":
            "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider",
        "spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled": "true",
    },
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="weblog_stats", description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap-servers", required=True)
    parser.add_argument("--input-topic", default="weblogs")
    parser.add_argument("--output-topic", default="weblog-stats")
    parser.add_argument("--checkpoint-dir", required=True)
    parser.add_argument("--progress-file", help="JSON lines of progress events "
                        "(default: progress.jsonl next to the checkpoint dir)")
    parser.add_argument("--trigger-seconds", type=float, default=5.0)
    parser.add_argument("--starting-offsets", default="earliest",
                        help="earliest | latest | a JSON offsets spec (first start only)")
    parser.add_argument("--window", default="30 seconds", help="event-time window length")
    parser.add_argument("--watermark", default="10 seconds", help="how late a line may arrive")
    parser.add_argument("--no-watermark", action="store_true",
                        help="no watermark (a fault to show): every window stays in the state, which grows "
                             "without bound, and each batch writes its updated windows (update mode)")
    parser.add_argument("--state-store", choices=sorted(STATE_STORES), default="hdfs",
                        help="the state store provider: hdfs (Spark's default) or rocksdb (with changelog "
                             "checkpointing: a snapshot every few versions, deltas in between)")
    parser.add_argument("--max-offsets-per-trigger", type=int, default=None)
    parser.add_argument("--parquet-dir", help="also write the windows as Parquet files here "
                        "(a second query, checkpoint <checkpoint-dir>-parquet)")
    args = parser.parse_args(argv)
    if args.no_watermark and args.parquet_dir:
        parser.error("--no-watermark needs update mode, which the Parquet sink (--parquet-dir) does not have")
    if args.progress_file is None:
        args.progress_file = os.path.join(os.path.dirname(os.path.abspath(args.checkpoint_dir)),
                                          "progress.jsonl")
    return args


class ProgressFileListener(StreamingQueryListener):
    """Appends each query event as one JSON line (started, progress, idle, terminated)."""

    def __init__(self, path: str):
        super().__init__()
        self.path = path
        self.lock = threading.Lock()
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)

    def _append(self, record: dict) -> None:
        line = json.dumps(record, separators=(",", ":"))
        with self.lock:
            try:
                if os.path.getsize(self.path) > PROGRESS_FILE_MAX_BYTES:
                    os.replace(self.path, self.path + ".1")  # keep one older file
            except FileNotFoundError:
                pass
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(line + "\n")

    def onQueryStarted(self, event) -> None:
        self._append({"event": "started", "id": str(event.id), "runId": str(event.runId),
                      "name": event.name, "timestamp": event.timestamp})

    def onQueryProgress(self, event) -> None:
        self._append({"event": "progress", **json.loads(event.progress.json)})

    def onQueryIdle(self, event) -> None:
        self._append({"event": "idle", "id": str(event.id), "runId": str(event.runId),
                      "timestamp": event.timestamp})

    def onQueryTerminated(self, event) -> None:
        self._append({"event": "terminated", "id": str(event.id), "runId": str(event.runId),
                      "exception": event.exception})


def windowed_counts(lines, window: str, watermark: str | None):
    """Kafka records (a `value` column) -> counts per window, status class and path (without a
    watermark no window is ever dropped from the state)."""
    text = F.col("value").cast("string")
    field = lambda n: F.regexp_extract(text, COMBINED, n)  # noqa: E731
    parsed = lines.select(
        F.try_to_timestamp(field(3), F.lit(TIME_FORMAT)).alias("event_time"),
        field(5).alias("path"),
        field(6).alias("status"),
        field(7).alias("bytes_text"),
    ).where((F.col("status") != "") & F.col("event_time").isNotNull())
    parsed = parsed.select(
        "event_time", "path",
        F.concat(F.substring("status", 1, 1), F.lit("xx")).alias("status_class"),
        F.when(F.col("bytes_text") == "-", F.lit(0))
         .otherwise(F.expr("try_cast(bytes_text AS BIGINT)")).alias("bytes"),
    )
    if watermark is not None:
        parsed = parsed.withWatermark("event_time", watermark)
    return (parsed.groupBy(F.window("event_time", window), "status_class", "path")
            .agg(F.count(F.lit(1)).alias("requests"), F.sum("bytes").alias("bytes"))
            .select(F.col("window.start").alias("window_start"), F.col("window.end").alias("window_end"),
                    "status_class", "path", "requests", "bytes"))


def start_queries(spark: SparkSession, args: argparse.Namespace):
    reader = (spark.readStream.format("kafka")
              .option("kafka.bootstrap.servers", args.bootstrap_servers)
              .option("subscribe", args.input_topic)
              .option("startingOffsets", args.starting_offsets)
              .option("failOnDataLoss", "false"))
    if args.max_offsets_per_trigger:
        reader = reader.option("maxOffsetsPerTrigger", args.max_offsets_per_trigger)
    counts = windowed_counts(reader.load(), args.window, None if args.no_watermark else args.watermark)
    trigger = {"processingTime": f"{args.trigger_seconds:g} seconds"}
    queries = [(counts
                .select(F.col("status_class").alias("key"),
                        F.to_json(F.struct(*counts.columns)).alias("value"))
                .writeStream.queryName(QUERY_NAME).outputMode("update" if args.no_watermark else "append")
                .format("kafka")
                .option("kafka.bootstrap.servers", args.bootstrap_servers)
                .option("topic", args.output_topic)
                .option("checkpointLocation", args.checkpoint_dir)
                .trigger(**trigger).start())]
    if args.parquet_dir:
        queries.append(counts.writeStream.queryName(f"{QUERY_NAME}-parquet").outputMode("append")
                       .format("parquet").option("path", args.parquet_dir)
                       .option("checkpointLocation", args.checkpoint_dir.rstrip("/") + "-parquet")
                       .trigger(**trigger).start())
    return queries


def stop_between_batches(query, wait: float = 30.0) -> None:
    """Stop once no trigger is running, so the last planned batch is also committed."""
    deadline = time.monotonic() + wait
    while query.isActive and query.status.get("isTriggerActive") and time.monotonic() < deadline:
        time.sleep(0.1)
    if query.isActive:
        query.stop()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    builder = (SparkSession.builder.appName(QUERY_NAME)
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.sql.session.timeZone", "UTC"))
    for key, value in STATE_STORES[args.state_store].items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    sc = spark.sparkContext
    # One line the launcher greps for (before the query starts): the app id and the UI.
    print(f"weblog_stats: application {sc.applicationId} ui {sc.uiWebUrl or '-'}", flush=True)
    spark.streams.addListener(ProgressFileListener(args.progress_file))
    queries = start_queries(spark, args)
    failed = None
    while not stop.is_set():
        for query in queries:
            try:
                if query.awaitTermination(1.0 / len(queries)):
                    failed = failed or query.exception() or "query stopped"
                    stop.set()
            except Exception as exc:  # noqa: BLE001 - a StreamingQueryException: the query died
                failed = exc
                stop.set()
    for query in queries:
        stop_between_batches(query)
    print(f"weblog_stats: stopped{f' after a failure: {failed}' if failed else ''}", flush=True)
    spark.stop()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
