package io.switchboard.kafka.internal.delay;

import io.switchboard.InvalidDestinationException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * The delay tiers and what a delayed record carries. A destination {@code orders} has one topic per tier,
 * {@code orders.delay-1s}, {@code orders.delay-10s}, {@code orders.delay-1m}, {@code orders.delay-10m},
 * {@code orders.delay-1h} and {@code orders.delay-1d}, each made when first needed.
 *
 * <p>A record whose due time is {@code r} away enters the longest tier not longer than {@code r} (the 1 s tier when
 * {@code r} is shorter) and waits there until {@code min(due, entered + tier)}, {@code entered} being its
 * {@code LogAppendTime}. Every record entering a tier other than the shortest has at least the tier's length left, so
 * it leaves at {@code entered + tier}: within a partition of such a tier, records leave in offset order, and the
 * forwarder only ever waits for the head. When it leaves, a record that is due goes to the destination; one that is
 * not enters the tier for what is left (a shorter one, or the same one again). So a long delay never holds a short one
 * up: they are in different topics, and a short delay published after a long one waits behind nothing longer than its
 * own tier. Only the 1 s tier holds records with less than a tier left, so a record there may wait behind one due up
 * to a second after it: the precision bound.
 */
public final class DelayTiers {

    /** The tier lengths, shortest first, in milliseconds. */
    static final long[] TIER_MILLIS = {1_000, 10_000, 60_000, 600_000, 3_600_000, 86_400_000};
    /** The topic suffixes of the tiers, in the same order. */
    static final String[] TIER_NAMES = {"1s", "10s", "1m", "10m", "1h", "1d"};
    /** The longest delay accepted. */
    public static final Duration MAX_DELAY = Duration.ofDays(30);
    /** How long a delay topic keeps records: longer than the longest tier, for a fleet that is down a while. */
    static final long RETENTION_MILLIS = Duration.ofDays(7).toMillis();

    /** Header: the destination the record is for. */
    public static final String DESTINATION_HEADER = "sb_delay_destination";
    /** Header: when the record is due, epoch milliseconds in ASCII digits. */
    public static final String DUE_HEADER = "sb_delay_due";
    /** Header: when it was published (its timestamp on the destination), epoch milliseconds in ASCII digits. */
    public static final String TIME_HEADER = "sb_delay_time";

    private static final String SEPARATOR = ".delay-";
    private static final int LONGEST_SUFFIX = SEPARATOR.length() + 3;
    private static final int MAX_TOPIC = 249;

    private DelayTiers() {}

    /** {@return the index of the tier a record with {@code remainingMillis} left enters} */
    static int tierFor(long remainingMillis) {
        for (int i = TIER_MILLIS.length - 1; i > 0; i--) {
            if (TIER_MILLIS[i] <= remainingMillis) {
                return i;
            }
        }
        return 0;
    }

    /** {@return the topic of a destination's tier} */
    static String topic(String destination, int tier) {
        return destination + SEPARATOR + TIER_NAMES[tier];
    }

    /** {@return the tier a delay topic of the destination holds, or -1 when the topic is none of them} */
    static int tierOf(String destination, String topic) {
        if (topic.length() <= destination.length() + SEPARATOR.length() || !topic.startsWith(destination)
                || !topic.startsWith(SEPARATOR, destination.length())) {
            return -1;
        }
        String suffix = topic.substring(destination.length() + SEPARATOR.length());
        for (int i = 0; i < TIER_NAMES.length; i++) {
            if (TIER_NAMES[i].equals(suffix)) {
                return i;
            }
        }
        return -1;
    }

    /** {@return true when {@code names} holds a delay topic of the destination} */
    static boolean anyTopic(String destination, Set<String> names) {
        for (int tier = 0; tier < TIER_NAMES.length; tier++) {
            if (names.contains(topic(destination, tier))) {
                return true;
            }
        }
        return false;
    }

    /** {@return the pattern matching every delay topic of the destination} */
    static Pattern pattern(String destination) {
        return Pattern.compile(Pattern.quote(destination) + Pattern.quote(SEPARATOR) + "(" + String.join("|", TIER_NAMES) + ")");
    }

    /**
     * Checks that a destination can have delay topics.
     *
     * @throws InvalidDestinationException when its name leaves no room for the suffix
     */
    static void checkName(String destination) {
        if (destination.length() + LONGEST_SUFFIX > MAX_TOPIC) {
            throw new InvalidDestinationException("Destination '" + destination + "' has " + destination.length()
                    + " characters; a delayed message to it needs a delay topic named '" + topic(destination, 1)
                    + "', longer than Kafka's " + MAX_TOPIC + " characters; use a destination of at most "
                    + (MAX_TOPIC - LONGEST_SUFFIX) + " characters for delayed messages");
        }
    }

    /** {@return the consumer group of the destination's forwarders} */
    static String forwarderGroup(String destination) {
        return "switchboard-delay-forwarder." + destination;
    }

    /** {@return a header's value as ASCII digits of a long, or {@code fallback} when it is absent or not a number} */
    static long longHeader(Headers headers, String name, long fallback) {
        Header header = headers.lastHeader(name);
        byte[] value = header == null ? null : header.value();
        if (value == null || value.length == 0 || value.length > 19) {
            return fallback;
        }
        long result = 0;
        for (byte b : value) {
            if (b < '0' || b > '9') {
                return fallback;
            }
            result = result * 10 + (b - '0');
        }
        return result;
    }

    /** {@return a long as the ASCII digits written in a header} */
    static byte[] ascii(long value) {
        return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
    }
}
