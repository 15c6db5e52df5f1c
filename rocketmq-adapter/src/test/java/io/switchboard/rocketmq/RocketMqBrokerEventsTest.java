package io.switchboard.rocketmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.switchboard.Delivery;
import io.switchboard.Envelope;
import io.switchboard.rocketmq.internal.RocketMqAdapter;
import io.switchboard.rocketmq.internal.client.BrokerWatch;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.spi.EventKinds;
import io.switchboard.spi.OutboundRecord;
import io.switchboard.spi.PublisherSpec;
import io.switchboard.spi.RawPublisher;
import io.switchboard.spi.SendResult;
import io.switchboard.testkit.RecordingEvents;
import io.switchboard.testkit.rocketmq.EmbeddedRocketMq;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client events of a broker that goes away and comes back: a RocketMQ of its own (not the shared one, since its
 * broker restarts), restarted on its store while the adapter watches it and publishes.
 */
@Tag("fault")
@DisplayName("The RocketMQ adapter's events when its broker restarts")
class RocketMqBrokerEventsTest {

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final String TOPIC = "broker-events";

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    @DisplayName("a restarted broker: a connection-lost span from when it stops answering until it answers again, "
            + "and a publish meanwhile retried (publish-retry); neither while it answers")
    void brokerRestarts() throws Exception {
        RecordingEvents events = new RecordingEvents();
        try (EmbeddedRocketMq rocketMq = EmbeddedRocketMq.start();
                RocketMqAdapter adapter = new RocketMqAdapter(new BrokerConfig("broker-events", "rocketmq",
                        Map.of("rocketmq.namesrv-addr", rocketMq.nameServerAddress()), events))) {
            adapter.provisioner().ensureDestination(DestinationSpec.of(TOPIC, 2));
            try (RawPublisher publisher = adapter.createPublisher(new PublisherSpec(TOPIC, Delivery.AT_LEAST_ONCE,
                    Map.of()))) {
                assertThat(send(publisher, 0).get(WAIT.toSeconds(), TimeUnit.SECONDS).partition()).isNotNegative();
                // the watch asks the broker a few times while it answers
                Thread.sleep(BrokerWatch.EVERY_MILLIS * 3);
                assertThat(events.of(EventKinds.CONNECTION_LOST)).as("no connection lost while the broker answers")
                        .isEmpty();
                assertThat(events.of(EventKinds.PUBLISH_RETRY)).as("no retry while the broker answers").isEmpty();

                CompletableFuture<Void> restart = CompletableFuture.runAsync(rocketMq::restartBroker);
                RecordingEvents.Event lost = events.await(EventKinds.CONNECTION_LOST, e -> true, WAIT);
                assertThat(lost.detail()).as(lost.toString()).startsWith(rocketMq.brokerAddress() + " does not answer: ");
                assertThat(lost.subject()).isNotBlank();

                // sent while the broker is away: refused, retried, failed
                Throwable failed = catchThrowable(() -> send(publisher, 1).get(WAIT.toSeconds(), TimeUnit.SECONDS));
                RecordingEvents.Event retry = events.await(EventKinds.PUBLISH_RETRY, e -> e.subject().equals(TOPIC), WAIT);
                assertThat(retry.detail()).as(retry.toString())
                        .startsWith("1 retry of sends (at most 2 a send, within its send time-out), the last after ");

                restart.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                events.await(EventKinds.CONNECTION_LOST, RecordingEvents.Event::closed, WAIT);
                assertThat(send(publisher, 2).get(WAIT.toSeconds(), TimeUnit.SECONDS).partition())
                        .as("a publish after the restart (the one during it failed with %s)", String.valueOf(failed))
                        .isNotNegative();
            }
            System.out.println("broker-restart events: " + events.all());
        }
        assertThat(events.of(EventKinds.CONNECTION_LOST)).as("one span for the restart: %s", events.all()).hasSize(1);
        assertThat(events.all()).as("every span ended").allMatch(RecordingEvents.Event::closed);
    }

    private static CompletableFuture<SendResult> send(RawPublisher publisher, int i) {
        return publisher.send(new OutboundRecord(TOPIC, null, Map.of(Envelope.ID, "id-" + i), new byte[] {(byte) i}, 0))
                .toCompletableFuture();
    }
}
