package io.switchboard.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import io.switchboard.Codec;
import io.switchboard.Message;
import io.switchboard.PublishException;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import io.switchboard.Switchboard;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Nacks from the real server: a group queue declared outside the adapter with {@code x-max-length=1}
 * and {@code x-overflow=reject-publish} nacks every record while it is full. The adapter's own
 * settings do not say the queue may be full, so it publishes nacked records again (a nack there is
 * what a quorum queue without a reachable leader sends during an election) until the publish timeout;
 * with {@code rabbitmq.overflow=reject-publish} set, a nack means "full" and fails at once.
 */
@DisplayName("RabbitMQ nacks: published again within rabbitmq.publish-timeout, unless the queue may be full")
class RabbitNackTest extends RabbitTestSupport {

    @Test
    @DisplayName("records nacked while a queue is full are published again, each once, until it has room")
    void nackedRecordsArePublishedAgain() throws Exception {
        String destination = scratch.exchange("nacked");
        String queue = scratch.queue("nacked");
        try (Connection connection = SERVER.connect(scratch.name("raw"))) {
            Channel raw = fullQueue(connection, destination, queue);
            Switchboard sb = switchboard("rabbitmq.publish-timeout", "30s", "switchboard.auto-provision", "false");
            Publisher<String> publisher = sb.publisher(destination, Codec.utf8()).build();

            List<CompletableFuture<PublishReceipt>> sent = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                sent.add(publisher.publish(Message.of("k", "p" + i)).toCompletableFuture());
            }
            // the queue holds p0; p1..p4 are nacked and published again until each finds room
            List<String> drained = new java.util.concurrent.CopyOnWriteArrayList<>();
            await("the queue's five records, taken one at a time").atMost(Duration.ofSeconds(25))
                    .pollInterval(Duration.ofMillis(300)).until(() -> {
                        GetResponse got = raw.basicGet(queue, true);
                        if (got != null) {
                            drained.add(new String(got.getBody(), StandardCharsets.UTF_8));
                        }
                        return drained.size() >= 5;
                    });

            // not in publish order for certain: a record can be nacked (full) while the next, arriving just after a
            // record was taken, is accepted; the nacked one then goes again behind it
            assertThat(drained).as("the queue's records, one at a time").startsWith("p0")
                    .containsExactlyInAnyOrder("p0", "p1", "p2", "p3", "p4");
            assertThat(CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)))
                    .as("every publish confirmed in the end").succeedsWithin(TIMEOUT);
        }
    }

    @Test
    @DisplayName("a record nacked for longer than rabbitmq.publish-timeout fails, naming the setting")
    void nackedTooLongFails() throws Exception {
        String destination = scratch.exchange("stuck");
        String queue = scratch.queue("stuck");
        try (Connection connection = SERVER.connect(scratch.name("raw"))) {
            fullQueue(connection, destination, queue);
            Switchboard sb = switchboard("rabbitmq.publish-timeout", "2s", "switchboard.auto-provision", "false");
            Publisher<String> publisher = sb.publisher(destination, Codec.utf8()).build();
            CompletableFuture<PublishReceipt> first = publisher.publish("fits").toCompletableFuture();
            assertThat(first).succeedsWithin(TIMEOUT);

            long started = System.nanoTime();
            CompletableFuture<PublishReceipt> refused = publisher.publish("no room").toCompletableFuture();

            assertThat(refused).failsWithin(TIMEOUT).withThrowableOfType(ExecutionException.class)
                    .withCauseInstanceOf(PublishException.class)
                    .withMessageContaining("kept refusing it for 2000 ms")
                    .withMessageContaining("rabbitmq.publish-timeout").withMessageContaining(destination);
            assertThat(Duration.ofNanos(System.nanoTime() - started)).as("failed after the 2 s of retries")
                    .isGreaterThanOrEqualTo(Duration.ofSeconds(2));
        }
    }

    @Test
    @DisplayName("with rabbitmq.overflow=reject-publish a nack means the queue is full: the record fails at once")
    void rejectPublishFailsAtOnce() throws Exception {
        String destination = scratch.name("full");
        Switchboard sb = switchboard("rabbitmq.max-length", "1", "rabbitmq.overflow", "reject-publish",
                "rabbitmq.required-groups", "g");
        Publisher<String> publisher = sb.publisher(destination, Codec.utf8()).build();
        assertThat(publisher.publish("fits").toCompletableFuture()).succeedsWithin(TIMEOUT);

        assertThat(publisher.publish("no room").toCompletableFuture()).failsWithin(TIMEOUT)
                .withThrowableOfType(ExecutionException.class).withCauseInstanceOf(PublishException.class)
                .withMessageContaining("full with x-overflow=reject-publish")
                .withMessageContaining("rabbitmq.max-length");
    }

    /** The destination's exchange and a group queue holding at most one record, declared as another application would. */
    private static Channel fullQueue(Connection connection, String exchange, String queue) throws Exception {
        Channel raw = connection.createChannel();
        raw.exchangeDeclare(exchange, "topic", true);
        raw.queueDeclare(queue, true, false, false, Map.of("x-max-length", 1, "x-overflow", "reject-publish"));
        raw.queueBind(queue, exchange, "#");
        return raw;
    }
}
