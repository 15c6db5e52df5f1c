package io.switchboard.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.switchboard.Delivery;
import io.switchboard.Message;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import io.switchboard.StartPosition;
import io.switchboard.SubscriberBuilder;
import io.switchboard.Subscription;
import io.switchboard.UnsupportedCapabilityException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The contract's "Where a subscription starts" cases; {@link BrokerContract} runs them as a nested group. Every
 * message of a case has the same key, so it lands in one partition (queue) in publish order: a subscription that
 * starts too early gets an unwanted message before the wanted ones, and one that starts too late misses one and times
 * out, so no case waits for something not to happen. A case whose position the broker does not declare
 * ({@link io.switchboard.spi.Capabilities#startPositions(boolean)}) is skipped, saying so, and the refusal case checks
 * that those positions are refused with a reason.
 */
abstract class StartPositionCases extends ContractCases {

    StartPositionCases(ContractSupport contract) {
        super(contract);
    }

    private void needs(boolean broadcast, StartPosition.Kind kind) {
        assumeTrue(capabilities().startPositions(broadcast).contains(kind), "broker '" + brokerId() + "' does not declare "
                + "start position " + kind + " for " + (broadcast ? "broadcast" : "group") + " subscriptions");
    }

    private void needsReplay() {
        assumeTrue(capabilities().replay(), "broker '" + brokerId() + "' keeps no records for groups that do not exist yet");
    }

    @Test
    @DisplayName("a new group starting at earliest gets what was published before it subscribed")
    void earliestSeesOld() {
        needs(false, StartPosition.Kind.EARLIEST);
        needsReplay();
        oldThenNew(s -> s.group("late").startFrom(StartPosition.earliest()), true);
    }

    @Test
    @DisplayName("a new group starting at latest gets only what is published once it is ready")
    void latestSkipsOld() {
        needs(false, StartPosition.Kind.LATEST);
        oldThenNew(s -> s.group("late").startFrom(StartPosition.latest()), false);
    }

    /** Publishes, subscribes as {@code settings} say, publishes again: the subscription gets old ones only if it should. */
    private void oldThenNew(UnaryOperator<SubscriberBuilder<String>> settings, boolean seesOld) {
        String dest = destination();
        List<String> old = publish(dest, "old", 3);
        Recorder<String> got = recorder();
        subscribe(switchboard(), dest, TEXT, settings, got);
        List<String> expected = new ArrayList<>(seesOld ? old : List.of());
        expected.addAll(publish(dest, "new", 2));
        got.awaitCount(expected.size());
        assertThat(got.payloads()).as(seesOld ? "from the first record held" : "nothing published before it was ready")
                .containsExactlyElementsOf(expected);
    }

    @Test
    @DisplayName("a new group starting at an offset gets the records from that offset on")
    void fromOffset() {
        needs(false, StartPosition.Kind.OFFSET);
        String dest = destination();
        Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
        List<String> sent = new ArrayList<>();
        long start = -1;
        for (int i = 0; i < 5; i++) {
            PublishReceipt receipt = join(pub.publish(keyed("k", "m-" + i)));
            if (i == 2) {
                start = receipt.offset();
            }
            sent.add("m-" + i);
        }
        long from = start;
        Recorder<String> got = recorder();
        subscribe(switchboard(), dest, TEXT, s -> s.group("replay").startFrom(StartPosition.offset(from)), got);
        got.awaitCount(3);
        assertThat(got.payloads()).as("from offset %d of the key's partition (the others are empty: clamped to their end)",
                from).containsExactlyElementsOf(sent.subList(2, 5));
    }

    @Test
    @DisplayName("a new group starting at a time gets the records stored at or after it")
    void fromTime() throws InterruptedException {
        needs(false, StartPosition.Kind.TIME);
        String dest = destination();
        publish(dest, "before", 3);
        TimeUnit.MILLISECONDS.sleep(1100); // past the second of the last (RocketMQ's finest time is a second)
        Instant time = Instant.now();
        TimeUnit.MILLISECONDS.sleep(100);
        List<String> sent = publish(dest, "after", 2);
        Recorder<String> got = recorder();
        // tag::start-from[]
        subscribe(switchboard(), dest, TEXT, s -> s.group("since")
                .startFrom(StartPosition.time(time)),   // where the group has no committed position yet
                got);
        // end::start-from[]
        got.awaitCount(sent.size());
        assertThat(got.payloads()).as("the records from %s on", time).containsExactlyElementsOf(sent);
    }

    @Test
    @DisplayName("a broadcast subscriber starting at earliest gets what was published before it subscribed")
    void broadcastEarliest() {
        needs(true, StartPosition.Kind.EARLIEST);
        needsReplay();
        oldThenNew(s -> s.broadcast().startFrom(StartPosition.earliest()), true);
    }

    @Test
    @DisplayName("a group with committed positions resumes from them, whatever its start position")
    void committedGroupResumes() {
        String dest = destination();
        Set<StartPosition.Kind> kinds = capabilities().startPositions(false);
        assumeTrue(!kinds.isEmpty(), "broker '" + brokerId() + "' declares no start position for groups");
        StartPosition rewind = kinds.contains(StartPosition.Kind.OFFSET) ? StartPosition.offset(0)
                : kinds.contains(StartPosition.Kind.EARLIEST) ? StartPosition.earliest() : StartPosition.latest();
        Recorder<String> first = recorder();
        Subscription before = subscribe(switchboard(), dest, TEXT, s -> s.group("g").startFrom(rewind), first);
        List<String> seen = publish(dest, "seen", 3);
        first.awaitCount(seen.size());
        before.close();
        List<String> waiting = publish(dest, "waiting", 2);
        Recorder<String> again = recorder();
        subscribe(switchboard(), dest, TEXT, s -> s.group("g").startFrom(rewind), again);
        List<String> later = publish(dest, "later", 1);
        List<String> expected = new ArrayList<>(waiting); // what waited for it, even when it starts at latest
        expected.addAll(later);
        again.awaitCount(expected.size());
        assertThat(again.payloads()).as("resumed from the committed position with %s, not rewound", rewind)
                .containsExactlyElementsOf(expected);
    }

    @Test
    @DisplayName("a start position the broker cannot give is refused, naming the broker, destination, position and why")
    void refused() {
        List<String> checked = new ArrayList<>();
        for (boolean broadcast : new boolean[] {false, true}) {
            if (broadcast && !capabilities().broadcast()) {
                continue;
            }
            EnumSet<StartPosition.Kind> missing = EnumSet.allOf(StartPosition.Kind.class);
            missing.removeAll(capabilities().startPositions(broadcast));
            for (StartPosition.Kind kind : missing) {
                StartPosition position = example(kind);
                String dest = destination();
                if (broadcast) {
                    assertThatThrownBy(() -> switchboard().subscriber(dest, TEXT).broadcast().startFrom(position)
                            .subscribe((m, c) -> {}))
                            .isInstanceOf(UnsupportedCapabilityException.class)
                            .hasMessageContaining(dest).hasMessageContaining(position.toString())
                            .hasMessageContaining(capabilities().brokerId())
                            .hasMessageContaining(capabilities().startPositionLimits());
                } else {
                    assertThatThrownBy(() -> switchboard().subscriber(dest, TEXT).group("g").startFrom(position)
                            .subscribe((m, c) -> {}))
                            .isInstanceOf(UnsupportedCapabilityException.class)
                            .hasMessageContaining(dest).hasMessageContaining(position.toString())
                            .hasMessageContaining("'g'").hasMessageContaining(capabilities().brokerId())
                            .hasMessageContaining(capabilities().startPositionLimits());
                }
                checked.add((broadcast ? "broadcast " : "group ") + position);
            }
        }
        System.out.printf("capability=start-position broker=%s refused=%s%n", brokerId(), checked);
        assumeTrue(!checked.isEmpty(), "broker '" + brokerId() + "' accepts every start position");
    }

    private static StartPosition example(StartPosition.Kind kind) {
        return switch (kind) {
            case EARLIEST -> StartPosition.earliest();
            case LATEST -> StartPosition.latest();
            case OFFSET -> StartPosition.offset(7);
            case TIME -> StartPosition.time(Instant.parse("2024-05-01T00:00:00Z"));
        };
    }

    /** Publishes {@code n} messages {@code <prefix>-<i>} on one key, each acknowledged by the broker. */
    private List<String> publish(String dest, String prefix, int n) {
        Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
        List<String> sent = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String payload = prefix + "-" + i;
            join(pub.publish(Message.builder(payload).key("k").build()));
            sent.add(payload);
        }
        return sent;
    }
}
