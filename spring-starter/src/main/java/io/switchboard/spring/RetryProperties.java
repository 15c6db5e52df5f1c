package io.switchboard.spring;

import io.switchboard.RetryPolicy;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Retry with exponential backoff and jitter: of a failing handler before its message is
 * dead-lettered ({@code switchboard.destinations.<name>.retry.*}, unset values keep
 * {@link RetryPolicy#DEFAULT}'s), or of a publish that failed with a retriable error
 * ({@code resilience.retry.*}, unset values keep core's: no retry).
 */
public class RetryProperties {

    /** Attempts in all, the first included [handlers 3; publishing 1, no retry]. */
    private Integer maxAttempts;

    /** Wait before the second attempt [100ms]. */
    private Duration initialBackoff;

    /** Growth of the wait per attempt [2.0]. */
    private Double multiplier;

    /** Upper bound of the wait [handlers 2s; publishing 5s]. */
    private Duration maxBackoff;

    /** Random spread of each wait, 0.0 to 1.0 [handlers 0.2; publishing 0.5]. */
    private Double jitter;

    /** {@return true when any value is set} */
    public boolean isSet() {
        return maxAttempts != null || initialBackoff != null || multiplier != null || maxBackoff != null || jitter != null;
    }

    /** {@return the handler retry policy: the values set over {@link RetryPolicy#DEFAULT}'s} */
    public RetryPolicy toPolicy() {
        RetryPolicy d = RetryPolicy.DEFAULT;
        Duration initial = initialBackoff != null ? initialBackoff : d.initialBackoff();
        Duration max = maxBackoff != null ? maxBackoff : (initial.compareTo(d.maxBackoff()) > 0 ? initial : d.maxBackoff());
        return new RetryPolicy(maxAttempts != null ? maxAttempts : d.maxAttempts(), initial,
                multiplier != null ? multiplier : d.multiplier(), max, jitter != null ? jitter : d.jitter());
    }

    /**
     * {@return the values set, as core properties under {@code prefix} (for example {@code
     * switchboard.resilience.retry.})}
     *
     * @param prefix the prefix
     */
    public Map<String, String> toCoreProperties(String prefix) {
        Map<String, String> out = new LinkedHashMap<>();
        ResilienceProperties.put(out, prefix + "max-attempts", maxAttempts);
        ResilienceProperties.put(out, prefix + "initial-backoff", initialBackoff);
        ResilienceProperties.put(out, prefix + "multiplier", multiplier);
        ResilienceProperties.put(out, prefix + "max-backoff", maxBackoff);
        ResilienceProperties.put(out, prefix + "jitter", jitter);
        return out;
    }

    /** {@return attempts in all, the first included [handlers 3; publishing 1, no retry]} */
    public Integer getMaxAttempts() {
        return maxAttempts;
    }

    /**
     * Sets {@link #getMaxAttempts()}.
     *
     * @param maxAttempts the value to set
     */
    public void setMaxAttempts(Integer maxAttempts) {
        this.maxAttempts = maxAttempts;
    }

    /** {@return wait before the second attempt [100ms]} */
    public Duration getInitialBackoff() {
        return initialBackoff;
    }

    /**
     * Sets {@link #getInitialBackoff()}.
     *
     * @param initialBackoff the value to set
     */
    public void setInitialBackoff(Duration initialBackoff) {
        this.initialBackoff = initialBackoff;
    }

    /** {@return growth of the wait per attempt [2.0]} */
    public Double getMultiplier() {
        return multiplier;
    }

    /**
     * Sets {@link #getMultiplier()}.
     *
     * @param multiplier the value to set
     */
    public void setMultiplier(Double multiplier) {
        this.multiplier = multiplier;
    }

    /** {@return upper bound of the wait [handlers 2s; publishing 5s]} */
    public Duration getMaxBackoff() {
        return maxBackoff;
    }

    /**
     * Sets {@link #getMaxBackoff()}.
     *
     * @param maxBackoff the value to set
     */
    public void setMaxBackoff(Duration maxBackoff) {
        this.maxBackoff = maxBackoff;
    }

    /** {@return random spread of each wait, 0.0 to 1.0 [handlers 0.2; publishing 0.5]} */
    public Double getJitter() {
        return jitter;
    }

    /**
     * Sets {@link #getJitter()}.
     *
     * @param jitter the value to set
     */
    public void setJitter(Double jitter) {
        this.jitter = jitter;
    }
}
