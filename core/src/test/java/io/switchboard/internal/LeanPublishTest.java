package io.switchboard.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Envelope;
import io.switchboard.Message;
import io.switchboard.PublishReceipt;
import io.switchboard.internal.envelope.EnvelopeFormat;
import io.switchboard.internal.envelope.EnvelopeHeaders;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.Capabilities;
import io.switchboard.spi.OutboundRecord;
import io.switchboard.spi.PublisherSpec;
import io.switchboard.spi.RawPublisher;
import io.switchboard.spi.SendResult;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What a publish makes per message when it needs little: no header map, no id the wire does not carry. */
@Timeout(30)
class LeanPublishTest {

    private static final Capabilities STAMPING = Capabilities.builder("kafka").publishTimestamp(true)
            .maxMessageSize(1 << 20).build();

    @Test
    @DisplayName("a builder without headers builds an empty, unmodifiable map; tag(null) and toBuilder still work")
    void builderWithoutHeaders() {
        Message<String> plain = Message.builder("p").key("k").tag(null).build();
        assertThat(plain.headers()).isEmpty();
        assertThatThrownBy(() -> plain.headers().put("a", "b")).isInstanceOf(UnsupportedOperationException.class);
        assertThat(plain.toBuilder().header("a", "1").build().headers()).containsExactly(Map.entry("a", "1"));

        Message<String> tagged = Message.builder("p").header("x", "1").tag("paid").build();
        Message<String> copy = tagged.toBuilder().header("y", "2").tag(null).build();
        assertThat(tagged.headers()).containsOnlyKeys("x", io.switchboard.spi.TagFilter.TAG_HEADER);
        assertThat(copy.headers()).containsOnlyKeys("x", "y");
    }

