package io.switchboard.testkit;

import io.switchboard.Codec;
import io.switchboard.Message;
import io.switchboard.spi.Capabilities;
import io.switchboard.spi.OutboundRecord;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;

/**
 * What each envelope costs on the wire, in bytes: the record core hands to an adapter for each
 * value of {@code switchboard.envelope}, which the adapter's own mapping then turns into what it
 * writes. Deterministic: no broker, a generated id, no tracing, {@code Codec.bytes()}, no key.
 */
public final class EnvelopeBytes {

    /** The values of {@code switchboard.envelope}, in the README table's order. */
    public static final List<String> ENVELOPES = List.of("cloudevents", "cloudevents-full", "compact", "none");

    private EnvelopeBytes() {}

    /**
     * {@return the outbound record a publisher with {@code envelope} on a broker with {@code capabilities} hands over}
     *
     * @param capabilities the broker's capabilities
     * @param envelope a value of {@code switchboard.envelope}
     */
    public static OutboundRecord record(Capabilities capabilities, String envelope) {
        return CoreRecords.published(capabilities, Map.of("switchboard.envelope", envelope), Codec.bytes(),
                Message.builder(new byte[16]).build());
    }

    /**
     * {@return UTF-8 bytes of a text, 0 for null}
     *
     * @param text the text
     */
    public static int utf8(String text) {
        return text == null ? 0 : text.getBytes(StandardCharsets.UTF_8).length;
    }

    /**
     * {@return the bytes {@code wireBytes} counts for each envelope, also logged}
     *
     * @param broker the broker's name for the log line
     * @param capabilities the broker's capabilities
     * @param wireBytes what one record costs on that broker's wire
     */
    public static Map<String, Integer> table(String broker, Capabilities capabilities, ToIntFunction<OutboundRecord> wireBytes) {
        Map<String, Integer> bytes = new java.util.LinkedHashMap<>();
        for (String envelope : ENVELOPES) {
            bytes.put(envelope, wireBytes.applyAsInt(record(capabilities, envelope)));
        }
        org.slf4j.LoggerFactory.getLogger(EnvelopeBytes.class).info("envelope bytes per message on {}: {}", broker, bytes);
        return bytes;
    }
}
