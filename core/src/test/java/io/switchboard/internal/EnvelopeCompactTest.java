package io.switchboard.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.switchboard.Codec;
import io.switchboard.ConfigurationException;
import io.switchboard.Delivery;
import io.switchboard.Envelope;
import io.switchboard.InvalidMessageException;
import io.switchboard.Message;
import io.switchboard.Switchboard;
import io.switchboard.internal.envelope.EnvelopeFormat;
import io.switchboard.internal.envelope.EnvelopeHeaders;
import io.switchboard.internal.envelope.Envelopes;
import io.switchboard.internal.envelope.MessageIds;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.Capabilities;
import io.switchboard.spi.InboundRecord;
import io.switchboard.spi.OutboundRecord;
import io.switchboard.spi.PublisherSpec;
import io.switchboard.spi.RawPublisher;
import io.switchboard.spi.SendResult;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The compact envelope ({@code switchboard.envelope=compact}): its value, its reading, its header set, its property. */
class EnvelopeCompactTest {

    private static final Instant T = Instant.parse("2026-01-01T00:00:00.123456Z");

    @Nested
    @DisplayName("Parsing a ce_sb value")
    class Parsing {
        @Test
        @DisplayName("reads the microseconds and the id of a well-formed value")
        void wellFormed() {
            assertThat(MessageIds.compactMicros("1767225600123456;id-1")).isEqualTo(1_767_225_600_123_456L);
            assertThat(Envelope.compactId("1767225600123456;id-1")).isEqualTo("id-1");
            assertThat(Envelope.compactTime("1767225600123456;id-1")).isEqualTo(T);
            assertThat(Envelope.compactTime("0;x")).isEqualTo(Instant.EPOCH);
        }

        @Test
        @DisplayName("keeps every ';' after the first in the id")
        void idWithSemicolons() {
            assertThat(Envelope.compactId("5;a;b;")).isEqualTo("a;b;");
            assertThat(Envelope.compactId("5;;")).isEqualTo(";");
            assertThat(Envelope.compactTime("5;a;b;")).isEqualTo(Instant.ofEpochSecond(0, 5_000));
        }

        @Test
        @DisplayName("reads negative microseconds as times before 1970")
        void negative() {
            assertThat(Envelope.compactTime("-1;x")).isEqualTo(Instant.parse("1969-12-31T23:59:59.999999Z"));
            assertThat(Envelope.compactTime("-1500000;x")).isEqualTo(Instant.parse("1969-12-31T23:59:58.500000Z"));
            assertThat(Envelope.compactTime("-0;x")).isEqualTo(Instant.EPOCH);
        }

        @Test
        @DisplayName("reads the whole range of a long, and nothing beyond")
        void huge() {
            assertThat(MessageIds.compactMicros("9223372036854775807;x")).isEqualTo(Long.MAX_VALUE);
            assertThat(MessageIds.compactMicros("-9223372036854775807;x")).isEqualTo(-Long.MAX_VALUE);
            assertThat(MessageIds.compactMicros("000000000000000000000000000042;x")).isEqualTo(42);
            assertThat(Envelope.compactTime("9223372036854775807;x"))
                    .isEqualTo(Instant.ofEpochSecond(Long.MAX_VALUE / 1_000_000, Long.MAX_VALUE % 1_000_000 * 1000));
            for (String tooBig : List.of("9223372036854775808;x", "-9223372036854775808;x", "92233720368547758070;x",
                    "99999999999999999999999;x")) {
                assertThat(MessageIds.compactMicros(tooBig)).as(tooBig).isEqualTo(MessageIds.NOT_COMPACT);
                assertThat(Envelope.compactId(tooBig)).as(tooBig).isNull();
                assertThat(Envelope.compactTime(tooBig)).as(tooBig).isNull();
            }
        }

        @ParameterizedTest(name = "\"{0}\"")
        @ValueSource(strings = {"", ";", ";x", "12", "12;", "-", "-;x", "--1;x", "+1;x", " 1;x", "1 ;x", "1a;x", "1.5;x",
            "0x1F;x", "١٢;x", "2026-01-01T00:00:00Z;x", "abc"})
        @DisplayName("gives null, never an exception, for a malformed value")
        void malformed(String value) {
            assertThat(MessageIds.compactMicros(value)).isEqualTo(MessageIds.NOT_COMPACT);
            assertThat(Envelope.compactId(value)).isNull();
            assertThat(Envelope.compactTime(value)).isNull();
        }

