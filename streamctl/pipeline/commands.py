"""`streamctl pipeline`: the flow from source to sink, with backlog and time-to-drain per hop."""

from __future__ import annotations

import click

from streamctl.session import Session

FORMATS = ["table", "json", "tree", "dot", "mermaid"]


@click.command("pipeline")
@click.option("-o", "--output", type=click.Choice(FORMATS), default="table", show_default=True,
              help="table, JSON, the flow drawn from its sources (tree), or a graph for docs "
                   "(Graphviz dot, Mermaid).")
@click.option("--window", type=click.FloatRange(1.0, 300.0), default=None, metavar="SECONDS",
              help="Read twice, SECONDS apart, for the rates. Default: once, against a reading of the lag "
                   "history 15 s to thresholds.pipeline_history_max_age_seconds (300) old; else twice 15 s apart.")
@click.pass_obj
def pipeline(session: Session, output: str, window: float | None) -> None:
    """Writers, topics and readers of the whole pipeline, derived from Kafka, Flume, Spark,
    Connect and Kafka Streams: per hop the rates in and out, backlog, lag and when it drains.

    \b
    Examples:
      streamctl pipeline
      streamctl pipeline --window 30
      streamctl pipeline -o mermaid > pipeline.mmd
    """
    from streamctl.console import emit
    from streamctl.pipeline import render
    from streamctl.pipeline.collect import read, read_at_once
    from streamctl.pipeline.derive import derive

    ctx = session.context()
    report = (lambda line: click.echo(line, err=True)) if output in ("table", "tree") else (lambda _: None)
    readings = read(ctx, window, report) if window is not None else read_at_once(
        ctx, ctx.thresholds.pipeline_history_max_age_seconds, report)
    pipeline_map = derive(readings, ctx.thresholds)
    data = render.as_dict(pipeline_map)
    if output == "tree":
        render.tree(pipeline_map)
    elif output == "dot":
        click.echo(render.dot(data), nl=False)
    elif output == "mermaid":
        click.echo(render.mermaid(data), nl=False)
    else:
        emit(output, data, render.table)
