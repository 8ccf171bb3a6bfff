"""The sandbox's add-ons: what `streamctl sandbox up` runs after ZooKeeper and Kafka, one module
per component (a module-level `ADDON`, streamctl.sandbox.addons.Addon). They run the demo
pipeline shipped in agents/ and jobs/ (the Flume agent, the Spark job, the Kafka Streams app)
with the services it needs (HDFS and a Spark cluster for --distributed, the Connect worker).

Each system names its add-ons in its declaration (`streamctl/<system>/system.py`); the sandbox
finds them through the registry (streamctl.systems), never by importing this package.
"""
