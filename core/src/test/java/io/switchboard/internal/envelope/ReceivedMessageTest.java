package io.switchboard.internal.envelope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.switchboard.DeliveryContext;
import io.switchboard.Envelope;
import io.switchboard.Message;
import io.switchboard.spi.InboundRecord;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** A received message reads its key, headers, id and the broker's time from its record only when asked for. */
class ReceivedMessageTest {

    @Test
    @DisplayName("no envelope: key, id and time are read from the record when first asked for, then kept")
    void lazyAttributes() {
        CountingRecord record = new CountingRecord(Map.of(), 3, 41, "k-1", 1_700_000_000_123L);
        Message<String> m = Envelopes.toMessage("p", record, Envelopes.envelopeTime(record));
        assertThat(record.keyReads.get()).as("key not read while building").isZero();
        assertThat(m.payload()).isEqualTo("p");
        assertThat(m.headers()).isEmpty();
        assertThat(m.key()).isEqualTo("k-1");
        assertThat(m.key()).isEqualTo("k-1");
        assertThat(record.keyReads.get()).as("key read once").isEqualTo(1);
        assertThat(m.id()).isEqualTo("orders-3-41").isSameAs(m.id());
        assertThat(m.timestamp()).isEqualTo(Instant.ofEpochMilli(1_700_000_000_123L));
        assertThat(m.toString()).contains("orders-3-41").contains("k-1");
        Message<String> copy = m.toBuilder().build();
        assertThat(copy.id()).isEqualTo("orders-3-41");
        assertThat(copy.key()).isEqualTo("k-1");
        assertThat(copy.timestamp()).isEqualTo(m.timestamp());
        assertThat(m.stamped()).isSameAs(m);
    }

    @Test
    @DisplayName("the envelope's id and time win over the position and the broker's clock; application headers are kept")
    void envelopeWins() {
        CountingRecord record = new CountingRecord(Map.of(Envelope.ID, "abc", Envelope.TIME, "2026-11-27T10:00:00.000001Z",
                "tenant", "a"), 0, 7, null, 5L);
        Instant sent = Envelopes.envelopeTime(record);
        assertThat(sent).isEqualTo(Instant.parse("2026-11-27T10:00:00.000001Z"));
        Message<String> m = Envelopes.toMessage("p", record, sent);
        assertThat(m.id()).isEqualTo("abc");
        assertThat(m.timestamp()).isEqualTo(sent);
        assertThat(m.key()).isNull();
        assertThat(m.headers()).containsOnly(Map.entry("tenant", "a"));
    }

    @Test
    @DisplayName("a record with no id and no position gets one id, made once (the same on every read)")
    void noPosition() {
        CountingRecord record = new CountingRecord(Map.of(), -1, -1, null, -1);
        Message<String> m = Envelopes.toMessage("p", record, null);
        assertThat(m.id()).isNotBlank().isEqualTo(m.id());
        assertThat(m.timestamp()).as("no broker time").isNull();
        assertThat(m.stamped().timestamp()).isNotNull();
        assertThat(m.stamped().id()).isEqualTo(m.id());
    }

    @Test
    @DisplayName("a record with a position: its headers are not read until the id or the headers are asked for, then once")
    void lazyHeaders() {
        CountingRecord record = new CountingRecord(Map.of(Envelope.ID, "abc", Envelope.SOURCE, "s", "tenant", "a"), 2, 9,
                null, 5L);
        Message<String> m = Envelopes.toMessage("p", record, null);
        assertThat(record.headerReads.get()).as("headers not read while building").isZero();
        assertThat(m.headers()).containsOnly(Map.entry("tenant", "a")).isSameAs(m.headers());
        assertThatThrownBy(() -> m.headers().put("x", "y")).isInstanceOf(UnsupportedOperationException.class);
        assertThat(m.tag()).isNull();
        assertThat(record.headerReads.get()).as("headers read once for the application's headers").isEqualTo(1);
        assertThat(m.id()).isEqualTo("abc").isSameAs(m.id());
        assertThat(record.headerReads.get()).isEqualTo(2);
        assertThat(m.timestamp()).as("no envelope time: the broker's").isEqualTo(Instant.ofEpochMilli(5L));
        assertThat(m.toBuilder().build().headers()).containsOnly(Map.entry("tenant", "a"));

        CountingRecord plain = new CountingRecord(Map.of(), -1, -1, null, -1);
        Envelopes.toMessage("p", plain, null);
        assertThat(plain.headerReads.get()).as("no position: the id is made while building, from the headers first")
                .isEqualTo(1);
    }

