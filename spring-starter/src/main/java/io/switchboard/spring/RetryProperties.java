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

    /** True when any value is set. */
    public boolean isSet() {
        return maxAttempts != null || initialBackoff != null || multiplier != null || maxBackoff != null || jitter != null;
    }

    /** The handler retry policy: the values set over {@link RetryPolicy#DEFAULT}'s. */
    public RetryPolicy toPolicy() {
        RetryPolicy d = RetryPolicy.DEFAULT;
        Duration initial = initialBackoff != null ? initialBackoff : d.initialBackoff();
        Duration max = maxBackoff != null ? maxBackoff : (initial.compareTo(d.maxBackoff()) > 0 ? initial : d.maxBackoff());
        return new RetryPolicy(maxAttempts != null ? maxAttempts : d.maxAttempts(), initial,
                multiplier != null ? multiplier : d.multiplier(), max, jitter != null ? jitter : d.jitter());
    }

    /** The values set, as core properties under {@code prefix} (for example {@code switchboard.resilience.retry.}). */
    public Map<String, String> toCoreProperties(String prefix) {
        Map<String, String> out = new LinkedHashMap<>();
        ResilienceProperties.put(out, prefix + "max-attempts", maxAttempts);
        ResilienceProperties.put(out, prefix + "initial-backoff", initialBackoff);
        ResilienceProperties.put(out, prefix + "multiplier", multiplier);
        ResilienceProperties.put(out, prefix + "max-backoff", maxBackoff);
        ResilienceProperties.put(out, prefix + "jitter", jitter);
        return out;
    }

    public Integer getMaxAttempts() {
        return maxAttempts;
    }

    public void setMaxAttempts(Integer maxAttempts) {
        this.maxAttempts = maxAttempts;
    }

    public Duration getInitialBackoff() {
        return initialBackoff;
    }

    public void setInitialBackoff(Duration initialBackoff) {
        this.initialBackoff = initialBackoff;
    }

    public Double getMultiplier() {
        return multiplier;
    }

    public void setMultiplier(Double multiplier) {
        this.multiplier = multiplier;
    }

    public Duration getMaxBackoff() {
        return maxBackoff;
    }

    public void setMaxBackoff(Duration maxBackoff) {
        this.maxBackoff = maxBackoff;
    }

    public Double getJitter() {
        return jitter;
    }

    public void setJitter(Double jitter) {
        this.jitter = jitter;
    }
}
