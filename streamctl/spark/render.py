"""Rich tables for `streamctl jobs ...` (input: the plain dicts the -o json output shows)."""

from __future__ import annotations

from streamctl.console import out, simple_table


def _age(seconds) -> str:
    if seconds is None:
        return "-"
    seconds = float(seconds)
    return f"{seconds:.0f}s" if seconds < 120 else f"{seconds / 60:.0f}m" if seconds < 7200 else f"{seconds / 3600:.1f}h"


def jobs_table(rows: list[dict]) -> None:
    simple_table("spark jobs", ["job", "state", "pid", "master", "origin", "ui", "checkpoint"],
                 [[r["name"], r["state"], r["pid"], r["master"], r["origin"], r["ui_url"], r["checkpoint_dir"]]
                  for r in rows], frozenset({"pid"}))


def status_table(views: list[dict]) -> None:
    rows = []
    for v in views:
        cp = v["checkpoint"] or {}
        rates = v["rates"] or {}
        rows.append([
            v["name"], v["state"], v["pid"], v["app_id"], cp.get("latest_committed"), cp.get("in_flight"),
            _age(v["commit_age_seconds"]), v["lag"] if v["lag"] is not None else (v["lag_error"] and "?"),
            rates.get("input_rows_per_second"), rates.get("processed_rows_per_second"),
            rates.get("batch_duration_ms"),
        ])
    simple_table("spark job status", ["job", "state", "pid", "app id", "committed", "in flight", "commit age",
                                      "lag", "in rows/s", "done rows/s", "batch ms"],
                 rows, frozenset({"pid", "committed", "in flight", "commit age", "lag", "in rows/s",
                                  "done rows/s", "batch ms"}))
    for v in views:
        for label, value in (("checkpoint", v["checkpoint_error"]), ("lag", v["lag_error"]),
                             ("ui", v["rest_error"])):
            if value:
                out.print(f"[yellow]{v['name']}: {label}: {value}[/yellow]")
        for problem in (v["checkpoint"] or {}).get("problems", []):
            out.print(f"[yellow]{v['name']}: checkpoint {problem}[/yellow]")


def checkpoint_view(cp: dict) -> None:
    committed, planned = cp["committed"] or {}, cp["planned"] or {}
    simple_table(f"checkpoint {cp['path']}", ["field", "value"], [
        ["query id", cp["query_id"]],
        ["latest planned batch", cp["latest_planned"]],
        ["latest committed batch", cp["latest_committed"]],
        ["in flight", cp["in_flight"]],
        ["last commit age", _age(cp["last_commit_age_seconds"])],
        ["watermark (committed batch)", committed.get("watermark")],
        ["batch time (committed batch)", committed.get("timestamp")],
    ])
    offsets = []
    for topic, partitions in sorted((committed.get("kafka_offsets") or {}).items()):
        for partition, offset in sorted(partitions.items(), key=lambda kv: int(kv[0])):
            planned_offset = (planned.get("kafka_offsets") or {}).get(topic, {}).get(partition)
            offsets.append([topic, partition, offset, planned_offset])
    if offsets:
        simple_table("source offsets (next to read)", ["topic", "partition", "committed", "planned"], offsets,
                           frozenset({"partition", "committed", "planned"}))
    for problem in cp["problems"]:
        out.print(f"[yellow]problem: {problem}[/yellow]")


def cluster_view(cluster: dict) -> None:
    if cluster["error"]:
        return  # the command's error line says it
    out.print(f"[bold]{cluster['url']}[/bold] · {cluster['status']} · cores {cluster['cores_used']}/"
              f"{cluster['cores']} · memory {cluster['memory_used_mb']}/{cluster['memory_mb']} MiB "
              f"· Master UI {cluster['master_ui']}")
    simple_table("workers", ["worker", "host", "state", "cores used", "cores", "MiB used", "MiB", "last heartbeat"],
                 [[w["id"], w["host"], w["state"], w["cores_used"], w["cores"], w["memory_used_mb"],
                   w["memory_mb"], w["last_heartbeat"]] for w in cluster["workers"]],
                 frozenset({"cores used", "cores", "MiB used", "MiB"}))
    simple_table("applications", ["app id", "name", "state", "cores", "MiB/executor", "user", "started"],
                 [[a["id"], a["name"], a["state"] + ("" if a["active"] else " (ended)"), a["cores"],
                   a["memory_per_executor_mb"], a["user"], a["started"]] for a in cluster["apps"]],
                 frozenset({"cores", "MiB/executor"}))


