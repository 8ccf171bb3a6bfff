"""What Kafka brings to streamctl (the registry: streamctl/systems.py). Kafka Streams apps are
one of its resources: their command, screen, pipeline nodes and the demo app are declared here."""

from streamctl.systems import Card, Collector, Screen, System

SYSTEM = System(
    name="kafka",
    settings={
        "kafka": "streamctl.kafka.settings:KafkaSettings",
        "records": "streamctl.kafka.settings:RecordsSettings",
        "include": "streamctl.kafka.settings:IncludeFilter",
        "exclude": "streamctl.kafka.settings:ExcludeFilter",
    },
    commands={
        "brokers": "streamctl.kafka.brokers.commands:brokers",
        "topics": "streamctl.kafka.topics.commands:topics",
        "groups": "streamctl.kafka.groups.commands:groups",
        "streams": "streamctl.kafka.streams.commands:streams",
        "users": "streamctl.kafka.users.commands:users",
        "elect-leaders": "streamctl.kafka.brokers.commands:elect_leaders",
        "acls": "streamctl.kafka.acls.commands:acls",
        "quorum": "streamctl.kafka.quorum_command:quorum",
        "quotas": "streamctl.kafka.quotas.commands:quotas",
        "reassign": "streamctl.kafka.reassign.commands:reassign",
    },
    collectors={
        "kafka": Collector("streamctl.kafka.collect"),
        "quorum": Collector("streamctl.kafka.quorum", opt_in=True),  # a JVM start: KRaft's controller quorum
    },
    screens=(
        Screen("brokers", "streamctl.tui.screens.brokers:BrokersScreen", "Brokers", key="2"),
        Screen("topics", "streamctl.tui.screens.topics:TopicsScreen", "Topics", key="3"),
        Screen("groups", "streamctl.tui.screens.groups:GroupsScreen", "Groups", key="4"),
        Screen("streams", "streamctl.tui.screens.streams:StreamsScreen", "Kafka Streams", key="9"),
        Screen("quotas", "streamctl.tui.screens.quotas:QuotasScreen", "Quotas & users", key="U"),
        Screen("reassignments", "streamctl.tui.screens.reassignments:ReassignmentsScreen", "Reassignments"),
    ),
    card=Card("kafka", "brokers", figures=(
        ("kafka_brokers", "brokers"), ("kafka_under_replicated_partitions", "URP"),
        ("kafka_offline_partitions", "offline"), ("kafka_max_group_lag_records", "max lag"))),
    addons=("streamctl.demo.streams_app",),
    # producer: named by the context; external: a writer streamctl does not know.
    node_kinds={"topic": "topics", "group": "groups", "streams": "streams", "producer": "topics",
                "external": "topics"},
)