        @Test
        @DisplayName("reads back what the publisher writes, to the microsecond, on either side of 1970")
        void roundTrip() {
            for (Instant t : List.of(T, Instant.EPOCH, Instant.parse("1969-12-31T23:59:59.000001Z"),
                    Instant.parse("1900-02-28T12:00:00.5Z"), Instant.ofEpochSecond(MessageIds.MAX_COMPACT_SECOND, 999_999_000),
                    Instant.ofEpochSecond(MessageIds.MIN_COMPACT_SECOND, 0))) {
                String value = MessageIds.formatCompact(t.getEpochSecond(), t.getNano(), "id;with;semicolons");
                assertThat(Envelope.compactTime(value)).as(value).isEqualTo(t);
                assertThat(Envelope.compactId(value)).as(value).isEqualTo("id;with;semicolons");
            }
            assertThat(MessageIds.formatCompact(T.getEpochSecond(), T.getNano() + 999, "u")).isEqualTo("1767225600123456;u");
        }
    }

    @Nested
    @DisplayName("Reading the envelope of an inbound record")
    class Reading {
        /** Reads a record with these headers, broker id {@code native} and broker time 1 ms; checks the id and time. */
        private void reads(Map<String, String> headers, String id, Instant time) {
            InboundRecord r = record(headers, "native", 1);
            assertThat(Envelopes.id(r)).as("id of %s", headers).isEqualTo(id);
            assertThat(Envelopes.time(r)).as("time of %s", headers).isEqualTo(time);
            assertThat(Envelope.id(headers)).as("Envelope.id of %s", headers).isEqualTo("native".equals(id) ? null : id);
        }

        @Test
        @DisplayName("takes the id and the time from ce_sb, before ce_id and ce_time")
        void compactFirst() {
            reads(Map.of(Envelope.COMPACT, "1767225600123456;a;b", Envelope.ID, "other",
                    Envelope.TIME, "2020-01-01T00:00:00.000000Z"), "a;b", T);
            reads(Map.of(Envelope.COMPACT, "1767225600123456;a;b"), "a;b", T);
        }

        @Test
        @DisplayName("reads the CloudEvents form as before")
        void cloudEvents() {
            reads(Map.of(Envelope.ID, "ce-1", Envelope.TIME, "2026-01-01T00:00:00.123456Z"), "ce-1", T);
        }

        @Test
        @DisplayName("falls back to the broker's id and timestamp for a malformed ce_sb, as for a malformed ce_time")
        void malformedFallsBack() {
            reads(Map.of(Envelope.COMPACT, "yesterday;id-1"), "native", Instant.ofEpochMilli(1));
            reads(Map.of(Envelope.COMPACT, "1767225600123456;"), "native", Instant.ofEpochMilli(1));
            reads(Map.of(Envelope.TIME, "yesterday"), "native", Instant.ofEpochMilli(1));
            reads(Map.of(Envelope.COMPACT, "12", Envelope.ID, "ce-2", Envelope.TIME, "2026-01-01T00:00:00.123456Z"), "ce-2", T);
        }

        @Test
        @DisplayName("hides ce_sb from the application's headers and refuses it as an application header")
        void hidden() {
            assertThat(Envelope.isCloudEventsHeader(Envelope.COMPACT)).isTrue();
            assertThat(Envelopes.userHeaders(Map.of(Envelope.COMPACT, "1;x", "tenant", "acme")))
                    .containsExactly(Map.entry("tenant", "acme"));
            assertThatThrownBy(() -> Message.builder("x").header(Envelope.COMPACT, "1;x"))
                    .isInstanceOf(InvalidMessageException.class).hasMessageContaining(Envelope.COMPACT);
        }
    }

