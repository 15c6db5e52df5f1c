package io.switchboard.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.switchboard.Delivery;
import io.switchboard.Envelope;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.RetryPolicy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The contract's "Broker-side retry" cases ({@link RetryPolicy#viaBroker}); {@link BrokerContract} runs them as a
 * nested group. Each prints {@code capability=retry broker=<id> sent=N received=N early=N late_p99_ms=N lost=N}, where
 * "early" is an attempt made less than the policy's wait after the one before failed.
 */
abstract class RetryCases extends ContractCases {

    private static final long WAIT_MS = 1000;
    private static final RetryPolicy VIA_BROKER = RetryPolicy.fixed(3, Duration.ofMillis(WAIT_MS)).viaBroker(Duration.ofMillis(WAIT_MS));

    RetryCases(ContractSupport contract) {
        super(contract);
    }

    @BeforeEach
    void needsDelayedDelivery() {
        assumeTrue(capabilities().delayedDelivery(), "broker '" + brokerId() + "' does not declare delayed delivery");
    }

    @Test
    @DisplayName("a failed message waits in the broker, not in the lane: later ones of its key go on, it succeeds at attempt 3")
    void retriedThroughTheBroker() {
        String dest = destination();
        List<String> handled = new CopyOnWriteArrayList<>();
        Map<Integer, Long> badAttempts = new ConcurrentHashMap<>();
        subscribe(switchboard(), dest, TEXT, s -> s.group("g").delivery(Delivery.AT_LEAST_ONCE).retry(VIA_BROKER), (m, c) -> {
            if (m.payload().equals("bad")) {
                badAttempts.putIfAbsent(c.attempt(), System.currentTimeMillis());
                if (c.attempt() < 3) {
                    throw new IllegalStateException("planned failure at attempt " + c.attempt());
                }
            }
            handled.add(m.payload());
        });
        Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
        join(pub.publish(Message.builder("bad").key("k").build()));
        for (int i = 0; i < 3; i++) {
            join(pub.publish(Message.builder("good-" + i).key("k").build()));
        }
        await("'bad' handled at its third attempt").atMost(timeout()).until(() -> handled.contains("bad"));
        assertThat(badAttempts).containsOnlyKeys(1, 2, 3);
        assertThat(handled.subList(0, 3)).as("the lane went on while 'bad' waited in the broker")
                .containsExactly("good-0", "good-1", "good-2");
        long early = 0;
        long[] late = new long[2];
        for (int a = 2; a <= 3; a++) {
            long gap = badAttempts.get(a) - badAttempts.get(a - 1);
            early += gap < WAIT_MS - DelayedCases.CLOCK_TOLERANCE_MS ? 1 : 0;
            late[a - 2] = gap - WAIT_MS;
        }
        System.out.printf("capability=retry broker=%s sent=4 received=%d early=%d late_p99_ms=%d lost=%d%n", brokerId(),
                handled.size(), early, Math.max(late[0], late[1]), 4 - handled.size());
        assertThat(early).as("retries made before their wait").isZero();
    }

    @Test
    @DisplayName("a message failing every attempt is dead-lettered after the last, with its attempts")
    void deadLetteredAfterTheLastAttempt() {
        String dest = destination();
        Recorder<String> dead = deadLetterReader(dest, TEXT);
        subscribe(switchboard(), dest, TEXT, s -> s.group("g").delivery(Delivery.AT_LEAST_ONCE).retry(VIA_BROKER), (m, c) -> {
            throw new IllegalStateException("always fails");
        });
        join(publisher(dest, TEXT, Delivery.AT_LEAST_ONCE).publish(Message.builder("poison").key("k").build()));
        dead.awaitCount(1);
        assertThat(dead.received().get(0).message().headers()).containsEntry(Envelope.DEAD_LETTER_ATTEMPTS, "3");
    }
}
