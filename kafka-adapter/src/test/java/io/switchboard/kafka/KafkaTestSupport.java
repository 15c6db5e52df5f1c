package io.switchboard.kafka;

import io.switchboard.Switchboard;
import io.switchboard.testkit.kafka.EmbeddedKafka;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** Plain kafka-clients and Switchboards on the shared embedded broker, for the Kafka-specific tests. */
final class KafkaTestSupport {

    static final Duration TIMEOUT = Duration.ofSeconds(60);

    private KafkaTestSupport() {}

    static String bootstrap() {
        return EmbeddedKafka.shared().bootstrapServers();
    }

    static String topic(String hint) {
        return "kt-" + hint + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    static Switchboard switchboard(String... extraProperties) {
        Switchboard.Builder builder = Switchboard.builder().broker("kafka").property("kafka.bootstrap.servers", bootstrap());
        for (int i = 0; i < extraProperties.length; i += 2) {
            builder.property(extraProperties[i], extraProperties[i + 1]);
        }
        return builder.build();
    }

    static KafkaProducer<String, String> plainProducer(String... extraProperties) {
        return plainProducer(StringSerializer.class, extraProperties);
    }

    /** A plain producer with string keys and values written by {@code valueSerializer}. */
    static <V> KafkaProducer<String, V> plainProducer(Class<?> valueSerializer, String... extraProperties) {
        Map<String, Object> config = new java.util.HashMap<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, valueSerializer));
        for (int i = 0; i < extraProperties.length; i += 2) {
            config.put(extraProperties[i], extraProperties[i + 1]);
        }
        return new KafkaProducer<>(config);
    }

    /** Everything in the topic's partitions from the beginning, read without a group. */
    static List<ConsumerRecord<String, String>> readAll(String topic, int partitions, boolean committedOnly) {
        return readAll(topic, partitions, committedOnly, StringDeserializer.class);
    }

    /** Everything in the topic's partitions from the beginning, values read by {@code valueDeserializer}. */
    static <V> List<ConsumerRecord<String, V>> readAll(String topic, int partitions, boolean committedOnly,
            Class<?> valueDeserializer) {
        Map<String, Object> config = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(),
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, committedOnly ? "read_committed" : "read_uncommitted",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, valueDeserializer);
        List<ConsumerRecord<String, V>> records = new ArrayList<>();
        try (KafkaConsumer<String, V> consumer = new KafkaConsumer<>(config)) {
            List<TopicPartition> assigned = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                assigned.add(new TopicPartition(topic, p));
            }
            consumer.assign(assigned);
            consumer.seekToBeginning(assigned);
            Map<TopicPartition, Long> end = consumer.endOffsets(assigned);
            while (assigned.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                consumer.poll(Duration.ofMillis(100)).forEach(records::add);
            }
        }
        return records;
    }

    /** The payloads of {@link #readAll}. */
    static List<String> values(String topic, int partitions, boolean committedOnly) {
        return readAll(topic, partitions, committedOnly).stream().map(ConsumerRecord::value).toList();
    }
}
