package io.switchboard.internal.envelope;

import io.switchboard.Message;
import io.switchboard.spi.InboundRecord;
import java.time.Instant;
import java.util.Map;

/**
 * Lets core's internals build received messages (whose headers may hold Switchboard's reserved
 * {@code sb_} headers, which the public builder refuses) without a public factory. {@link Message}
 * installs the one implementation when its class initialises.
 */
public abstract class MessageAccess {

    private static volatile MessageAccess instance;

    /** Called once, by {@link Message}'s static initialiser. */
    public static void install(MessageAccess access) {
        if (instance != null) {
            throw new IllegalStateException("MessageAccess is installed by io.switchboard.Message only");
        }
        instance = access;
    }

    /**
     * A received message; the header map is taken over, not copied. Its key, and its id and time where they are null
     * here, are read from {@code record} when first asked for ({@link Envelopes#id}, {@link Envelopes#time}).
     */
    public static <T> Message<T> received(T payload, InboundRecord record, Map<String, String> headers, String id,
            Instant timestamp) {
        MessageAccess a = instance;
        if (a == null) {
            Message.of(""); // initialises Message, which installs the access
            a = instance;
        }
        return a.newReceived(payload, record, headers, id, timestamp);
    }

    /**
     * A message to send again as it was written (the outbox's relay): its headers, which may hold Switchboard's own
     * {@code sb_} headers of a received message, are taken as they are, as a publisher takes a received message's.
     */
    public static <T> Message<T> forwarded(T payload, String key, Map<String, String> headers, String id, Instant timestamp,
            Instant deliverAt) {
        MessageAccess a = instance;
        if (a == null) {
            Message.of(""); // initialises Message, which installs the access
            a = instance;
        }
        return a.newForwarded(payload, key, headers, id, timestamp, deliverAt);
    }

    /** Builds a message to send again. */
    protected abstract <T> Message<T> newForwarded(T payload, String key, Map<String, String> headers, String id,
            Instant timestamp, Instant deliverAt);

    /** Builds a received message. */
    protected abstract <T> Message<T> newReceived(T payload, InboundRecord record, Map<String, String> headers, String id,
            Instant timestamp);
}
