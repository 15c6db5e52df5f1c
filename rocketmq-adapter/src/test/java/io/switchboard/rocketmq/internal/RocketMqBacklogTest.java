package io.switchboard.rocketmq.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Delivery;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The RocketMQ consumer's backlog")
class RocketMqBacklogTest {

    private final RocketMqAdapter adapter = new RocketMqAdapter(new BrokerConfig("backlog", "rocketmq",
            Map.of("rocketmq.namesrv-addr", EmbeddedRocketMq.shared().nameServerAddress())));
    private final String topic = "backlog-" + UUID.randomUUID().toString().substring(0, 8);

    @AfterEach
    void cleanUp() {
        adapter.provisioner().deleteDestination(topic);
        adapter.close();
    }

    @Test
    @DisplayName("is the group's diff: what is stored minus what the group has committed")
    void isTheGroupsDiff() {
        adapter.provisioner().ensureDestination(DestinationSpec.of(topic, 2));
        try (RawPublisher publisher = adapter.createPublisher(new PublisherSpec(topic, Delivery.AT_LEAST_ONCE, Map.of()))) {
            for (int i = 0; i < 20; i++) {
                publisher.send(new OutboundRecord(topic, "k" + i, Map.of(), ("m" + i).getBytes(StandardCharsets.UTF_8), 0))
                        .join();
            }
        }
        List<InboundRecord> held = new CopyOnWriteArrayList<>();
        try (RawConsumer consumer = adapter.createConsumer(
                new ConsumerSpec(topic, "g", false, Delivery.AT_LEAST_ONCE, 100, null, Map.of()))) {
            consumer.start(new RecordListener() {
                @Override
                public void onRecord(InboundRecord record) {
                    held.add(record);
                }

                @Override
                public void onFailure(Throwable error) {
                    throw new AssertionError(error);
                }
            }).toCompletableFuture().join();
            await().atMost(Duration.ofSeconds(60)).until(() -> held.size() == 20);

            assertThat(consumer.backlog()).isEqualTo(OptionalLong.of(20));
            held.forEach(InboundRecord::ack);
            await().atMost(Duration.ofSeconds(60)).until(() -> consumer.backlog().equals(OptionalLong.of(0)));
        }
    }
}
