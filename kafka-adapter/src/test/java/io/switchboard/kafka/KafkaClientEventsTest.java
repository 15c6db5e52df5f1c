package io.switchboard.kafka;

import static io.switchboard.kafka.KafkaTestSupport.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.Delivery;
import io.switchboard.kafka.internal.KafkaAdapter;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.ConsumerSpec;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.spi.EventKinds;
import io.switchboard.spi.InboundRecord;
import io.switchboard.spi.RawConsumer;
import io.switchboard.testkit.CollectingListener;
import io.switchboard.testkit.RecordingEvents;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The Kafka adapter's client events")
class KafkaClientEventsTest {

    private static final int PARTITIONS = 4;

    private final RecordingEvents firstEvents = new RecordingEvents();
    private final RecordingEvents secondEvents = new RecordingEvents();
    private final KafkaAdapter first = adapter("first", firstEvents);
    private final KafkaAdapter second = adapter("second", secondEvents);
    private final List<InboundRecord> delivered = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() {
        first.close();
        second.close();
    }

    private static KafkaAdapter adapter(String name, RecordingEvents events) {
        return new KafkaAdapter(new BrokerConfig(name, "kafka", Map.of("kafka.bootstrap.servers", KafkaTestSupport.bootstrap()),
                events));
    }

    @Test
    @DisplayName("a second member joining the group: the first reports a rebalance span that ends, and both their assignment changes")
    void memberJoins() {
        String topic = KafkaTestSupport.topic("events");
        String group = "events-" + topic;
        first.provisioner().ensureDestination(DestinationSpec.of(topic, PARTITIONS));
        RawConsumer a = start(first, topic, group);
        firstEvents.await(EventKinds.ASSIGNMENT, e -> e.subject().equals(group) && e.detail().endsWith("holds " + PARTITIONS),
                TIMEOUT);
        assertThat(firstEvents.of(EventKinds.REBALANCE)).as("nothing was revoked before the first assignment").isEmpty();

        RawConsumer b = start(second, topic, group);
        RecordingEvents.Event rebalance = firstEvents.await(EventKinds.REBALANCE,
                e -> e.subject().equals(group) && e.closed(), TIMEOUT);
        assertThat(rebalance.span()).isTrue();
        assertThat(rebalance.detail()).startsWith("member ").contains(" gave up " + topic + "[");
        RecordingEvents.Event shrunk = firstEvents.await(EventKinds.ASSIGNMENT,
                e -> e.subject().equals(group) && e.detail().contains("removed " + topic + "["), TIMEOUT);
        RecordingEvents.Event joined = secondEvents.await(EventKinds.ASSIGNMENT,
                e -> e.subject().equals(group) && e.detail().startsWith("added " + topic + "["), TIMEOUT);
        int kept = held(shrunk);
        int taken = held(joined);
        assertThat(kept + taken).as("the partitions split between the members: %s / %s", shrunk, joined).isEqualTo(PARTITIONS);
        assertThat(kept).isPositive();
        assertThat(taken).isPositive();

        b.close();
        firstEvents.await(EventKinds.ASSIGNMENT, e -> e.detail().startsWith("added " + topic + "[")
                && e.detail().endsWith("holds " + PARTITIONS), TIMEOUT);
        assertThat(secondEvents.of(EventKinds.REBALANCE)).as("leaving the group is no rebalance of the member that leaves")
                .isEmpty();
        assertThat(secondEvents.of(EventKinds.ASSIGNMENT)).last().extracting(RecordingEvents.Event::detail).asString()
                .startsWith("added [], removed " + topic + "[").endsWith("holds 0");
        a.close();
        assertThat(firstEvents.all()).as("every span ended").allMatch(RecordingEvents.Event::closed);
    }

    private static int held(RecordingEvents.Event assignment) {
        String detail = assignment.detail();
        return Integer.parseInt(detail.substring(detail.lastIndexOf(' ') + 1));
    }

    private RawConsumer start(KafkaAdapter adapter, String topic, String group) {
        RawConsumer consumer = adapter.createConsumer(new ConsumerSpec(topic, group, false, Delivery.AT_LEAST_ONCE, 16, null,
                Map.of()));
        consumer.start(new CollectingListener(delivered)).toCompletableFuture().join();
        return consumer;
    }
}
