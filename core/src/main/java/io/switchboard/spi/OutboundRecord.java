package io.switchboard.spi;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * A record on its way to the broker: bytes plus string headers. Core has already encoded the
 * payload, added the envelope headers and checked the size.
 *
 * <p>The header map is owned by the record and must not be modified by the adapter. Header names
 * are the envelope's logical names (see {@link io.switchboard.Envelope}); an adapter maps them to
 * its broker's CloudEvents binding when it writes them.
 *
 * <p>On a record core published, the envelope's id and time are held as numbers, the id's 128
 * bits ({@link #idMostSignificantBits()}, {@link #idLeastSignificantBits()}) and the time's
 * microseconds ({@link #timeMicros()}), and written as text only when the header map is read. An
 * adapter whose wire format takes header values as bytes writes them with {@link #forEachHeader},
 * which hands those values over as ASCII bytes written straight from the numbers, without a
 * {@code String} per value; the bytes are the UTF-8 encoding of the text {@link #headers()} returns,
 * so either way puts the same bytes on the wire. On a record made with the constructor (a dead
 * letter, an adapter's test) every value is text and the accessors report no numbers.
 *
 * @param destination the destination name
 * @param key the routing key (partition/queue selection and per-key order), or null
 * @param headers envelope plus user headers, never null
 * @param payload the encoded payload, never null
 * @param deliverAtEpochMillis earliest delivery time for delayed delivery, or 0 for now; only
 *     non-zero when the adapter declared {@link Capabilities#delayedDelivery()}
 */
public record OutboundRecord(
        String destination, String key, Map<String, String> headers, byte[] payload, long deliverAtEpochMillis) {

    /** What {@link #timeMicros()} returns when the record carries no publish time as a number. */
    public static final long NO_TIME = Long.MIN_VALUE;

    /**
     * Whether the envelope id is one core generated and holds as its 128 bits (a UUID version 7),
     * rather than text the application gave or a record built with the constructor.
     *
     * @return true when {@link #idMostSignificantBits()} and {@link #idLeastSignificantBits()} hold the id
     */
    public boolean hasIdBits() {
        return headers instanceof GeneratedHeaders e && e.hasIdBits();
    }

    /**
     * The most significant 64 bits of the generated id, as {@link java.util.UUID#getMostSignificantBits()}:
     * 48 bits of Unix milliseconds, the version 7, 12 random bits. Its text in the {@link
     * io.switchboard.Envelope#ID} header is either the UUID or 22 characters of the same bits,
     * depending on the envelope format; {@link #forEachHeader} writes it.
     *
     * @return the bits, or 0 when {@link #hasIdBits()} is false
     */
    public long idMostSignificantBits() {
        return headers instanceof GeneratedHeaders e ? e.idHigh() : 0;
    }

    /**
     * The least significant 64 bits of the generated id, as {@link java.util.UUID#getLeastSignificantBits()}:
     * the variant and 62 random bits.
     *
     * @return the bits, or 0 when {@link #hasIdBits()} is false
     */
    public long idLeastSignificantBits() {
        return headers instanceof GeneratedHeaders e ? e.idLow() : 0;
    }

    /**
     * The publish time core wrote into the envelope ({@link io.switchboard.Envelope#TIME} or the
     * compact value), in microseconds since 1970-01-01T00:00Z; an adapter that also carries the
     * time in a property of its own (AMQP's {@code timestamp}) reads it here instead of parsing the
     * header.
     *
     * @return the epoch microseconds, or {@link #NO_TIME} when the envelope has no time as a number
     *     (the broker stamps the send time, or the record was built with the constructor)
     */
    public long timeMicros() {
        return headers instanceof GeneratedHeaders e ? e.timeMicros() : NO_TIME;
    }

    /**
     * Hands every header to {@code writer}, as {@code headers().forEach} would, except that the
     * values core generated from numbers (the id, the time, the compact envelope value) go to
     * {@link HeaderWriter#ascii} as a new array of their ASCII characters written straight from the
     * numbers, so that an adapter writing bytes makes no {@code String} for them. Same headers, same
     * order, same bytes as the text in {@link #headers()}.
     *
     * @param writer receives each header once
     */
    public void forEachHeader(HeaderWriter writer) {
        if (headers instanceof GeneratedHeaders e) {
            e.forEachHeader(writer);
        } else {
            headers.forEach(writer::text);
        }
    }

    /**
     * {@return the record's size as an adapter puts it on the wire, before the broker's own framing: payload, key and
     * every header's name and value, in UTF-8} Core sizes one publish in 64 for the comparison's bytes on the wire per
     * message; it makes the generated header values' bytes, so it is not for every message.
     */
    public long wireBytes() {
        long[] bytes = {payload.length + utf8Length(key)};
        forEachHeader(new HeaderWriter() {
            @Override
            public void text(String name, String value) {
                bytes[0] += utf8Length(name) + utf8Length(value);
            }

            @Override
            public void ascii(String name, byte[] value) {
                bytes[0] += utf8Length(name) + value.length;
            }
        });
        return bytes[0];
    }

    private static int utf8Length(String s) {
        if (s == null) {
            return 0;
        }
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n++;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c)) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
    }

    /**
     * The header map of a record core published, which holds the generated id and time as numbers
     * (core's envelope implements it; the record's accessors read it). Not for adapters to implement:
     * they read the numbers through {@link OutboundRecord#hasIdBits()}, {@link OutboundRecord#timeMicros()} and
     * {@link OutboundRecord#forEachHeader}.
     */
    public interface GeneratedHeaders extends Map<String, String> {

        /**
         * Whether the id is one core generated and holds as its 128 bits.
         *
         * @return true when {@link #idHigh()} and {@link #idLow()} hold the id
         */
        boolean hasIdBits();

        /**
         * The most significant 64 bits of the generated id.
         *
         * @return the bits, or 0 when there are none
         */
        long idHigh();

        /**
         * The least significant 64 bits of the generated id.
         *
         * @return the bits, or 0 when there are none
         */
        long idLow();

        /**
         * The publish time in epoch microseconds.
         *
         * @return the microseconds, or {@link OutboundRecord#NO_TIME}
         */
        long timeMicros();

        /**
         * Hands every header to {@code writer}, the generated values as ASCII bytes.
         *
         * @param writer receives each header once
         */
        void forEachHeader(HeaderWriter writer);
    }

    /** Receives the headers of a record from {@link OutboundRecord#forEachHeader}. */
    public interface HeaderWriter {

        /**
         * A header whose value is text.
         *
         * @param name the header's envelope name
         * @param value its value, not null
         */
        void text(String name, String value);

        /**
         * A header whose value core wrote as ASCII bytes (also its UTF-8 encoding). The array is new
         * for this call: the adapter may keep it and hand it to its client without a copy. By
         * default it is passed on as text.
         *
         * @param name the header's envelope name
         * @param value the value's characters, one byte each
         */
        default void ascii(String name, byte[] value) {
            text(name, new String(value, StandardCharsets.US_ASCII));
        }

        /**
         * A header whose value is the same on every message of the publisher (a CloudEvents attribute such as
         * {@code ce_specversion}, {@code ce_source} or {@code ce_type}), handed over as the same strings each time: the
         * adapter may encode it once and reuse it. By default it is passed on as text.
         *
         * @param name the header's envelope name
         * @param value its value, not null
         */
        default void constant(String name, String value) {
            text(name, value);
        }
    }
}
