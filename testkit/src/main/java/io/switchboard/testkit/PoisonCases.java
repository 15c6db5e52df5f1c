package io.switchboard.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Envelope;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.testkit.BrokerContract.Order;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The contract's "A poison message" cases; {@link BrokerContract} runs them as a nested group. */
abstract class PoisonCases extends ContractCases {

    PoisonCases(ContractSupport contract) {
        super(contract);
    }

    @Test
    @DisplayName("that cannot be decoded goes straight to the dead-letter destination")
    void undecodableToDlq() {
        String dest = destination();
        Recorder<byte[]> dead = deadLetterReader(dest, Codec.bytes());
        Recorder<Order> rec = recorder();
        subscribe(dest, Codec.json(Order.class), "g", Delivery.AT_LEAST_ONCE, rec);
        byte[] garbage = "{not json".getBytes(StandardCharsets.UTF_8);
        join(publisher(dest, Codec.bytes(), Delivery.AT_LEAST_ONCE).publish(garbage));
        Received<byte[]> dl = dead.awaitCount(1).received().get(0);
        assertThat(dl.message().payload()).isEqualTo(garbage);
        assertThat(dl.message().headers()).containsEntry(Envelope.DEAD_LETTER_REASON, "undecodable")
                .containsKey(Envelope.ERROR_MESSAGE);
        assertThat(rec.attempts()).isEmpty();
    }

    @Test
    @DisplayName("does not block the messages behind it")
    void laterMessagesStillFlow() {
        String dest = destination();
        Recorder<byte[]> dead = deadLetterReader(dest, Codec.bytes());
        Recorder<Order> rec = recorder();
        subscribe(dest, Codec.json(Order.class), "g", Delivery.AT_LEAST_ONCE, rec);
        Publisher<byte[]> raw = publisher(dest, Codec.bytes(), Delivery.AT_LEAST_ONCE);
        Publisher<Order> orders = publisher(dest, Codec.json(Order.class), Delivery.AT_LEAST_ONCE);
        join(raw.publish(Message.builder("[[[".getBytes(StandardCharsets.UTF_8)).key("k").build()));
        for (int i = 0; i < 5; i++) {
            join(orders.publish(Message.builder(new Order("o" + i, i, List.of())).key("k").build()));
        }
        assertThat(rec.awaitCount(5).payloads()).extracting(Order::id).containsExactly("o0", "o1", "o2", "o3", "o4");
        dead.awaitCount(1);
    }

    @Test
    @DisplayName("with invalid UTF-8 for a text subscriber is dead-lettered")
    void invalidUtf8() {
        String dest = destination();
        Recorder<byte[]> dead = deadLetterReader(dest, Codec.bytes());
        Recorder<String> rec = recorder();
        subscribe(dest, TEXT, "g", Delivery.AT_LEAST_ONCE, rec);
        join(publisher(dest, Codec.bytes(), Delivery.AT_LEAST_ONCE).publish(new byte[] {(byte) 0xC3, (byte) 0x28}));
        assertThat(dead.awaitCount(1).received().get(0).message().headers())
                .containsEntry(Envelope.DEAD_LETTER_REASON, "undecodable");
        assertThat(rec.attempts()).isEmpty();
    }
}
