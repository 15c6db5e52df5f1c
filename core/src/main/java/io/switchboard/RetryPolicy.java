package io.switchboard;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How often and how fast a failed handler is retried before the message is dead-lettered.
 * Retries run in-process on the handler's own lane, so per-key order holds while a message is
 * retried. A wait of {@link #viaBroker(Duration)} or longer instead goes through the broker (non-blocking
 * retry): the message is published, delayed by the wait, to the group's retry destination and acknowledged,
 * so the lane goes on with the next messages; later messages of its key then overtake it.
 * Immutable; validated on construction.
 *
 * @param maxAttempts attempts in all, the first included; at least 1
 * @param initialBackoff wait before the second attempt
 * @param multiplier growth of the wait per attempt; at least 1.0
 * @param maxBackoff upper bound of the wait
 * @param jitter random spread of each wait, 0.0 to 1.0 (0.2 = plus or minus 20%)
 * @param brokerSideFrom waits this long or longer go through the broker's delayed delivery; null: every wait in-process
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, double multiplier, Duration maxBackoff, double jitter,
        Duration brokerSideFrom) {

    /** Three attempts, 100 ms doubling up to 2 s, 20% jitter. */
    public static final RetryPolicy DEFAULT = new RetryPolicy(3, Duration.ofMillis(100), 2.0, Duration.ofSeconds(2), 0.2, null);

    /** No retry: the first failure dead-letters the message. */
    public static final RetryPolicy NONE = new RetryPolicy(1, Duration.ZERO, 1.0, Duration.ZERO, 0.0, null);

    /**
     * Validates the components.
     *
     * @param maxAttempts attempts in all, the first included; at least 1
     * @param initialBackoff the wait before the second attempt
     * @param multiplier how much the wait grows per attempt; at least 1
     * @param maxBackoff the longest wait
     * @param jitter the random spread of each wait, 0 to 1
     * @param brokerSideFrom the shortest wait that goes through the broker, or null for none
     */
    public RetryPolicy {
        if (maxAttempts < 1) {
            throw new ConfigurationException("RetryPolicy.maxAttempts must be at least 1 but was " + maxAttempts);
        }
        if (initialBackoff == null || initialBackoff.isNegative()) {
            throw new ConfigurationException("RetryPolicy.initialBackoff must be zero or positive but was " + initialBackoff);
        }
        if (maxBackoff == null || maxBackoff.compareTo(initialBackoff) < 0) {
            throw new ConfigurationException("RetryPolicy.maxBackoff must be at least initialBackoff (" + initialBackoff
                    + ") but was " + maxBackoff);
        }
        if (multiplier < 1.0) {
            throw new ConfigurationException("RetryPolicy.multiplier must be at least 1.0 but was " + multiplier);
        }
        if (jitter < 0.0 || jitter > 1.0) {
            throw new ConfigurationException("RetryPolicy.jitter must be between 0.0 and 1.0 but was " + jitter);
        }
        if (brokerSideFrom != null && (brokerSideFrom.isNegative() || brokerSideFrom.isZero())) {
            throw new ConfigurationException("RetryPolicy.brokerSideFrom must be positive but was " + brokerSideFrom
                    + "; give the shortest wait that should go through the broker, such as 10s");
        }
    }

    /**
     * Every wait in-process (no broker-side retry).
     *
     * @param maxAttempts attempts in all, the first included; at least 1
     * @param initialBackoff the wait before the second attempt
     * @param multiplier how much the wait grows per attempt; at least 1
     * @param maxBackoff the longest wait
     * @param jitter the random spread of each wait, 0 to 1
     */
    public RetryPolicy(int maxAttempts, Duration initialBackoff, double multiplier, Duration maxBackoff, double jitter) {
        this(maxAttempts, initialBackoff, multiplier, maxBackoff, jitter, null);
    }

    /**
     * {@return this policy with waits of {@code from} or longer going through the broker} Such a retry publishes the
     * message, delayed by the wait, to the group's retry destination (the broker's delayed delivery; every built-in
     * adapter has it) and acknowledges the original: nothing waits in the application, the lane goes on, and a
     * restart loses no retry. The attempt count travels with the message. Per-key order does not hold for it.
     *
     * @param from the shortest wait that goes through the broker, such as {@code Duration.ofSeconds(10)}
     */
    public RetryPolicy viaBroker(Duration from) {
        return new RetryPolicy(maxAttempts, initialBackoff, multiplier, maxBackoff, jitter, from);
    }

    /**
     * {@return true when a wait this long goes through the broker}
     *
     * @param wait the wait before the next attempt
     */
    public boolean brokerSide(Duration wait) {
        return brokerSideFrom != null && wait.compareTo(brokerSideFrom) >= 0;
    }

    /**
     * Exponential backoff: {@code maxAttempts} attempts, waits from {@code initial} doubling up to {@code max}, 20% jitter.
     *
     * @param maxAttempts attempts in all, the first included
     * @param initial the first wait
     * @param max the longest wait
     * @return the policy
     */
    public static RetryPolicy exponential(int maxAttempts, Duration initial, Duration max) {
        return new RetryPolicy(maxAttempts, initial, 2.0, max, 0.2, null);
    }

    /**
     * Fixed wait between attempts, no jitter.
     *
     * @param maxAttempts attempts in all, the first included
     * @param backoff the wait between attempts
     * @return the policy
     */
    public static RetryPolicy fixed(int maxAttempts, Duration backoff) {
        return new RetryPolicy(maxAttempts, backoff, 1.0, backoff, 0.0, null);
    }

    /**
     * {@return the wait after the given failed attempt (1-based), jitter applied}
     *
     * @param failedAttempt the attempt that failed, from 1
     */
    public Duration backoffAfter(int failedAttempt) {
        if (initialBackoff.isZero()) {
            return Duration.ZERO;
        }
        double base = initialBackoff.toNanos() * Math.pow(multiplier, Math.max(0, failedAttempt - 1));
        double capped = Math.min(base, maxBackoff.toNanos());
        double spread = jitter == 0.0 ? 0.0 : capped * jitter * (ThreadLocalRandom.current().nextDouble() * 2 - 1);
        return Duration.ofNanos((long) Math.max(0, capped + spread));
    }
}
