package io.switchboard.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Envelope;
import io.switchboard.Message;
import io.switchboard.MessageTooLargeException;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import io.switchboard.testkit.BrokerContract.Order;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The contract's "A round trip" cases; {@link BrokerContract} runs them as a nested group. */
abstract class RoundTripCases extends ContractCases {

    RoundTripCases(ContractSupport contract) {
        super(contract);
    }

    @Test
    @DisplayName("keeps payload, key, headers and id")
    void keepsPayloadKeyHeadersAndId() {
        String dest = destination();
        Recorder<String> rec = recorder();
        subscribe(dest, TEXT, "g", Delivery.AT_LEAST_ONCE, rec);
        Message<String> sent = Message.builder("hello").key("k-1").header("tenant", "acme").header("x-n", "7")
                .id("id-" + dest).build();
        PublishReceipt receipt = join(publisher(dest, TEXT, Delivery.AT_LEAST_ONCE).publish(sent));

        Message<String> got = rec.awaitCount(1).received().get(0).message();
        assertThat(got.payload()).isEqualTo("hello");
        assertThat(got.key()).isEqualTo("k-1");
        assertThat(got.headers()).containsEntry("tenant", "acme").containsEntry("x-n", "7");
        assertThat(got.id()).isEqualTo("id-" + dest).isEqualTo(receipt.messageId());
    }

    @Test
    @DisplayName("carries a CloudEvents extension attribute: set as header ce_<name>, read back under that name")
    void carriesCloudEventsExtension() {
        String dest = destination();
        Recorder<String> rec = recorder();
        subscribe(dest, TEXT, "g", Delivery.AT_LEAST_ONCE, rec);
        join(publisher(dest, TEXT, Delivery.AT_LEAST_ONCE).publish(Message.builder("hello").key("k-1")
                .header("ce_region", "eu-west").header("ce_tenant2", "acme").header("plain", "p").build()));

        Message<String> got = rec.awaitCount(1).received().get(0).message();
        assertThat(got.headers()).containsEntry("ce_region", "eu-west").containsEntry("ce_tenant2", "acme")
                .containsEntry("plain", "p")
                .doesNotContainKeys(Envelope.ID, Envelope.SOURCE, Envelope.TYPE, Envelope.SPEC_VERSION, Envelope.CONTENT_TYPE);
    }

    @Test
    @DisplayName("carries a JSON payload through the json codec")
    void carriesJson() {
        String dest = destination();
        Codec<Order> json = Codec.json(Order.class);
        Recorder<Order> rec = recorder();
        subscribe(dest, json, "g", Delivery.AT_LEAST_ONCE, rec);
        Order order = new Order("o-1", 3, List.of("apple", "pear"));
        join(publisher(dest, json, Delivery.AT_LEAST_ONCE).publish(order));
        assertThat(rec.awaitCount(1).payloads()).containsExactly(order);
    }

    @Test
    @DisplayName("carries bytes unchanged through the bytes codec")
    void carriesBytes() {
        String dest = destination();
        Recorder<byte[]> rec = recorder();
        subscribe(dest, Codec.bytes(), "g", Delivery.AT_LEAST_ONCE, rec);
        byte[] payload = new byte[256];
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) i;
        }
        join(publisher(dest, Codec.bytes(), Delivery.AT_LEAST_ONCE).publish(payload));
        assertThat(rec.awaitCount(1).payloads().get(0)).isEqualTo(payload);
    }

    @Test
    @DisplayName("stamps a time-ordered id and a publish time")
    void stampsIdAndTime() {
        String dest = destination();
        Recorder<String> rec = recorder();
        subscribe(dest, TEXT, "g", Delivery.AT_LEAST_ONCE, rec);
        Instant before = Instant.now().minusSeconds(1);
        Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
        join(pub.publish(Message.of("k", "first")));
        join(pub.publish(Message.of("k", "second")));

        List<Received<String>> got = rec.awaitCount(2).received();
        Message<String> first = got.get(0).message();
        Message<String> second = got.get(1).message();
        assertThat(first.id()).matches(GENERATED_ID);
        // the first 8 characters are the 48 bits of Unix milliseconds
        assertThat(first.id().substring(0, 8).compareTo(second.id().substring(0, 8))).isLessThanOrEqualTo(0);
        assertThat(first.timestamp()).isAfter(before).isBefore(Instant.now().plusSeconds(1));
        // no tracing configured: no made-up trace context either (switchboard.tracing.stamp-traceparent=true adds one)
        assertThat(got.get(0).context().traceparent()).isNull();
    }

    @Test
    @DisplayName("publishes a batch and returns a receipt per message")
    void publishesBatch() {
        String dest = destination();
        Recorder<String> rec = recorder();
        subscribe(dest, TEXT, "g", Delivery.AT_LEAST_ONCE, rec);
        List<Message<String>> batch = IntStream.range(0, 20).mapToObj(i -> Message.of("m" + i)).collect(Collectors.toList());
        List<PublishReceipt> receipts = join(publisher(dest, TEXT, Delivery.AT_LEAST_ONCE).publishAll(batch));
        assertThat(receipts).hasSize(20).allSatisfy(r -> {
            assertThat(r.destination()).isEqualTo(dest);
            assertThat(r.instance()).isEqualTo(switchboard().instanceName());
            assertThat(r.brokerId()).isEqualTo(switchboard().brokerId());
        });
        assertThat(rec.awaitCount(20).payloads()).containsExactlyInAnyOrderElementsOf(
                batch.stream().map(Message::payload).collect(Collectors.toList()));
    }

    @Test
    @DisplayName("refuses a whole batch when one message is bad, and sends none of it")
    void badMessageRefusesTheBatch() {
        String dest = destination();
        Recorder<String> rec = recorder();
        subscribe(dest, TEXT, "g", Delivery.AT_LEAST_ONCE, rec);
        Publisher<String> publisher = publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
        String tooLarge = "x".repeat(capabilities().maxMessageSize() + 1);

        assertThatThrownBy(() -> publisher.publishAll(List.of(Message.of("first"), Message.of(tooLarge), Message.of("last"))))
                .isInstanceOf(MessageTooLargeException.class).hasMessageContaining(dest);
        join(publisher.publish("after"));

        assertThat(rec.awaitCount(1).payloads()).containsExactly("after");
        // nothing of the refused batch may come: there is no event to await for a message that must not arrive
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5)).until(() -> rec.payloads().size() == 1);
        assertThat(rec.payloads()).containsExactly("after");
    }

    @Test
    @DisplayName("tells the handler its destination, group, instance, broker and first attempt")
    void contextIsFilledIn() {
        String dest = destination();
        Recorder<String> rec = recorder();
        subscribe(dest, TEXT, "billing", Delivery.AT_LEAST_ONCE, rec);
        join(publisher(dest, TEXT, Delivery.AT_LEAST_ONCE).publish("x"));
        Received<String> got = rec.awaitCount(1).received().get(0);
        assertThat(got.context().destination()).isEqualTo(dest);
        assertThat(got.context().group()).isEqualTo("billing");
        assertThat(got.context().attempt()).isEqualTo(1);
        assertThat(got.context().instance()).isEqualTo(switchboard().instanceName());
        assertThat(got.context().brokerId()).isEqualTo(switchboard().brokerId());
    }
}
