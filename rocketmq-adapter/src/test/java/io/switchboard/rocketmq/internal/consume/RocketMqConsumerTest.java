package io.switchboard.rocketmq.internal.consume;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Delivery;
import io.switchboard.rocketmq.internal.RocketMqAdapter;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.ConsumerSpec;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.spi.InboundRecord;
import io.switchboard.spi.OutboundRecord;
import io.switchboard.spi.PublisherSpec;
import io.switchboard.spi.RawConsumer;
import io.switchboard.spi.RawPublisher;
import io.switchboard.spi.RecordListener;
import io.switchboard.testkit.rocketmq.EmbeddedRocketMq;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.rocketmq.client.impl.factory.MQClientInstance;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The raw consumer's settlement with the broker, below core. */
@DisplayName("The RocketMQ consumer")
class RocketMqConsumerTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    private final RocketMqAdapter adapter = new RocketMqAdapter(new BrokerConfig("consumer-test", "rocketmq",
            Map.of("rocketmq.namesrv-addr", EmbeddedRocketMq.shared().nameServerAddress())));
    private final String topic = "consumer-" + UUID.randomUUID().toString().substring(0, 8);
    private final List<InboundRecord> received = new CopyOnWriteArrayList<>();

    @BeforeEach
    void createTopic() {
        adapter.provisioner().ensureDestination(DestinationSpec.of(topic, 2));
    }

    @AfterEach
    void cleanUp() {
        adapter.provisioner().deleteDestination(topic);
        adapter.close();
    }

    @Test
    @DisplayName("reports the group's diff as backlog: what is stored minus what the group committed")
    void backlogIsTheGroupsDiff() {
        publish(20);
        try (RawConsumer consumer = start(Map.of(), record -> { })) {
            await().atMost(WAIT).until(() -> received.size() == 20);

            assertThat(consumer.backlog()).isEqualTo(OptionalLong.of(20));
            received.forEach(InboundRecord::ack);
            await().atMost(WAIT).until(() -> consumer.backlog().equals(OptionalLong.of(0)));
        }
    }

    @Test
    @DisplayName("returns a nacked record to the broker, which delivers it again with a higher count")
    void nackRedelivers() {
        nackRedelivers(Map.of());
        assertThat(received).allSatisfy(r -> assertThat(r.partition()).isBetween(0, 1));
    }

    @Test
    @DisplayName("consuming concurrently, returns a nacked record too, and reports no partition to order by")
    void nackRedeliversConcurrently() {
        nackRedelivers(Map.of("rocketmq.consume-mode", "concurrently"));
        assertThat(received).allSatisfy(r -> assertThat(r.partition()).isEqualTo(-1));
    }

    @Test
    @DisplayName("runs in a client instance of the consumers', not in the producers' one, whose callback threads carry "
            + "the publishers' next batches")
    void consumersDoNotShareTheProducersClientInstance() {
        publish(1);
        DefaultMQProducer producer = adapter.producers().plain();
        try (RawConsumer consumer = start(Map.of(), InboundRecord::ack)) {
            await().atMost(WAIT).until(() -> received.size() == 1);

            MQClientInstance consumerClient = ((RocketMqConsumer) consumer).clientInstance();
            assertThat(consumerClient).isNotNull()
                    .isNotSameAs(producer.getDefaultMQProducerImpl().getmQClientFactory());
        }
    }

    private void nackRedelivers(Map<String, String> properties) {
        publish(6);
        try (RawConsumer consumer = start(properties, record -> {
            if (text(record).equals("m3") && record.deliveryCount() == 1) {
                record.nack();
            } else {
                record.ack();
            }
        })) {
            await().atMost(WAIT).until(() -> received.size() == 7);

            assertThat(received.stream().map(RocketMqConsumerTest::text).collect(Collectors.toList()))
                    .containsExactlyInAnyOrder("m0", "m1", "m2", "m3", "m3", "m4", "m5");
            assertThat(received.stream().filter(r -> text(r).equals("m3")).map(InboundRecord::deliveryCount))
                    .containsExactly(1, 2);
            assertThat(consumer.backlog()).isPresent();
        }
    }

    private void publish(int count) {
        try (RawPublisher publisher = adapter.createPublisher(new PublisherSpec(topic, Delivery.AT_LEAST_ONCE, Map.of()))) {
            for (int i = 0; i < count; i++) {
                publisher.send(new OutboundRecord(topic, "k", Map.of(), ("m" + i).getBytes(StandardCharsets.UTF_8), 0))
                        .join();
            }
        }
    }

    private RawConsumer start(Map<String, String> properties, Consumer<InboundRecord> settle) {
        RawConsumer consumer = adapter.createConsumer(
                new ConsumerSpec(topic, "g", false, Delivery.AT_LEAST_ONCE, 100, null, properties));
        consumer.start(new RecordListener() {
            @Override
            public void onRecord(InboundRecord record) {
                received.add(record);
                settle.accept(record);
            }

            @Override
            public void onFailure(Throwable error) {
                throw new AssertionError(error);
            }
        }).toCompletableFuture().join();
        return consumer;
    }

    private static String text(InboundRecord record) {
        return new String(record.payload(), StandardCharsets.UTF_8);
    }
}