    @Nested
    @DisplayName("Property switchboard.envelope")
    class Property {
        @Test
        @DisplayName("is cloudevents by default and accepts cloudevents-full and compact in any case")
        void values() {
            assertThat(EnvelopeFormat.of(config(Map.of()))).isEqualTo(EnvelopeFormat.CLOUDEVENTS);
            assertThat(EnvelopeFormat.of(config(Map.of(EnvelopeFormat.PROPERTY, "cloudevents"))))
                    .isEqualTo(EnvelopeFormat.CLOUDEVENTS);
            assertThat(EnvelopeFormat.of(config(Map.of(EnvelopeFormat.PROPERTY, " Compact ")))).isEqualTo(EnvelopeFormat.COMPACT);
            assertThat(EnvelopeFormat.of(config(Map.of(EnvelopeFormat.PROPERTY, "cloudevents-full"))))
                    .isEqualTo(EnvelopeFormat.CLOUDEVENTS_FULL);
        }

        @Test
        @DisplayName("refuses any other value when the Switchboard is built, naming the property, the value and the choices")
        void badValue() {
            assertThatThrownBy(() -> EnvelopeFormat.of(config(Map.of(EnvelopeFormat.PROPERTY, "binary"))))
                    .isInstanceOf(ConfigurationException.class)
                    .hasMessageContaining("'switchboard.envelope'").hasMessageContaining("'binary'")
                    .hasMessageContaining("'cloudevents'").hasMessageContaining("'compact'")
                    .hasMessageContaining("'cloudevents-full'")
                    .hasMessageContaining("broker instance 'i'");
            assertThatThrownBy(() -> Switchboard.builder().broker("memory").property("memory.broker", "compact-bad")
                    .property(EnvelopeFormat.PROPERTY, "small").build())
                    .isInstanceOf(ConfigurationException.class).hasMessageContaining("'small'");
            assertThatThrownBy(() -> Switchboard.builder().instance("a", "memory", Map.of("memory.broker", "compact-bad-a"))
                    .instance("b", "memory", Map.of("memory.broker", "compact-bad-b", EnvelopeFormat.PROPERTY, ""))
                    .build())
                    .isInstanceOf(ConfigurationException.class).hasMessageContaining("broker instance 'b'")
                    .hasMessageContaining("is ''");
        }
    }

    @Nested
    @DisplayName("A compact publisher")
    class Publishing {
        @Test
        @DisplayName("writes exactly ce_sb and the application's headers")
        void headerSet() {
            Map<String, String> headers = publishOne(Map.of(EnvelopeFormat.PROPERTY, "compact"),
                    Message.builder("p").key("k-1").header("tenant", "acme").id("a;b").timestamp(T).build());
            assertThat(headers).containsExactlyInAnyOrderEntriesOf(
                    Map.of(Envelope.COMPACT, "1767225600123456;a;b", "tenant", "acme"));
        }

        @Test
        @DisplayName("stamps a generated id and the publish time into ce_sb")
        void generated() {
            Instant before = MessageIds.now();
            Map<String, String> headers = publishOne(Map.of(EnvelopeFormat.PROPERTY, "compact"), Message.of("p"));
            assertThat(headers).containsOnlyKeys(Envelope.COMPACT);
            assertThat(Envelope.compactId(headers.get(Envelope.COMPACT))).hasSize(MessageIds.SHORT_ID_LENGTH);
            assertThat(Envelope.compactTime(headers.get(Envelope.COMPACT))).isBetween(before, Instant.now());
        }

