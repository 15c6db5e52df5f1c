package io.switchboard.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Envelope;
import io.switchboard.InvalidMessageException;
import io.switchboard.Message;
import io.switchboard.PublishException;
import io.switchboard.PublishReceipt;
import io.switchboard.SwitchboardClosedException;
import io.switchboard.internal.envelope.EnvelopeFormat;
import io.switchboard.internal.envelope.MessageIds;
import io.switchboard.internal.metrics.Meters;
import io.switchboard.internal.metrics.MetricsSettings;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.Capabilities;
import io.switchboard.spi.OutboundRecord;
import io.switchboard.spi.PublisherSpec;
import io.switchboard.spi.RawPublisher;
import io.switchboard.spi.SendResult;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code Publisher.send} (no receipt) and the numbers an outbound record carries for the adapters. */
class PublishWithoutReceiptTest {

    private static final Instant T = Instant.parse("2026-01-01T00:00:00.123456Z");
    private static final Capabilities CAPABILITIES = Capabilities.builder("memory").maxMessageSize(1 << 20).build();

    /** A raw publisher that keeps every record and answers with what {@code outcome} says. */
    private static final class Recording implements RawPublisher {
        final List<OutboundRecord> records = new ArrayList<>();
        final List<CompletableFuture<SendResult>> futures = new ArrayList<>();
        Function<OutboundRecord, CompletableFuture<SendResult>> outcome =
                r -> CompletableFuture.completedFuture(new SendResult(3, 7));

        @Override
        public CompletableFuture<SendResult> send(OutboundRecord record) {
            records.add(record);
            CompletableFuture<SendResult> f = outcome.apply(record);
            futures.add(f);
            return f;
        }

        @Override
        public void close() {}
    }

    private static DefaultPublisher<String> publisher(Recording raw, Map<String, String> properties, Delivery delivery,
            MeterRegistry meters) {
        Telemetry telemetry = meters == null ? Telemetry.NONE
                : new Telemetry(meters, null, MetricsSettings.DEFAULTS, "memory", "i", null);
        return new DefaultPublisher<>(raw, new PublisherSpec("d", delivery, Map.of()), Codec.utf8(), CAPABILITIES,
                new BrokerConfig("i", "memory", properties), telemetry, c -> { });
    }

    private static double count(MeterRegistry meters, String outcome) {
        return meters.get(Meters.PUBLISH).tag("outcome", outcome).timer().count();
    }

    /** A publisher that implements only {@code publish(message)}, and refuses every message with {@code reason}. */
    private static io.switchboard.Publisher<String> refusingPublisher(String destination, String reason) {
        return new io.switchboard.Publisher<>() {
            @Override
            public CompletionStage<PublishReceipt> publish(Message<String> message) {
                return CompletableFuture.failedFuture(new PublishException(reason));
            }

            @Override
            public String destination() {
                return destination;
            }

            @Override
            public void close() {}
        };
    }

