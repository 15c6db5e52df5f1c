package io.switchboard.internal.metrics;

import java.time.Instant;

/**
 * Where a subscription reports what happened to each record: the Micrometer meters, the routing
 * layer's windowed statistics, or both. Implementations neither allocate nor lock per call.
 */
public interface ConsumeRecorder extends AutoCloseable {

    /** How a handled record ended. */
    enum Outcome {
        /** Handled and acknowledged. */
        ACK("ack"),
        /** Failed and retried. */
        RETRY("retry"),
        /** Failed for the last time and dead-lettered. */
        DEAD_LETTER("dead_letter"),
        /** Already handled by the group (exactly-once): acknowledged without calling the handler. */
        DUPLICATE("duplicate"),
        /** Failed under at-most-once: dropped. */
        DROPPED("dropped");

        private final String tag;

        Outcome(String tag) {
            this.tag = tag;
        }

        /** The value of the {@code outcome} tag. */
        public String tag() {
            return tag;
        }
    }

    /**
     * A record published at {@code published} reached its handler at {@code nowMicros} (epoch microseconds, from
     * {@link WallClock}); counted, its latency skipped when the time is unknown.
     */
    void endToEnd(Instant published, long nowMicros);

    /**
     * A record whose publish time is the broker's timestamp, {@code publishedEpochMillis} (negative when the broker
     * gave none), reached its handler at {@code nowMicros}; no {@link Instant} is made for it.
     */
    void endToEndSince(long publishedEpochMillis, long nowMicros);

    /** As {@link #endToEnd(Instant, long)}, now. */
    default void endToEnd(Instant published) {
        Instant now = Instant.now();
        endToEnd(published, now.getEpochSecond() * 1_000_000L + now.getNano() / 1000);
    }

    /** The envelope's publish time when the record carries one (not null), else the broker's timestamp. */
    default void endToEnd(Instant envelopeTime, long brokerEpochMillis, long nowMicros) {
        if (envelopeTime != null) {
            endToEnd(envelopeTime, nowMicros);
        } else {
            endToEndSince(brokerEpochMillis, nowMicros);
        }
    }

    /** A handler run that started at {@code startNanos} ended with {@code outcome}. */
    void handled(Outcome outcome, long startNanos);

    /** As {@link #handled(Outcome, long)} on {@code recorder}, when there is one. */
    static void handled(ConsumeRecorder recorder, Outcome outcome, long startNanos) {
        if (recorder != null) {
            recorder.handled(outcome, startNanos);
        }
    }

    /**
     * {@return false when this recorder only counts: the subscription then reads no clock for it, and passes 0 as
     * the times it would have read}
     */
    default boolean timed() {
        return true;
    }

    /** The broker delivered a record again. */
    void redelivered();

    /** Dead-letter reason: the handler failed its last attempt. */
    String HANDLER_FAILED = "handler-failed";

    /** Dead-letter reason: the payload could not be decoded. */
    String UNDECODABLE = "undecodable";

    /** Dead-letter reason: the handler failed with an exception the retry policy does not retry. */
    String NON_RETRYABLE = "non-retryable";

    /**
     * A record went to the dead-letter destination.
     *
     * @param reason {@link #HANDLER_FAILED}, {@link #UNDECODABLE} or {@link #NON_RETRYABLE}
     */
    void deadLettered(String reason);

    /** The subscription's filter dropped a record in the client. */
    default void filtered() {
    }

    /** Releases what belongs only to this subscription. */
    @Override
    void close();

    /** Both recorders, or the one that is not null, or null when both are. */
    static ConsumeRecorder both(ConsumeRecorder a, ConsumeRecorder b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        boolean timed = a.timed() || b.timed();
        return new ConsumeRecorder() {
            @Override
            public boolean timed() {
                return timed;
            }

            @Override
            public void endToEnd(Instant published, long nowMicros) {
                a.endToEnd(published, nowMicros);
                b.endToEnd(published, nowMicros);
            }

            @Override
            public void endToEndSince(long publishedEpochMillis, long nowMicros) {
                a.endToEndSince(publishedEpochMillis, nowMicros);
                b.endToEndSince(publishedEpochMillis, nowMicros);
            }

            @Override
            public void handled(Outcome outcome, long startNanos) {
                a.handled(outcome, startNanos);
                b.handled(outcome, startNanos);
            }

            @Override
            public void redelivered() {
                a.redelivered();
                b.redelivered();
            }

            @Override
            public void deadLettered(String reason) {
                a.deadLettered(reason);
                b.deadLettered(reason);
            }

            @Override
            public void filtered() {
                a.filtered();
                b.filtered();
            }

            @Override
            public void close() {
                a.close();
                b.close();
            }
        };
    }
}