        @Test
        @DisplayName("adds the trace headers as separate headers when they are set")
        void traceHeaders() {
            Map<String, String> stamped = publishOne(Map.of(EnvelopeFormat.PROPERTY, "compact",
                    DefaultPublisher.STAMP_TRACEPARENT, "true"), Message.builder("p").header("tenant", "acme").build());
            assertThat(stamped).containsOnlyKeys(Envelope.COMPACT, Envelope.TRACEPARENT, "tenant");

            // what the publish observation's propagator does: trace headers to their slots, others to the user headers
            EnvelopeHeaders h = new EnvelopeHeaders(EnvelopeHeaders.Layout.compact(), Map.of("tenant", "acme"));
            h.givenId("x");
            h.timeMicros(1);
            h.put(Envelope.TRACEPARENT, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
            h.put("ce_tracestate", "vendor=1");
            h.put("baggage", "k=v");
            assertThat(copy(h)).containsExactlyInAnyOrderEntriesOf(Map.of(Envelope.COMPACT, "1;x",
                    Envelope.TRACEPARENT, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "ce_tracestate", "vendor=1",
                    "tenant", "acme", "baggage", "k=v"));
            assertThat(new HashMap<>(h)).isEqualTo(copy(h)); // the entry view agrees with forEach
            assertThat(h).hasSize(5);
            assertThat(h.get(Envelope.ID)).isNull();
        }

        @Test
        @DisplayName("refuses a timestamp whose microseconds do not fit in a long, naming it")
        void timestampOutOfRange() {
            Instant far = Instant.ofEpochSecond(MessageIds.MAX_COMPACT_SECOND + 1);
            assertThatThrownBy(() -> publishOne(Map.of(EnvelopeFormat.PROPERTY, "compact"),
                    Message.builder("p").timestamp(far).build()))
                    .isInstanceOf(InvalidMessageException.class).hasMessageContaining(far.toString());
        }

    }

    @Nested
    @DisplayName("The default (lean) CloudEvents publisher")
    class Lean {
        @Test
        @DisplayName("writes the required attributes, the content type and the time; no subject, no attempt")
        void headerSet() {
            Map<String, String> headers = publishOne(Map.of(), Message.builder("p").key("k-1").header("tenant", "acme").build());
            assertThat(headers).containsOnlyKeys(Envelope.SPEC_VERSION, Envelope.ID, Envelope.SOURCE, Envelope.TYPE,
                    Envelope.TIME, Envelope.CONTENT_TYPE, "tenant")
                    .containsEntry(Envelope.SPEC_VERSION, "1.0").containsEntry(Envelope.SOURCE, "switchboard")
                    .containsEntry(Envelope.TYPE, "message").containsEntry(Envelope.CONTENT_TYPE, Codec.utf8().contentType());
            assertThat(headers.get(Envelope.ID)).hasSize(MessageIds.SHORT_ID_LENGTH);
        }

        @Test
        @DisplayName("leaves the content type of opaque bytes out; cloudevents-full and text codecs write theirs")
        void noContentTypeForBytes() {
            assertThat(publishBytes(Map.of())).doesNotContainKey(Envelope.CONTENT_TYPE)
                    .containsKeys(Envelope.SPEC_VERSION, Envelope.ID, Envelope.SOURCE, Envelope.TYPE);
            assertThat(publishBytes(Map.of(EnvelopeFormat.PROPERTY, "cloudevents-full")))
                    .containsEntry(Envelope.CONTENT_TYPE, Codec.bytes().contentType());
            assertThat(publishOne(Map.of(), Message.of("p"))).containsEntry(Envelope.CONTENT_TYPE, Codec.utf8().contentType());
        }

        @Test
        @DisplayName("leaves the time to a broker that stamps it, unless the message has its own")
        void timeFromBroker() {
            Capabilities stamping = Capabilities.builder("kafka").publishTimestamp(true).maxMessageSize(1 << 20).build();
            assertThat(publishOne(Map.of(), stamping, Message.of("k-1", "p"))).containsOnlyKeys(Envelope.SPEC_VERSION,
                    Envelope.ID, Envelope.SOURCE, Envelope.TYPE, Envelope.CONTENT_TYPE);
            assertThat(publishOne(Map.of(), stamping, Message.builder("p").timestamp(T).build()))
                    .containsEntry(Envelope.TIME, "2026-01-01T00:00:00.123456Z");
            assertThat(publishOne(Map.of(EnvelopeFormat.PROPERTY, "cloudevents-full"), stamping, Message.of("p")))
                    .containsKey(Envelope.TIME);
        }

