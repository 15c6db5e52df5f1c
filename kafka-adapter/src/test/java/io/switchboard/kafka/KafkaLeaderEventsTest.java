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
import io.switchboard.testkit.kafka.KafkaCluster;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Leader changes a consumer sees, on testkit's three-node cluster (replication factor 3). */
@DisplayName("The Kafka adapter's leader-change events")
class KafkaLeaderEventsTest {

    private static KafkaCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = KafkaCluster.start(3);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @DisplayName("the leader of a held partition stopped: the consumer reports the leader moving to another broker")
    void leaderStopped() {
        RecordingEvents events = new RecordingEvents();
        List<InboundRecord> delivered = new CopyOnWriteArrayList<>();
        String topic = KafkaTestSupport.topic("leader");
        String group = "events-" + topic;
        try (KafkaAdapter adapter = new KafkaAdapter(new BrokerConfig("leader", "kafka",
                Map.of("kafka.bootstrap.servers", cluster.bootstrapServers()), events))) {
            adapter.provisioner().ensureDestination(DestinationSpec.of(topic, 1));
            RawConsumer consumer = adapter.createConsumer(new ConsumerSpec(topic, group, false, Delivery.AT_LEAST_ONCE, 16, null,
                    Map.of()));
            consumer.start(new CollectingListener(delivered)).toCompletableFuture().join();
            events.await(EventKinds.ASSIGNMENT, e -> e.detail().endsWith("holds 1"), TIMEOUT);
            int leader = cluster.leaderOf(topic, 0);
            assertThat(events.of(EventKinds.LEADER_CHANGE)).isEmpty();

            cluster.stop(leader);
            try {
                RecordingEvents.Event moved = events.await(EventKinds.LEADER_CHANGE, e -> e.subject().equals(topic + "-0")
                        && e.detail().contains("to broker "), TIMEOUT);
                assertThat(moved.detail()).contains("group '" + group + "'").doesNotEndWith("to broker " + leader);
            } finally {
                cluster.restart(leader);
            }
            consumer.close();
        }
    }
}
