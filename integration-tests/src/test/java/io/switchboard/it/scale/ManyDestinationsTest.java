package io.switchboard.it.scale;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.testkit.kafka.EmbeddedKafka;
import io.switchboard.testkit.kafka.KafkaCluster;
import io.switchboard.testkit.rabbit.RabbitMqServer;
import io.switchboard.testkit.rocketmq.EmbeddedRocketMq;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 38's per-destination cost, measured and printed (no timing is asserted): on each broker, an application with
 * 1 and then N destinations (a publisher and a group subscription each), compared. One command:
 *
 * <pre>
 * flock /tmp/switchboard-mvn.lock mvn -B -o -pl core,testkit,kafka-adapter,rabbit-adapter,rocketmq-adapter,integration-tests \
 *     test -Dtest=ManyDestinationsTest -Dsurefire.failIfNoSpecifiedTests=false -Dsurefire.excludedGroups=none \
 *     [-Dmany.brokers=kafka,rocketmq,rabbitmq] [-Dmany.destinations=200] [-Dmany.groups=shared,per-destination] \
 *     [-Dmany.properties=kafka.group.protocol=consumer,...] [-Dmany.kafka-in-child=true] [-Dmany.repeat=1]
 * </pre>
 *
 * <p>With {@code -Dmany.kafka-in-child=true} Kafka runs as a one-node cluster in a JVM of its own (testkit's
 * {@link KafkaCluster}), so that the heap after GC is the client's alone: in-process, the broker's own state for each new
 * topic's partitions is counted with it.
 *
 * <p>On Kafka it also measures the floor the broker sets (skip with {@code -Dmany.skip-native=true}), just before and
 * just after the SDK's run, after a first such run that only warms the broker's JVM (a fresh broker takes seconds
 * longer for its first burst of new topics, whoever makes it): plain kafka-clients creating
 * as many topics of 4 partitions in one call and one consumer subscribing to all of them, until it owns every partition
 * and knows where each starts ({@link NativeKafkaReady}).
 *
 * <p>Prints lines such as {@code broker=kafka destinations=200 groups=shared threads=+X heapAfterGc=+Y MB ready=Z s}
 * to the test's output and appends them to {@code integration-tests/target/many-destinations.txt}. Tagged
 * {@code extended}: .ci/run leaves it out for its time.
 */
@Tag("extended")
@DisplayName("Per-destination cost: threads, heap and readiness of 1 against many destinations")
class ManyDestinationsTest {

    private static final Path REPORT = Path.of("target", "many-destinations.txt");
    private static final boolean KAFKA_IN_CHILD = Boolean.getBoolean("many.kafka-in-child");
    private static KafkaCluster kafkaChild;

    @org.junit.jupiter.api.AfterAll
    static void stopKafkaChild() {
        if (kafkaChild != null) {
            kafkaChild.close();
        }
    }

