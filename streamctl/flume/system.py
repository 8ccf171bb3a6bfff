"""What Flume brings to streamctl (the registry: streamctl/systems.py)."""

from streamctl.systems import Card, Collector, Screen, System

SYSTEM = System(
    name="flume",
    settings={"flume": "streamctl.flume.settings:FlumeSettings"},
    commands={"agents": "streamctl.flume.commands:agents"},
    collectors={"flume": Collector("streamctl.flume.collect")},
    screens=(Screen("agents", "streamctl.tui.screens.agents:AgentsScreen", "Flume agents", key="6"),),
    card=Card("flume", "agents", figures=(("flume_agents_up", "agents up"), ("flume_max_channel_fill_pct", "max fill %"))),
    addons=("streamctl.demo.flume_agent",),
    node_kinds={"flume": "agents"},
)
