package io.switchboard.kafka;

import static io.switchboard.kafka.KafkaTestSupport.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.Delivery;
import io.switchboard.Envelope;
import io.switchboard.kafka.internal.KafkaAdapter;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.spi.EventKinds;
import io.switchboard.spi.OutboundRecord;
import io.switchboard.spi.PublisherSpec;
import io.switchboard.spi.RawPublisher;
import io.switchboard.testkit.RecordingEvents;
import io.switchboard.testkit.kafka.KafkaCluster;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The retries inside kafka-clients' producer, on testkit's three-node cluster (replication factor 3). */
@Tag("cluster")
@Tag("fault")
@DisplayName("The Kafka adapter's publish-retry events")
class KafkaRetryEventsTest {

    /** Records sent in a burst, then a pause, so that produce requests are in flight most of the time. */
    private static final int BURST = 100;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES) // the cluster's start may take 2 min on a loaded machine
    @DisplayName("the partition's leader killed mid-stream: the producer retries what was in flight, reported for the topic")
    void leaderKilledMidStream() throws Exception {
        RecordingEvents events = new RecordingEvents();
        String topic = KafkaTestSupport.topic("retry");
        try (KafkaCluster cluster = KafkaCluster.start(3);
                KafkaAdapter adapter = new KafkaAdapter(new BrokerConfig("retry", "kafka",
                        Map.of("kafka.bootstrap.servers", cluster.bootstrapServers()), events))) {
            adapter.provisioner().ensureDestination(DestinationSpec.of(topic, 1));
            try (RawPublisher publisher = adapter.createPublisher(new PublisherSpec(topic, Delivery.AT_LEAST_ONCE,
                    Map.of()))) {
                publisher.send(record(topic, 0)).toCompletableFuture().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                AtomicBoolean stop = new AtomicBoolean();
                AtomicInteger acked = new AtomicInteger();
                CompletableFuture<Void> stream = CompletableFuture.runAsync(() -> {
                    for (int i = 1; !stop.get(); i++) {
                        publisher.send(record(topic, i)).whenComplete((result, error) -> {
                            if (error == null) {
                                acked.incrementAndGet();
                            }
                        });
                        if (i % BURST == 0) {
                            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
                        }
                    }
                });
                try {
                    Awaitility.await("records acknowledged before the fault").atMost(TIMEOUT)
                            .until(() -> acked.get() >= 10 * BURST);
                    assertThat(events.of(EventKinds.PUBLISH_RETRY)).as("no retry while the leader is up").isEmpty();
                    int leader = cluster.leaderOf(topic, 0);
                    cluster.kill(leader);
                    RecordingEvents.Event retry = events.await(EventKinds.PUBLISH_RETRY, e -> e.subject().equals(topic),
                            TIMEOUT);
                    assertThat(retry.detail()).as(retry.toString())
                            .matches("\\d+ records? retried by the producer \\(kafka-clients' record-retry-total, \\d+ in all\\)");
                    System.out.println("leader-kill events: " + events.all());
                } finally {
                    stop.set(true);
                    stream.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                }
            }
        }
    }

    private static OutboundRecord record(String topic, int i) {
        return new OutboundRecord(topic, null, Map.of(Envelope.ID, "id-" + i), new byte[] {(byte) i}, 0);
    }
}
