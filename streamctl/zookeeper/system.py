"""What ZooKeeper brings to streamctl (the registry: streamctl/systems.py). The sandbox runs
ZooKeeper itself (no add-on)."""

from streamctl.systems import Card, Collector, Screen, System

SYSTEM = System(
    name="zookeeper",
    settings={"zookeeper": "streamctl.zookeeper.settings:ZooKeeperSettings"},
    commands={"zk": "streamctl.zookeeper.commands:zk"},
    collectors={"zookeeper": Collector("streamctl.zookeeper.collect")},
    screens=(Screen("zookeeper", "streamctl.tui.screens.zookeeper:ZooKeeperScreen", "ZooKeeper", key="5"),),
    card=Card("zookeeper", "zookeeper", figures=(
        ("zookeeper_servers_serving", "serving"), ("zookeeper_servers", "servers"),
        ("zookeeper_latency_avg_ms", "avg ms"), ("zookeeper_kafka_brokers", "kafka brokers"))),
)
