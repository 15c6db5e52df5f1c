package io.switchboard.rocketmq;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.Delivery;
import io.switchboard.Envelope;
import io.switchboard.rocketmq.internal.RocketMqAdapter;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.ConsumerSpec;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.spi.EventKinds;
import io.switchboard.spi.InboundRecord;
import io.switchboard.spi.OutboundRecord;
import io.switchboard.spi.PublisherSpec;
import io.switchboard.spi.RawPublisher;
import io.switchboard.spi.SendResult;
import io.switchboard.spi.RawConsumer;
import io.switchboard.testkit.CollectingListener;
import io.switchboard.testkit.RecordingEvents;
import io.switchboard.testkit.rocketmq.EmbeddedRocketMq;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The RocketMQ adapter's client events")
class RocketMqClientEventsTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int QUEUES = 4;

    private final RecordingEvents firstEvents = new RecordingEvents();
    private final RecordingEvents secondEvents = new RecordingEvents();
    private final RocketMqAdapter first = adapter("events-first", firstEvents);
    private final RocketMqAdapter second = adapter("events-second", secondEvents);
    private final String topic = "events-" + UUID.randomUUID().toString().substring(0, 8);
    private final List<InboundRecord> received = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() {
        second.close();
        first.provisioner().deleteDestination(topic);
        first.close();
    }

    private static RocketMqAdapter adapter(String name, RecordingEvents events) {
        return new RocketMqAdapter(new BrokerConfig(name, "rocketmq",
                Map.of("rocketmq.namesrv-addr", EmbeddedRocketMq.shared().nameServerAddress()), events));
    }

    @Test
    @DisplayName("a second member joining the group: the first reports a reallocation span that ends, and both their queue changes")
    void memberJoins() {
        first.provisioner().ensureDestination(DestinationSpec.of(topic, QUEUES));
        RawConsumer a = start(first);
        RecordingEvents.Event initial = firstEvents.await(EventKinds.ASSIGNMENT,
                e -> e.detail().startsWith("added " + topic + "@") && e.detail().endsWith("holds " + QUEUES), WAIT);
        String group = initial.subject();
        assertThat(group).contains("g");
        assertThat(firstEvents.of(EventKinds.REBALANCE)).as("a first assignment is no reallocation").isEmpty();

        RawConsumer b = start(second);
        RecordingEvents.Event rebalance = firstEvents.await(EventKinds.REBALANCE, e -> e.subject().equals(group) && e.closed(),
                WAIT);
        assertThat(rebalance.detail()).startsWith("queues of '" + topic + "' reallocated: ");
        RecordingEvents.Event shrunk = firstEvents.await(EventKinds.ASSIGNMENT,
                e -> e.subject().equals(group) && e.detail().contains("removed " + topic + "@"), WAIT);
        RecordingEvents.Event joined = secondEvents.await(EventKinds.ASSIGNMENT,
                e -> e.subject().equals(group) && e.detail().startsWith("added " + topic + "@"), WAIT);
        assertThat(held(shrunk) + held(joined)).as("the queues split between the members: %s / %s", shrunk, joined)
                .isEqualTo(QUEUES);
        assertThat(held(shrunk)).isPositive();
        assertThat(held(joined)).isPositive();
        assertThat(firstEvents.all()).as("no retry topic reported").noneMatch(e -> e.detail().contains("%RETRY%"));
        b.close();
        a.close();
        assertThat(firstEvents.all()).as("every span ended").allMatch(RecordingEvents.Event::closed);
    }

    @Test
    @DisplayName("sends beyond rocketmq.max-pending-sends: a back-pressure span while they wait for room, ended once the answers free it")
    void fullSendWindow() throws Exception {
        first.provisioner().ensureDestination(DestinationSpec.of(topic, QUEUES));
        try (RocketMqAdapter narrow = new RocketMqAdapter(new BrokerConfig("events-narrow", "rocketmq", Map.of(
                "rocketmq.namesrv-addr", EmbeddedRocketMq.shared().nameServerAddress(),
                "rocketmq.max-pending-sends", "1", "rocketmq.buffer-timeout", "60s"), firstEvents));
                RawPublisher publisher = narrow.createPublisher(new PublisherSpec(topic, Delivery.AT_LEAST_ONCE, Map.of()))) {
            List<CompletableFuture<SendResult>> sent = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                sent.add(publisher.send(new OutboundRecord(topic, null, Map.of(Envelope.ID, "id-" + i), new byte[] {(byte) i}, 0))
                        .toCompletableFuture());
            }
            CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).join();
            RecordingEvents.Event waited = firstEvents.await(EventKinds.BACK_PRESSURE, e -> e.subject().equals(topic), WAIT);
            assertThat(waited.detail()).startsWith("1 sends in flight (rocketmq.max-pending-sends)");
            firstEvents.await(EventKinds.BACK_PRESSURE, RecordingEvents.Event::closed, WAIT);
        }
        assertThat(firstEvents.all()).as("every span ended").allMatch(RecordingEvents.Event::closed);
    }

    private static int held(RecordingEvents.Event assignment) {
        String detail = assignment.detail();
        return Integer.parseInt(detail.substring(detail.lastIndexOf(' ') + 1));
    }

    private RawConsumer start(RocketMqAdapter adapter) {
        RawConsumer consumer = adapter.createConsumer(new ConsumerSpec(topic, "g", false, Delivery.AT_LEAST_ONCE, 16, null,
                Map.of()));
        consumer.start(new CollectingListener(received)).toCompletableFuture().join();
        return consumer;
    }
}