    @Test
    @DisplayName("the envelope none's headers are empty without counting, and not once a header is set")
    void noneIsEmpty() {
        EnvelopeHeaders headers = new EnvelopeHeaders(EnvelopeHeaders.Layout.none(), Map.of());
        headers.deferredId();
        assertThat(headers.isEmpty()).isTrue();
        headers.put(Envelope.TRACEPARENT, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
        assertThat(headers.isEmpty()).isFalse();
        assertThat(new EnvelopeHeaders(EnvelopeHeaders.Layout.none(), Map.of("a", "1")).isEmpty()).isFalse();
        EnvelopeHeaders lean = new EnvelopeHeaders(EnvelopeHeaders.Layout.cloudEvents("s", "t", null, null), Map.of());
        assertThat(lean.isEmpty()).isFalse();
    }

    @Test
    @DisplayName("a deferred id is made once, on the first read from any thread, and every thread reads the same")
    void deferredIdMadeOnce() throws Exception {
        for (int round = 0; round < 200; round++) {
            EnvelopeHeaders headers = new EnvelopeHeaders(EnvelopeHeaders.Layout.none(), Map.of());
            headers.deferredId();
            CountDownLatch start = new CountDownLatch(1);
            String[] seen = new String[2];
            List<Thread> readers = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                int slot = i;
                Thread t = new Thread(() -> {
                    try {
                        if (start.await(10, TimeUnit.SECONDS)) {
                            seen[slot] = headers.id();
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                t.start();
                readers.add(t);
            }
            start.countDown();
            for (Thread t : readers) {
                t.join(10_000);
                assertThat(t.isAlive()).as("reader of a deferred id still running after 10 s").isFalse();
            }
            assertThat(seen[0]).hasSize(22).isEqualTo(seen[1]).isEqualTo(headers.id()).isEqualTo(headers.get());
            assertThat(headers.hasIdBits()).isTrue();
            assertThat(headers.idHigh() | headers.idLow()).isNotZero();
        }
    }

    @Test
    @DisplayName("envelope none on a broker that stamps positions writes no id; a receipt without a position still has one")
    void noneWithoutPosition() {
        List<OutboundRecord> sent = new ArrayList<>();
        DefaultPublisher<String> publisher = publisher(SendResult.UNKNOWN, sent);
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 3; i++) {
            PublishReceipt receipt = publisher.publish("p").toCompletableFuture().join();
            assertThat(receipt.messageId()).hasSize(22);
            ids.add(receipt.messageId());
        }
        assertThat(ids).hasSize(3);
        assertThat(sent).allSatisfy(r -> assertThat(r.headers()).isEmpty());

        PublishReceipt positioned = publisher(new SendResult(2, 41), new ArrayList<>()).publish("p").toCompletableFuture().join();
        assertThat(positioned.partition()).isEqualTo(2);
        assertThat(positioned.offset()).isEqualTo(41);
    }

    @Test
    @DisplayName("envelope none on a broker that stamps positions: a message with nothing of its own shares one read-only "
            + "headers object; one with a header, a given id or time, or tracing gets its own")
    void noneSharesHeaders() {
        List<OutboundRecord> sent = new ArrayList<>();
        DefaultPublisher<String> publisher = publisher(new SendResult(0, 7), sent);
        publisher.publish("a").toCompletableFuture().join();
        publisher.publish(Message.builder("b").key("k").build()).toCompletableFuture().join();
        publisher.send("c");
        assertThat(sent).hasSize(3);
        EnvelopeHeaders shared = (EnvelopeHeaders) sent.get(0).headers();
        assertThat(shared.isShared()).isTrue();
        assertThat(sent).allSatisfy(r -> assertThat(r.headers()).isSameAs(shared).isEmpty());
        assertThat(shared.hasIdBits()).isFalse();
        assertThat(shared.id()).hasSize(22).isNotEqualTo(shared.id());
        assertThatThrownBy(() -> shared.put(Envelope.TRACEPARENT, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThat(sent.get(1).key()).isEqualTo("k");

        publisher.publish(Message.builder("d").header("app", "1").build()).toCompletableFuture().join();
        publisher.publish(Message.builder("e").id("given-1").build()).toCompletableFuture().join();
        publisher.publish(Message.builder("f").timestamp(java.time.Instant.ofEpochMilli(1_700_000_000_000L)).build())
                .toCompletableFuture().join();
        assertThat(sent.subList(3, 6)).allSatisfy(r -> assertThat(((EnvelopeHeaders) r.headers()).isShared()).isFalse());
        assertThat(sent.get(3).headers()).containsEntry("app", "1");
        assertThat(((EnvelopeHeaders) sent.get(4).headers()).id()).isEqualTo("given-1");

        List<OutboundRecord> stamped = new ArrayList<>();
        DefaultPublisher<String> stamping = publisher(new SendResult(0, 7), stamped,
                Map.of(EnvelopeFormat.PROPERTY, "none", DefaultPublisher.STAMP_TRACEPARENT, "true"));
        stamping.publish("g").toCompletableFuture().join();
        assertThat(((EnvelopeHeaders) stamped.get(0).headers()).isShared()).isFalse();
        assertThat(stamped.get(0).headers()).containsKey(Envelope.TRACEPARENT);
    }

    @Test
    @DisplayName("without timers no publish reads nanoTime: a generated id still carries the publish's wall-clock time")
    void idTimeWithoutClockRead() {
        Capabilities plain = Capabilities.builder("rocketmq").maxMessageSize(1 << 20).build();
        for (String envelope : List.of("none", "cloudevents", "compact")) {
            List<OutboundRecord> sent = new ArrayList<>();
            DefaultPublisher<String> publisher = publisher(new SendResult(0, 1), sent, plain, Map.of(EnvelopeFormat.PROPERTY,
                    envelope));
            long before = System.currentTimeMillis();
            publisher.publish("now").toCompletableFuture().join();
            publisher.publish(Message.builder("given").timestamp(java.time.Instant.ofEpochSecond(86_400)).build())
                    .toCompletableFuture().join();
            long after = System.currentTimeMillis();
            assertThat(sent).as(envelope).hasSize(2).allSatisfy(r -> {
                EnvelopeHeaders headers = (EnvelopeHeaders) r.headers();
                assertThat(headers.isShared()).isFalse();
                assertThat(headers.idHigh() >>> 16).as(envelope + ": the id's milliseconds").isBetween(before, after);
            });
        }
    }

    private static DefaultPublisher<String> publisher(SendResult result, List<OutboundRecord> sent) {
        return publisher(result, sent, Map.of(EnvelopeFormat.PROPERTY, "none"));
    }

    private static DefaultPublisher<String> publisher(SendResult result, List<OutboundRecord> sent, Map<String, String> props) {
        return publisher(result, sent, STAMPING, props);
    }

    private static DefaultPublisher<String> publisher(SendResult result, List<OutboundRecord> sent, Capabilities capabilities,
            Map<String, String> props) {
        RawPublisher raw = new RawPublisher() {
            @Override
            public CompletableFuture<SendResult> send(OutboundRecord record) {
                sent.add(record);
                return CompletableFuture.completedFuture(result);
            }

            @Override
            public void close() {}
        };
        return new DefaultPublisher<>(raw, new PublisherSpec("d", Delivery.AT_LEAST_ONCE, Map.of()), Codec.utf8(), capabilities,
                new BrokerConfig("i", capabilities.brokerId(), props), Telemetry.NONE, c -> { });
    }
}
