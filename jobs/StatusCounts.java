// The sandbox's Kafka Streams app: counts the access-log lines of topic `weblogs` per HTTP
// status code into topic `weblog-status-counts`.
//
// Run with the JDK's single-file source launcher against the kafka-streams jars of the
// cluster's Kafka version:
//     java -cp '<kafka-streams jars>/*' jobs/StatusCounts.java app.properties
// The properties file holds the Streams configs (bootstrap.servers, application.id, ...) and
// two of this app's own: input.topic and output.topic.
//
// Topology: the lines are re-keyed by status code, so grouping them repartitions through
// `<application.id>-by-status-repartition`; the counts live in the state store
// `status-counts`, backed by `<application.id>-status-counts-changelog`.

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.KeyValueStore;

public class StatusCounts {

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: StatusCounts.java <app.properties>");
            System.exit(2);
        }
        Properties props = new Properties();
        try (InputStream in = Files.newInputStream(Path.of(args[0]))) {
            props.load(in);
        }
        String input = (String) props.remove("input.topic");
        String output = (String) props.remove("output.topic");

        Topology topology = topology(input, output);
        System.out.println(topology.describe());
        KafkaStreams streams = new KafkaStreams(topology, props);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            streams.close(Duration.ofSeconds(10));
            stopped.countDown();
        }));
        streams.setStateListener((now, before) -> 
            System.out.println("state " + before + " -> " + now + " (pid " + ProcessHandle.current().pid() + ")"));
        streams.start();
        stopped.await();
    }

    static Topology topology(String input, String output) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(input, Consumed.with(Serdes.ByteArray(), Serdes.String()))
            .map((key, line) -> KeyValue.pair(status(line), line))
            .filter((status, line) -> status != null)
            .groupByKey(Grouped.with("by-status", Serdes.String(), Serdes.String()))
            .count(Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as("status-counts")
                .withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()))
            .toStream()
            .mapValues(count -> Long.toString(count))
            .to(output, Produced.with(Serdes.String(), Serdes.String()));
        return builder.build();
    }

    // The status code of a combined-format line: the first field after the quoted request
    // (`... "GET /x HTTP/1.1" 200 512 ...`); null for a line of another shape.
    static String status(String line) {
        if (line == null) {
            return null;
        }
        int open = line.indexOf('"');
        int close = open < 0 ? -1 : line.indexOf('"', open + 1);
        if (close < 0) {
            return null;
        }
        String[] rest = line.substring(close + 1).trim().split(" ", 2);
        return rest[0].matches("[1-5][0-9][0-9]") ? rest[0] : null;
    }
}
