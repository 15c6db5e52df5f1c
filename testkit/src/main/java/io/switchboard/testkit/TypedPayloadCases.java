package io.switchboard.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.switchboard.Codec;
import io.switchboard.ConfigurationException;
import io.switchboard.Delivery;
import io.switchboard.Envelope;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Switchboard;
import io.switchboard.TypeDispatch;
import io.switchboard.TypedCodec;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The contract's "Several payload types on one destination" cases; {@link BrokerContract} runs them as a nested
 * group: a {@link TypedCodec} writes a type id per payload class, a {@link TypeDispatch} reads each type into its
 * class and hands it to its handler, and a type nobody registered is dead-lettered or handed to the default handler.
 */
abstract class TypedPayloadCases extends ContractCases {

    /** One payload type of the destination. */
    public record Placed(String order, int quantity) {}

    /** Another payload type of the destination. */
    public record Cancelled(String order, String reason) {}

    /** A type the subscriber does not know. */
    public record Refunded(String order) {}

    TypedPayloadCases(ContractSupport contract) {
        super(contract);
    }

    @Test
    @DisplayName("each type reaches its own handler, in order per key, with Spring's type-id header")
    void dispatchByTypeIdHeader() {
        String dest = destination();
        Recorder<Placed> placed = recorder();
        Recorder<Cancelled> cancelled = recorder();
        TypeDispatch dispatch = TypeDispatch.json().on(Placed.class, placed).on("order-cancelled", Cancelled.class, cancelled)
                .build();
        subscribe(dest, dispatch.codec(), "g", Delivery.AT_LEAST_ONCE, dispatch);
        Publisher<Object> orders = publisher(dest,
                TypedCodec.json().type(Placed.class).type("order-cancelled", Cancelled.class).build(), Delivery.AT_LEAST_ONCE);
        for (int i = 0; i < 3; i++) {
            join(orders.publish(Message.builder((Object) new Placed("o" + i, i)).key("k").build()));
            join(orders.publish(Message.builder((Object) new Cancelled("o" + i, "late")).key("k").build()));
        }
        assertThat(placed.awaitCount(3).payloads()).extracting(Placed::order).containsExactly("o0", "o1", "o2");
        assertThat(cancelled.awaitCount(3).payloads()).extracting(Cancelled::reason).containsOnly("late");
        assertThat(placed.received().get(0).message().headers())
                .containsEntry(TypedCodec.SPRING_TYPE_ID, Placed.class.getName());
        assertThat(cancelled.received().get(0).message().headers()).containsEntry(TypedCodec.SPRING_TYPE_ID, "order-cancelled");
    }

    @Test
    @DisplayName("a type nobody registered goes straight to the dead-letter destination, naming its type id")
    void unknownTypeDeadLettered() {
        String dest = destination();
        Recorder<byte[]> dead = deadLetterReader(dest, Codec.bytes());
        Recorder<Placed> placed = recorder();
        TypeDispatch dispatch = TypeDispatch.json().on(Placed.class, placed).build();
        subscribe(dest, dispatch.codec(), "g", Delivery.AT_LEAST_ONCE, dispatch);
        Publisher<Object> orders = publisher(dest, TypedCodec.json().type(Placed.class).build(), Delivery.AT_LEAST_ONCE);
        join(orders.publish(Message.builder((Object) new Refunded("r1")).key("k").build()));
        join(orders.publish(Message.builder((Object) new Placed("after", 1)).key("k").build()));
        assertThat(placed.awaitCount(1).payloads()).extracting(Placed::order).containsExactly("after");
        Message<byte[]> dl = dead.awaitCount(1).received().get(0).message();
        assertThat(new String(dl.payload(), StandardCharsets.UTF_8)).contains("r1");
        assertThat(dl.headers()).containsEntry(Envelope.DEAD_LETTER_REASON, "undecodable")
                .containsEntry(TypedCodec.SPRING_TYPE_ID, Refunded.class.getName());
        assertThat(dl.headers().get(Envelope.ERROR_MESSAGE)).contains(Refunded.class.getName());
    }

