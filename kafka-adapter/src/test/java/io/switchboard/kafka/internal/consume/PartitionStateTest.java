package io.switchboard.kafka.internal.consume;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Pure logic: a partition's fetched records, the records in flight and the committable offset. */
@DisplayName("PartitionState: fetched records in order, commits only past acked records")
class PartitionStateTest {

    private final KafkaInboundRecord.Settlement owner = (record, ack) -> { };

    private static List<ConsumerRecord<byte[], byte[]>> records(long from, long to) {
        List<ConsumerRecord<byte[], byte[]>> list = new ArrayList<>();
        for (long offset = from; offset < to; offset++) {
            list.add(new ConsumerRecord<>("t", 0, offset, null, new byte[] {(byte) offset}));
        }
        return List.copyOf(list);
    }

    private KafkaInboundRecord next(PartitionState state) {
        return new KafkaInboundRecord(state.nextFetched(), 1, owner, false);
    }

    @Test
    @DisplayName("two polls' lists come out in offset order, an empty one is skipped")
    void fetchedInOrder() {
        PartitionState state = new PartitionState(new TopicPartition("t", 0), 0);
        state.fetched(records(0, 3));
        state.fetched(List.of());
        state.fetched(records(3, 5));
        List<Long> offsets = new ArrayList<>();
        while (state.hasFetched()) {
            offsets.add(state.nextFetched().offset());
        }
        assertThat(offsets).containsExactly(0L, 1L, 2L, 3L, 4L);
        assertThat(state.toString()).contains("fetched 0");
    }

    @Test
    @DisplayName("without a start position nothing is committed; the client's position or the first records fetched set it")
    void startPositionLearnedLater() {
        PartitionState looked = new PartitionState(new TopicPartition("t", 0), -1);
        assertThat(looked.positioned()).isFalse();
        assertThat(looked.commitNeeded()).isEqualTo(-1);
        looked.commitFailed();
        assertThat(looked.commitNeeded()).as("no offset to send again").isEqualTo(-1);
        looked.position(7);
        assertThat(looked.positioned()).isTrue();
        assertThat(looked.committable()).isEqualTo(7);
        assertThat(looked.commitNeeded()).as("nothing acked yet").isEqualTo(-1);

        PartitionState fetched = new PartitionState(new TopicPartition("t", 1), -1);
        fetched.fetched(List.of());
        assertThat(fetched.positioned()).as("an empty list says nothing").isFalse();
        fetched.fetched(records(12, 14));
        assertThat(fetched.positioned()).isTrue();
        assertThat(fetched.committable()).as("the first record fetched: nothing before it is delivered").isEqualTo(12);
        KafkaInboundRecord first = next(fetched);
        first.ack();
        fetched.delivered(first);
        assertThat(fetched.commitNeeded()).isEqualTo(13);
    }

    @Test
    @DisplayName("a record acked before it is registered moves the offset at once; a pending one holds later acks back")
    void committableOnlyPastAckedRecords() {
        PartitionState state = new PartitionState(new TopicPartition("t", 0), 0);
        state.fetched(records(0, 4));
        KafkaInboundRecord first = next(state);
        first.ack(); // handled on the poll thread, before delivered() is called
        state.delivered(first);
        assertThat(state.commitNeeded()).as("acked with nothing before it in flight").isEqualTo(1);
        assertThat(state.inFlight()).isFalse();

        KafkaInboundRecord pending = next(state);
        state.delivered(pending);
        KafkaInboundRecord third = next(state);
        third.ack();
        state.delivered(third);
        state.advance();
        assertThat(state.commitNeeded()).as("offset 1 still pending: nothing past it").isEqualTo(1);
        assertThat(state.inFlight()).isTrue();

        pending.ack();
        state.advance();
        assertThat(state.commitNeeded()).as("1 and 2 acked").isEqualTo(3);
        assertThat(state.inFlight()).isFalse();
        assertThat(state.hasFetched()).isTrue();
    }

    @Test
    @DisplayName("a nack forgets what was fetched and what was delivered from its offset on")
    void rewindClearsFetched() {
        PartitionState state = new PartitionState(new TopicPartition("t", 0), 0);
        state.fetched(records(0, 2));
        state.fetched(records(2, 4));
        KafkaInboundRecord first = next(state);
        state.delivered(first);
        KafkaInboundRecord second = next(state);
        state.delivered(second);
        first.nack();
        assertThat(state.rewind(first)).isTrue();
        assertThat(second.stale).as("delivered after the nacked record").isTrue();
        assertThat(state.hasFetched()).isFalse();
        assertThat(state.toString()).contains("fetched 0");
        state.fetched(records(0, 1)); // fetched again from the nacked offset
        assertThat(state.nextFetched().offset()).isZero();
        assertThat(state.commitNeeded()).isEqualTo(-1);
    }
}
