"""The pipeline map of the session's demo sandbox: derived from the running systems, and the
Spark job's hop turning CRIT ("never") while the job is stopped, with the hops upstream
unaffected, then draining again once it runs."""

from __future__ import annotations

import json
import re

import pytest

pytestmark = pytest.mark.integration

JOB_HOP = "weblogs -> weblog-stats via job weblog-stats"


def pipeline(sandbox) -> dict:
    result = sandbox.cli("pipeline", "--window", "12", "-o", "json")
    assert result.returncode == 0, result.stderr
    return {h["name"]: h for h in json.loads(result.stdout)["hops"]}


def steady(sandbox) -> dict | None:
    """The map once the job's hop drains: on a loaded host one 12 s window may catch the job a
    batch behind (WARN, growing), which the next windows show caught up."""
    hops = pipeline(sandbox)
    job = hops.get(JOB_HOP)
    return hops if job and job["severity"] == "OK" and job["eta"] != "never" else None


def test_the_demo_map_reads_from_flume_to_the_connect_sink(sandbox):
    hops = sandbox.wait_until(lambda: steady(sandbox), timeout=120, interval=1, what="the job's hop draining")
    assert {"flume weblogs -> weblogs", JOB_HOP, "job weblog-stats -> weblog-stats",
            "weblog-stats -> connector weblog-archive",
            "weblogs -> weblog-status-counts via streams weblog-statuses",
            "streams weblog-statuses -> weblog-status-counts"} <= set(hops)
    assert hops["flume weblogs -> weblogs"]["rate_in"] > 0  # the load generator writes ~10 lines/s
    assert hops[JOB_HOP]["severity"] == "OK" and hops[JOB_HOP]["eta"] != "never", json.dumps(hops[JOB_HOP])
    # The job is stateful (windowed counts with a watermark): its hop names its event-time lag, now
    # minus the watermark (its 10 s delay, a trigger or two; a loaded machine honestly reports more).
    event_lag = hops[JOB_HOP]["event_time_lag_seconds"]
    assert event_lag is not None and 0 < event_lag < 900, json.dumps(hops[JOB_HOP])
    assert [name for name, hop in hops.items() if hop["event_time_lag_seconds"] is not None] == [JOB_HOP]
    graph = sandbox.cli("pipeline", "--window", "2", "-o", "mermaid")
    assert graph.returncode == 0 and graph.stdout.startswith("flowchart LR")
    flow = sandbox.cli("pipeline", "--window", "2", "-o", "tree")
    assert flow.returncode == 0, flow.stderr
    lines = flow.stdout.splitlines()
    # The two readings are at least the asked 2 s apart; a loaded machine takes longer, and says so.
    window = re.fullmatch(r"pipeline \(rates over (\d+) s\)", lines[0])
    assert window and 2 <= int(window[1]) <= 30 and lines[1] == "flume weblogs", flow.stdout
    assert "└── ━▶ weblogs" in lines[2] and any("━▶ job weblog-stats" in line for line in lines[3:]), flow.stdout
    assert re.search(r"━▶ job weblog-stats .*· event time \d+ s behind\b", flow.stdout), flow.stdout  # the line may wrap after it


def test_a_stopped_job_never_drains_and_drains_again_once_started(sandbox):
    with sandbox.service_stopped("spark-weblog-stats"):
        hops = pipeline(sandbox)
        job = hops[JOB_HOP]
        assert (job["severity"], job["eta"], job["rate_out"]) == ("CRIT", "never", 0.0)
        for upstream in ("flume weblogs -> weblogs", "weblogs -> weblog-status-counts via streams weblog-statuses"):
            assert hops[upstream]["severity"] == "OK", json.dumps(hops[upstream])
        check = sandbox.cli("check", "--component", "pipeline", "--format", "json")
        findings = json.loads(check.stdout)["findings"]
        assert check.returncode == 2, check.stdout
        assert any(f["code"] == "PIPELINE_HOP_DRAIN" and f["text"].startswith(JOB_HOP + ": ")
                   and "drains never" in f["text"] for f in findings)
    # Started again: its ETA turns finite and what it is behind shrinks below the backlog the
    # stopped job had (its first batch takes everything written meanwhile; after that the ETA
    # stays at the steady few seconds of one trigger, so the backlog, not the ETA, is compared).
    stopped_backlog = job["backlog"]
    job = sandbox.wait_until(lambda: (h := pipeline(sandbox)[JOB_HOP])["eta"] != "never"
                             and h["backlog"] < stopped_backlog and h,
                             timeout=120, what=f"the job draining below its stopped backlog of {stopped_backlog}")
    assert job["eta_seconds"] is not None and job["rate_out"] > 0