    /** What slf4j-simple writes to System.err while {@code action} runs. */
    private static String stderrOf(Runnable action) {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            action.run();
        } finally {
            System.setErr(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    @Nested
    @DisplayName("send, without a receipt")
    class Send {
        @Test
        @DisplayName("hands the adapter the same record publish would, and counts the acknowledgement")
        void sameRecord() {
            Recording raw = new Recording();
            SimpleMeterRegistry meters = new SimpleMeterRegistry();
            DefaultPublisher<String> p = publisher(raw, Map.of(), Delivery.AT_LEAST_ONCE, meters);
            p.send("a");
            p.send(Message.builder("b").key("k").header("tenant", "acme").id("id-1").timestamp(T).build());
            PublishReceipt receipt = p.publish(Message.builder("b").key("k").header("tenant", "acme").id("id-1")
                    .timestamp(T).build()).toCompletableFuture().join();
            assertThat(raw.records).hasSize(3);
            assertThat(raw.records.get(0).headers()).containsKeys(Envelope.ID, Envelope.TIME);
            assertThat(new String(raw.records.get(0).payload(), StandardCharsets.UTF_8)).isEqualTo("a");
            assertThat(new LinkedHashMap<>(raw.records.get(1).headers())).isEqualTo(new LinkedHashMap<>(raw.records.get(2).headers()));
            assertThat(raw.records.get(1).key()).isEqualTo("k");
            assertThat(receipt.messageId()).isEqualTo("id-1");
            assertThat(count(meters, "success")).isEqualTo(3);
        }

        @Test
        @DisplayName("throws input errors at once, as publish does")
        void inputErrors() {
            DefaultPublisher<String> p = publisher(new Recording(), Map.of(), Delivery.AT_LEAST_ONCE, null);
            assertThatThrownBy(() -> p.send((String) null)).isInstanceOf(InvalidMessageException.class)
                    .hasMessageContaining("null payload");
            assertThatThrownBy(() -> p.send((Message<String>) null)).isInstanceOf(InvalidMessageException.class);
            p.close();
            assertThatThrownBy(() -> p.send("a")).isInstanceOf(SwitchboardClosedException.class);
        }

        @Test
        @DisplayName("counts and logs at ERROR, with the id, an at-least-once message the broker refuses later")
        void lateFailureAtLeastOnce() {
            Recording raw = new Recording();
            raw.outcome = r -> new CompletableFuture<>();
            SimpleMeterRegistry meters = new SimpleMeterRegistry();
            DefaultPublisher<String> p = publisher(raw, Map.of(), Delivery.AT_LEAST_ONCE, meters);
            p.send(Message.builder("a").id("order-42").build());
            assertThat(count(meters, "failure")).isZero();
            String log = stderrOf(() -> raw.futures.get(0).completeExceptionally(new PublishException("unroutable")));
            assertThat(count(meters, "failure")).isEqualTo(1);
            assertThat(log).contains("ERROR").contains("order-42").contains("'d'").contains("LOST").contains("unroutable");
        }

        @Test
        @DisplayName("counts and logs a message the adapter refuses within its send, without meters too")
        void immediateFailure() {
            Recording raw = new Recording();
            raw.outcome = r -> {
                throw new PublishException("connection closed");
            };
            SimpleMeterRegistry meters = new SimpleMeterRegistry();
            DefaultPublisher<String> metered = publisher(raw, Map.of(), Delivery.AT_LEAST_ONCE, meters);
            assertThat(stderrOf(() -> metered.send("a"))).contains("ERROR").contains("connection closed");
            assertThat(count(meters, "failure")).isEqualTo(1);

            Recording failing = new Recording();
            failing.outcome = r -> CompletableFuture.failedFuture(new PublishException("nack"));
            DefaultPublisher<String> plain = publisher(failing, Map.of(), Delivery.AT_LEAST_ONCE, null);
            assertThat(stderrOf(() -> plain.send(Message.builder("a").id("m-1").build()))).contains("ERROR").contains("m-1")
                    .contains("nack");
        }

        @Test
        @DisplayName("logs an at-most-once message the broker did not take at WARN: it may be dropped by contract")
        void failureAtMostOnce() {
            Recording raw = new Recording();
            raw.outcome = r -> CompletableFuture.failedFuture(new PublishException("buffer full"));
            DefaultPublisher<String> p = publisher(raw, Map.of(), Delivery.AT_MOST_ONCE, null);
            String log = stderrOf(() -> p.send(Message.builder("a").id("m-2").build()));
            assertThat(log).contains("WARN").contains("m-2").contains("dropped").doesNotContain("ERROR");
        }

        @Test
        @DisplayName("a publisher that only implements publish logs a failed send through the interface's default")
        void interfaceDefault() {
            io.switchboard.Publisher<String> minimal = refusingPublisher("orders", "no route");
            assertThat(stderrOf(() -> minimal.send("a"))).contains("ERROR").contains("'orders'").contains("no route");
        }
    }

    @Nested
    @DisplayName("publish with a callback, no future")
    class Callback {
        @Test
        @DisplayName("calls back once with the receipt or the error, counted in the meters; a callback's exception is logged")
        void receiptOrError() {
            Recording raw = new Recording();
            raw.outcome = r -> new CompletableFuture<>();
            SimpleMeterRegistry meters = new SimpleMeterRegistry();
            DefaultPublisher<String> p = publisher(raw, Map.of(), Delivery.AT_LEAST_ONCE, meters);
            List<String> outcomes = new java.util.concurrent.CopyOnWriteArrayList<>();
            p.publish(Message.builder("a").id("m-1").build(), (receipt, error) -> outcomes.add(receipt.messageId() + "/" + error));
            p.publish(Message.builder("b").id("m-2").build(), (receipt, error) -> outcomes.add(receipt + "/" + error.getMessage()));
            p.publish(Message.builder("c").id("m-3").build(), (receipt, error) -> {
                throw new IllegalStateException("callback broke");
            });
            assertThat(outcomes).as("nothing before the broker answers").isEmpty();
            raw.futures.get(0).complete(new SendResult(1, 5));
            raw.futures.get(1).completeExceptionally(new PublishException("unroutable"));
            String log = stderrOf(() -> raw.futures.get(2).complete(new SendResult(1, 6)));
            assertThat(outcomes).containsExactly("m-1/null", "null/unroutable");
            assertThat(log).contains("ERROR").contains("callback of a publish to 'd' threw").contains("callback broke");
            assertThat(count(meters, "success")).isEqualTo(2);
            assertThat(count(meters, "failure")).isEqualTo(1);
        }

        @Test
        @DisplayName("input errors are thrown at once and the callback is not called; a null callback is refused naming the fix")
        void inputErrors() {
            DefaultPublisher<String> p = publisher(new Recording(), Map.of(), Delivery.AT_LEAST_ONCE, null);
            List<Throwable> called = new ArrayList<>();
            assertThatThrownBy(() -> p.publish(Message.of((String) null), (r, e) -> called.add(e)))
                    .isInstanceOf(InvalidMessageException.class);
            assertThatThrownBy(() -> p.publish(Message.of("a"), null)).isInstanceOf(InvalidMessageException.class)
                    .hasMessageContaining("Callback").hasMessageContaining("publish(message)");
            assertThat(called).isEmpty();
        }

        @Test
        @DisplayName("a publisher that only implements publish gets the callback through the interface's default")
        void interfaceDefault() {
            io.switchboard.Publisher<String> minimal = refusingPublisher("orders", "no route");
            List<String> outcomes = new ArrayList<>();
            minimal.publish(Message.of("a"), (receipt, error) -> outcomes.add(receipt + "/" + error.getMessage()));
            assertThat(outcomes).containsExactly("null/no route");
        }
    }

    @Nested
    @DisplayName("The numbers of a record core publishes")
    class Numbers {
        /** Every header as forEachHeader hands it over, byte values decoded as UTF-8; and which came as bytes. */
        private Map<String, String> written(OutboundRecord record, List<String> asBytes) {
            Map<String, String> out = new LinkedHashMap<>();
            record.forEachHeader(new OutboundRecord.HeaderWriter() {
                @Override
                public void text(String name, String value) {
                    out.put(name, value);
                }

                @Override
                public void ascii(String name, byte[] value) {
                    asBytes.add(name);
                    out.put(name, new String(value, StandardCharsets.UTF_8));
                }
            });
            return out;
        }

        private OutboundRecord publishOne(Map<String, String> properties, Message<String> message) {
            Recording raw = new Recording();
            publisher(raw, properties, Delivery.AT_LEAST_ONCE, null).send(message);
            return raw.records.get(0);
        }

        @ParameterizedTest(name = "{0}")
        @ValueSource(strings = {"cloudevents", "cloudevents-full", "compact"})
        @DisplayName("forEachHeader writes the same headers, in the same order and bytes, as the header map's text")
        void bytesAreTheText(String format) {
            OutboundRecord record = publishOne(Map.of(EnvelopeFormat.PROPERTY, format,
                    DefaultPublisher.STAMP_TRACEPARENT, "true"), Message.builder("p").key("k").header("tenant", "acme").build());
            List<String> asBytes = new ArrayList<>();
            Map<String, String> written = written(record, asBytes);
            Map<String, String> text = new LinkedHashMap<>();
            record.headers().forEach(text::put);
            assertThat(written).containsExactlyEntriesOf(text);
            assertThat(new LinkedHashMap<>(record.headers())).isEqualTo(text);
            assertThat(asBytes).isEqualTo(format.equals("compact") ? List.of(Envelope.COMPACT) : List.of(Envelope.ID, Envelope.TIME));
            assertThat(record.hasIdBits()).isTrue();
        }

        @Test
        @DisplayName("the id's bits are the UUID's, and the time's microseconds are the header's time")
        void bitsAndMicros() {
            OutboundRecord full = publishOne(Map.of(EnvelopeFormat.PROPERTY, "cloudevents-full"), Message.of("p"));
            UUID id = UUID.fromString(full.headers().get(Envelope.ID));
            assertThat(id.version()).isEqualTo(7);
            assertThat(full.idMostSignificantBits()).isEqualTo(id.getMostSignificantBits());
            assertThat(full.idLeastSignificantBits()).isEqualTo(id.getLeastSignificantBits());
            Instant time = Envelope.parseTime(full.headers().get(Envelope.TIME));
            assertThat(full.timeMicros()).isEqualTo(time.getEpochSecond() * 1_000_000L + time.getNano() / 1000);
            // the id's milliseconds are the time's: one clock read for both
            assertThat(id.getMostSignificantBits() >>> 16).isEqualTo(time.toEpochMilli());

            OutboundRecord lean = publishOne(Map.of(), Message.of("p"));
            assertThat(lean.headers().get(Envelope.ID))
                    .isEqualTo(MessageIds.ascii(MessageIds.shortId(lean.idMostSignificantBits(), lean.idLeastSignificantBits())));
        }

        @Test
        @DisplayName("a given id and time are text and numbers as they can be; a record made by hand has no numbers")
        void givenAndHandMade() {
            OutboundRecord given = publishOne(Map.of(), Message.builder("p").id("order-1").timestamp(T).build());
            assertThat(given.hasIdBits()).isFalse();
            assertThat(given.idMostSignificantBits()).isZero();
            assertThat(given.timeMicros()).isEqualTo(1_767_225_600_123_456L);
            List<String> asBytes = new ArrayList<>();
            assertThat(written(given, asBytes)).containsEntry(Envelope.ID, "order-1")
                    .containsEntry(Envelope.TIME, "2026-01-01T00:00:00.123456Z");
            assertThat(asBytes).containsExactly(Envelope.TIME);

            Instant far = Instant.parse("+300000-01-01T00:00:00Z");
            OutboundRecord beyond = publishOne(Map.of(), Message.builder("p").timestamp(far).build());
            assertThat(beyond.timeMicros()).isEqualTo(OutboundRecord.NO_TIME);
            assertThat(beyond.headers()).containsEntry(Envelope.TIME,
                    MessageIds.formatMicros(far.getEpochSecond(), far.getNano()));

            OutboundRecord byHand = new OutboundRecord("d", null, Map.of(Envelope.ID, "x"), new byte[0], 0);
            assertThat(byHand.hasIdBits()).isFalse();
            assertThat(byHand.timeMicros()).isEqualTo(OutboundRecord.NO_TIME);
            List<String> none = new ArrayList<>();
            assertThat(written(byHand, none)).containsExactly(Map.entry(Envelope.ID, "x"));
            assertThat(none).isEmpty();
        }

        @Test
        @DisplayName("the compact value written as bytes is the text's, for negative times too")
        void compactBytes() {
            for (Instant t : List.of(T, Instant.parse("1969-12-31T23:59:59.5Z"), Instant.EPOCH,
                    Instant.ofEpochSecond(MessageIds.MIN_COMPACT_SECOND, 0))) {
                byte[] id = MessageIds.shortId(1, 2);
                assertThat(MessageIds.ascii(MessageIds.compact(MessageIds.epochMicros(t.getEpochSecond(), t.getNano()), id)))
                        .as(t.toString()).isEqualTo(MessageIds.formatCompact(t.getEpochSecond(), t.getNano(), MessageIds.ascii(id)));
            }
        }
    }
}
