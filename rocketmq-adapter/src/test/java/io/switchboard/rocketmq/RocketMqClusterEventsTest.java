package io.switchboard.rocketmq;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.Delivery;
import io.switchboard.Envelope;
import io.switchboard.rocketmq.internal.RocketMqAdapter;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.spi.EventKinds;
import io.switchboard.spi.OutboundRecord;
import io.switchboard.spi.PublisherSpec;
import io.switchboard.spi.RawPublisher;
import io.switchboard.testkit.RecordingEvents;
import io.switchboard.testkit.rocketmq.RocketMqCluster;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client events of a replicated broker group whose master fails over (testkit's {@link RocketMqCluster}: controller
 * mode, a master and two slaves, each a JVM of its own).
 */
@Tag("cluster")
@Tag("fault")
@DisplayName("The RocketMQ adapter's events when its broker group's master fails over")
class RocketMqClusterEventsTest {

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final String TOPIC = "cluster-events";

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES) // the cluster's start alone may take 2 min on a loaded machine
    @DisplayName("the master killed: a connection-lost span until the new master answers, and a leader change from the "
            + "old master's address to the new one's")
    void masterKilled() throws Exception {
        RecordingEvents events = new RecordingEvents();
        try (RocketMqCluster cluster = RocketMqCluster.start(3);
                RocketMqAdapter adapter = new RocketMqAdapter(new BrokerConfig("cluster-events", "rocketmq",
                        Map.of("rocketmq.namesrv-addr", cluster.nameServerAddress()), events))) {
            adapter.provisioner().ensureDestination(DestinationSpec.of(TOPIC, 2));
            try (RawPublisher publisher = adapter.createPublisher(new PublisherSpec(TOPIC, Delivery.AT_LEAST_ONCE,
                    Map.of()))) {
                publisher.send(new OutboundRecord(TOPIC, null, Map.of(Envelope.ID, "id-0"), new byte[] {0}, 0))
                        .toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            }
            int master = cluster.master();
            String before = cluster.addressOf(master);
            assertThat(events.of(EventKinds.LEADER_CHANGE)).as("no leader change before the fault").isEmpty();
            assertThat(events.of(EventKinds.CONNECTION_LOST)).as("no connection lost before the fault").isEmpty();

            cluster.kill(master);
            RecordingEvents.Event lost = events.await(EventKinds.CONNECTION_LOST,
                    e -> e.subject().equals(RocketMqCluster.BROKER_NAME), WAIT);
            assertThat(lost.detail()).as(lost.toString()).startsWith(before + " does not answer: ");
            int next = cluster.awaitMasterOtherThan(master);
            RecordingEvents.Event moved = events.await(EventKinds.LEADER_CHANGE,
                    e -> e.subject().equals(RocketMqCluster.BROKER_NAME), WAIT);
            assertThat(moved.detail()).as(moved.toString()).startsWith("master of broker group '"
                    + RocketMqCluster.BROKER_NAME + "' moved from " + before + " to " + cluster.addressOf(next)
                    + " (queues of ").contains(TOPIC);
            events.await(EventKinds.CONNECTION_LOST, RecordingEvents.Event::closed, WAIT);
            System.out.println("master-kill events: " + events.all());
        }
        assertThat(events.of(EventKinds.LEADER_CHANGE)).as("one move: %s", events.all()).hasSize(1);
        assertThat(events.all()).as("every span ended").allMatch(RecordingEvents.Event::closed);
    }
}
