package io.switchboard.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.testkit.fault.FaultLedger;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.awaitility.core.ConditionTimeoutException;

/**
 * One keyed stream published at-least-once through a fault ({@link KafkaFaultTest}): it subscribes,
 * publishes {@link #MESSAGES} messages at {@link #RATE} per second, injects the fault a third of the
 * way, heals it, and keeps what it saw around the fault: the {@link FaultLedger} and figures on
 * publishes and acknowledgements before, during and after it, with the checks on them.
 */
final class FaultStream {

    static final int MESSAGES = 2_000;
    static final int KEYS = 25;
    static final int PARTITIONS = 3;
    /** The stream takes about {@code MESSAGES / RATE} seconds. */
    static final int RATE = 250;
    static final Duration SETTLE = Duration.ofSeconds(60);


    final FaultLedger ledger;
    final Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
    final AtomicInteger ackedBeforeFault = new AtomicInteger();
    final AtomicInteger ackedDuringFault = new AtomicInteger();
    final AtomicInteger ackedAfterRestore = new AtomicInteger();
    final AtomicLong longestCallNanos = new AtomicLong();
    final AtomicLong quickestAckDuringFault = new AtomicLong(Long.MAX_VALUE);
    final AtomicInteger callsInProgress = new AtomicInteger();
    volatile boolean faultStarted;
    volatile boolean faultInjected;
    volatile boolean healing;
    volatile boolean restored;
    long publishedBeforeFault;
    long publishedDuringFault;
    boolean callHeldAtHeal;
    long publishedAfterRestore;
    CircuitBreaker.State breakerStateAtEnd;

    FaultStream(FaultLedger ledger) {
        this.ledger = ledger;
    }

    /** Prints the figure line, and what happened around the fault. */
    void print() {
        System.out.println(ledger.line());
        System.out.println("  failed publishes: " + ledger.failedCount() + " " + errors.stream()
                .collect(Collectors.groupingBy(e -> e.getClass().getSimpleName(), TreeMap::new, Collectors.counting()))
                + ", first error: " + errors.stream().findFirst().map(Throwable::toString).orElse("none")
                + "; publish calls during the fault: "
                + publishedDuringFault + (callHeldAtHeal ? " (one held up when the fault ended)" : "")
                + ", longest publish call: " + TimeUnit.NANOSECONDS.toMillis(longestCallNanos.get()) + " ms"
                + (ackedDuringFault.get() > 0 ? "; " + ackedDuringFault + " made and acknowledged during the fault, "
                        + "the quickest in " + TimeUnit.NANOSECONDS.toMillis(quickestAckDuringFault.get()) + " ms" : ""));
    }

    /** The fault stopped the traffic, and nothing acknowledged was lost. */
    void assertSurvived() {
        String line = ledger.line();
        // once the clients lose the broker (stopped, or after a cut) the producer drops the topic's metadata and
        // its send() waits for it (up to max.block.ms): publishing goes on as calls made or as one call held up
        assertThat(publishedDuringFault > 0 || callHeldAtHeal)
                .as("publish calls made during the fault, or one held up until its end: " + line)
                .isTrue();
        assertThat(ackedDuringFault.get())
                .as("publishes made during the fault and acknowledged before it ended (the fault must be real): " + line)
                .isZero();
        assertNothingLost();
    }

    /** Every publish completed, some on each side of the fault, and every acknowledged one was consumed. */
    void assertNothingLost() {
        String line = ledger.line();
        assertThat(line).matches("fault=\\S+ broker=kafka published=\\d+ acked=\\d+ consumed=\\d+ unique=\\d+ "
                + "lost=\\d+ duplicates=\\d+");
        assertThat(ledger.publishedCount()).as(line).isGreaterThanOrEqualTo(MESSAGES);
        assertThat(ledger.ackedCount()).as(line).isPositive();
        assertThat(ledger.ackedCount() + ledger.failedCount())
                .as("every publish completed, acknowledged or failed: " + line)
                .isEqualTo(ledger.publishedCount());
        assertThat(publishedBeforeFault).as("published before the fault: " + line).isPositive();
        assertThat(ackedBeforeFault.get()).as("acknowledged before the fault: " + line).isPositive();
        assertThat(publishedAfterRestore).as("published after the fault: " + line).isPositive();
        assertThat(ackedAfterRestore.get()).as("published after the fault and acknowledged: " + line).isPositive();
        assertThat(ledger.lostCount()).as(line).isZero();
        assertThat(line).contains(" lost=0 ");
    }

