package io.switchboard.testkit.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.JdbcIdempotencyStore;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The exactly-once crash scenario, on any broker whose adapter is on the classpath: a
 * {@link ChildConsumer#startExactlyOnce exactly-once child} with a {@link JdbcIdempotencyStore} on
 * the local PostgreSQL handles a known keyed set (400 messages) into a {@link JdbcSink} output
 * table, each payload in the transaction that marks its id done; it is killed with {@code kill -9}
 * while a message's transaction is open (its id claimed, not done: {@link ChildConsumer#holdInTransaction}); a successor in the same group
 * finishes, waiting out the dead claim (BUSY) until the 3 s claim timeout lets it take it over.
 * The output table is counted into the figure line
 * {@code fault=consumer-killed-eos broker=<id> published=N acked=N consumed=N unique=N lost=L duplicates=D},
 * which {@link #run} prints and asserts on: lost 0, duplicates 0.
 */
public final class ExactlyOnceCrash {

    /** The local PostgreSQL (trust authentication, database {@code test}). */
    public static final String POSTGRES_URL = "jdbc:postgresql://127.0.0.1:5432/test";
    /** Messages published, over 20 keys ({@code k0..k19}); the child is killed after it committed 100 of them. */
    public static final int MESSAGES = 400;
    /**
     * Each message's transaction stays open this long in the child (so the kill lands inside one); a
     * killed child's claims block their ids for the claim timeout, which the successor waits out
     * (BUSY) before it takes them over; every wait of the test is bounded by the settle time.
     */
    private static final Duration HANDLE = Duration.ofMillis(20);
    private static final Duration CLAIM_TIMEOUT = Duration.ofSeconds(3);
    private static final Duration SETTLE = Duration.ofSeconds(90);

    private ExactlyOnceCrash() {}

    /**
     * Runs the scenario on {@code destination}, group {@code g}, and returns the figure line after
     * asserting on it. Tables and the child are cleaned up.
     *
     * @param brokerId the adapter id
     * @param childProperties the child's instance properties
     * @param successorProperties the successor's instance properties (in this JVM)
     * @param destination the destination
     * @param publisher publishes the set, at least once (made by the caller on its own Switchboard)
     * @param dir a scratch directory (the child's ready marker and log)
     * @return the figure line
     * @throws Exception any failure of the scenario; its assertions throw AssertionError
     */
    public static String run(String brokerId, Map<String, String> childProperties, Map<String, String> successorProperties,
            String destination, Publisher<String> publisher, Path dir) throws Exception {
        return run(brokerId, childProperties, successorProperties, destination, publisher, dir, () -> { });
    }

    /**
     * Like {@link #run(String, Map, Map, String, Publisher, Path)}, with a broker fault injected
     * right after the child is killed, before the successor starts (on a cluster: the destination's
     * leader killed too, so the successor takes over the dead claims on a changed cluster).
     *
     * @param brokerId the adapter id
     * @param childProperties the child's instance properties
     * @param successorProperties the successor's instance properties (in this JVM)
     * @param destination the destination
     * @param publisher publishes the set, at least once (made by the caller on its own Switchboard)
     * @param dir a scratch directory (the child's ready marker and log)
     * @param brokerFault injects the broker fault
     * @return the figure line
     * @throws Exception any failure of the scenario; its assertions throw AssertionError
     */
    public static String run(String brokerId, Map<String, String> childProperties, Map<String, String> successorProperties,
            String destination, Publisher<String> publisher, Path dir, Runnable brokerFault) throws Exception {
        FaultLedger ledger = new FaultLedger("consumer-killed-eos", brokerId);
        try (JdbcSink sink = JdbcSink.create(POSTGRES_URL, System.getProperty("user.name"), CLAIM_TIMEOUT)) {
            ChildConsumer child = ChildConsumer.startExactlyOnce(brokerId, childProperties, destination, "g",
                    dir.resolve("child"), HANDLE.toMillis(), sink);
            try {
                child.awaitReady(SETTLE);
                List<CompletableFuture<Object>> sent = new ArrayList<>();
                for (int i = 0; i < MESSAGES; i++) {
                    String payload = "p" + i;
                    String key = "k" + (i % 20);
                    sent.add(ledger.track(payload, () -> publisher.publish(Message.of(key, payload))));
                }
                await().atMost(SETTLE).until(() -> child.handledPayloads().size() >= MESSAGES / 4 || !child.isAlive());
                assertThat(child.isAlive()).as("child consumer still handling (output in " + child.logFile() + ")").isTrue();
                // killed mid-transaction: the message it handles is inserted, not committed, its id claimed and not done
                child.holdInTransaction(SETTLE);
                child.kill();
                brokerFault.run();
                int beforeKill = child.handledPayloads().size();
                long claimedAtKill = sink.idempotencyRows("C");
                assertThat(beforeKill).as("killed mid-stream, not after").isLessThan(MESSAGES);
                assertThat(claimedAtKill).as("ids the killed child left claimed, not done").isPositive();

                JdbcIdempotencyStore store = sink.store();
                try (Switchboard successor = Switchboard.builder().broker(brokerId).properties(successorProperties)
                        .idempotencyStore(store).build()) {
                    Subscription subscription = successor.subscriber(destination, Codec.utf8()).group("g")
                            .delivery(Delivery.EXACTLY_ONCE).subscribe(sink.handler(store, 0));
                    subscription.ready().toCompletableFuture().get(SETTLE.toSeconds(), TimeUnit.SECONDS);
                    CompletableFuture.allOf(sent.stream().map(f -> f.exceptionally(e -> null))
                            .toArray(CompletableFuture[]::new)).get(SETTLE.toSeconds(), TimeUnit.SECONDS);
                    try {
                        await().atMost(SETTLE).pollInterval(Duration.ofMillis(250))
                                .until(() -> new HashSet<>(sink.handledPayloads()).size() >= ledger.ackedCount());
                    } catch (ConditionTimeoutException e) {
                        // reported through the figure line and the assertions below
                    }
                } // closing drains what the successor has in flight: a late duplicate would land in the table now
                sink.handledPayloads().forEach(ledger::consumed);
                String line = ledger.line();
                System.out.println(line);
                System.out.println("consumer-killed-eos: the child committed " + beforeKill + " and left " + claimedAtKill
                        + " claim(s) open when killed; now " + sink.idempotencyRows("D") + " ids done, "
                        + sink.idempotencyRows("C") + " claimed");
                assertThat(line).matches("fault=consumer-killed-eos broker=" + brokerId + " published=" + MESSAGES
                        + " acked=" + MESSAGES + " consumed=\\d+ unique=\\d+ lost=\\d+ duplicates=\\d+");
                assertThat(ledger.failedCount()).as("failed publishes").isZero();
                assertThat(line).as(ledger.toString()).endsWith(" lost=0 duplicates=0");
                assertThat(sink.idempotencyRows("D")).as("ids done").isEqualTo(MESSAGES);
                return line;
            } finally {
                child.kill();
            }
        }
    }
}
