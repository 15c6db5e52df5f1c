package io.switchboard.rabbit.internal.mapping;

import java.util.Map;

/**
 * The arithmetic of delayed delivery on a stock RabbitMQ: a chain of {@value #LEVELS} levels, level
 * {@code n} a queue whose messages wait {@code 2^n} units of {@value #UNIT_MILLIS} ms ({@code x-message-ttl})
 * and then dead-letter to level {@code n - 1} (level 0 to the delivery exchange). A message's delay, in
 * units rounded up, is written bit by bit into headers {@code switchboard-delay-<n>} ({@code "1"}: wait at
 * level {@code n}; {@code "0"}: pass straight on); it enters at the level of its highest set bit, so it
 * carries headers for that level and every lower one, and waits exactly the sum of its set bits' TTLs
 * plus the time each hop takes: never early, late by less than one unit plus the hops.
 *
 * <p>Every level's TTL stays within RabbitMQ's largest timer (2^32 - 1 ms): level 28 holds messages for
 * 2^28 × 10 ms (about 31 days); the longest delay is (2^29 - 1) × 10 ms, about 62 days.
 */
public final class DelayLevels {

    /** The time unit: a delay is rounded up to a multiple of it. */
    public static final long UNIT_MILLIS = 10;
    /** Levels 0 .. {@code LEVELS - 1}. */
    public static final int LEVELS = 29;
    /** The longest delay in units. */
    public static final long MAX_UNITS = (1L << LEVELS) - 1;
    /** The longest delay in milliseconds. */
    public static final long MAX_DELAY_MILLIS = MAX_UNITS * UNIT_MILLIS;
    /**
     * Prefix of every name of the chains: exchanges and queues {@code switchboard.delay.<n>} (classic queues) and
     * {@code switchboard.delay.quorum.<n>} (quorum queues), two chains so that adapters configured either way can
     * share a broker.
     */
    public static final String PREFIX = "switchboard.delay.";
    private static final String QUORUM_PREFIX = PREFIX + "quorum.";
    /** The headers exchange that hands a due message to its destination's exchange. */
    public static final String DELIVERY_EXCHANGE = PREFIX + "deliver";
    /** Prefix of the per-level headers, which the consumer never shows as application headers. */
    public static final String HEADER_PREFIX = "switchboard-delay-";
    /** The header naming the destination exchange the message goes to when due. */
    public static final String TO_HEADER = HEADER_PREFIX + "to";
    private static final String[] LEVEL_HEADERS = new String[LEVELS];
    private static final String[] LEVEL_NAMES = new String[LEVELS];
    private static final String[] QUORUM_LEVEL_NAMES = new String[LEVELS];

    static {
        for (int n = 0; n < LEVELS; n++) {
            LEVEL_HEADERS[n] = HEADER_PREFIX + n;
            LEVEL_NAMES[n] = PREFIX + n;
            QUORUM_LEVEL_NAMES[n] = QUORUM_PREFIX + n;
        }
    }

    private DelayLevels() {}

    /**
     * The delay in units, rounded up, for a record due at {@code deliverAt}.
     *
     * @return 0 when it is due already (publish it now), else 1 .. {@link #MAX_UNITS}
     * @throws IllegalArgumentException naming the delay and the longest one when it is longer
     */
    public static long units(long deliverAtEpochMillis, long nowMillis) {
        long remaining = deliverAtEpochMillis - nowMillis;
        if (remaining <= 0) {
            return 0;
        }
        long units = (remaining + UNIT_MILLIS - 1) / UNIT_MILLIS;
        if (units > MAX_UNITS) {
            throw new IllegalArgumentException("A delay of " + remaining + " ms is longer than RabbitMQ's delay levels "
                    + "hold (at most " + MAX_DELAY_MILLIS + " ms, about " + MAX_DELAY_MILLIS / 86_400_000L + " days); "
                    + "deliver it sooner, or publish it again later");
        }
        return units;
    }

    /** {@return the level a delay of {@code units} (at least 1) enters at: its highest set bit} */
    public static int entryLevel(long units) {
        return 63 - Long.numberOfLeadingZeros(units);
    }

    /** {@return the name of level {@code n}'s exchange and of its queue, in the chain of quorum or classic queues} */
    public static String levelName(int n, boolean quorum) {
        return quorum ? QUORUM_LEVEL_NAMES[n] : LEVEL_NAMES[n];
    }

    /** {@return the header that says whether a message waits at level {@code n}} */
    public static String levelHeader(int n) {
        return LEVEL_HEADERS[n];
    }

    /** {@return how long a message waits in level {@code n}'s queue, in ms (its {@code x-message-ttl})} */
    public static long ttlMillis(int n) {
        return UNIT_MILLIS << n;
    }

    /** Writes the level headers of a delay of {@code units} and the destination into {@code headers}. */
    public static void write(long units, String destination, Map<String, Object> headers) {
        for (int n = entryLevel(units); n >= 0; n--) {
            headers.put(LEVEL_HEADERS[n], (units >>> n & 1) == 1 ? "1" : "0");
        }
        headers.put(TO_HEADER, destination);
    }
}
