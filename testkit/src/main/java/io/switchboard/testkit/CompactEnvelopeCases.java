package io.switchboard.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Delivery;
import io.switchboard.Envelope;
import io.switchboard.Message;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import io.switchboard.Switchboard;
import io.switchboard.spi.BrokerAdapter;
import io.switchboard.spi.BrokerAdapterFactory;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.ConsumerSpec;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.spi.InboundRecord;
import io.switchboard.spi.RawConsumer;
import io.switchboard.spi.RecordListener;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The contract's envelope cases; {@link BrokerContract} runs them as a nested group. A second
 * Switchboard on the same broker has {@code switchboard.envelope=compact}; whichever side writes
 * the compact form, the other reads the message whole. Three cases read the broker's record
 * through the adapter's own consumer to see what travels: compact, the lean default and
 * {@code cloudevents-full}.
 */
abstract class CompactEnvelopeCases extends ContractCases {

    /** A publish time with microseconds, which both envelope forms carry exactly. */
    private static final Instant AT = Instant.parse("2026-03-04T05:06:07.123456Z");

    CompactEnvelopeCases(ContractSupport contract) {
        super(contract);
    }

    /** A Switchboard on this broker whose publishers write the compact envelope; the caller closes it. */
    private Switchboard compactSwitchboard() {
        return Switchboard.builder().broker(brokerId()).properties(brokerProperties())
                .property("switchboard.envelope", "compact").build();
    }

    @Test
    @DisplayName("from a compact publisher reaches a CloudEvents subscriber whole")
    void compactToCloudEvents() {
        try (Switchboard compact = compactSwitchboard()) {
            roundTrip(compact, switchboard());
        }
    }

    @Test
    @DisplayName("from a CloudEvents publisher reaches a subscriber on a compact instance whole")
    void cloudEventsToCompact() {
        try (Switchboard compact = compactSwitchboard()) {
            roundTrip(switchboard(), compact);
        }
    }

    @Test
    @DisplayName("on a message the handler always fails reaches the dead-letter destination with its id and time")
    void deadLetteredWithItsId() {
        String dest = destination();
        Recorder<String> dead = deadLetterReader(dest, TEXT);
        Recorder<String> failing = new Recorder<>(timeout(), r -> true);
        subscribe(dest, TEXT, "g", Delivery.AT_LEAST_ONCE, failing);
        try (Switchboard compact = compactSwitchboard()) {
            PublishReceipt receipt = join(compact.publisher(dest, TEXT).delivery(Delivery.AT_LEAST_ONCE).build()
                    .publish(Message.builder("doomed").key("k-9").header("tenant", "acme").timestamp(AT).build()));

            Message<String> dl = dead.awaitCount(1).received().get(0).message();
            assertThat(failing.attempts()).hasSize(3)
                    .allSatisfy(a -> assertThat(a.message().id()).isEqualTo(receipt.messageId()));
            assertThat(dl.id()).matches(GENERATED_ID).isEqualTo(receipt.messageId());
            assertThat(dl.timestamp()).isEqualTo(AT);
            assertThat(dl.payload()).isEqualTo("doomed");
            assertThat(dl.key()).isEqualTo("k-9");
            assertThat(dl.headers()).containsEntry("tenant", "acme")
                    .containsEntry(Envelope.DEAD_LETTER_REASON, "handler-failed")
                    .containsEntry(Envelope.DEAD_LETTER_ATTEMPTS, "3");
            assertNoEnvelopeIn(dl.headers());
        }
    }

    @Test
    @DisplayName("travels as one ce_sb header through the adapter's binding, without the CloudEvents attributes")
    void oneHeaderOnTheWire() {
        Map<String, String> headers;
        try (Switchboard compact = compactSwitchboard()) {
            headers = onTheWire(compact, Message.builder("wire").key("k-1").header("tenant", "acme").id("id;1")
                    .timestamp(AT).build()).headers();
        }
        assertThat(headers).containsEntry(Envelope.COMPACT, (AT.getEpochSecond() * 1_000_000 + AT.getNano() / 1000) + ";id;1")
                .containsEntry("tenant", "acme")
                .doesNotContainKeys(Envelope.ID, Envelope.TIME, Envelope.SOURCE, Envelope.TYPE, Envelope.SPEC_VERSION,
                        Envelope.CONTENT_TYPE, Envelope.ATTEMPT);
        assertThat(Envelope.id(headers)).isEqualTo("id;1");
    }