    private static String kafkaBootstrap() {
        if (!KAFKA_IN_CHILD) {
            return EmbeddedKafka.shared().bootstrapServers();
        }
        if (kafkaChild == null) {
            kafkaChild = KafkaCluster.start(1);
        }
        return kafkaChild.bootstrapServers();
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.MINUTES)
    @DisplayName("prints the figures for each broker and group layout asked for")
    void printsTheFigures() throws Exception {
        int many = Integer.getInteger("many.destinations", 200);
        List<String> brokers = list("many.brokers", "kafka,rocketmq,rabbitmq");
        // -Dmany.repeat=N measures each layout N times in this JVM (the later runs with the client's code compiled)
        List<String> layouts = java.util.Collections.nCopies(Integer.getInteger("many.repeat", 1),
                list("many.groups", "shared")).stream().flatMap(List::stream).toList();
        List<String> lines = new ArrayList<>();
        for (String broker : brokers) {
            for (String layout : layouts) {
                boolean shared = !"per-destination".equals(layout);
                DestinationCost.Figures one = measure(broker, 1, shared);
                boolean floor = "kafka".equals(broker) && !Boolean.getBoolean("many.skip-native");
                // the broker's own time varies from run to run: measured just before and just after the SDK's, the
                // first time (a broker JVM not yet warm, slower at its first burst whoever makes it) only to warm it
                NativeKafkaReady.Figures first = null;
                NativeKafkaReady.Figures before = null;
                for (int i = 0; floor && i < 2; i++) {
                    before = NativeKafkaReady.measure(kafkaBootstrap(), "many_" + UUID.randomUUID().toString().substring(0, 8),
                            many, 4);
                    first = first == null ? before : first;
                }
                DestinationCost.Figures n = measure(broker, many, shared);
                String properties = System.getProperty("many.properties", "");
                String line = String.format(java.util.Locale.ROOT,
                        "broker=%s%s destinations=%d groups=%s%s threads=%+d heapAfterGc=%+.1f MB ready=%.1f s (client CPU %.1f s, in calls %.1f s) "
                                + "roundTrip=%.1f s (1 destination: %d threads, ready %.1f s)",
                        broker, "kafka".equals(broker) && KAFKA_IN_CHILD ? " (in a child JVM)" : "", many, layout,
                        properties.isEmpty() ? "" : " properties=" + properties,
                        n.threads() - one.threads(), (n.heapBytes() - one.heapBytes()) / 1e6,
                        n.readySeconds(), n.readyCpuSeconds(), n.callSeconds(), n.roundTripSeconds(), one.threads(), one.readySeconds());
                if (floor) {
                    NativeKafkaReady.Figures after = NativeKafkaReady.measure(kafkaBootstrap(),
                            "many_" + UUID.randomUUID().toString().substring(0, 8), many, 4);
                    line += String.format(java.util.Locale.ROOT,
                            "; kafka-clients alone on the same broker: %d topics of 4 partitions created in %.1f s, "
                                    + "all assigned to one consumer at %.1f s, its positions known at %.1f s (client CPU "
                                    + "%.1f s; just before the SDK's run: %.1f s, CPU %.1f s; the broker's first such burst, "
                                    + "to warm it: %.1f s)", many, after.createSeconds(), after.assignedSeconds(),
                            after.readySeconds(), after.cpuSeconds(), before.readySeconds(), before.cpuSeconds(),
                            first.readySeconds());
                }
                System.out.println(line);
                System.out.println("  threads by name at " + many + ": " + n.threadNames());
                lines.add(line);
                Files.writeString(REPORT, line + System.lineSeparator() + "  threads by name: " + n.threadNames()
                        + System.lineSeparator(), StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            }
        }
        assertThat(lines).hasSize(brokers.size() * layouts.size());
    }

    /**
     * Issue 88's heap figures on Kafka: the heap after GC of an application holding 1, 50 and 200 destinations through
     * the SDK with its default meters (Micrometer {@code Timer}s, in a {@code SimpleMeterRegistry}), and of a plain kafka-clients application holding as
     * many topics laid out the same way ({@link NativeKafkaHeap}: one producer, one consumer of one group), measured
     * alternately in this JVM, {@code -Dmany.heap-repeat} (2) times. Prints {@code heap kafka sdk|plain n=N heapAfterGc=X MB}
     * lines and each side's growth from 1 to N, appended to the same report. {@code -Dmany.heap-counts=1,50,200}.
     */
    @Test
    @Timeout(value = 20, unit = TimeUnit.MINUTES)
    @DisplayName("heap after GC at 1, 50 and 200 Kafka destinations, SDK with its default meters beside plain kafka-clients")
    void heapBesidePlainKafkaClients() throws Exception {
        List<Integer> counts = list("many.heap-counts", "1,50,200").stream().map(Integer::valueOf).toList();
        int repeat = Integer.getInteger("many.heap-repeat", 2);
        String bootstrap = kafkaBootstrap();
        // warm both paths once (class loading, the JIT), so that the first measured count is not charged for it
        DestinationCost.measure("kafka", Map.of("kafka.bootstrap.servers", bootstrap), "^$",
                "many_" + UUID.randomUUID().toString().substring(0, 8), 2, true);
        NativeKafkaHeap.measure(bootstrap, "many_" + UUID.randomUUID().toString().substring(0, 8), 2);
        Map<String, Map<Integer, List<Double>>> mb = new java.util.TreeMap<>();
        for (int r = 0; r < repeat; r++) {
            for (int n : counts) {
                for (String side : r % 2 == 0 ? List.of("sdk", "plain") : List.of("plain", "sdk")) {
                    String prefix = "many_" + UUID.randomUUID().toString().substring(0, 8);
                    // the SDK's meters in a registry of the application's, as Spring Boot's actuator gives it one
                    long bytes = side.equals("sdk")
                            ? DestinationCost.measure("kafka", Map.of("kafka.bootstrap.servers", bootstrap),
                                    KAFKA_IN_CHILD ? "^$" : EmbeddedKafka.THREADS, prefix, n, true,
                                    new io.micrometer.core.instrument.simple.SimpleMeterRegistry()).heapBytes()
                            : NativeKafkaHeap.measure(bootstrap, prefix, n);
                    mb.computeIfAbsent(side, s -> new java.util.TreeMap<>()).computeIfAbsent(n, k -> new ArrayList<>())
                            .add(bytes / 1e6);
                    String line = String.format(java.util.Locale.ROOT, "heap kafka%s %s n=%d heapAfterGc=%.1f MB",
                            KAFKA_IN_CHILD ? " (broker in a child JVM)" : "", side, n, bytes / 1e6);
                    System.out.println(line);
                    Files.writeString(REPORT, line + System.lineSeparator(), StandardCharsets.UTF_8,
                            StandardOpenOption.CREATE, StandardOpenOption.APPEND);
                }
            }
        }
        int first = counts.get(0);
        for (String side : mb.keySet()) {
            for (int n : counts.subList(1, counts.size())) {
                String line = String.format(java.util.Locale.ROOT, "heap kafka %s %d against %d: %s MB", side, n, first,
                        growth(mb.get(side).get(first), mb.get(side).get(n)));
                System.out.println(line);
                Files.writeString(REPORT, line + System.lineSeparator(), StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
            }
        }
        assertThat(mb.get("sdk").get(counts.get(counts.size() - 1))).hasSize(repeat);
    }

    private static String growth(List<Double> one, List<Double> many) {
        List<String> each = new ArrayList<>();
        for (int i = 0; i < Math.min(one.size(), many.size()); i++) {
            each.add(String.format(java.util.Locale.ROOT, "%+.1f", many.get(i) - one.get(i)));
        }
        return String.join(", ", each);
    }

    private static DestinationCost.Figures measure(String broker, int destinations, boolean sharedGroup) throws Exception {
        String prefix = "many_" + UUID.randomUUID().toString().substring(0, 8);
        Map<String, String> extra = new java.util.HashMap<>();
        for (String pair : list("many.properties", "")) {
            int eq = pair.indexOf('=');
            if (pair.startsWith(broker + ".") && eq > 0) {
                extra.put(pair.substring(0, eq), pair.substring(eq + 1));
            }
        }
        return switch (broker) {
            case "kafka" -> DestinationCost.measure("kafka", with(extra, "kafka.bootstrap.servers", kafkaBootstrap()),
                    KAFKA_IN_CHILD ? "^$" : EmbeddedKafka.THREADS, prefix, destinations, sharedGroup);
            case "rocketmq" -> DestinationCost.measure("rocketmq",
                    with(extra, "rocketmq.namesrv-addr", EmbeddedRocketMq.shared().nameServerAddress()), EmbeddedRocketMq.THREADS,
                    prefix, destinations, sharedGroup);
            case "rabbitmq" -> {
                RabbitMqServer rabbit = RabbitMqServer.local().require();
                try {
                    yield DestinationCost.measure("rabbitmq", with(extra, "rabbitmq.uri", rabbit.uriWithCredentials()), "^$",
                            prefix, destinations, sharedGroup);
                } finally {
                    deleteQuietly(rabbit, prefix);
                }
            }
            default -> throw new IllegalArgumentException("unknown broker " + broker);
        };
    }

    private static Map<String, String> with(Map<String, String> extra, String key, String value) {
        Map<String, String> all = new java.util.HashMap<>(extra);
        all.put(key, value);
        return all;
    }

    private static void deleteQuietly(RabbitMqServer rabbit, String prefix) {
        try {
            rabbit.deleteNamesStartingWith(List.of(prefix));
        } catch (IOException | java.util.concurrent.TimeoutException e) {
            System.out.println("could not delete the RabbitMQ queues of " + prefix + ": " + e);
        }
    }

    private static List<String> list(String property, String defaults) {
        return Arrays.stream(System.getProperty(property, defaults).split(",")).map(String::trim).filter(s -> !s.isEmpty())
                .toList();
    }
}
