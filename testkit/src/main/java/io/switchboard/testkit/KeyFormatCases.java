package io.switchboard.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.switchboard.ConfigurationException;
import io.switchboard.Delivery;
import io.switchboard.InvalidMessageException;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.spi.KeyFormat;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The contract's "Key formats" cases: a key published under a {@link KeyFormat} reaches the
 * handler as the same text on every broker (Kafka writes the format's bytes, RabbitMQ and RocketMQ
 * the text), a key that is not of the format is refused before anything is sent, and an unknown
 * format name is refused when the publisher, subscription or Switchboard is built.
 */
abstract class KeyFormatCases extends ContractCases {

    KeyFormatCases(ContractSupport contract) {
        super(contract);
    }

    @Test
    @DisplayName("key format long carries keys \"42\" and \"-7\" as they were published")
    void longKeysRoundTrip() {
        assertThat(roundTrip("long", List.of("42", "-7"))).containsExactlyInAnyOrder("42", "-7");
    }

    @Test
    @DisplayName("key formats integer, uuid and bytes carry their keys as they were published")
    void otherFormatsRoundTrip() {
        String uuid = UUID.randomUUID().toString();
        assertThat(roundTrip("integer", List.of("2147483647", "-1"))).containsExactlyInAnyOrder("2147483647", "-1");
        assertThat(roundTrip("uuid", List.of(uuid))).containsExactly(uuid);
        assertThat(roundTrip("bytes", List.of("AAEC/w==", "Kg=="))).containsExactlyInAnyOrder("AAEC/w==", "Kg==");
    }

    @Test
    @DisplayName("key \"abc\" under key format long is refused before anything is sent, naming the key, the format and the fix")
    void keyThatIsNotALongIsRefused() {
        String dest = destination();
        Recorder<String> rec = recorder();
        subscribe(switchboard(), dest, TEXT, b -> b.group("g").property(KeyFormat.PROPERTY, "long"), rec);
        Publisher<String> pub = switchboard().publisher(dest, TEXT).property(KeyFormat.PROPERTY, "long").build();
        assertThatThrownBy(() -> pub.publish(keyed("abc", "refused"))).isInstanceOf(InvalidMessageException.class)
                .hasMessageContaining("'abc'").hasMessageContaining("'long'").hasMessageContaining(KeyFormat.PROPERTY)
                .hasMessageContaining("Long.toString");
        assertThatThrownBy(() -> pub.send(keyed("+42", "refused"))).isInstanceOf(InvalidMessageException.class);
        Publisher<String> onInstance = newSwitchboard(b -> b.property(KeyFormat.PROPERTY, "long")).publisher(dest, TEXT).build();
        assertThatThrownBy(() -> onInstance.publish(keyed("abc", "refused"))).isInstanceOf(InvalidMessageException.class)
                .hasMessageContaining("'abc'");

        join(pub.publish(keyed("1", "accepted")));
        assertThat(rec.awaitCount(1).payloads()).containsExactly("accepted"); // nothing of the refused ones went out
    }

    @Test
    @DisplayName("an unknown key format name is refused, naming the value and the known names")
    void unknownFormatIsRefused() {
        String dest = destination();
        assertThatThrownBy(() -> switchboard().publisher(dest, TEXT).property(KeyFormat.PROPERTY, "int64").build())
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("'int64'")
                .hasMessageContaining("'long'").hasMessageContaining("'uuid'");
        assertThatThrownBy(() -> switchboard().subscriber(dest, TEXT).group("g").property(KeyFormat.PROPERTY, "Long64")
                .subscribe((m, c) -> { })).isInstanceOf(ConfigurationException.class).hasMessageContaining("'Long64'");
        assertThatThrownBy(() -> newSwitchboard(b -> b.property(KeyFormat.PROPERTY, "number")))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("'number'")
                .hasMessageContaining(KeyFormat.PROPERTY);
    }

    /** Publishes one message a key under {@code format} and returns the keys the subscription of that format got. */
    private List<String> roundTrip(String format, List<String> keys) {
        String dest = destination();
        Recorder<String> rec = recorder();
        subscribe(switchboard(), dest, TEXT, b -> b.group("g").property(KeyFormat.PROPERTY, format), rec);
        Publisher<String> pub = switchboard().publisher(dest, TEXT).delivery(Delivery.AT_LEAST_ONCE)
                .property(KeyFormat.PROPERTY, format).build();
        for (String key : keys) {
            join(pub.publish(Message.builder("k=" + key).key(key).build()));
        }
        return rec.awaitCount(keys.size()).received().stream().map(r -> r.message().key()).toList();
    }
}
