package io.switchboard.kafka.internal.consume;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The record core receives reads its attributes from the consumer record, and settles once. */
@Timeout(30)
class KafkaInboundRecordTest {

    private static ConsumerRecord<byte[], byte[]> consumed(byte[] value) {
        return new ConsumerRecord<>("orders", 3, 42L, 1_767_225_600_123L, TimestampType.CREATE_TIME, 1, 1,
                "k-1".getBytes(StandardCharsets.UTF_8), value, new RecordHeaders(), Optional.empty());
    }

    @Test
    @DisplayName("destination, partition, offset, key, payload, delivery count and broker time come from the record")
    void attributes() {
        byte[] value = {7, 8};
        KafkaInboundRecord record = new KafkaInboundRecord(consumed(value), 2, (r, ack) -> { }, false);
        assertThat(record.destination()).isEqualTo("orders");
        assertThat(record.partition()).isEqualTo(3);
        assertThat(record.offset()).isEqualTo(42L);
        assertThat(record.key()).isEqualTo("k-1");
        assertThat(record.payload()).isSameAs(value);
        assertThat(record.deliveryCount()).isEqualTo(2);
        assertThat(record.brokerTimestamp()).isEqualTo(1_767_225_600_123L);
        assertThat(record.nativeId()).isNull();
        assertThat(record.headers()).isEmpty();
        assertThat(record.state()).isEqualTo(KafkaInboundRecord.PENDING);
    }

    @Test
    @DisplayName("a record without a value (a tombstone) has an empty payload")
    void tombstone() {
        assertThat(new KafkaInboundRecord(consumed(null), 1, (r, ack) -> { }, false).payload()).isEmpty();
    }

    @Test
    @DisplayName("the first ack or nack settles it and tells the owner once; a pre-acked one acks on either")
    void settlesOnce() {
        List<Boolean> told = new ArrayList<>();
        KafkaInboundRecord acked = new KafkaInboundRecord(consumed(new byte[1]), 1, (r, ack) -> told.add(ack), false);
        acked.ack();
        acked.nack();
        acked.ack();
        assertThat(told).containsExactly(true);
        assertThat(acked.state()).isEqualTo(KafkaInboundRecord.ACKED);

        told.clear();
        KafkaInboundRecord nacked = new KafkaInboundRecord(consumed(new byte[1]), 1, (r, ack) -> told.add(ack), false);
        nacked.nack();
        nacked.ack();
        assertThat(told).containsExactly(false);
        assertThat(nacked.state()).isEqualTo(KafkaInboundRecord.NACKED);

        told.clear();
        KafkaInboundRecord preAcked = new KafkaInboundRecord(consumed(new byte[1]), 1, (r, ack) -> told.add(ack), true);
        preAcked.nack();
        preAcked.ack();
        assertThat(told).containsExactly(true);
    }
}
