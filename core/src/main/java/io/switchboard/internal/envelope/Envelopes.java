package io.switchboard.internal.envelope;

import io.switchboard.Envelope;
import io.switchboard.Message;
import io.switchboard.spi.InboundRecord;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.Map;

/** Reads the envelope of an inbound record, with fallbacks for records published by plain clients. */
public final class Envelopes {

    private Envelopes() {}

    /**
     * The envelope id (of a well-formed {@link Envelope#COMPACT} header, else of {@link Envelope#ID});
     * else the broker's id; else one derived from the position; else a new one.
     */
    public static String id(InboundRecord record) {
        String id = Envelope.id(record.headers());
        if (id != null) {
            return id;
        }
        String nativeId = record.nativeId();
        if (nativeId != null) {
            return nativeId;
        }
        if (record.offset() >= 0) {
            return record.destination() + "-" + record.partition() + "-" + record.offset();
        }
        return MessageIds.next();
    }

    /**
     * The envelope time (of a well-formed {@link Envelope#COMPACT} header, else of {@link Envelope#TIME});
     * else the broker's timestamp; else null.
     */
    public static Instant time(InboundRecord record) {
        Instant ours = envelopeTime(record);
        if (ours != null) {
            return ours;
        }
        long brokerTime = record.brokerTimestamp();
        return brokerTime >= 0 ? Instant.ofEpochMilli(brokerTime) : null;
    }

    /**
     * The envelope time (of a well-formed {@link Envelope#COMPACT} header, else of {@link Envelope#TIME}), or null
     * when the record carries none (a plain client's record, or {@code envelope=none}): then the broker's timestamp is
     * the time ({@link #time}).
     */
    public static Instant envelopeTime(InboundRecord record) {
        Map<String, String> headers = record.headers();
        if (headers.isEmpty()) {
            return null;
        }
        String compact = headers.get(Envelope.COMPACT);
        if (compact != null) {
            Instant ours = MessageIds.compactTime(compact);
            if (ours != null) {
                return ours;
            }
        }
        String time = headers.get(Envelope.TIME);
        if (time != null) {
            try {
                return Envelope.parseTime(time);
            } catch (DateTimeParseException ignored) {
                // not ours: fall back to the broker's clock
            }
        }
        return null;
    }

    /**
     * The message the handler sees: decoded payload, application headers only. What only some handlers read is worked
     * out when first read, from the record: its key (an adapter may decode it lazily), its application headers
     * ({@link #userHeaders}), its id when the record has a position (the envelope's, else the broker's, else one derived
     * from the position), and the broker's time when the envelope has none.
     *
     * @param envelopeTime the record's {@link #envelopeTime}, as the caller already read it, or null
     */
    public static <T> Message<T> toMessage(T payload, InboundRecord record, Instant envelopeTime) {
        // with a position, the id and the application headers are read from the record when first asked for (most
        // handlers read neither); without one the id may be made here, once: a lazy one would differ on each read
        String id = record.offset() < 0 ? id(record) : null;
        return MessageAccess.received(payload, record, null, id, envelopeTime);
    }

    /**
     * The application's headers, CloudEvents extensions included: a copy without the envelope's
     * own attributes, or the empty map when there are none (the usual case).
     */
    public static Map<String, String> userHeaders(Map<String, String> all) {
        if (all.isEmpty()) {
            return Map.of();
        }
        Map<String, String> user = null;
        for (Map.Entry<String, String> e : all.entrySet()) {
            if (!Envelope.isCloudEventsHeader(e.getKey()) || Envelope.isExtension(e.getKey())) {
                if (user == null) {
                    user = new HashMap<>();
                }
                user.put(e.getKey(), e.getValue());
            }
        }
        return user == null ? Map.of() : user;
    }
}