        @Test
        @DisplayName("with cloudevents-full writes every attribute, a UUID and the long default type, as before")
        void full() {
            Map<String, String> headers = publishOne(Map.of(EnvelopeFormat.PROPERTY, " CloudEvents-Full "),
                    Message.builder("p").key("k-1").timestamp(T).build());
            assertThat(headers).containsOnlyKeys(Envelope.SPEC_VERSION, Envelope.ID, Envelope.SOURCE, Envelope.TYPE,
                    Envelope.TIME, Envelope.CONTENT_TYPE, Envelope.ATTEMPT, Envelope.SUBJECT)
                    .containsEntry(Envelope.TIME, "2026-01-01T00:00:00.123456Z").containsEntry(Envelope.ATTEMPT, "1")
                    .containsEntry(Envelope.SUBJECT, "k-1").containsEntry(Envelope.TYPE, "io.switchboard.message");
            assertThat(java.util.UUID.fromString(headers.get(Envelope.ID)).version()).isEqualTo(7);
        }

        @Test
        @DisplayName("writes a configured source and type and a given id as they are")
        void configured() {
            Map<String, String> headers = publishOne(Map.of("switchboard.source", "/orders", "switchboard.type", "com.shop.placed"),
                    Message.builder("p").id("id-1").build());
            assertThat(headers).containsEntry(Envelope.SOURCE, "/orders").containsEntry(Envelope.TYPE, "com.shop.placed")
                    .containsEntry(Envelope.ID, "id-1");
        }
    }

    private static BrokerConfig config(Map<String, String> properties) {
        return new BrokerConfig("i", "memory", properties);
    }

    /** An inbound record with these headers, broker id and broker timestamp, at no position. */
    private static InboundRecord record(Map<String, String> headers, String nativeId, long brokerTimestamp) {
        return new InboundRecord() {
            @Override public String destination() { return "d"; }
            @Override public int partition() { return -1; }
            @Override public long offset() { return -1; }
            @Override public String key() { return null; }
            @Override public Map<String, String> headers() { return headers; }
            @Override public byte[] payload() { return new byte[0]; }
            @Override public int deliveryCount() { return 1; }
            @Override public String nativeId() { return nativeId; }
            @Override public long brokerTimestamp() { return brokerTimestamp; }
            @Override public void ack() {}
            @Override public void nack() {}
        };
    }

    private static Map<String, String> copy(Map<String, String> headers) {
        Map<String, String> out = new LinkedHashMap<>();
        headers.forEach(out::put);
        return out;
    }

    /** The headers, as an adapter iterates them, of one message published through a publisher on {@code properties}. */
    private static Map<String, String> publishOne(Map<String, String> properties, Message<String> message) {
        return publishOne(properties, Capabilities.builder("memory").maxMessageSize(1 << 20).build(), message);
    }

    private static Map<String, String> publishOne(Map<String, String> properties, Capabilities capabilities,
            Message<String> message) {
        List<OutboundRecord> sent = new ArrayList<>();
        publisher(properties, capabilities, sent::add).publish(message);
        assertThat(sent).hasSize(1);
        return copy(sent.get(0).headers());
    }

    private static Map<String, String> publishBytes(Map<String, String> properties) {
        List<OutboundRecord> sent = new ArrayList<>();
        publisher(properties, Capabilities.builder("memory").maxMessageSize(1 << 20).build(), Codec.bytes(), sent::add)
                .publish(Message.of(new byte[] {1, 2}));
        assertThat(sent).hasSize(1);
        return copy(sent.get(0).headers());
    }

    private static DefaultPublisher<String> publisher(Map<String, String> properties, Capabilities capabilities,
            java.util.function.Consumer<OutboundRecord> sink) {
        return publisher(properties, capabilities, Codec.utf8(), sink);
    }

    private static <T> DefaultPublisher<T> publisher(Map<String, String> properties, Capabilities capabilities,
            Codec<T> codec, java.util.function.Consumer<OutboundRecord> sink) {
        RawPublisher raw = new RawPublisher() {
            @Override
            public CompletableFuture<SendResult> send(OutboundRecord record) {
                sink.accept(record);
                return CompletableFuture.completedFuture(SendResult.UNKNOWN);
            }

            @Override
            public void close() {}
        };
        return new DefaultPublisher<>(raw, new PublisherSpec("d", Delivery.AT_LEAST_ONCE, Map.of()), codec,
                capabilities, config(properties), Telemetry.NONE, c -> { });
    }
}
