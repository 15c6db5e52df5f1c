package io.switchboard.testkit;

import static org.awaitility.Awaitility.await;

import io.switchboard.DeliveryContext;
import io.switchboard.Message;
import io.switchboard.MessageHandler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * A {@link MessageHandler} that records what it handled, optionally failing on a predicate; with
 * helpers to wait for counts. Thread-safe.
 */
public final class Recorder<T> implements MessageHandler<T> {

    private final ConcurrentLinkedQueue<Received<T>> received = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Received<T>> attempts = new ConcurrentLinkedQueue<>();
    private final Predicate<Received<T>> failWhen;
    private final Duration timeout;

    /**
     * A recorder that never fails.
     *
     * @param timeout how long the waits wait at most
     */
    public Recorder(Duration timeout) {
        this(timeout, r -> false);
    }

    /**
     * A recorder that throws on every attempt matching {@code failWhen}.
     *
     * @param timeout how long the waits wait at most
     * @param failWhen which attempts fail
     */
    public Recorder(Duration timeout, Predicate<Received<T>> failWhen) {
        this.timeout = timeout;
        this.failWhen = failWhen;
    }

    @Override
    public void handle(Message<T> message, DeliveryContext context) {
        Received<T> r = new Received<>(message, context, Thread.currentThread().getName());
        attempts.add(r);
        if (failWhen.test(r)) {
            throw new IllegalStateException("planned failure of " + message.id() + " at attempt " + context.attempt());
        }
        received.add(r);
    }

    /** {@return the messages handled successfully, in handling order} */
    public List<Received<T>> received() {
        return new ArrayList<>(received);
    }

    /** {@return every attempt, failed ones included} */
    public List<Received<T>> attempts() {
        return new ArrayList<>(attempts);
    }

    /** {@return payloads handled successfully, in handling order} */
    public List<T> payloads() {
        return received.stream().map(r -> r.message().payload()).collect(Collectors.toList());
    }

    /** {@return distinct message ids handled successfully} */
    public Set<String> ids() {
        return received.stream().map(r -> r.message().id()).collect(Collectors.toSet());
    }

    /**
     * Waits until at least {@code n} messages were handled successfully.
     *
     * @param n the count
     * @return this recorder
     */
    public Recorder<T> awaitCount(int n) {
        await().atMost(timeout).until(() -> received.size() >= n);
        return this;
    }

    /**
     * Waits until at least {@code n} attempts were made.
     *
     * @param n the count
     * @return this recorder
     */
    public Recorder<T> awaitAttempts(int n) {
        await().atMost(timeout).until(() -> attempts.size() >= n);
        return this;
    }
}
