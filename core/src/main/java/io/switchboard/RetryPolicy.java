package io.switchboard;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How often and how fast a failed handler is retried before the message is dead-lettered.
 * Retries run in-process on the handler's own lane, so per-key order holds while a message is
 * retried. Immutable; validated on construction.
 *
 * @param maxAttempts attempts in all, the first included; at least 1
 * @param initialBackoff wait before the second attempt
 * @param multiplier growth of the wait per attempt; at least 1.0
 * @param maxBackoff upper bound of the wait
 * @param jitter random spread of each wait, 0.0 to 1.0 (0.2 = plus or minus 20%)
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, double multiplier, Duration maxBackoff, double jitter) {

    /** Three attempts, 100 ms doubling up to 2 s, 20% jitter. */
    public static final RetryPolicy DEFAULT = new RetryPolicy(3, Duration.ofMillis(100), 2.0, Duration.ofSeconds(2), 0.2);

    /** No retry: the first failure dead-letters the message. */
    public static final RetryPolicy NONE = new RetryPolicy(1, Duration.ZERO, 1.0, Duration.ZERO, 0.0);

    /**
     * Validates the components.
     *
     * @param maxAttempts attempts in all, the first included; at least 1
     * @param initialBackoff the wait before the second attempt
     * @param multiplier how much the wait grows per attempt; at least 1
     * @param maxBackoff the longest wait
     * @param jitter the random spread of each wait, 0 to 1
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
        return new RetryPolicy(maxAttempts, initial, 2.0, max, 0.2);
    }

    /**
     * Fixed wait between attempts, no jitter.
     *
     * @param maxAttempts attempts in all, the first included
     * @param backoff the wait between attempts
     * @return the policy
     */
    public static RetryPolicy fixed(int maxAttempts, Duration backoff) {
        return new RetryPolicy(maxAttempts, backoff, 1.0, backoff, 0.0);
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
