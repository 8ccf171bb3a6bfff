"""What the pipeline map brings to streamctl (the registry: streamctl/systems.py). It spans the
other systems: its nodes are theirs, so it declares no node kind of its own."""

from streamctl.systems import Collector, Screen, System

SYSTEM = System(
    name="pipeline",
    settings={"pipeline": "streamctl.pipeline.settings:PipelineSettings"},
    commands={"pipeline": "streamctl.pipeline.commands:pipeline"},
    collectors={
        "pipeline": Collector("streamctl.pipeline.health", opt_in=True),  # two Kafka readings seconds apart
        "probe": Collector("streamctl.pipeline.probe", opt_in=True),  # --probe: writes a marker into the entry topics
    },
    screens=(Screen("pipeline", "streamctl.tui.screens.pipeline:PipelineScreen", "Pipeline", key="0"),),
)