def flow_text(app) -> str:
    """The Overview's flow, one node a line, drawing order."""
    from streamctl.tui.widgets.pipeline_flow import PipelineFlow

    def walk(node):
        for child in node.children:
            yield child.label.plain.split("  ")[0]
            yield from walk(child)

    flows = app.screen.query(PipelineFlow)
    return "\n".join(walk(flows.first().root)) if flows else ""


async def test_the_dashboard_pipeline_screen_pairs_its_refreshes(sandbox, monkeypatch):
    from streamctl.dashboard.source import make_dashboard
    from streamctl.tui.app import StreamctlApp
    from tests.faults.pilot import rows, until

    monkeypatch.setenv("XDG_STATE_HOME", str(sandbox.xdg_state))
    app = StreamctlApp(make_dashboard(str(sandbox.config_path), "sandbox"), refresh_interval=3.0)
    async with app.run_test(size=(140, 40)) as pilot:
        # The Overview draws the flow from the real systems: the job reads weblogs.
        await until(pilot, lambda: "━▶ job weblog-stats" in flow_text(app), 60, "the job in the Overview's flow",
                    lambda: flow_text(app))
        # Sources with the worst hop come first: other tests' lagging groups may lead the flow.
        assert "\nflume weblogs\n━▶ weblogs" in "\n" + flow_text(app), flow_text(app)
        await pilot.press("0")

        def job_hop():
            return next((r for r in rows(app, "#pipeline DataTable") if r[0] == JOB_HOP), None)

        await until(pilot, lambda: job_hop() is not None, 60, "the job's hop listed")
        # The first refresh has one reading; rates come once two are 8 s or more apart, and the
        # window grows with each refresh up to a minute: a first 8 s window on a loaded host may
        # catch the job a batch behind (WARN), which the wider windows show caught up.
        await until(pilot, lambda: job_hop()[3] not in ("-", ""), 60, "the job's out rate",
                    lambda: str(rows(app, "#pipeline DataTable")))
        await until(pilot, lambda: job_hop()[1] == "OK" and job_hop()[7] != "never", 60,
                    "the job's hop draining", lambda: str(job_hop()))
        names = [r[0] for r in rows(app, "#pipeline DataTable")]
        assert names.index("flume weblogs -> weblogs") < names.index(JOB_HOP) < names.index(
            "weblog-stats -> connector weblog-archive")


def test_the_probe_times_each_reader_from_the_entry_topic_to_the_sink(sandbox):
    """`check --probe` on the demo: a marker into each weblogs partition, then the job, the
    Streams app, and past the job the Connect sink (every 10 s it commits), each timed."""
    result = sandbox.cli("check", "--component", "flume", "--probe", "--format", "json", "--timeout", "75")
    doc = json.loads(result.stdout)
    assert result.returncode in (0, 1), result.stdout + result.stderr
    late = [f["text"] for f in doc["findings"] if f["code"] == "PIPELINE_PROBE_LATE"]
    assert not late and doc["components"]["probe"]["evaluated"], json.dumps(doc)
    passed = {m["labels"]["reader"]: m["value"] for m in doc["metrics"] if m["name"] == "pipeline_probe_seconds"}
    assert {"job:weblog-stats", "streams:weblog-statuses", "connector:weblog-archive"} <= set(passed), passed
    assert 0 < passed["job:weblog-stats"] < passed["connector:weblog-archive"], passed  # the sink is past the job
    end_to_end = [m["value"] for m in doc["metrics"] if m["name"] == "pipeline_probe_end_to_end_seconds"]
    assert end_to_end == [max(passed.values())]
    probes = audited_probes(sandbox)
    assert probes and probes[-1]["result"] == "ok" and probes[-1]["parameters"]["topics"] == ["weblogs"]


def audited_probes(sandbox) -> list[dict]:
    path = sandbox.xdg_state / "streamctl" / "audit.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    return [r for r in records if r["operation"] == "check.probe"]


def test_the_probe_is_refused_read_only_and_writes_nothing(sandbox):
    before = len(audited_probes(sandbox))
    result = sandbox.cli("--read-only", "check", "--component", "flume", "--probe", "--format", "json")
    probe = json.loads(result.stdout)["components"]["probe"]
    assert result.returncode == 3 and not probe["evaluated"] and "read-only" in probe["reason"], result.stdout
    assert "Traceback" not in result.stderr
    assert len(audited_probes(sandbox)) == before  # refused before any write: nothing to audit