    @Test
    @DisplayName("by default travels lean: the required attributes, no attempt, the key and the time where the broker has none")
    void leanOnTheWire() {
        Instant before = Instant.now().minusSeconds(1);
        InboundRecord record = onTheWire(switchboard(), Message.builder("wire").key("k-1").header("tenant", "acme").build());
        Map<String, String> headers = record.headers();
        assertThat(headers).containsEntry(Envelope.SPEC_VERSION, "1.0").containsEntry(Envelope.CONTENT_TYPE, TEXT.contentType())
                .containsEntry("tenant", "acme").containsKeys(Envelope.SOURCE, Envelope.TYPE)
                .doesNotContainKeys(Envelope.ATTEMPT, Envelope.COMPACT);
        assertThat(headers.get(Envelope.ID)).matches(GENERATED_ID);
        assertThat(record.key()).isEqualTo("k-1");
        assertThat(headers.getOrDefault(Envelope.SUBJECT, "k-1")).as("the subject, where written, is the key").isEqualTo("k-1");
        if (capabilities().publishTimestamp()) {
            assertThat(headers).as("the broker stamps the send time").doesNotContainKey(Envelope.TIME);
            assertThat(Instant.ofEpochMilli(record.brokerTimestamp())).isBetween(before, Instant.now().plusSeconds(1));
        } else {
            assertThat(Envelope.parseTime(headers.get(Envelope.TIME))).isBetween(before, Instant.now().plusSeconds(1));
        }
    }

