package io.switchboard;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Objects;

/**
 * Where a subscription starts reading when its consumer group has no position on the broker yet; see
 * {@link SubscriberBuilder#startFrom(StartPosition)}. Immutable.
 *
 * <p>The position is a starting point, not a rewind: as Kafka's {@code auto.offset.reset} and RocketMQ's
 * {@code consumeFromWhere}, it applies to the partitions (queues) for which the group has committed nothing, which is
 * every partition of a new group and of a broadcast subscriber (whose group is its own and new each time). A group
 * that has committed positions resumes from them whatever its start position says, so a restarted application
 * neither replays nor skips what its group already saw. To move a group that already has positions, reset it with
 * the broker's tools (such as {@code kafka-consumer-groups --reset-offsets}) while it is stopped, or subscribe as a
 * new group.
 *
 * <p>Not every broker keeps positions: each broker's {@linkplain io.switchboard.spi.Capabilities#startPositions(boolean)
 * capabilities} say which kinds it accepts, and a subscription asking for another is refused when it is built with
 * an {@link UnsupportedCapabilityException} that says why.
 *
 * <p>In configuration (such as the Spring starter's {@code start-from}) a position is written as {@code earliest},
 * {@code latest}, {@code offset:<n>} or {@code time:<ISO-8601 instant>}, see {@link #parse(String)}; {@link #toString()}
 * writes it the same way.
 */
public final class StartPosition {

    /** The kinds of start position. */
    public enum Kind {
        /** The oldest record the broker still holds. */
        EARLIEST,
        /** The end of the log: only records published after the subscription is ready. */
        LATEST,
        /** A given offset in each partition (queue). */
        OFFSET,
        /** The first record of each partition (queue) stored at or after a given time. */
        TIME
    }

    /** The forms {@link #parse(String)} accepts, for error messages. */
    public static final String FORMS = "'earliest', 'latest', 'offset:<n>' (such as offset:42) or "
            + "'time:<ISO-8601 instant>' (such as time:2024-05-01T00:00:00Z)";

    private static final StartPosition EARLIEST = new StartPosition(Kind.EARLIEST, -1, null);
    private static final StartPosition LATEST = new StartPosition(Kind.LATEST, -1, null);

    private final Kind kind;
    private final long offset;
    private final Instant time;

    private StartPosition(Kind kind, long offset, Instant time) {
        this.kind = kind;
        this.offset = offset;
        this.time = time;
    }

    /**
     * The oldest record the broker still holds in each partition (queue): everything retained.
     *
     * @return the earliest position
     */
    public static StartPosition earliest() {
        return EARLIEST;
    }

    /**
     * The end of each partition (queue) when the subscription takes it: only records published after the
     * subscription is {@linkplain Subscription#ready() ready}.
     *
     * @return the latest position
     */
    public static StartPosition latest() {
        return LATEST;
    }

    /**
     * The same offset in every partition (Kafka) or queue (RocketMQ) of the destination. An offset the log no longer
     * or not yet holds is clamped to its range, as the broker does: below the oldest retained record it starts at
     * that record, past the end it starts at the end (the next record published).
     *
     * @param offset the offset, zero or more
     * @return the position
     * @throws ConfigurationException naming the offset when it is negative
     */
    public static StartPosition offset(long offset) {
        if (offset < 0) {
            throw new ConfigurationException("A start offset must be zero or more but was " + offset
                    + "; use StartPosition.earliest() for the oldest record held");
        }
        return new StartPosition(Kind.OFFSET, offset, null);
    }

    /**
     * The first record of each partition (queue) the broker stored at or after {@code time} (its broker or
     * publish timestamp); where every record is older, the end of that partition (the next record published).
     *
     * @param time the instant
     * @return the position
     */
    public static StartPosition time(Instant time) {
        return new StartPosition(Kind.TIME, -1, Objects.requireNonNull(time, "time"));
    }

    /**
     * Reads a position as written in configuration: {@code earliest}, {@code latest}, {@code offset:<n>} or
     * {@code time:<ISO-8601 instant>} (such as {@code time:2024-05-01T00:00:00Z}); case and surrounding blanks of
     * the keywords do not matter.
     *
     * @param text the position's text
     * @return the position
     * @throws ConfigurationException naming the text and the accepted forms when it is none of them
     */
    public static StartPosition parse(String text) {
        if (text == null || text.isBlank()) {
            throw new ConfigurationException("A start position must be one of " + FORMS + " but was "
                    + (text == null ? "null" : "'" + text + "'"));
        }
        String trimmed = text.trim();
        String lower = trimmed.toLowerCase(Locale.ROOT);
        if (lower.equals("earliest")) {
            return EARLIEST;
        }
        if (lower.equals("latest")) {
            return LATEST;
        }
        if (lower.startsWith("offset:")) {
            String number = trimmed.substring("offset:".length()).trim();
            long value;
            try {
                value = Long.parseLong(number);
            } catch (NumberFormatException e) {
                throw new ConfigurationException("Start position '" + text + "' has no whole number after 'offset:'; "
                        + "use one of " + FORMS, e);
            }
            if (value < 0) {
                throw new ConfigurationException("Start position '" + text + "' has a negative offset; offsets are zero "
                        + "or more, or use 'earliest'");
            }
            return offset(value);
        }
        if (lower.startsWith("time:")) {
            String instant = trimmed.substring("time:".length()).trim();
            try {
                return time(Instant.parse(instant));
            } catch (DateTimeParseException e) {
                throw new ConfigurationException("Start position '" + text + "' has no ISO-8601 instant after 'time:' "
                        + "(such as 2024-05-01T00:00:00Z, in UTC, or 2024-05-01T02:00:00+02:00); use one of " + FORMS, e);
            }
        }
        throw new ConfigurationException("Start position '" + text + "' is none of " + FORMS);
    }

    /** {@return the kind of position} */
    public Kind kind() {
        return kind;
    }

    /**
     * {@return the offset of an {@link Kind#OFFSET} position}
     *
     * @throws IllegalStateException when the position is of another kind
     */
    public long offset() {
        if (kind != Kind.OFFSET) {
            throw new IllegalStateException("start position " + this + " has no offset");
        }
        return offset;
    }

    /**
     * {@return the instant of a {@link Kind#TIME} position}
     *
     * @throws IllegalStateException when the position is of another kind
     */
    public Instant time() {
        if (kind != Kind.TIME) {
            throw new IllegalStateException("start position " + this + " has no time");
        }
        return time;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StartPosition other && kind == other.kind && offset == other.offset
                && Objects.equals(time, other.time);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, offset, time);
    }

    /** {@return the position as {@link #parse(String)} reads it: {@code earliest}, {@code offset:42}, {@code time:...}} */
    @Override
    public String toString() {
        return switch (kind) {
            case EARLIEST -> "earliest";
            case LATEST -> "latest";
            case OFFSET -> "offset:" + offset;
            case TIME -> "time:" + time;
        };
    }
}
