package io.switchboard.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.switchboard.Codec;
import io.switchboard.CodecException;
import io.switchboard.Delivery;
import io.switchboard.Envelope;
import io.switchboard.InvalidDestinationException;
import io.switchboard.InvalidMessageException;
import io.switchboard.Message;
import io.switchboard.MessageTooLargeException;
import io.switchboard.Publisher;
import io.switchboard.testkit.BrokerContract.Unencodable;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The contract's "Bad input: messages and names" cases: each malformed message or name is refused
 * synchronously, with the value and the fix in the message, and the publisher keeps working for the
 * good messages after it.
 */
abstract class BadMessageCases extends ContractCases {

    private static final String LONG = "x".repeat(300);

    BadMessageCases(ContractSupport contract) {
        super(contract);
    }

    @Test
    @DisplayName("a null message is refused")
    void nullMessage() {
        Publisher<String> pub = publisher(destination(), TEXT, Delivery.AT_LEAST_ONCE);
        assertThatThrownBy(() -> pub.publish((Message<String>) null)).isInstanceOf(InvalidMessageException.class)
                .hasMessageContaining("is null");
    }

    @Test
    @DisplayName("a keyed message with a null payload is refused, saying what to send instead")
    void nullPayloadWithKey() {
        Publisher<String> pub = publisher(destination(), TEXT, Delivery.AT_LEAST_ONCE);
        assertThatThrownBy(() -> pub.publish(Message.of("k", null))).isInstanceOf(InvalidMessageException.class)
                .hasMessageContaining("null payload").hasMessageContaining("empty");
    }

    @Test
    @DisplayName("a null header name is refused")
    void nullHeaderName() {
        assertThatThrownBy(() -> Message.builder("x").header(null, "v")).isInstanceOf(InvalidMessageException.class)
                .hasMessageContaining("null");
    }

    @Test
    @DisplayName("an empty header name is refused")
    void emptyHeaderName() {
        assertThatThrownBy(() -> Message.builder("x").header("", "v")).isInstanceOf(InvalidMessageException.class)
                .hasMessageContaining("empty");
    }

    @Test
    @DisplayName("a header name longer than 255 characters is refused, naming the limit")
    void longHeaderName() {
        assertThatThrownBy(() -> Message.builder("x").header(LONG, "v")).isInstanceOf(InvalidMessageException.class)
                .hasMessageContaining("300 characters").hasMessageContaining("255");
    }

    @Test
    @DisplayName("a header name with a control character is refused, naming the character")
    void controlCharacterInHeaderName() {
        assertThatThrownBy(() -> Message.builder("x").header("tenant\nid", "v")).isInstanceOf(InvalidMessageException.class)
                .hasMessageContaining("U+000A").hasMessageContaining("tenant");
    }

    @Test
    @DisplayName("a null header value is refused, naming the header")
    void nullHeaderValue() {
        assertThatThrownBy(() -> Message.builder("x").header("tenant", null)).isInstanceOf(InvalidMessageException.class)
                .hasMessageContaining("'tenant'").hasMessageContaining("null value");
    }

    @Test
    @DisplayName("a header value with a control character is refused, naming the header and the encoding to use")
    void controlCharacterInHeaderValue() {
        assertThatThrownBy(() -> Message.builder("x").header("tenant", "a\u0001b"))
                .isInstanceOf(InvalidMessageException.class)
                .hasMessageContaining("'tenant'").hasMessageContaining("U+0001").hasMessageContaining("Base64");
    }

    @Test
    @DisplayName("a header in a map with a reserved name is refused")
    void reservedHeaderInMap() {
        assertThatThrownBy(() -> Message.builder("x").headers(Map.of("sb_attempts", "1")))
                .isInstanceOf(InvalidMessageException.class).hasMessageContaining("sb_attempts");
    }

    @Test
    @DisplayName("'content-type' is reserved for the codec")
    void contentTypeHeader() {
        assertThatThrownBy(() -> Message.builder("x").header(Envelope.CONTENT_TYPE, "text/plain"))
                .isInstanceOf(InvalidMessageException.class).hasMessageContaining(Envelope.CONTENT_TYPE);
    }

    @Test
    @DisplayName("a blank message id is refused")
    void blankId() {
        assertThatThrownBy(() -> Message.builder("x").id("  ")).isInstanceOf(InvalidMessageException.class)
                .hasMessageContaining("blank");
    }

