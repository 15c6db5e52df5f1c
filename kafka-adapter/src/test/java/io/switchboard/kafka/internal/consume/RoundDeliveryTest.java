package io.switchboard.kafka.internal.consume;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.Delivery;
import io.switchboard.spi.ConsumerSpec;
import io.switchboard.spi.InboundRecord;
import io.switchboard.spi.KeyFormat;
import io.switchboard.spi.RecordListener;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Pure logic: one round's hand-over against a subscription's maxInFlight, and which partitions it then pauses. */
@DisplayName("RoundDelivery: at most maxInFlight unsettled; a handler that keeps up gets the whole poll, nothing paused")
class RoundDeliveryTest {

    private static final TopicPartition PARTITION = new TopicPartition("t", 0);

    private final MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
    private final List<InboundRecord> handed = new ArrayList<>();

    /** A subscription of topic t with maxInFlight 16 holding partition 0, with {@code fetched} records waiting. */
    private Attachment attachment(int fetched, boolean settleAtOnce) {
        Attachment attachment = new Attachment(new ConsumerSpec("t", "g", false, Delivery.AT_LEAST_ONCE, 16, null, Map.of()),
                KeyFormat.STRING, null, null, closed -> { });
        attachment.listener = new RecordListener() {
            @Override
            public void onRecord(InboundRecord record) {
                handed.add(record);
                if (settleAtOnce) {
                    record.ack(); // as a handler run on the poll thread does before the next record
                }
            }

            @Override
            public void onFailure(Throwable error) {
                throw new AssertionError(error);
            }
        };
        PartitionState state = new PartitionState(PARTITION, 0);
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (long offset = 0; offset < fetched; offset++) {
            records.add(new ConsumerRecord<>("t", 0, offset, null, new byte[] {(byte) offset}));
        }
        state.fetched(List.copyOf(records));
        attachment.owned.add(state);
        consumer.assign(List.of(PARTITION));
        return attachment;
    }

    private RoundDelivery round(Attachment attachment) {
        Map<String, Attachment> attached = new LinkedHashMap<>();
        attached.put("t", attachment);
        return new RoundDelivery(consumer, null, false, attached);
    }

    @Test
    @DisplayName("a handler that settles each record before the next gets a poll of 40 with maxInFlight 16 in one round")
    void keepsUp() {
        Attachment attachment = attachment(40, true);
        RoundDelivery round = round(attachment);
        round.deliver();
        assertThat(handed).hasSize(40);
        assertThat(handed.get(39).offset()).isEqualTo(39);
        assertThat(attachment.inFlight.get()).isZero();
        assertThat(round.flowControl()).as("no attachment waits for room").isFalse();
        assertThat(consumer.paused()).isEmpty();
    }

    @Test
    @DisplayName("a handler that does not settle gets 16 of 40; its partition is paused until records settle")
    void boundedByMaxInFlight() {
        Attachment attachment = attachment(40, false);
        RoundDelivery round = round(attachment);
        round.deliver();
        assertThat(handed).hasSize(16);
        assertThat(attachment.inFlight.get()).isEqualTo(16);
        assertThat(round.flowControl()).as("no room yet").isFalse();
        assertThat(consumer.paused()).containsExactly(PARTITION);
        round.deliver();
        assertThat(handed).as("still no room").hasSize(16);
        attachment.waitingForSettlement.set(false); // no group consumer here for the next ack to wake
        handed.get(0).ack();
        handed.get(1).ack();
        round.deliver();
        assertThat(handed).as("room for two").hasSize(18);
        assertThat(attachment.inFlight.get()).isEqualTo(16);
    }
}
