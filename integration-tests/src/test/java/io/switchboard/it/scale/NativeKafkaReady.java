package io.switchboard.it.scale;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The floor for the many-destinations readiness on Kafka: what plain kafka-clients takes to do the same on the same
 * broker, done the fast way. One {@code createTopics} for all {@code n} topics ({@code partitions} each, awaited), then
 * one consumer of a new group subscribed to all of them, polled until it owns every partition, then asked where each
 * partition starts (answered once the partition is online on its leader). The SDK's figure includes this much of the
 * broker's work whatever the client does.
 */
final class NativeKafkaReady {

    private static final long DEADLINE_MILLIS = 300_000;

    /** What one run measured, in seconds from the start: the topics created, every partition assigned, every position known. */
    record Figures(double createSeconds, double assignedSeconds, double readySeconds, double cpuSeconds) {}

    private NativeKafkaReady() {
    }

    static Figures measure(String bootstrap, String prefix, int n, int partitions) throws Exception {
        List<String> topics = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            topics.add(prefix + "_native_" + i);
        }
        long start = System.nanoTime();
        double cpuAtStart = DestinationCost.cpuSeconds();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(topics.stream().map(t -> new NewTopic(t, Optional.of(partitions), Optional.empty())).toList())
                    .all().get(DEADLINE_MILLIS, TimeUnit.MILLISECONDS);
        }
        double created = (System.nanoTime() - start) / 1e9;
        double assigned;
        Map<String, Object> config = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, "native_" + UUID.randomUUID(),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
            consumer.subscribe(topics);
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MILLIS);
            while (consumer.assignment().size() < n * partitions) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the native consumer owned " + consumer.assignment().size() + " of "
                            + n * partitions + " partitions after " + DEADLINE_MILLIS / 1000 + " s");
                }
                consumer.poll(Duration.ofMillis(50));
            }
            assigned = (System.nanoTime() - start) / 1e9;
            // where each partition starts: answered once the partition's leader has it online (what the first fetch
            // needs, and what the SDK's readiness includes: its subscription is ready once it has its positions)
            for (TopicPartition partition : consumer.assignment()) {
                consumer.position(partition, Duration.ofMillis(DEADLINE_MILLIS));
            }
        }
        return new Figures(created, assigned, (System.nanoTime() - start) / 1e9, DestinationCost.cpuSeconds() - cpuAtStart);
    }
}
