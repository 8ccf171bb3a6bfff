"""The rows of a checkpoint's state store, read by Spark's state data source in a local batch.

    python -m streamctl.jobs.state_rows --checkpoint DIR --operator N --store NAME --batch B --limit N

`streamctl jobs state --rows` runs this in a child process, so that pyspark and its JVM are
loaded for that command only (never by the CLI's own process, `check` or the dashboard) and
are gone when it ends. It starts a local[1] session (no UI, small driver memory, quiet logs),
reads `format("state-metadata")` for the operators and `format("statestore")` (options
operatorId, storeName, batchId) for the rows, and prints one JSON line on stdout: the rows with
the key and value structs flattened (timestamps as UTC ISO text), the total, and how long the
session took to start. A failure is one JSON line {"error": "..."}, exit 1: a Java stack trace
is reduced to its one-line cause.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time

DRIVER_MEMORY = "512m"
TIMESTAMP_TEXT = "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'"  # as the job's to_json writes them (UTC session)
# ": org.apache.spark.SparkException: [CLASS] message" or "Caused by: java.io.EOFException" in a Py4J error
EXCEPTION_LINE = re.compile(r"^(?::\s*)?(Caused by:\s*)?([a-zA-Z_$][\w$]*(?:\.[\w$]+)+(?:Exception|Error))(?::\s*(.*))?$")
SQLSTATE = re.compile(r"\s*SQLSTATE: \w+\s*$")
PY4J_CALL = "An error occurred while calling"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="state_rows", description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", required=True)
    parser.add_argument("--operator", type=int, default=0)
    parser.add_argument("--store", default="default")
    parser.add_argument("--batch", type=int, required=True)
    parser.add_argument("--limit", type=int, default=100)
    return parser.parse_args(argv)


def one_line(error: BaseException) -> str:
    """An exception from pyspark or Py4J as one line: its message, and the deepest Java cause."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    thrown = [m for m in map(EXCEPTION_LINE.match, lines) if m]
    head = next((m.group(3) for m in thrown if m.group(3) and not m.group(1)), None) \
        or next((line for line in lines if not line.startswith(PY4J_CALL)), type(error).__name__)
    head = SQLSTATE.sub("", " ".join(head.split()))
    causes = [m for m in thrown if m.group(1)]
    if not causes:
        return head
    kind, message = causes[-1].group(2).rsplit(".", 1)[-1], causes[-1].group(3)
    return f"{head} (caused by {kind}{f': {SQLSTATE.sub(str(), message)}' if message else ''})"


def start_session():
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[1]").appName("streamctl-state-rows")
             .config("spark.driver.memory", DRIVER_MEMORY)
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.log.level", "ERROR")
             .config("spark.sql.session.timeZone", "UTC")
             .config("spark.sql.shuffle.partitions", "1")
             .config("spark.driver.host", "127.0.0.1")
             .config("spark.driver.bindAddress", "127.0.0.1")
             .getOrCreate())
    spark.streams.resetTerminated()  # makes the query manager, which registers the StateStoreCoordinator
    return spark


def flat_columns(schema, prefix: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], object]]:
    """(path, data type) of every leaf of a struct schema, depth first."""
    from pyspark.sql.types import StructType

    leaves = []
    for field in schema.fields:
        path = (*prefix, field.name)
        if isinstance(field.dataType, StructType):
            leaves += flat_columns(field.dataType, path)
        else:
            leaves.append((path, field.dataType))
    return leaves


def column_names(key_paths: list[tuple[str, ...]], value_paths: list[tuple[str, ...]]) -> tuple[list[str], list[str]]:
    """Dotted names without the key./value. prefix, unless a key and a value name would clash."""
    keys = [".".join(p[1:]) for p in key_paths]
    values = [".".join(p[1:]) for p in value_paths]
    if set(keys) & set(values):
        return [".".join(p) for p in key_paths], [".".join(p) for p in value_paths]
    return keys, values


def read_rows(spark, args: argparse.Namespace) -> dict:
    from pyspark.sql import functions as F
    from pyspark.sql.types import TimestampNTZType, TimestampType

    operators = [row.asDict() for row in spark.read.format("state-metadata").load(args.checkpoint).collect()]
    frame = (spark.read.format("statestore").option("operatorId", args.operator)
             .option("storeName", args.store).option("batchId", args.batch).load(args.checkpoint))
    leaves = flat_columns(frame.schema)
    key_paths = [p for p, _t in leaves if p[0] == "key"]
    value_paths = [p for p, _t in leaves if p[0] == "value"]
    keys, values = column_names(key_paths, value_paths)
    names = dict(zip(key_paths + value_paths, keys + values, strict=True))
    selected = []
    for path, data_type in leaves:
        column = F.col(".".join(f"`{part}`" for part in path))
        if isinstance(data_type, TimestampType | TimestampNTZType):
            column = F.date_format(column, TIMESTAMP_TEXT)
        selected.append(column.alias(names.get(path, ".".join(path))))
    flat = frame.select(*selected)
    order = [F.col(f"`{name}`") for name in keys] + [F.col(name) for name in ("partition_id",) if name in flat.columns]
    total = flat.count()
    rows = [row.asDict() for row in flat.orderBy(*order).limit(args.limit).collect()] if total else []
    return {"operators": operators, "key_columns": keys, "value_columns": values, "total": total, "rows": rows}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.monotonic()
    try:
        spark = start_session()
    except Exception as exc:  # noqa: BLE001 - pyspark missing, java missing, JVM died: said in one line
        print(json.dumps({"error": f"cannot start a local Spark session: {one_line(exc)}"}), flush=True)
        return 1
    startup = time.monotonic() - started
    try:
        result = read_rows(spark, args)
    except Exception as exc:  # noqa: BLE001 - AnalysisException, Py4JJavaError, ...: the answer is one line
        result = {"error": one_line(exc)}
    finally:
        spark.stop()
    result |= {"startup_seconds": round(startup, 2), "read_seconds": round(time.monotonic() - started - startup, 2)}
    print(json.dumps(result, default=str), flush=True)
    return 1 if "error" in result else 0


if __name__ == "__main__":
    sys.exit(main())
