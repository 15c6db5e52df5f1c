package io.switchboard.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Codec;
import io.switchboard.Message;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.testkit.Recorder;
import io.switchboard.testkit.fault.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("RabbitMQ connection loss")
class RabbitRecoveryTest extends RabbitTestSupport {

    private static final int MAX_MESSAGES = 200_000;

    @Test
    @DisplayName("mid-stream loses nothing under at-least-once: publishes are resent, deliveries redelivered")
    void connectionLossMidStreamLosesNothing() throws Exception {
        Switchboard sb = switchboard("rabbitmq.recovery-interval", "500ms");
        String destination = scratch.name("orders");
        Recorder<String> received = new Recorder<>(TIMEOUT);
        Subscription subscription = sb.subscriber(destination, Codec.utf8()).group("g").concurrency(2).subscribe(received);
        join(subscription.ready());
        Publisher<String> publisher = sb.publisher(destination, Codec.utf8()).build();

        AtomicBoolean keepPublishing = new AtomicBoolean(true);
        List<CompletableFuture<PublishReceipt>> sent = new ArrayList<>();
        CompletableFuture<Void> publishing = CompletableFuture.runAsync(() -> {
            for (int i = 0; i < MAX_MESSAGES && keepPublishing.get(); i++) {
                sent.add(publisher.publish(Message.of("k" + (i % 8), "m" + i)).toCompletableFuture());
            }
        });
        await().atMost(TIMEOUT).until(() -> received.received().size() >= 500);

        assertThat(SERVER.closeConnectionsNamed(connectionName())).as("publishing and consuming connections").isEqualTo(2);
        int atLoss = received.received().size();
        await().atMost(TIMEOUT).until(() -> received.received().size() >= atLoss + 2_000 || publishing.isDone());
        keepPublishing.set(false);
        join(publishing);

        join(CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)));
        Set<String> expected = new HashSet<>();
        for (int i = 0; i < sent.size(); i++) {
            expected.add("m" + i);
        }
        await().atMost(TIMEOUT).until(() -> new HashSet<>(received.payloads()).containsAll(expected));
        assertThat(sent.size()).as("published across the connection loss").isGreaterThan(atLoss);
        assertThat(subscription.isActive()).isTrue();
    }

    @Test
    @DisplayName("through an outage, publishes wait and complete once the broker is reachable again")
    void publishesWaitThroughAnOutage() throws Exception {
        try (TcpProxy proxy = TcpProxy.start(SERVER.host(), SERVER.port())) {
            String viaProxy = "amqp://guest:guest@127.0.0.1:" + proxy.port() + "/";
            Switchboard sb = switchboard("rabbitmq.uri", viaProxy, "rabbitmq.recovery-interval", "300ms");
            String destination = scratch.name("outage");
            Recorder<String> received = new Recorder<>(TIMEOUT);
            join(sb.subscriber(destination, Codec.utf8()).group("g").subscribe(received).ready());
            Publisher<String> publisher = sb.publisher(destination, Codec.utf8()).build();
            for (int i = 0; i < 100; i++) {
                join(publisher.publish(Message.of("k", "before-" + i)));
            }

            proxy.cut();
            List<CompletableFuture<PublishReceipt>> during = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                during.add(publisher.publish(Message.of("k", "during-" + i)).toCompletableFuture());
            }
            assertThat(during).as("nothing can be confirmed while the broker is unreachable").noneMatch(f -> f.isDone());
            proxy.restore();

            join(CompletableFuture.allOf(during.toArray(CompletableFuture[]::new)));
            await().atMost(TIMEOUT).until(() -> new HashSet<>(received.payloads()).size() == 400);
            assertThat(received.payloads()).contains("before-0", "before-99", "during-0", "during-299");
        }
    }
}
