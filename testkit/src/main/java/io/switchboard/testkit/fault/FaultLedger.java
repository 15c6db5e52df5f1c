package io.switchboard.testkit.fault;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * The books of a fault test: what was published, what the broker acknowledged, what the handlers
 * saw. Thread-safe; record from publisher callbacks and handlers as they happen, then read
 * {@link #line()}, the one line every fault test prints and asserts on:
 *
 * <pre>{@code fault=<name> broker=<id> published=N acked=N consumed=N unique=N lost=L duplicates=D}</pre>
 *
 * <p>{@code published} counts publish calls, {@code acked} the ones the broker acknowledged,
 * {@code consumed} every handler call (redeliveries included), {@code unique} the distinct payloads
 * handled, {@code lost} the acknowledged payloads never handled, {@code duplicates} the handler calls
 * beyond the first per payload. A publish that failed was never accepted, so it cannot be lost; a
 * payload handled without an acknowledgement (the ack lost in the fault) is counted as consumed and
 * is not lost either.
 *
 * <p>It is also the history checker, in the spirit of Jepsen's queue checker: with keys
 * ({@link #track(String, String, Supplier)}, {@link #consumed(String, String)}) it counts
 * <em>reordered</em> deliveries (the first delivery of a payload that was published before a payload
 * of the same key already delivered), and for every payload <em>unexpected</em> ones (handled but never
 * published). {@link #stallMillis()} is the longest time between two acknowledgements, that is how
 * long publishing failed or stalled while a stream ran. {@link #line(int)} prints all of it:
 *
 * <pre>{@code fault=<name> broker=<id> nodes=N published=N acked=N consumed=N unique=N lost=L duplicates=D reordered=R unexpected=U stall_ms=S}</pre>
 */
public final class FaultLedger {

    private final String fault;
    private final String brokerId;
    private final LongAdder published = new LongAdder();
    private final Set<String> acked = ConcurrentHashMap.newKeySet();
    private final LongAdder failed = new LongAdder();
    /** Failed publishes by reason: the exception's class and message, digits masked. */
    private final Map<String, LongAdder> failureReasons = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> handled = new ConcurrentHashMap<>();
    private final LongAdder consumed = new LongAdder();
    /** Every payload published, with its publish order (one sequence for all keys). */
    private final Map<String, Long> publishOrder = new ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicLong sequence = new java.util.concurrent.atomic.AtomicLong();
    /** Per key: the highest publish order delivered so far. */
    private final Map<String, Long> deliveredUpTo = new ConcurrentHashMap<>();
    private final LongAdder reordered = new LongAdder();
    private final LongAdder unexpected = new LongAdder();
    private final Object ackClock = new Object();
    private long lastAckNanos;
    private long longestAckGapNanos;

    /**
     * Books for the fault {@code fault} (a short name such as {@code broker-restart}) on broker {@code brokerId}.
     *
     * @param fault the fault's short name
     * @param brokerId the adapter id
     */
    public FaultLedger(String fault, String brokerId) {
        this.fault = fault;
        this.brokerId = brokerId;
    }

    /**
     * A publish call was made for {@code payload}.
     *
     * @param payload the payload
     */
    public void published(String payload) {
        published.increment();
        publishOrder.putIfAbsent(payload, sequence.incrementAndGet());
    }

    /**
     * Like {@link #track(String, Supplier)}, for a payload published with {@code key}: the key's
     * payloads are expected to be delivered (first deliveries) in the order of these calls, as
     * {@link #consumed(String, String)} checks.
     *
     * @param key the key it is published with
     * @param payload the payload
     * @param publish makes the publish call
     * @return completes after the books, with the receipt or the failure
     */
    public CompletableFuture<Object> track(String key, String payload, Supplier<? extends CompletionStage<?>> publish) {
        return track(payload, publish);
    }

    /**
     * Publishes {@code payload} through {@code publish} and books it: published now, then acked or
     * failed when the publish completes (a publish call that throws is a failed publish). The returned
     * future completes after the books, with the receipt or with the failure (a
     * {@link CompletionException} unwrapped), so a caller can count more on top.
     *
     * @param payload the payload
     * @param publish makes the publish call
     * @return completes after the books, with the receipt or the failure
     */
    public CompletableFuture<Object> track(String payload, Supplier<? extends CompletionStage<?>> publish) {
        published(payload);
        CompletionStage<?> stage;
        try {
            stage = publish.get();
        } catch (RuntimeException e) {
            failed(payload);
            reason(e);
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<Object> booked = new CompletableFuture<>();
        stage.whenComplete((receipt, error) -> {
            if (error == null) {
                acked(payload);
                booked.complete(receipt);
            } else {
                Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
                failed(payload);
                reason(cause);
                booked.completeExceptionally(cause);
            }
        });
        return booked;
    }

    private void reason(Throwable error) {
        String message = String.valueOf(error.getMessage()).replaceAll("[0-9]+", "#");
        String reason = error.getClass().getSimpleName() + ": " + (message.length() > 160 ? message.substring(0, 160) + ".." : message);
        failureReasons.computeIfAbsent(reason, r -> new LongAdder()).increment();
    }

    /** {@return the most frequent reasons publishes failed, with their counts, most frequent first (at most three)} */
    public String failureReasons() {
        return failureReasons.entrySet().stream()
                .sorted((a, b) -> Long.compare(b.getValue().sum(), a.getValue().sum()))
                .limit(3).map(e -> e.getValue().sum() + " x " + e.getKey())
                .collect(java.util.stream.Collectors.joining("; "));
    }

    /**
     * The broker acknowledged {@code payload}.
     *
     * @param payload the payload
     */
    public void acked(String payload) {
        acked.add(payload);
        long now = System.nanoTime();
        synchronized (ackClock) {
            if (lastAckNanos != 0) {
                longestAckGapNanos = Math.max(longestAckGapNanos, now - lastAckNanos);
            }
            lastAckNanos = now;
        }
    }

    /**
     * The publish of a payload failed (never accepted).
     *
     * @param payload the payload
     */
    public void failed(String payload) {
        failed.increment();
    }

    /**
     * A handler saw {@code payload}.
     *
     * @param payload the payload
     */
    public void consumed(String payload) {
        consumed(null, payload);
    }

    /**
     * A handler saw {@code payload}, published with {@code key} (null: no order to check). A
     * payload never published counts as unexpected; the first delivery of a payload published
     * before one of the same key already delivered counts as reordered.
     *
     * @param key the key it was published with, or null
     * @param payload the payload
     */
    public void consumed(String key, String payload) {
        consumed.increment();
        int times = handled.computeIfAbsent(payload, p -> new AtomicInteger()).incrementAndGet();
        Long order = publishOrder.get(payload);
        if (order == null) {
            unexpected.increment();
            return;
        }
        if (key != null && times == 1) {
            deliveredUpTo.compute(key, (k, upTo) -> {
                if (upTo != null && order < upTo) {
                    reordered.increment();
                    return upTo;
                }
                return order;
            });
        }
    }

    /** {@return the publish calls made} */
    public long publishedCount() {
        return published.sum();
    }

    /** {@return payloads the broker acknowledged} */
    public int ackedCount() {
        return acked.size();
    }

    /** {@return the publishes that failed} */
    public long failedCount() {
        return failed.sum();
    }

    /** {@return distinct payloads handled} */
    public int uniqueCount() {
        return handled.size();
    }

    /** {@return the acknowledged payloads not handled (yet)} */
    public long lostCount() {
        return acked.stream().filter(p -> !handled.containsKey(p)).count();
    }

    /** {@return handler calls beyond the first per payload} */
    public long duplicateCount() {
        return consumed.sum() - handled.size();
    }

    /** {@return the first deliveries that came after a later-published payload of the same key} */
    public long reorderedCount() {
        return reordered.sum();
    }

    /** {@return handler calls for payloads never published} */
    public long unexpectedCount() {
        return unexpected.sum();
    }

    /** {@return the longest time between two acknowledgements, in milliseconds (0 before the second)} */
    public long stallMillis() {
        synchronized (ackClock) {
            return java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(longestAckGapNanos);
        }
    }

    /** {@return true when every acknowledged payload has been handled} */
    public boolean nothingLost() {
        return lostCount() == 0;
    }

    /**
     * {@return the figure line: {@code fault=.. broker=.. published=N acked=N consumed=N unique=N lost=L
     * duplicates=D}}
     */
    public String line() {
        return "fault=" + fault + " broker=" + brokerId + " published=" + publishedCount() + " acked=" + ackedCount()
                + " consumed=" + consumed.sum() + " unique=" + uniqueCount() + " lost=" + lostCount()
                + " duplicates=" + duplicateCount();
    }

    /**
     * {@return the history line of a cluster test: {@code fault=.. broker=.. nodes=N published=N acked=N consumed=N
     * unique=N lost=L duplicates=D reordered=R unexpected=U stall_ms=S}}
     *
     * @param nodes the cluster's nodes
     */
    public String line(int nodes) {
        return "fault=" + fault + " broker=" + brokerId + " nodes=" + nodes + " published=" + publishedCount() + " acked="
                + ackedCount() + " consumed=" + consumed.sum() + " unique=" + uniqueCount() + " lost=" + lostCount()
                + " duplicates=" + duplicateCount() + " reordered=" + reorderedCount() + " unexpected=" + unexpectedCount()
                + " stall_ms=" + stallMillis();
    }

    @Override
    public String toString() {
        return line() + " (failed publishes " + failedCount() + ")";
    }
}
