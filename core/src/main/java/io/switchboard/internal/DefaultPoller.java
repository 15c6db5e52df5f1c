package io.switchboard.internal;

import io.switchboard.Batch;
import io.switchboard.BatchHandler;
import io.switchboard.ConfigurationException;
import io.switchboard.DeliveryContext;
import io.switchboard.Message;
import io.switchboard.Poller;
import io.switchboard.Subscription;
import io.switchboard.SwitchboardClosedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The pull consumer over a batch subscription: each lane's batch is put in the ready queue for {@link #poll}, and the
 * lane waits (at most the handler timeout) until every message of it was settled; what was not settled by then counts
 * as failed, and what was never handed out goes back with it.
 */
public final class DefaultPoller<T> implements Poller<T>, BatchHandler<T> {

    private final LinkedBlockingQueue<Item<T>> ready = new LinkedBlockingQueue<>();
    /** The batches whose lanes wait for their settlement, released at once by {@link #close()}. */
    private final java.util.Set<List<Item<T>>> waiting = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final long timeoutNanos;
    private final String destination;
    private volatile Subscription subscription;
    private volatile boolean closed;

    /**
     * A poller whose handed-out messages must be settled within {@code handlerTimeout}.
     *
     * @param destination the destination, for messages
     * @param handlerTimeout how long a batch's messages may stay unsettled
     */
    public DefaultPoller(String destination, Duration handlerTimeout) {
        this.destination = destination;
        this.timeoutNanos = handlerTimeout.toNanos();
    }

    /** Attaches the subscription that feeds this poller. */
    public void attach(Subscription subscription) {
        this.subscription = subscription;
    }

    @Override
    public void handle(Batch<T> batch) throws Exception {
        CountDownLatch unsettled = new CountDownLatch(batch.size());
        List<Item<T>> items = new ArrayList<>(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            items.add(new Item<>(batch, i, unsettled));
        }
        waiting.add(items);
        try {
            if (!closed) {
                ready.addAll(items);
                if (unsettled.await(timeoutNanos, TimeUnit.NANOSECONDS) && !closed) {
                    return;
                }
            }
            expire(items, closed ? "the poller closed before it was settled" : "it was polled (or ready to be) and not "
                    + "acked or nacked within " + Duration.ofNanos(timeoutNanos) + "; settle each polled message, or raise "
                    + "the subscription's handlerTimeout");
        } finally {
            waiting.remove(items);
        }
    }

    /** Fails the batch's messages not settled yet, and takes those not handed out back from the ready queue. */
    private void expire(List<Item<T>> items, String why) {
        for (Item<T> item : items) {
            ready.remove(item);
            item.expire(new TimeoutException("Message " + item.message().id() + " of '" + destination + "' failed: " + why));
        }
    }

    @Override
    public List<Polled<T>> poll(int max, Duration timeout) {
        if (max < 1) {
            throw new ConfigurationException("poll(max, timeout): max must be at least 1 but was " + max);
        }
        Objects.requireNonNull(timeout, "timeout");
        if (closed) {
            throw new SwitchboardClosedException("The poller of '" + destination + "' is closed; make a new one with "
                    + "SubscriberBuilder.poller()");
        }
        List<Polled<T>> out = new ArrayList<>(Math.min(max, 1024));
        try {
            Item<T> first = ready.poll(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
            if (first == null) {
                return out;
            }
            out.add(first);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return out;
        }
        while (out.size() < max) {
            Item<T> next = ready.poll();
            if (next == null) {
                break;
            }
            out.add(next);
        }
        return out;
    }

    @Override
    public Subscription subscription() {
        return subscription;
    }

    @Override
    public void close() {
        closed = true;
        for (List<Item<T>> items : waiting) { // the lanes waiting on them return now, not at the handler timeout
            items.forEach(Item::release);
        }
        Subscription s = subscription;
        if (s != null) {
            s.close();
        }
    }

    @Override
    public String toString() {
        return "Poller[" + destination + ", " + ready.size() + " ready]";
    }

    /** One message of a lane's batch, handed out once and settled once. */
    private static final class Item<T> implements Polled<T> {
        private final Batch<T> batch;
        private final int index;
        private final CountDownLatch unsettled;
        private final AtomicBoolean settled = new AtomicBoolean();

        Item(Batch<T> batch, int index, CountDownLatch unsettled) {
            this.batch = batch;
            this.index = index;
            this.unsettled = unsettled;
        }

        @Override
        public Message<T> message() {
            return batch.messages().get(index);
        }

        @Override
        public DeliveryContext context() {
            return batch.context(index);
        }

        @Override
        public void ack() {
            if (settled.compareAndSet(false, true)) {
                unsettled.countDown();
            }
        }

        @Override
        public void nack(Throwable error) {
            Objects.requireNonNull(error, "error");
            if (settled.compareAndSet(false, true)) {
                batch.fail(index, error);
                unsettled.countDown();
            }
        }

        /** Wakes the lane waiting on this message's batch, settling nothing (the poller is closing). */
        void release() {
            unsettled.countDown();
        }

        /** Fails the message when it was not settled in time (the batch handler is returning). */
        void expire(Throwable error) {
            if (settled.compareAndSet(false, true)) {
                batch.fail(index, error);
            }
        }
    }
}