    @Test
    @DisplayName("a message id longer than 255 characters is refused")
    void longId() {
        assertThatThrownBy(() -> Message.builder("x").id(LONG)).isInstanceOf(InvalidMessageException.class)
                .hasMessageContaining("300 characters");
    }

    @Test
    @DisplayName("a negative delay is refused")
    void negativeDelay() {
        assertThatThrownBy(() -> Message.builder("x").delay(Duration.ofSeconds(-1)))
                .isInstanceOf(InvalidMessageException.class).hasMessageContaining("PT-1S").hasMessageContaining("negative");
    }

    @Test
    @DisplayName("a payload under the limit whose headers take it over is refused, counting the headers")
    void headersMakeItTooLarge() {
        Publisher<byte[]> pub = publisher(destination(), Codec.bytes(), Delivery.AT_LEAST_ONCE);
        int limit = capabilities().maxMessageSize();
        Message<byte[]> message = Message.builder(new byte[limit - 300]).header("padding", "p".repeat(400)).build();
        assertThatThrownBy(() -> pub.publish(message)).isInstanceOf(MessageTooLargeException.class)
                .hasMessageContaining("headers").hasMessageContaining(Integer.toString(limit));
    }

    @Test
    @DisplayName("a payload the codec cannot encode is refused before sending; the next message goes through")
    void unencodablePayload() {
        String dest = destination();
        Recorder<Unencodable> rec = recorder();
        Codec<Unencodable> codec = Codec.json(Unencodable.class);
        subscribe(dest, codec, "g", Delivery.AT_LEAST_ONCE, rec);
        Publisher<Unencodable> pub = publisher(dest, codec, Delivery.AT_LEAST_ONCE);
        assertThatThrownBy(() -> pub.publish(new Unencodable("boom", true))).isInstanceOf(CodecException.class)
                .hasMessageContaining(Unencodable.class.getSimpleName());
        join(pub.publish(new Unencodable("fine", false)));
        assertThat(rec.awaitCount(1).payloads()).extracting(Unencodable::name).containsExactly("fine");
    }

    @Test
    @DisplayName("a null key is no key: the message is delivered, spread without per-key order")
    void nullKeyIsKeyless() {
        String dest = destination();
        Recorder<String> rec = recorder();
        subscribe(dest, TEXT, "g", Delivery.AT_LEAST_ONCE, rec);
        join(publisher(dest, TEXT, Delivery.AT_LEAST_ONCE).publish(Message.of(null, "no key")));
        assertThat(rec.awaitCount(1).received().get(0).message().key()).isNull();
    }

    @Test
    @DisplayName("an empty destination name is refused")
    void emptyDestination() {
        assertThatThrownBy(() -> switchboard().publisher("", TEXT).build()).isInstanceOf(InvalidDestinationException.class)
                .hasMessageContaining("empty");
    }

    @Test
    @DisplayName("a null destination name is refused")
    void nullDestination() {
        assertThatThrownBy(() -> switchboard().subscriber(null, TEXT).subscribe((m, c) -> { }))
                .isInstanceOf(InvalidDestinationException.class).hasMessageContaining("empty");
    }

    @Test
    @DisplayName("a destination name over the broker's length limit is refused, naming both lengths")
    void longDestination() {
        assertThatThrownBy(() -> switchboard().publisher(LONG, TEXT).build()).isInstanceOf(InvalidDestinationException.class)
                .hasMessageContaining("300 characters").hasMessageContaining("at most");
    }

    @Test
    @DisplayName("a name the broker reserves is refused as reserved")
    void reservedDestination() {
        List<String> candidates = List.of("..", "__consumer_offsets", "amq.switchboard", "RMQ_SYS_SWITCHBOARD");
        List<String> refused = candidates.stream()
                .filter(name -> capabilities().destinationNames().violation(name).isPresent()).toList();
        assertThat(refused).as("names %s reserved by %s", candidates, brokerId()).isNotEmpty();
        for (String name : refused) {
            assertThatThrownBy(() -> switchboard().publisher(name, TEXT).build())
                    .isInstanceOf(InvalidDestinationException.class).hasMessageContaining(name);
        }
    }

    @Test
    @DisplayName("an illegal dead-letter destination is refused at subscribe, naming it")
    void illegalDeadLetter() {
        String bad = "dead letters!";
        assertThatThrownBy(() -> switchboard().subscriber(destination(), TEXT).group("g").deadLetter(bad)
                .subscribe((m, c) -> { })).isInstanceOf(InvalidDestinationException.class).hasMessageContaining(bad);
    }
}