def _bytes(count: int) -> str:
    return f"{count} B" if count < 10240 else f"{count / 1024:.0f} KiB" if count < 10485760 \
        else f"{count / 1048576:.1f} MiB"


def state_view(state: dict) -> None:
    if state["stateless"]:
        out.print(f"{state['path']}: no state/ folder: a stateless query (nothing to show)")
        return
    out.print(f"[bold]{state['path']}[/bold] · state of batch {state['state_batch']} · last committed batch "
              f"{state['latest_committed']}")
    rows = []
    for op in state["operators"]:
        for store in op["stores"]:
            rows.append([op["operator_id"], op["operator_name"], store["store_name"], store["partition"],
                         store["latest_version"], store["latest_snapshot"], store["snapshot_lag"],
                         store["deltas"], _bytes(store["delta_bytes"]), store["snapshots"],
                         _bytes(store["snapshot_bytes"])])
    simple_table("state stores", ["op", "operator", "store", "partition", "version", "snapshot", "snapshot lag",
                                  "deltas", "delta bytes", "snapshots", "snapshot bytes"], rows,
                 frozenset({"op", "partition", "version", "snapshot", "snapshot lag", "deltas", "delta bytes",
                            "snapshots", "snapshot bytes"}))
    totals = state["totals"]
    out.print(f"totals: {len(state['operators'])} operator(s), {totals['stores']} store(s), {totals['deltas']} "
              f"deltas ({_bytes(totals['delta_bytes'])}), {totals['snapshots']} snapshots "
              f"({_bytes(totals['snapshot_bytes'])})")
    _progress_view(state["progress"], state["progress_note"])
    for problem in state["problems"]:
        out.print(f"[yellow]problem: {problem}[/yellow]")


def _progress_view(progress: dict | None, note: str | None) -> None:
    if progress is None:
        out.print(f"[dim]progress: {note}[/dim]")
        return
    rows = [[b["batch_id"], op["operator_name"], op["rows_total"], op["rows_updated"], op["rows_removed"],
             op["rows_dropped_by_watermark"], _bytes(op["memory_used_bytes"]), b["watermark"]]
            for b in progress["batches"] for op in b["operators"]]
    simple_table("state operators per batch (progress events)",
                 ["batch", "operator", "rows total", "updated", "removed", "dropped (watermark)", "memory",
                  "watermark"], rows,
                 frozenset({"batch", "rows total", "updated", "removed", "dropped (watermark)", "memory"}))
    behind = progress["watermark_behind_newest_event_seconds"]
    newest = f"the last batch's newest event time ({progress['event_time_max']})"
    versus = f"{_age(behind)} behind {newest}" if behind is None or behind >= 0 \
        else f"{_age(-behind)} ahead of {newest}: its rows were late"
    out.print(f"watermark {progress['watermark']}: {versus}, {_age(progress['watermark_behind_now_seconds'])} "
              "behind now")


def state_rows_view(data: dict) -> None:
    """`jobs state --rows`: one line per state row (key columns, value columns, partition)."""
    out.print(f"[bold]{data['path']}[/bold] · operator {data['operator_id']} ({data['operator_name'] or '?'}) · "
              f"store {data['store_name']} · state of batch {data['batch_id']} · last committed batch "
              f"{data['latest_committed']}")
    for op in data["operators"]:
        out.print(f"[dim]state metadata: operator {op['operator_id']} {op['operator_name']}, store "
                  f"{op['store_name']}, {op['num_partitions']} partitions, batches {op['min_batch_id']}-"
                  f"{op['max_batch_id']}[/dim]")
    columns = data["key_columns"] + data["value_columns"] + ["partition_id"]
    simple_table(f"state rows ({data['total_rows']})", columns,
                 [[row.get(c) for c in columns] for row in data["rows"]],
                 frozenset(data["value_columns"]) | {"partition_id"})
    more = data["total_rows"] - data["shown"]
    if more > 0:
        out.print(f"{more} more (--limit {data['total_rows']} shows all)")
