package io.switchboard.kafka.internal.consume;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.spi.EventKinds;
import io.switchboard.testkit.RecordingEvents;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A rebalance span lasts until the group handed the partitions out again")
class RebalanceEventsTest {

    private static final TopicPartition P0 = new TopicPartition("orders", 0);
    private static final TopicPartition P1 = new TopicPartition("orders", 1);

    private final Member consumer = new Member();
    private final RecordingEvents events = new RecordingEvents();
    private final RebalanceEvents rebalances = new RebalanceEvents(events, "billing", consumer);

    @Test
    @DisplayName("cooperative: the assignment of the same generation as the revocation leaves the span open, the next one ends it")
    void cooperative() {
        consumer.at(1, P0, P1);
        rebalances.assigned();
        consumer.at(2, P0);
        rebalances.revoked(List.of(P1), false);
        rebalances.assigned();
        RecordingEvents.Event span = events.of(EventKinds.REBALANCE).get(0);
        assertThat(span.closed()).as("P1 has no owner until the follow-up rebalance").isFalse();
        consumer.at(3, P0);
        rebalances.assigned();
        assertThat(span.closed()).isTrue();
        assertThat(rebalances.awaitingFetch()).isFalse();
    }

    @Test
    @DisplayName("a member that gains partitions in the completing assignment ends the span at their first records")
    void gainedUntilFetched() {
        consumer.at(1, P0);
        rebalances.assigned();
        rebalances.revoked(List.of(P0), true);
        consumer.at(2, P0, P1);
        rebalances.assigned();
        RecordingEvents.Event span = events.of(EventKinds.REBALANCE).get(0);
        assertThat(rebalances.awaitingFetch()).isTrue();
        rebalances.polled(Set.of(P0)); // P0 was held before: not what the span waits for
        assertThat(span.closed()).isFalse();
        rebalances.polled(Set.of(P1));
        assertThat(span.closed()).isTrue();
        assertThat(rebalances.awaitingFetch()).isFalse();
    }

    @Test
    @DisplayName("leaving the group ends an open span")
    void leaving() {
        consumer.at(1, P0, P1);
        rebalances.assigned();
        rebalances.revoked(List.of(P1), false);
        rebalances.leaving();
        consumer.at(1);
        rebalances.left();
        assertThat(events.all()).allMatch(RecordingEvents.Event::closed);
    }

    /** A consumer whose generation and assignment the test sets. */
    private static final class Member extends MockConsumer<byte[], byte[]> {
        private int generation;
        private Set<TopicPartition> held = Set.of();

        Member() {
            super("earliest");
        }

        void at(int generation, TopicPartition... held) {
            this.generation = generation;
            this.held = Set.of(held);
        }

        @Override
        public synchronized Set<TopicPartition> assignment() {
            return held;
        }

        @Override
        public synchronized ConsumerGroupMetadata groupMetadata() {
            return new ConsumerGroupMetadata("billing", generation, "member-1", Optional.empty());
        }
    }
}
