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
import io.switchboard.testkit.kafka.EmbeddedKafka;
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

    @Test
    @DisplayName("the broker stopped and restarted: the consumer's loss of every connection is a span its reconnection ends")
    void brokerRestart() {
        try (EmbeddedKafka broker = EmbeddedKafka.builder().brokerProperty("num.network.threads", "2")
                .brokerProperty("num.io.threads", "2").brokerProperty("background.threads", "2").start();
                KafkaAdapter adapter = new KafkaAdapter(new BrokerConfig("restart", "kafka",
                        Map.of("kafka.bootstrap.servers", broker.bootstrapServers()), firstEvents))) {
            String topic = KafkaTestSupport.topic("restart");
            String group = "events-" + topic;
            adapter.provisioner().ensureDestination(DestinationSpec.of(topic, 1));
            RawConsumer consumer = start(adapter, topic, group);
            firstEvents.await(EventKinds.ASSIGNMENT, e -> e.detail().endsWith("holds 1"), TIMEOUT);
            assertThat(firstEvents.of(EventKinds.CONNECTION_LOST)).as("connected").isEmpty();

            broker.stop();
            RecordingEvents.Event lost = firstEvents.await(EventKinds.CONNECTION_LOST, e -> e.subject().equals(group), TIMEOUT);
            assertThat(lost.closed()).as("still lost while the broker is down").isFalse();
            broker.restart();
            firstEvents.await(EventKinds.CONNECTION_LOST, RecordingEvents.Event::closed, TIMEOUT);
            assertThat(firstEvents.of(EventKinds.CONNECTION_LOST)).as("one loss").hasSize(1);
            consumer.close();
        }
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
