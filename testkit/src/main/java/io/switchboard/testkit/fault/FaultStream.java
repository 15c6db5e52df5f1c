package io.switchboard.testkit.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.awaitility.core.ConditionTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A keyed at-least-once stream published and consumed through Switchboard while a fault hits a
 * cluster, booked in a {@link FaultLedger}: the shared body of the cluster fault tests. It
 * publishes payloads {@code k-<key>:<seq>} over {@value #KEYS} keys at {@value #RATE} msg/s with one
 * consumer of group {@code g}; after 3 s of acknowledged traffic it injects the fault, goes on for
 * 3 s more after it, stops publishing and waits (up to 90 s) until everything acknowledged was
 * consumed. Each run prints its history line ({@code fault=.. broker=.. nodes=.. published=..
 * lost=.. reordered=.. stall_ms=..}), where {@code stall_ms} is the longest time between two
 * acknowledgements: how long publishing stalled.
 */
public final class FaultStream {

    /** Messages per second published. */
    public static final int RATE = 200;
    /** Keys the payloads are spread over. */
    public static final int KEYS = 30;
    private static final Logger log = LoggerFactory.getLogger(FaultStream.class);
    private static final Duration SETTLE = Duration.ofSeconds(90);

    /** A fault injected while the stream runs, on its destination. */
    public interface Fault {
        /**
         * @param destination the stream's destination
         * @param switchboard the Switchboard publishing and consuming, to add subscribers to
         * @param ledger the stream's ledger, for {@link FaultStream#subscribe} and {@link FaultStream#holdUnderTraffic}
         */
        void inject(String destination, Switchboard switchboard, FaultLedger ledger);
    }

    private final String broker;
    private final int nodes;
    private final Map<String, String> properties;

    /**
     * @param broker the adapter id
     * @param nodes the cluster's node count, for the history line
     * @param properties the Switchboard properties that reach the cluster
     */
    public FaultStream(String broker, int nodes, Map<String, String> properties) {
        this.broker = broker;
        this.nodes = nodes;
        this.properties = new LinkedHashMap<>(properties);
    }

    /**
     * Runs the stream with {@code fault} injected, and returns its ledger once it settled.
     *
     * @param fault the fault's short name, for the ledger
     * @param inject injects the fault while the stream runs
     * @return the ledger
     */
    public FaultLedger run(String fault, Fault inject) {
        String destination = "cl-" + fault + "-" + UUID.randomUUID().toString().substring(0, 8);
        FaultLedger ledger = new FaultLedger(fault, broker);
        AtomicBoolean publishing = new AtomicBoolean(true);
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try (Switchboard sb = Switchboard.builder().broker(broker).properties(properties).build();
                Subscription consumer = subscribe(sb, destination, ledger)) {
            Publisher<String> publisher = sb.publisher(destination, Codec.utf8()).delivery(Delivery.AT_LEAST_ONCE).build();
            thread.execute(() -> {
                long start = System.nanoTime();
                long interval = TimeUnit.SECONDS.toNanos(1) / RATE;
                for (int i = 0; publishing.get(); i++) {
                    String key = "k-" + (i % KEYS);
                    String payload = key + ":" + i;
                    ledger.track(key, payload, () -> publisher.publish(Message.of(key, payload)));
                    LockSupport.parkNanos(start + (i + 1) * interval - System.nanoTime());
                }
            });
            holdUnderTraffic(ledger, 3);
            inject.inject(destination, sb, ledger);
            holdUnderTraffic(ledger, 3);
            publishing.set(false);
            awaitQuietly(() -> ledger.ackedCount() + ledger.failedCount() == ledger.publishedCount());
            awaitQuietly(ledger::nothingLost);
        } finally {
            publishing.set(false);
            thread.shutdownNow();
        }
        String line = ledger.line(nodes);
        log.warn(line);
        System.out.println(line + " (failed publishes " + ledger.failedCount()
                + (ledger.failedCount() == 0 ? ")" : ": " + ledger.failureReasons() + ")"));
        return ledger;
    }

    /**
     * {@return a consumer of group {@code g} on {@code destination} that books into {@code ledger}}
     *
     * @param sb the Switchboard to subscribe on
     * @param destination the destination
     * @param ledger books each delivery
     */
    public Subscription subscribe(Switchboard sb, String destination, FaultLedger ledger) {
        return sb.subscriber(destination, Codec.utf8()).group("g").delivery(Delivery.AT_LEAST_ONCE)
                .subscribe((message, context) -> ledger.consumed(message.key(), message.payload()));
    }

    /**
     * Asserts the history: enough acknowledged, nothing acknowledged lost, per-key order of what
     * was delivered, nothing consumed that was never published.
     *
     * @param ledger the books of the run
     */
    public void assertHistory(FaultLedger ledger) {
        assertThat(ledger.ackedCount()).as(ledger.line(nodes)).isGreaterThan(RATE * 4);
        assertThat(ledger.lostCount()).as("acknowledged but never consumed: " + ledger.line(nodes)).isZero();
        assertThat(ledger.reorderedCount()).as("per-key order of what was delivered: " + ledger.line(nodes)).isZero();
        assertThat(ledger.unexpectedCount()).as("consumed but never published: " + ledger.line(nodes)).isZero();
    }

    /**
     * Lets the stream run until {@code seconds} seconds' worth of messages more were acknowledged, or 90 s passed.
     *
     * @param ledger the books of the run
     * @param seconds seconds' worth of messages
     */
    public void holdUnderTraffic(FaultLedger ledger, int seconds) {
        int target = ledger.ackedCount() + RATE * seconds;
        awaitQuietly(() -> ledger.ackedCount() >= target);
    }

    /**
     * Holds a fault for {@code duration}: the fault's length, not a wait for a condition.
     *
     * @param duration the fault's length
     */
    public static void hold(Duration duration) {
        long end = System.nanoTime() + duration.toNanos();
        while (System.nanoTime() < end) {
            LockSupport.parkNanos(end - System.nanoTime());
        }
    }

    private static void awaitQuietly(BooleanSupplier condition) {
        try {
            await().atMost(SETTLE).pollInterval(Duration.ofMillis(100)).until(condition::getAsBoolean);
        } catch (ConditionTimeoutException e) {
            // the assertions say what is missing, with the ledger's figures
        }
    }
}
