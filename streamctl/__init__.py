"""streamctl: the operations console for Kafka, ZooKeeper, Flume and Spark streaming."""

__version__ = "0.1.0"
