package io.switchboard;

import java.time.Instant;
import java.util.Map;

/** Lets core's internals build received messages, whose headers may include Switchboard's {@code sb_} headers. Not API. */
public final class MessageFactory {

    private MessageFactory() {}

    /** A received message; the header map is taken over, not copied. */
    public static <T> Message<T> received(T payload, String key, Map<String, String> headers, String id, Instant timestamp) {
        return Message.received(payload, key, headers, id, timestamp);
    }
}