    @Test
    @DisplayName("with switchboard.envelope=cloudevents-full travels with every CloudEvents attribute")
    void fullOnTheWire() {
        Map<String, String> headers;
        try (Switchboard full = Switchboard.builder().broker(brokerId()).properties(brokerProperties())
                .property("switchboard.envelope", "cloudevents-full").build()) {
            headers = onTheWire(full, Message.builder("wire").key("k-1").timestamp(AT).build()).headers();
        }
        assertThat(headers).containsEntry(Envelope.SUBJECT, "k-1").containsEntry(Envelope.ATTEMPT, "1")
                .containsEntry(Envelope.TIME, "2026-03-04T05:06:07.123456Z").containsEntry(Envelope.SPEC_VERSION, "1.0")
                .containsKeys(Envelope.SOURCE, Envelope.TYPE, Envelope.CONTENT_TYPE);
        assertThat(headers.get(Envelope.ID)).matches("[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
    }

    /** A Switchboard on this broker whose publishers write no envelope; the caller closes it. */
    private Switchboard noneSwitchboard() {
        return Switchboard.builder().broker(brokerId()).properties(brokerProperties())
                .property("switchboard.envelope", "none").build();
    }

    @Test
    @DisplayName("with switchboard.envelope=none travels with no envelope header; id and time come from the broker")
    void noneOnTheWire() {
        Instant before = Instant.now().minusSeconds(1);
        InboundRecord record;
        try (Switchboard none = noneSwitchboard()) {
            record = onTheWire(none, Message.builder("wire").key("k-1").header("tenant", "acme").build());
        }
        Map<String, String> headers = new java.util.HashMap<>(record.headers());
        // AMQP has no key field: there the key travels as the subject, the one header that is not the application's
        headers.remove(Envelope.SUBJECT, "k-1");
        assertThat(headers).containsOnly(Map.entry("tenant", "acme"));
        assertThat(record.key()).isEqualTo("k-1");
        assertThat(record.nativeId() != null || record.offset() >= 0).as("an id from the broker").isTrue();
        assertThat(Instant.ofEpochMilli(record.brokerTimestamp())).isBetween(before, Instant.now().plusSeconds(1));
    }

    @Test
    @DisplayName("with switchboard.envelope=none delivers every message in key order with a unique id and a sane time")
    void noneDelivers() {
        String dest = destination();
        Recorder<String> rec = recorder();
        subscribe(dest, TEXT, "g", Delivery.AT_LEAST_ONCE, rec);
        Instant before = Instant.now().minusSeconds(1);
        try (Switchboard none = noneSwitchboard()) {
            Publisher<String> publisher = none.publisher(dest, TEXT).delivery(Delivery.AT_LEAST_ONCE).build();
            for (int i = 0; i < 20; i++) {
                join(publisher.publish(Message.builder("k" + (i % 2) + ":" + i).key("k" + (i % 2)).build()));
            }
        }
        List<Message<String>> got = rec.awaitCount(20).received().stream().map(Received::message).toList();
        Instant after = Instant.now().plusSeconds(1);
        assertThat(got).extracting(Message::id).doesNotContainNull().doesNotHaveDuplicates();
        assertThat(got).allSatisfy(m -> assertThat(m.timestamp()).isBetween(before, after));
        for (String key : List.of("k0", "k1")) {
            List<Integer> order = got.stream().filter(m -> key.equals(m.key()))
                    .map(m -> Integer.parseInt(m.payload().substring(3))).distinct().toList();
            assertThat(order).as("key order of " + key).isSorted().hasSize(10);
        }
    }

    /** The record as the adapter's own consumer reads it, after {@code publishing} sent {@code message}. */
    private InboundRecord onTheWire(Switchboard publishing, Message<String> message) {
        String dest = destination();
        BrokerAdapterFactory factory = ServiceLoader.load(BrokerAdapterFactory.class).stream().map(ServiceLoader.Provider::get)
                .filter(f -> f.id().equals(brokerId())).findFirst().orElseThrow();
        List<InboundRecord> seen = new CopyOnWriteArrayList<>();
        try (BrokerAdapter raw = factory.create(new BrokerConfig("wire", brokerId(), brokerProperties()))) {
            raw.provisioner().ensureDestination(DestinationSpec.of(dest, capabilities().defaultPartitions()));
            try (RawConsumer consumer = raw.createConsumer(
                    new ConsumerSpec(dest, "wire", false, Delivery.AT_LEAST_ONCE, 16, null, Map.of()))) {
                join(consumer.start(collectInto(seen)));
                join(publishing.publisher(dest, TEXT).delivery(Delivery.AT_LEAST_ONCE).build().publish(message));
                await().atMost(timeout()).until(() -> !seen.isEmpty());
                seen.forEach(InboundRecord::ack);
            }
        }
        return seen.get(0);
    }

    private static RecordListener collectInto(List<InboundRecord> seen) {
        return new RecordListener() {
            @Override
            public void onRecord(InboundRecord record) {
                seen.add(record);
            }

            @Override
            public void onFailure(Throwable error) {
                throw new AssertionError("the raw consumer failed", error);
            }
        };
    }

    /**
     * Publishes through {@code publishing} and receives through {@code subscribing}: one message with
     * a key, headers, an id holding ';' and a microsecond timestamp, and one keyless message whose id
     * and time are generated.
     */
    private void roundTrip(Switchboard publishing, Switchboard subscribing) {
        String dest = destination();
        Recorder<String> rec = recorder();
        subscribe(subscribing, dest, TEXT, s -> s.group("g").delivery(Delivery.AT_LEAST_ONCE), rec);
        Publisher<String> publisher = publishing.publisher(dest, TEXT).delivery(Delivery.AT_LEAST_ONCE).build();
        String givenId = "order;" + dest + ";v2";
        Instant before = Instant.now().minusSeconds(1);
        PublishReceipt given = join(publisher.publish(Message.builder("given").key("k-1").header("tenant", "acme")
                .header("x-n", "7").id(givenId).timestamp(AT).build()));
        PublishReceipt generated = join(publisher.publish(Message.builder("generated").header("tenant", "beta").build()));
        Instant after = Instant.now().plusSeconds(1);

        Map<String, Message<String>> got = rec.awaitCount(2).received().stream()
                .collect(Collectors.toMap(r -> r.message().payload(), Received::message));
        Message<String> first = got.get("given");
        assertThat(first.id()).isEqualTo(givenId).isEqualTo(given.messageId());
        assertThat(first.timestamp()).isEqualTo(AT);
        assertThat(first.key()).isEqualTo("k-1");
        assertThat(first.headers()).containsOnly(Map.entry("tenant", "acme"), Map.entry("x-n", "7"));

        Message<String> second = got.get("generated");
        assertThat(second.id()).matches(GENERATED_ID).isEqualTo(generated.messageId());
        assertThat(second.timestamp()).isBetween(before, after);
        assertThat(second.timestamp().getNano() % 1000).as("microsecond precision").isZero();
        assertThat(second.key()).isNull();
        assertThat(second.headers()).containsOnly(Map.entry("tenant", "beta"));
    }

    /** No envelope header, under its core name or a broker binding's, is visible to the handler. */
    private static void assertNoEnvelopeIn(Map<String, String> headers) {
        assertThat(headers.keySet()).allSatisfy(name -> assertThat(name.toLowerCase(Locale.ROOT))
                .doesNotStartWith(Envelope.PREFIX).doesNotStartWith("cloudevents").isNotEqualTo(Envelope.CONTENT_TYPE));
    }
}