    @Test
    @DisplayName("the delivery context reads the traceparent from the record's headers only when asked for, then once")
    void lazyTraceparent() {
        String trace = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        CountingRecord record = new CountingRecord(Map.of(Envelope.TRACEPARENT, trace), 2, 9, null, 5L);
        DeliveryContext c = DeliveryContext.received("orders", "billing", "main", "kafka", 2, 9, 1, 3, record, null);
        assertThat(record.headerReads.get()).as("headers not read while building").isZero();
        assertThat(c.destination()).isEqualTo("orders");
        assertThat(c.partition()).isEqualTo(2);
        assertThat(c.offset()).isEqualTo(9);
        assertThat(c.isLastAttempt()).isFalse();
        assertThat(record.headerReads.get()).isZero();
        assertThat(c.traceparent()).isEqualTo(trace);
        assertThat(c.traceparent()).isEqualTo(trace);
        assertThat(record.headerReads.get()).as("read once").isEqualTo(1);
        DeliveryContext eager = new DeliveryContext("orders", "billing", "main", "kafka", 2, 9, 1, 3, trace, null);
        assertThat(c).isEqualTo(eager).hasSameHashCodeAs(eager).hasToString(eager.toString());
        assertThat(eager.toString()).isEqualTo("DeliveryContext[destination=orders, group=billing, instance=main, "
                + "brokerId=kafka, partition=2, offset=9, attempt=1, maxAttempts=3, traceparent=" + trace
                + ", idempotencyScope=null]");
        assertThat(c.withIdempotencyScope("s")).isNotEqualTo(c).extracting(DeliveryContext::traceparent).isEqualTo(trace);

        CountingRecord none = new CountingRecord(Map.of(), 2, 10, null, 5L);
        DeliveryContext untraced = DeliveryContext.received("orders", "billing", "main", "kafka", 2, 10, 1, 3, none, "s");
        DeliveryContext scoped = untraced.withIdempotencyScope("t");
        assertThat(none.headerReads.get()).as("a copy with another scope reads nothing either").isZero();
        assertThat(scoped.traceparent()).isNull();
        assertThat(untraced.traceparent()).isNull();
        assertThat(untraced.traceparent()).isNull();
        assertThat(none.headerReads.get()).as("an absent traceparent is looked up once per context").isEqualTo(2);
        assertThat(untraced).isEqualTo(new DeliveryContext("orders", "billing", "main", "kafka", 2, 10, 1, 3, null, "s"));
    }

    /** A record that counts how often its key and its headers are read. */
    private static final class CountingRecord implements InboundRecord {
        final AtomicInteger keyReads = new AtomicInteger();
        final AtomicInteger headerReads = new AtomicInteger();
        private final Map<String, String> headers;
        private final int partition;
        private final long offset;
        private final String key;
        private final long brokerTimestamp;

        CountingRecord(Map<String, String> headers, int partition, long offset, String key, long brokerTimestamp) {
            this.headers = headers;
            this.partition = partition;
            this.offset = offset;
            this.key = key;
            this.brokerTimestamp = brokerTimestamp;
        }

        @Override public String destination() { return "orders"; }
        @Override public int partition() { return partition; }
        @Override public long offset() { return offset; }
        @Override public String key() { keyReads.incrementAndGet(); return key; }
        @Override public Map<String, String> headers() { headerReads.incrementAndGet(); return headers; }
        @Override public byte[] payload() { return new byte[0]; }
        @Override public int deliveryCount() { return 1; }
        @Override public String nativeId() { return null; }
        @Override public long brokerTimestamp() { return brokerTimestamp; }
        @Override public void ack() { }
        @Override public void nack() { }
    }
}
