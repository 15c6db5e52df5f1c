package io.switchboard.testkit;

import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Switchboard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One real round trip through a Switchboard, for tests of how it connects (credentials, TLS):
 * a consumer group subscribes and is ready, then keyed text messages are published one by one, each
 * waited for, and the group's handler receives them.
 */
public final class RoundTrip {

    /**
     * What was published and what the group received (in arrival order).
     *
     * @param sent the payloads published
     * @param received the payloads the group's handler got, at least as many as were sent
     */
    public record Result(List<String> sent, List<String> received) {}

    private RoundTrip() {}

    /**
     * Subscribes {@code group} to {@code destination}, publishes {@code count} keyed messages (four
     * keys) with {@code delivery} and waits until the group has received as many.
     *
     * @param sb the Switchboard to use
     * @param destination the destination
     * @param group the consumer group
     * @param delivery the guarantee of publisher and subscription
     * @param count how many messages
     * @param timeout the bound on each wait (ready, each publish, all received)
     * @return the payloads sent and received
     * @throws ExecutionException if the subscription or a publish fails
     * @throws TimeoutException if a wait exceeds {@code timeout}
     * @throws InterruptedException if interrupted while waiting
     */
    public static Result run(Switchboard sb, String destination, String group, Delivery delivery, int count,
            Duration timeout) throws ExecutionException, TimeoutException, InterruptedException {
        Recorder<String> received = new Recorder<>(timeout);
        sb.subscriber(destination, Codec.utf8()).group(group).delivery(delivery).subscribe(received)
                .ready().toCompletableFuture().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        Publisher<String> publisher = sb.publisher(destination, Codec.utf8()).delivery(delivery).build();
        List<String> sent = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String payload = destination + "-" + i;
            publisher.publish(Message.of("customer-" + (i % 4), payload)).toCompletableFuture()
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            sent.add(payload);
        }
        return new Result(sent, received.awaitCount(count).payloads());
    }
}