    @Test
    @DisplayName("a type nobody registered reaches the default handler with its payload as sent")
    void unknownTypeToDefault() {
        String dest = destination();
        Recorder<byte[]> other = recorder();
        Recorder<Placed> placed = recorder();
        TypeDispatch dispatch = TypeDispatch.json().on(Placed.class, placed).otherwise(other).build();
        subscribe(dest, dispatch.codec(), "g", Delivery.AT_LEAST_ONCE, dispatch);
        Publisher<Object> orders = publisher(dest, TypedCodec.json().type(Placed.class).build(), Delivery.AT_LEAST_ONCE);
        join(orders.publish(Message.builder((Object) new Refunded("r2")).key("k").header("tenant", "t1").build()));
        Message<byte[]> m = other.awaitCount(1).received().get(0).message();
        assertThat(new String(m.payload(), StandardCharsets.UTF_8)).isEqualTo("{\"order\":\"r2\"}");
        assertThat(m.key()).isEqualTo("k");
        assertThat(m.headers()).containsEntry("tenant", "t1").containsEntry(TypedCodec.SPRING_TYPE_ID, Refunded.class.getName());
        assertThat(placed.attempts()).isEmpty();
    }

    @Test
    @DisplayName("dispatches on the CloudEvents type, which the publisher writes per payload type")
    void dispatchByCloudEventsType() {
        String dest = destination();
        Recorder<Placed> placed = recorder();
        Recorder<Cancelled> cancelled = recorder();
        TypeDispatch dispatch = TypeDispatch.json().cloudEventsType().on("com.acme.order.placed", Placed.class, placed)
                .on("com.acme.order.cancelled", Cancelled.class, cancelled).build();
        subscribe(dest, dispatch.codec(), "g", Delivery.AT_LEAST_ONCE, dispatch);
        Publisher<Object> orders = publisher(dest, TypedCodec.json().cloudEventsType().type("com.acme.order.placed", Placed.class)
                .type("com.acme.order.cancelled", Cancelled.class).build(), Delivery.AT_LEAST_ONCE);
        join(orders.publish(new Cancelled("c1", "stock")));
        join(orders.publish(new Placed("p1", 2)));
        assertThat(placed.awaitCount(1).payloads()).containsExactly(new Placed("p1", 2));
        assertThat(cancelled.awaitCount(1).payloads()).containsExactly(new Cancelled("c1", "stock"));
        assertThat(placed.received().get(0).message().headers()).doesNotContainKey(TypedCodec.SPRING_TYPE_ID);
    }

    @Test
    @DisplayName("a message without a type id is read as the default type")
    void defaultType() {
        String dest = destination();
        Recorder<Placed> placed = recorder();
        TypeDispatch dispatch = TypeDispatch.json().on(Placed.class, placed).defaultType(Placed.class).build();
        subscribe(dest, dispatch.codec(), "g", Delivery.AT_LEAST_ONCE, dispatch);
        join(publisher(dest, Codec.json(Placed.class), Delivery.AT_LEAST_ONCE).publish(new Placed("bare", 5)));
        assertThat(placed.awaitCount(1).payloads()).containsExactly(new Placed("bare", 5));
    }

    @Test
    @DisplayName("writing type ids as the CloudEvents type is refused where the envelope carries none")
    void cloudEventsTypeNeedsEnvelope() {
        try (Switchboard sb = newSwitchboard(b -> b.property("switchboard.envelope", "compact"))) {
            TypedCodec<Object> codec = TypedCodec.json().cloudEventsType().type(Placed.class).build();
            assertThatThrownBy(() -> sb.publisher(destination(), codec).build().publish(new Placed("x", 1)))
                    .isInstanceOf(ConfigurationException.class).hasMessageContaining(Envelope.TYPE)
                    .hasMessageContaining("switchboard.envelope");
        }
    }

    @Test
    @DisplayName("a type id that is not registered fails the codec with the registered ones named")
    void unknownTypeNamed() {
        TypedCodec<Object> codec = TypedCodec.json().type(Placed.class).build();
        assertThatThrownBy(() -> codec.decode("{}".getBytes(StandardCharsets.UTF_8), "java.lang.Runtime"))
                .isInstanceOf(io.switchboard.CodecException.class).hasMessageContaining("java.lang.Runtime")
                .hasMessageContaining(Placed.class.getName());
        assertThat(List.copyOf(codec.types().values())).containsExactly(Placed.class);
    }
}
