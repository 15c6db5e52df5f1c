package io.switchboard.bench.driver;

import java.time.Instant;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The CloudEvents attributes that Switchboard puts on every message (names, and values of the same
 * lengths), for native runs that carry the same envelope: mode {@link BenchDriver#NATIVE_ENVELOPE}
 * ({@code --native-envelope}). The ratio SDK / native-ce is then what the SDK's code costs, and
 * native-ce / native what the envelope on the wire costs. One instance per producer, used by one
 * sender thread at a time; the id is a per-producer prefix and a counter, and the time string is
 * rebuilt once a second, so that the native side pays for carrying the headers, not for the SDK's
 * id and time generation. A keyed message carries its key as {@code ce_subject}, as the SDK's do;
 * the drivers mirror the rest of the SDK's mapping (RabbitMQ's message-id, timestamp and
 * content-type properties and {@code mandatory}; RocketMQ's {@code KEYS}).
 */
final class NativeEnvelope {

    static final String[] NAMES = {"ce_specversion", "ce_id", "ce_source", "ce_type", "ce_time", "content-type", "ce_attempt",
        "ce_subject"};
    static final String ID = "ce_id";

    private final String idPrefix;
    private long sequence;
    private long second = Long.MIN_VALUE;
    private String time;

    NativeEnvelope() {
        String random = Long.toHexString(ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE);
        this.idPrefix = (random + random).substring(0, 20) + "-";
    }

    /** Index of content-type in {@link #NAMES}. */
    static final int CONTENT_TYPE = 5;

    /** The values for one message, in the order of {@link #NAMES}; without the subject when {@code key} is null. */
    String[] next(long sendMicros, String key) {
        long s = Math.floorDiv(sendMicros, 1_000_000L);
        if (s != second) {
            second = s;
            time = Instant.ofEpochSecond(s).toString().replace("Z", ".000000Z");
        }
        String seq = Long.toString(sequence++);
        String id = idPrefix + "000000000000000".substring(Math.min(15, seq.length())) + seq;
        if (key == null) {
            return new String[] {"1.0", id, "switchboard", "io.switchboard.message", time, "application/octet-stream", "1"};
        }
        return new String[] {"1.0", id, "switchboard", "io.switchboard.message", time, "application/octet-stream", "1", key};
    }
}
