package io.switchboard.it.scale;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The heap a plain kafka-clients application holds for {@code n} topics, laid out as the SDK lays out {@code n}
 * destinations with a shared group ({@code DestinationCost}): one producer for every topic, one consumer of one group
 * subscribed to all of them, each topic of 4 partitions; one message sent to each topic and received, then the heap
 * after GC measured with the producer and the consumer still open.
 */
final class NativeKafkaHeap {

    private static final long DEADLINE_MILLIS = 300_000;

    private NativeKafkaHeap() {
    }

    /** {@return the heap used after GC, in bytes, while the application holds its {@code n} topics} */
    static long measure(String bootstrap, String prefix, int n) throws Exception {
        List<String> topics = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            topics.add(prefix + "_plain_" + i);
        }
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(topics.stream().map(t -> new NewTopic(t, Optional.of(4), Optional.empty())).toList())
                    .all().get(DEADLINE_MILLIS, TimeUnit.MILLISECONDS);
        }
        Map<String, Object> consumerConfig = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, prefix + "_plain_app",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        Map<String, Object> producerConfig = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerConfig);
                KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig)) {
            consumer.subscribe(topics);
            for (int i = 0; i < n; i++) {
                producer.send(new ProducerRecord<>(topics.get(i), "m" + i));
            }
            producer.flush();
            Set<String> seen = new HashSet<>();
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MILLIS);
            while (seen.size() < n) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("plain kafka-clients received " + seen.size() + " of " + n
                            + " messages in " + DEADLINE_MILLIS / 1000 + " s");
                }
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                    seen.add(r.value());
                }
            }
            return heapAfterGc();
        }
    }

    static long heapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(200);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
