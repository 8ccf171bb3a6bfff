"""What Flume 1.11 knows: component type aliases, its own class names, required properties.

Aliases come from flume-ng-configuration 1.11.0's SourceType, ChannelType, SinkType,
SinkProcessorType, ChannelSelectorType and flume-ng-core's InterceptorType (Flume matches
them case-insensitively). Required properties are the ones Flume's user guide marks bold
and whose absence stops the component at configure time.
"""

from __future__ import annotations

SOURCE_ALIASES = {
    "seq": "org.apache.flume.source.SequenceGeneratorSource",
    "netcat": "org.apache.flume.source.NetcatSource",
    "exec": "org.apache.flume.source.ExecSource",
    "avro": "org.apache.flume.source.AvroSource",
    "syslogtcp": "org.apache.flume.source.SyslogTcpSource",
    "multiport_syslogtcp": "org.apache.flume.source.MultiportSyslogTCPSource",
    "syslogudp": "org.apache.flume.source.SyslogUDPSource",
    "spooldir": "org.apache.flume.source.SpoolDirectorySource",
    "http": "org.apache.flume.source.http.HTTPSource",
    "thrift": "org.apache.flume.source.ThriftSource",
    "jms": "org.apache.flume.source.jms.JMSSource",
    "taildir": "org.apache.flume.source.taildir.TaildirSource",
    "netcatudp": "org.apache.flume.source.NetcatUdpSource",
}
CHANNEL_ALIASES = {
    "file": "org.apache.flume.channel.file.FileChannel",
    "memory": "org.apache.flume.channel.MemoryChannel",
    "jdbc": "org.apache.flume.channel.jdbc.JdbcChannel",
    "spillablememory": "org.apache.flume.channel.SpillableMemoryChannel",
}
SINK_ALIASES = {
    "null": "org.apache.flume.sink.NullSink",
    "logger": "org.apache.flume.sink.LoggerSink",
    "file_roll": "org.apache.flume.sink.RollingFileSink",
    "hdfs": "org.apache.flume.sink.hdfs.HDFSEventSink",
    "irc": "org.apache.flume.sink.irc.IRCSink",
    "avro": "org.apache.flume.sink.AvroSink",
    "thrift": "org.apache.flume.sink.ThriftSink",
    "elasticsearch": "org.apache.flume.sink.elasticsearch.ElasticSearchSink",
    "hbase": "org.apache.flume.sink.hbase.HBaseSink",
    "asynchbase": "org.apache.flume.sink.hbase.AsyncHBaseSink",
    "hbase2": "org.apache.flume.sink.hbase2.HBase2Sink",
    "morphline_solr": "org.apache.flume.sink.solr.morphline.MorphlineSolrSink",
    "hive": "org.apache.flume.sink.hive.HiveSink",
    "http": "org.apache.flume.sink.http.HttpSink",
}
PROCESSOR_ALIASES = {
    "failover": "org.apache.flume.sink.FailoverSinkProcessor",
    "default": "org.apache.flume.sink.DefaultSinkProcessor",
    "load_balance": "org.apache.flume.sink.LoadBalancingSinkProcessor",
}
SELECTOR_ALIASES = {
    "replicating": "org.apache.flume.channel.ReplicatingChannelSelector",
    "load_balancing": "org.apache.flume.channel.LoadBalancingChannelSelector",
    "multiplexing": "org.apache.flume.channel.MultiplexingChannelSelector",
}
INTERCEPTOR_ALIASES = {
    "timestamp": "org.apache.flume.interceptor.TimestampInterceptor$Builder",
    "host": "org.apache.flume.interceptor.HostInterceptor$Builder",
    "static": "org.apache.flume.interceptor.StaticInterceptor$Builder",
    "regex_filter": "org.apache.flume.interceptor.RegexFilteringInterceptor$Builder",
    "regex_extractor": "org.apache.flume.interceptor.RegexExtractorInterceptor$Builder",
    "remove_header": "org.apache.flume.interceptor.RemoveHeaderInterceptor$Builder",
    "search_replace": "org.apache.flume.interceptor.SearchAndReplaceInterceptor$Builder",
}
CONFIG_FILTER_ALIASES = {
    "env": "org.apache.flume.configfilter.EnvironmentVariableConfigFilter",
    "external": "org.apache.flume.configfilter.ExternalProcessConfigFilter",
    "hadoop": "org.apache.flume.configfilter.HadoopCredentialStoreConfigFilter",
}

