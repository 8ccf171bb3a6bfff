"""What Spark Structured Streaming brings to streamctl (the registry: streamctl/systems.py).
Its sandbox add-ons: HDFS and a standalone cluster (--distributed only), then the demo job."""

from streamctl.systems import Card, Collector, Screen, System

SYSTEM = System(
    name="spark",
    settings={"spark": "streamctl.spark.settings:SparkSettings"},
    commands={"jobs": "streamctl.spark.commands:jobs"},
    collectors={"spark": Collector("streamctl.spark.collect")},
    screens=(Screen("jobs", "streamctl.tui.screens.jobs:JobsScreen", "Spark jobs", key="7"),),
    card=Card("spark", "jobs", figures=(("spark_jobs", "jobs"), ("spark_jobs_down", "down"))),
    addons=("streamctl.demo.hdfs", "streamctl.demo.spark_cluster", "streamctl.demo.spark_job"),
    node_kinds={"job": "jobs"},
)
