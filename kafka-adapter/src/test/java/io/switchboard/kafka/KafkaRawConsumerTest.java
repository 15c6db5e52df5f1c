package io.switchboard.kafka;

import static io.switchboard.kafka.KafkaTestSupport.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Delivery;
import io.switchboard.kafka.internal.KafkaAdapter;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.ConsumerSpec;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.spi.InboundRecord;
import io.switchboard.spi.RawConsumer;
import io.switchboard.testkit.CollectingListener;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.LongStream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The Kafka raw consumer, seen through the SPI")
class KafkaRawConsumerTest {

    private static final Duration HOLDS_FOR = Duration.ofMillis(700);

    private final KafkaAdapter adapter = new KafkaAdapter(new BrokerConfig("raw", "kafka",
            Map.of("kafka.bootstrap.servers", KafkaTestSupport.bootstrap())));
    private final List<InboundRecord> delivered = new CopyOnWriteArrayList<>();
    private String topic;

    @BeforeEach
    void provision() {
        topic = KafkaTestSupport.topic("raw");
        adapter.provisioner().ensureDestination(DestinationSpec.of(topic, 1));
    }

    @AfterEach
    void close() {
        adapter.close();
    }

    @Test
    @DisplayName("stops fetching at maxInFlight, resumes as records are acked, and commits everything on close")
    void backPressureAndCloseCommits() {
        publish(0, 50);
        RawConsumer consumer = start(5, "bp");

        await().atMost(TIMEOUT).during(HOLDS_FOR).until(() -> delivered.size() == 5);
        delivered.forEach(InboundRecord::ack);
        await().atMost(TIMEOUT).during(HOLDS_FOR).until(() -> delivered.size() == 10);
        while (delivered.size() < 50) {
            int handed = delivered.size();
            delivered.forEach(InboundRecord::ack);
            await().atMost(TIMEOUT).until(() -> delivered.size() > handed);
        }
        delivered.forEach(InboundRecord::ack);
        assertThat(delivered).extracting(InboundRecord::offset).containsExactlyElementsOf(offsets(0, 50));
        consumer.close();

        assertThat(adapter.lag(topic, "bp")).containsEntry(0, 0L);
    }

    @Test
    @DisplayName("redelivers a nacked record and what follows it, and commits only what the new deliveries acked")
    void nackRewinds() {
        publish(0, 6);
        RawConsumer consumer = start(10, "nack");
        await().atMost(TIMEOUT).until(() -> delivered.size() == 6);
        List<InboundRecord> first = List.copyOf(delivered);
        first.get(0).ack();
        first.get(1).ack();
        first.get(2).nack();
        first.get(3).ack();

        await().atMost(TIMEOUT).until(() -> delivered.size() == 10);
        List<InboundRecord> again = delivered.subList(6, 10);
        assertThat(again).extracting(InboundRecord::offset).containsExactly(2L, 3L, 4L, 5L);
        assertThat(again).extracting(InboundRecord::deliveryCount).containsExactly(2, 1, 1, 1);
        again.subList(0, 3).forEach(InboundRecord::ack);
        first.get(4).ack();
        first.get(5).ack();

        await().atMost(TIMEOUT).untilAsserted(() -> assertThat(consumer.backlog()).hasValue(1L));
        consumer.close();
        assertThat(adapter.lag(topic, "nack")).as("offset 5 was acked only in its first, rewound delivery")
                .containsEntry(0, 1L);
    }

    private RawConsumer start(int maxInFlight, String group) {
        RawConsumer consumer = adapter.createConsumer(new ConsumerSpec(topic, group, false, Delivery.AT_LEAST_ONCE,
                maxInFlight, null, Map.of()));
        consumer.start(new CollectingListener(delivered)).toCompletableFuture().join();
        return consumer;
    }

    private void publish(int from, int to) {
        try (KafkaProducer<String, String> producer = KafkaTestSupport.plainProducer()) {
            for (int i = from; i < to; i++) {
                producer.send(new ProducerRecord<>(topic, "k", "m" + i));
            }
        }
    }

    private static List<Long> offsets(int from, int to) {
        return LongStream.range(from, to).boxed().toList();
    }
}
