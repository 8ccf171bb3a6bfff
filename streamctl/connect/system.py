"""What Kafka Connect brings to streamctl (the registry: streamctl/systems.py)."""

from streamctl.systems import Card, Collector, Screen, System

SYSTEM = System(
    name="connect",
    settings={"connect": "streamctl.connect.settings:ConnectSettings"},
    commands={"connect": "streamctl.connect.commands:connect"},
    collectors={"connect": Collector("streamctl.connect.collect")},
    screens=(Screen("connect", "streamctl.tui.screens.connect:ConnectScreen", "Kafka Connect", key="8"),),
    card=Card("connect", "connect", optional=True, figures=(
        ("connect_up", "up"), ("connect_connectors", "connectors"),
        ("connect_tasks_running", "tasks running"), ("connect_tasks_failed", "tasks failed"))),
    addons=("streamctl.demo.connect_worker",),
    node_kinds={"connector": "connect"},
)
