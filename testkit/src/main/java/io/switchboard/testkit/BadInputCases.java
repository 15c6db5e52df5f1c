package io.switchboard.testkit;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.switchboard.Codec;
import io.switchboard.ConfigurationException;
import io.switchboard.Delivery;
import io.switchboard.Envelope;
import io.switchboard.InvalidDestinationException;
import io.switchboard.InvalidMessageException;
import io.switchboard.Message;
import io.switchboard.MessageTooLargeException;
import io.switchboard.Publisher;
import io.switchboard.Switchboard;
import io.switchboard.UnknownBrokerException;
import io.switchboard.UnknownCodecException;
import io.switchboard.UnsupportedCapabilityException;
import io.switchboard.testkit.BrokerContract.Order;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The contract's "Bad input" cases; {@link BrokerContract} runs them as a nested group. */
abstract class BadInputCases extends ContractCases {

    BadInputCases(ContractSupport contract) {
        super(contract);
    }

    @Test
    @DisplayName("an illegal destination name is refused, naming the name and the rule")
    void illegalDestination() {
        String bad = "no spaces/or slashes allowed!";
        assertThatThrownBy(() -> switchboard().publisher(bad, TEXT).build())
                .isInstanceOf(InvalidDestinationException.class).hasMessageContaining(bad).hasMessageContaining(brokerId());
        assertThatThrownBy(() -> switchboard().subscriber(bad, TEXT).subscribe((m, c) -> { }))
                .isInstanceOf(InvalidDestinationException.class).hasMessageContaining(bad);
    }

    @Test
    @DisplayName("an oversized payload is refused before sending, naming size and limit")
    void oversized() {
        Publisher<byte[]> pub = publisher(destination(), Codec.bytes(), Delivery.AT_LEAST_ONCE);
        int limit = capabilities().maxMessageSize();
        assertThatThrownBy(() -> pub.publish(new byte[limit + 1]))
                .isInstanceOf(MessageTooLargeException.class).hasMessageContaining(Integer.toString(limit));
    }

    @Test
    @DisplayName("a null payload is refused")
    void nullPayload() {
        Publisher<String> pub = publisher(destination(), TEXT, Delivery.AT_LEAST_ONCE);
        assertThatThrownBy(() -> pub.publish((String) null)).isInstanceOf(InvalidMessageException.class)
                .hasMessageContaining("null payload");
    }

    @Test
    @DisplayName("an unknown codec name is refused, listing the known ones")
    void unknownCodec() {
        assertThatThrownBy(() -> Codec.named("avro", Order.class)).isInstanceOf(UnknownCodecException.class)
                .hasMessageContaining("avro").hasMessageContaining("json");
    }

    @Test
    @DisplayName("a header name reserved for the envelope is refused")
    void reservedHeader() {
        assertThatThrownBy(() -> Message.builder("x").header(Envelope.ID, "forged"))
                .isInstanceOf(InvalidMessageException.class).hasMessageContaining(Envelope.ID);
    }

    @Test
    @DisplayName("an unknown broker id is refused, listing the ids on the classpath")
    void unknownBroker() {
        assertThatThrownBy(() -> Switchboard.create("carrier-pigeon")).isInstanceOf(UnknownBrokerException.class)
                .hasMessageContaining("carrier-pigeon").hasMessageContaining(brokerId());
    }

    @Test
    @DisplayName("a malformed property is refused, naming key and value")
    void brokenConfig() {
        Switchboard broken = Switchboard.builder().broker(brokerId()).properties(brokerProperties())
                .property("switchboard.partitions", "many").build();
        try {
            assertThatThrownBy(() -> broken.publisher(destination(), TEXT).build())
                    .isInstanceOf(ConfigurationException.class)
                    .hasMessageContaining("switchboard.partitions").hasMessageContaining("many");
        } finally {
            broken.close();
        }
    }

    @Test
    @DisplayName("a delay is refused by a broker without delayed delivery")
    void delayWithoutCapability() {
        assumeFalse(capabilities().delayedDelivery(), "broker '" + brokerId() + "' supports delayed delivery");
        Publisher<String> pub = publisher(destination(), TEXT, Delivery.AT_LEAST_ONCE);
        assertThatThrownBy(() -> pub.publish(Message.builder("later").delay(Duration.ofSeconds(2)).build()))
                .isInstanceOf(UnsupportedCapabilityException.class).hasMessageContaining(brokerId());
    }

    @Test
    @DisplayName("a filter is refused by a broker without broker-side filtering")
    void filterWithoutCapability() {
        assumeFalse(capabilities().filtering(), "broker '" + brokerId() + "' supports filtering");
        assertThatThrownBy(() -> switchboard().subscriber(destination(), TEXT).filter("tagA").subscribe((m, c) -> { }))
                .isInstanceOf(UnsupportedCapabilityException.class).hasMessageContaining(brokerId());
    }
}