    /**
     * Subscribes, publishes {@link #MESSAGES} keyed messages at {@link #RATE} per second, runs
     * {@code inject} once a third is published, {@code heal} {@code outage} later, and waits until
     * every publish completed and every acknowledged message was consumed (or {@link #SETTLE} passed).
     */
    static FaultStream run(FaultLedger ledger, String bootstrap, Map<String, String> extra, Duration outage,
            Runnable inject, Runnable heal) throws Exception {
        FaultStream stream = new FaultStream(ledger);
        String topic = "fault-" + UUID.randomUUID().toString().substring(0, 8);
        // a thread of its own: the paced loop must not hold a worker of the small common pool
        ExecutorService publishingThread = Executors.newSingleThreadExecutor(r -> new Thread(r, "fault-publisher"));
        try (Switchboard sb = switchboard(bootstrap, extra)) {
            sb.provisioning().ensureDestination(DestinationSpec.of(topic, PARTITIONS));
            try (Subscription subscription = sb.subscriber(topic, Codec.utf8()).group("g-" + topic)
                    .delivery(Delivery.AT_LEAST_ONCE)
                    .subscribe((message, context) -> ledger.consumed(message.payload()));
                    Publisher<String> publisher = sb.publisher(topic, Codec.utf8()).delivery(Delivery.AT_LEAST_ONCE)
                            .build()) {
                subscription.ready().toCompletableFuture().get(SETTLE.toSeconds(), TimeUnit.SECONDS);
                // the producer fetches the topic's metadata on its first send
                awaitQuietly(() -> probe(publisher, topic, stream));
                CompletableFuture<Void> publishing = CompletableFuture.runAsync(() -> publishAll(publisher, stream),
                        publishingThread);

                await().atMost(SETTLE).until(() -> ledger.publishedCount() >= MESSAGES / 3 || publishing.isDone());
                stream.publishedBeforeFault = ledger.publishedCount();
                stream.faultStarted = true;
                inject.run();
                long publishedAtInjection = ledger.publishedCount();
                stream.faultInjected = true;
                pause(outage);
                stream.healing = true;
                stream.publishedDuringFault = ledger.publishedCount() - publishedAtInjection;
                stream.callHeldAtHeal = stream.callsInProgress.get() > 0;
                heal.run();
                long publishedAtRestore = ledger.publishedCount();
                stream.restored = true;

                publishing.get(SETTLE.toSeconds(), TimeUnit.SECONDS);
                stream.publishedAfterRestore = ledger.publishedCount() - publishedAtRestore;
                CircuitBreaker breaker = sb.circuitBreakers().getAllCircuitBreakers().stream().findFirst().orElse(null);
                if (breaker != null) {
                    // the breaker closes by itself once publishes succeed again; probe until it has
                    awaitQuietly(() -> probe(publisher, topic, stream) && breaker.getState() == CircuitBreaker.State.CLOSED);
                    stream.breakerStateAtEnd = breaker.getState();
                }
                awaitQuietly(() -> ledger.ackedCount() + ledger.failedCount() == ledger.publishedCount());
                awaitQuietly(ledger::nothingLost);
            }
        } finally {
            publishingThread.shutdownNow();
        }
        stream.print();
        return stream;
    }

    /** Publishes the stream, paced; each outcome goes to the ledger. Runs on its own thread. */
    private static void publishAll(Publisher<String> publisher, FaultStream stream) {
        long start = System.nanoTime();
        long interval = TimeUnit.SECONDS.toNanos(1) / RATE;
        for (int i = 0; i < MESSAGES; i++) {
            publish(publisher, "k-" + (i % KEYS), "m-" + i, stream);
            LockSupport.parkNanos(start + (i + 1) * interval - System.nanoTime());
        }
    }

    private static CompletableFuture<?> publish(Publisher<String> publisher, String key, String payload, FaultStream stream) {
        FaultLedger ledger = stream.ledger;
        boolean beforeFault = !stream.faultStarted;
        boolean duringFault = stream.faultInjected && !stream.healing;
        boolean afterRestore = stream.restored;
        long started = System.nanoTime();
        return ledger.track(payload, () -> {
            long called = System.nanoTime();
            stream.callsInProgress.incrementAndGet();
            try {
                return publisher.publish(Message.of(key, payload));
            } finally {
                stream.callsInProgress.decrementAndGet();
                stream.longestCallNanos.accumulateAndGet(System.nanoTime() - called, Math::max);
            }
        }).whenComplete((receipt, error) -> {
            if (error == null) {
                if (beforeFault) {
                    stream.ackedBeforeFault.incrementAndGet();
                }
                if (duringFault && !stream.healing) {
                    stream.ackedDuringFault.incrementAndGet();
                    stream.quickestAckDuringFault.accumulateAndGet(System.nanoTime() - started, Math::min);
                }
                if (afterRestore) {
                    stream.ackedAfterRestore.incrementAndGet();
                }
            } else {
                stream.errors.add(error);
            }
        });
    }

    /** Publishes one more message after the stream and tells whether it was acknowledged within a few seconds. */
    private static boolean probe(Publisher<String> publisher, String topic, FaultStream stream) {
        String payload = "probe-" + topic + "-" + stream.ledger.publishedCount();
        try {
            publish(publisher, "k-probe", payload, stream).get(3, TimeUnit.SECONDS);
            return true;
        } catch (ExecutionException | TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Waits up to {@link #SETTLE} for the condition; the assertions afterwards say what was missing. */
    static void awaitQuietly(BooleanSupplier condition) {
        try {
            await().atMost(SETTLE).pollInterval(Duration.ofMillis(100)).until(condition::getAsBoolean);
        } catch (ConditionTimeoutException e) {
            // asserted below, with the ledger's figures
        }
    }

    static Switchboard switchboard(String bootstrap, Map<String, String> extra) {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("kafka.bootstrap.servers", bootstrap);
        // small client time-outs, so that a silent (half-open) connection is given up and reopened in bounded time
        properties.put("kafka.request.timeout.ms", "3000");
        properties.put("kafka.delivery.timeout.ms", "30000");
        properties.put("kafka.reconnect.backoff.max.ms", "500");
        properties.put("kafka.retry.backoff.max.ms", "500");
        properties.putAll(extra);
        return Switchboard.builder().broker("kafka").properties(properties).build();
    }

    /** Waits {@code duration} (the fault's length), parking the thread. */
    private static void pause(Duration duration) {
        long deadline = System.nanoTime() + duration.toNanos();
        for (long left = duration.toNanos(); left > 0; left = deadline - System.nanoTime()) {
            LockSupport.parkNanos(left);
            if (Thread.currentThread().isInterrupted()) {
                throw new IllegalStateException("Interrupted during the fault");
            }
        }
    }
}
