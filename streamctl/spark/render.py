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
