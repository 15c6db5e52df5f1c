package io.switchboard.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Delivery;
import io.switchboard.Envelope;
import io.switchboard.Message;
import io.switchboard.Poller;
import io.switchboard.Poller.Polled;
import io.switchboard.Publisher;
import io.switchboard.RetryPolicy;
import io.switchboard.SubscriberBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The contract's "Pull consumer" cases ({@link SubscriberBuilder#poller()}): polled messages come in order and stay
 * acknowledged, a nacked one comes back with its next attempt and is dead-lettered when its attempts are spent, one
 * left unsettled past the handler timeout comes back, one unsettled at close comes back to the next poller, and an
 * empty poll returns at its timeout; {@link BrokerContract} runs them as a nested group. Each case has two minutes at
 * most.
 */
@Timeout(120)
abstract class PollerCases extends ContractCases {

    private static final RetryPolicy THREE = RetryPolicy.fixed(3, Duration.ofMillis(20));

    PollerCases(ContractSupport contract) {
        super(contract);
    }

    @Test
    @DisplayName("30 messages of one key are polled in order, at most 10 a poll, and acknowledged ones do not come again")
    void pollInOrder() {
        String dest = destination();
        try (Poller<String> poller = poller(dest, b -> b.group("g"))) {
            publish(dest, 30, "k");
            List<String> got = new ArrayList<>();
            long deadline = System.nanoTime() + timeout().toNanos();
            while (got.size() < 30 && System.nanoTime() < deadline) {
                // tag::poll[]
                List<Polled<String>> polled = poller.poll(10, Duration.ofMillis(500));   // at most 10, waiting 0.5 s
                for (Polled<String> p : polled) {
                    got.add(p.message().payload());
                    p.ack();                                   // or p.nack(error): retried, then dead-lettered
                }
                // end::poll[]
                assertThat(polled.size()).as("messages in one poll").isLessThanOrEqualTo(10);
            }
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                expected.add("m" + i);
            }
            assertThat(got).containsExactlyElementsOf(expected);
            assertThat(poller.poll(10, Duration.ofMillis(700))).as("a poll after every message was acknowledged").isEmpty();
        }
    }

    @Test
    @DisplayName("a nacked message comes back with its next attempt, then is dead-lettered when its attempts are spent")
    void nackRetriedThenDeadLettered() {
        String dest = destination();
        Recorder<String> dead = deadLetterReader(dest, TEXT);
        try (Poller<String> poller = poller(dest, b -> b.group("g").retry(THREE))) {
            Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
            join(pub.publish(keyed("k", "bad")));
            join(pub.publish(keyed("j", "good")));
            List<Integer> badAttempts = new ArrayList<>();
            List<String> good = new ArrayList<>();
            long deadline = System.nanoTime() + timeout().toNanos();
            while ((badAttempts.size() < 3 || good.isEmpty()) && System.nanoTime() < deadline) {
                for (Polled<String> p : poller.poll(10, Duration.ofMillis(500))) {
                    if (p.message().payload().equals("bad")) {
                        badAttempts.add(p.context().attempt());
                        p.nack(new IllegalStateException("cannot process " + p.message().payload()));
                    } else {
                        good.add(p.message().payload());
                        p.ack();
                    }
                }
            }
            assertThat(badAttempts).containsExactly(1, 2, 3);
            assertThat(good).containsExactly("good");
            Message<String> deadLetter = dead.awaitCount(1).received().get(0).message();
            assertThat(deadLetter.payload()).isEqualTo("bad");
            assertThat(deadLetter.headers()).containsEntry(Envelope.DEAD_LETTER_REASON, "handler-failed")
                    .containsEntry(Envelope.DEAD_LETTER_ATTEMPTS, "3");
        }
    }

    @Test
    @DisplayName("a polled message left unsettled past the handler timeout comes back with its next attempt")
    void unsettledComesBack() {
        String dest = destination();
        try (Poller<String> poller = poller(dest, b -> b.group("g").retry(THREE).handlerTimeout(Duration.ofMillis(500)))) {
            join(publisher(dest, TEXT, Delivery.AT_LEAST_ONCE).publish("forgotten"));
            Polled<String> first = awaitOne(poller);
            assertThat(first.context().attempt()).isEqualTo(1); // and never settled
            Polled<String> again = awaitOne(poller);
            assertThat(again.message().payload()).isEqualTo("forgotten");
            assertThat(again.context().attempt()).isEqualTo(2);
            again.ack();
            first.ack(); // too late: ignored
            assertThat(poller.poll(10, Duration.ofMillis(700))).isEmpty();
        }
    }

    @Test
    @DisplayName("a message unsettled when its poller closes comes to the group's next poller")
    void unsettledAtCloseComesToTheNext() {
        String dest = destination();
        Poller<String> first = poller(dest, b -> b.group("g"));
        join(publisher(dest, TEXT, Delivery.AT_LEAST_ONCE).publish("in-hand"));
        assertThat(awaitOne(first).message().payload()).isEqualTo("in-hand");
        first.close();
        try (Poller<String> next = poller(dest, b -> b.group("g"))) {
            Polled<String> again = awaitOne(next);
            assertThat(again.message().payload()).isEqualTo("in-hand");
            again.ack();
        }
    }

    @Test
    @DisplayName("a poll with nothing to give returns an empty list at its timeout")
    void emptyPoll() {
        try (Poller<String> poller = poller(destination(), b -> b.group("g"))) {
            long start = System.nanoTime();
            assertThat(poller.poll(5, Duration.ofMillis(300))).isEmpty();
            assertThat(System.nanoTime() - start).as("waited for the timeout").isGreaterThanOrEqualTo(250_000_000L);
        }
    }

    private Polled<String> awaitOne(Poller<String> poller) {
        List<Polled<String>> got = new ArrayList<>();
        await().atMost(timeout()).until(() -> {
            got.addAll(poller.poll(1, Duration.ofMillis(200)));
            return !got.isEmpty();
        });
        return got.get(0);
    }

    private void publish(String destination, int n, String key) {
        Publisher<String> pub = publisher(destination, TEXT, Delivery.AT_LEAST_ONCE);
        for (int i = 0; i < n; i++) { // one at a time: their order is the order they were acknowledged in
            join(pub.publish(keyed(key, "m" + i)));
        }
    }

    /** A poller of text messages, its subscription ready. */
    private Poller<String> poller(String destination, UnaryOperator<SubscriberBuilder<String>> settings) {
        Poller<String> poller = settings.apply(switchboard().subscriber(destination, TEXT)).poller();
        join(poller.subscription().ready());
        return poller;
    }
}
