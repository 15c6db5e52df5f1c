package io.switchboard.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.switchboard.Delivery;
import io.switchboard.Message;
import io.switchboard.MessageHandler;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The contract's "Delayed delivery" cases; {@link BrokerContract} runs them as a nested group. Each prints
 * {@code capability=delay broker=<id> sent=N received=N early=N late_p99_ms=N lost=N}; "early" is a message handled
 * before its due time (less a clock tolerance of {@value #CLOCK_TOLERANCE_MS} ms), which no case allows.
 */
abstract class DelayedCases extends ContractCases {

    /** Time stamps of publisher, broker and handler come from clocks that may differ by this much. */
    static final long CLOCK_TOLERANCE_MS = 5;

    DelayedCases(ContractSupport contract) {
        super(contract);
    }

    @BeforeEach
    void needsDelayedDelivery() {
        assumeTrue(capabilities().delayedDelivery(), "broker '" + brokerId() + "' does not declare delayed delivery");
    }

    @Test
    @DisplayName("mixed delays: each arrives no earlier than asked, and a short delay is not held behind a long one")
    void mixedDelays() {
        Arrivals arrivals = new Arrivals();
        Publisher<String> pub = subscribedPublisher(arrivals);
        long[] delays = {3000, 500, 2000, 1000, 2500, 1500};
        List<String> sent = new ArrayList<>();
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < delays.length; i++) {
                String payload = "d" + delays[i] + "-" + round;
                long due = System.currentTimeMillis() + delays[i];
                Message.Builder<String> m = Message.builder(payload).key("k" + (i % 3));
                // half by delay, half by instant: both must mean the same
                join(pub.publish((round == 0 ? m.delay(Duration.ofMillis(delays[i])) : m.deliverAt(Instant.ofEpochMilli(due))).build()));
                arrivals.due(payload, due);
                sent.add(payload);
            }
        }
        arrivals.awaitAll(sent, timeout());
        arrivals.report(brokerId(), sent);
        assertThat(arrivals.early()).as("messages handled before their due time").isEmpty();
        assertThat(arrivals.at("d500-0")).as("the 500 ms message, published after the 3 s one, arrives first")
                .isLessThan(arrivals.at("d3000-0"));
    }

    @Test
    @DisplayName("an instant already past means now; an undelayed message is not held behind a delayed one of its key")
    void pastInstantAndUndelayed() {
        Arrivals arrivals = new Arrivals();
        Publisher<String> pub = subscribedPublisher(arrivals);
        long due = System.currentTimeMillis() + 2000;
        join(pub.publish(Message.builder("later").key("k").delay(Duration.ofMillis(2000)).build()));
        arrivals.due("later", due);
        join(pub.publish(Message.builder("past").key("k").deliverAt(Instant.now().minusSeconds(60)).build()));
        arrivals.due("past", 0);
        join(pub.publish(Message.builder("now").key("k").build()));
        arrivals.due("now", 0);
        List<String> sent = List.of("later", "past", "now");
        arrivals.awaitAll(sent, timeout());
        arrivals.report(brokerId(), sent);
        assertThat(arrivals.early()).isEmpty();
        assertThat(arrivals.at("now")).as("the undelayed message is not held behind the delayed one").isLessThan(arrivals.at("later"));
        assertThat(arrivals.at("past")).as("a past instant is delivered at once").isLessThan(arrivals.at("later"));
    }

    @Test
    @DisplayName("delayed messages wait in the broker: received after every application that sent or subscribed closed")
    void survivesTheApplications() {
        String dest = destination();
        // the group exists before the publish (a RabbitMQ queue must be bound to receive)
        Switchboard subscriberApp = newSwitchboard();
        Arrivals first = new Arrivals();
        subscribe(subscriberApp, dest, TEXT, s -> s.group("g").delivery(Delivery.AT_LEAST_ONCE), first);
        subscriberApp.close();
        Switchboard publisherApp = newSwitchboard();
        Publisher<String> pub = publisherApp.publisher(dest, TEXT).delivery(Delivery.AT_LEAST_ONCE).build();
        List<String> sent = new ArrayList<>();
        Arrivals arrivals = new Arrivals();
        for (int i = 0; i < 5; i++) {
            String payload = "kept-" + i;
            long due = System.currentTimeMillis() + 1500 + 200L * i;
            join(pub.publish(Message.builder(payload).key("k" + i).deliverAt(Instant.ofEpochMilli(due)).build()));
            arrivals.due(payload, due);
            sent.add(payload);
        }
        publisherApp.close();
        Switchboard restarted = newSwitchboard();
        Subscription again = subscribe(restarted, dest, TEXT, s -> s.group("g").delivery(Delivery.AT_LEAST_ONCE), arrivals);
        arrivals.awaitAll(sent, timeout());
        arrivals.report(brokerId(), sent);
        assertThat(arrivals.early()).isEmpty();
        assertThat(first.count()).as("the first subscriber closed before anything was due").isZero();
        again.close();
    }

    /** Subscribes {@code arrivals} as group {@code g} of a new destination, and returns a publisher to it. */
    private Publisher<String> subscribedPublisher(Arrivals arrivals) {
        String dest = destination();
        subscribe(dest, TEXT, "g", Delivery.AT_LEAST_ONCE, arrivals);
        return publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
    }

    /** Records when each payload was handled, against when it was due. */
    static final class Arrivals implements MessageHandler<String> {
        private final Map<String, Long> due = new ConcurrentHashMap<>();
        private final Map<String, Long> arrived = new ConcurrentHashMap<>();

        void due(String payload, long dueMillis) {
            due.put(payload, dueMillis);
        }

        @Override
        public void handle(Message<String> message, io.switchboard.DeliveryContext context) {
            arrived.putIfAbsent(message.payload(), System.currentTimeMillis());
        }

        int count() {
            return arrived.size();
        }

        long at(String payload) {
            return arrived.get(payload);
        }

        void awaitAll(List<String> sent, Duration timeout) {
            await("all " + sent.size() + " delayed messages handled").atMost(timeout)
                    .until(() -> arrived.keySet().containsAll(sent));
        }

        List<String> early() {
            List<String> early = new ArrayList<>();
            arrived.forEach((p, at) -> {
                Long d = due.get(p);
                if (d != null && at < d - CLOCK_TOLERANCE_MS) {
                    early.add(p + " (" + (d - at) + " ms early)");
                }
            });
            return early;
        }

        void report(String broker, List<String> sent) {
            long[] late = sent.stream().filter(p -> due.getOrDefault(p, 0L) > 0 && arrived.containsKey(p))
                    .mapToLong(p -> arrived.get(p) - due.get(p)).sorted().toArray();
            long p99 = late.length == 0 ? 0 : late[Math.min(late.length - 1, (int) Math.ceil(late.length * 0.99) - 1)];
            long lost = sent.stream().filter(p -> !arrived.containsKey(p)).count();
            System.out.printf("capability=delay broker=%s sent=%d received=%d early=%d late_p99_ms=%d lost=%d%n", broker,
                    sent.size(), arrived.size(), early().size(), p99, lost);
        }
    }
}