# Flume's own classes that have no alias (Kafka, Twitter, Scribe, ...).
EXTRA_CLASSES = {
    "sources": {"org.apache.flume.source.kafka.KafkaSource", "org.apache.flume.source.StressSource",
                "org.apache.flume.source.scribe.ScribeSource",
                "org.apache.flume.source.twitter.TwitterSource"},
    "channels": {"org.apache.flume.channel.kafka.KafkaChannel",
                 "org.apache.flume.channel.PseudoTxnMemoryChannel"},
    "sinks": {"org.apache.flume.sink.kafka.KafkaSink"},
    "interceptors": {"org.apache.flume.sink.solr.morphline.UUIDInterceptor$Builder",
                     "org.apache.flume.sink.solr.morphline.MorphlineInterceptor$Builder"},
}

ALIASES = {
    "sources": SOURCE_ALIASES, "channels": CHANNEL_ALIASES, "sinks": SINK_ALIASES,
    "processor": PROCESSOR_ALIASES, "selector": SELECTOR_ALIASES,
    "interceptors": INTERCEPTOR_ALIASES, "configfilters": CONFIG_FILTER_ALIASES,
}

# Required properties by resolved class; a tuple inside the list means "one of these".
REQUIRED: dict[str, list[str | tuple[str, ...]]] = {
    SOURCE_ALIASES["netcat"]: ["bind", "port"],
    SOURCE_ALIASES["netcatudp"]: ["bind", "port"],
    SOURCE_ALIASES["exec"]: ["command"],
    SOURCE_ALIASES["avro"]: ["bind", "port"],
    SOURCE_ALIASES["thrift"]: ["bind", "port"],
    SOURCE_ALIASES["syslogtcp"]: ["host", "port"],
    SOURCE_ALIASES["syslogudp"]: ["host", "port"],
    SOURCE_ALIASES["multiport_syslogtcp"]: ["host", "ports"],
    SOURCE_ALIASES["spooldir"]: ["spoolDir"],
    SOURCE_ALIASES["http"]: ["port"],
    SOURCE_ALIASES["jms"]: ["initialContextFactory", "connectionFactory", "providerURL",
                            "destinationName", "destinationType"],
    SOURCE_ALIASES["taildir"]: ["filegroups"],  # and filegroups.<group> for each group
    "org.apache.flume.source.kafka.KafkaSource": ["kafka.bootstrap.servers",
                                                  ("kafka.topics", "kafka.topics.regex")],
    "org.apache.flume.channel.kafka.KafkaChannel": [("kafka.bootstrap.servers", "brokerList")],
    SINK_ALIASES["hdfs"]: ["hdfs.path"],
    SINK_ALIASES["file_roll"]: ["sink.directory"],
    SINK_ALIASES["avro"]: ["hostname", "port"],
    SINK_ALIASES["thrift"]: ["hostname", "port"],
    SINK_ALIASES["irc"]: ["hostname", "nick", "chan"],
    SINK_ALIASES["hbase"]: ["table", "columnFamily"],
    SINK_ALIASES["hbase2"]: ["table", "columnFamily"],
    SINK_ALIASES["asynchbase"]: ["table", "columnFamily"],
    SINK_ALIASES["elasticsearch"]: ["hostNames"],
    SINK_ALIASES["hive"]: ["hive.metastore", "hive.database", "hive.table"],
    SINK_ALIASES["http"]: ["endpoint"],
    SINK_ALIASES["morphline_solr"]: ["morphlineFile"],
    # kafka.topic is optional: it defaults to "default-flume-topic".
    "org.apache.flume.sink.kafka.KafkaSink": [("kafka.bootstrap.servers", "brokerList")],
}


def resolve(kind: str, type_value: str) -> tuple[str | None, bool]:
    """(class name, known) for a `type` value of a component of `kind`.

    An alias or a Flume class resolves and is known; a class outside org.apache.flume is a
    plugin (resolves to itself, taken on trust); anything else is unknown (None, False).
    """
    aliases = ALIASES.get(kind, {})
    alias = aliases.get(type_value.lower())
    if alias:
        return alias, True
    if type_value in aliases.values() or type_value in EXTRA_CLASSES.get(kind, set()):
        return type_value, True
    if "." in type_value and not type_value.startswith("org.apache.flume."):
        return type_value, True
    return None, False
