package io.switchboard.spring;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * Resilience4j policies on publishing ({@code switchboard.resilience.*} for every instance,
 * {@code switchboard.instances.<name>.resilience.*} for one, and
 * {@code switchboard.destinations.<name>.resilience.*} for one destination). Nothing runs unless
 * configured: a value left unset stays core's default.
 */
public class ResilienceProperties {

    /** Circuit breaker on publishing, one per broker instance (or per destination when it sets its own). */
    private final CircuitBreaker circuitBreaker = new CircuitBreaker();

    /** Retry of publishes that failed with a retriable error (time-outs, back-pressure, I/O). */
    @NestedConfigurationProperty
    private final RetryProperties retry = new RetryProperties();

    /** Time limit on waiting for the broker's acknowledgement of a publish. */
    private Duration timeout;

    /** Rate limit on publishing. */
    private final RateLimit rateLimit = new RateLimit();

    /** Bulkhead: publishes awaiting acknowledgement at once. */
    private final Bulkhead bulkhead = new Bulkhead();

    public CircuitBreaker getCircuitBreaker() {
        return circuitBreaker;
    }

    public RetryProperties getRetry() {
        return retry;
    }

    public Duration getTimeout() {
        return timeout;
    }

    public void setTimeout(Duration timeout) {
        this.timeout = timeout;
    }

    public RateLimit getRateLimit() {
        return rateLimit;
    }

    public Bulkhead getBulkhead() {
        return bulkhead;
    }

    /**
     * The settings made, as core properties under {@code prefix} (for example
     * {@code switchboard.resilience.}); unset values are left out.
     */
    public Map<String, String> toCoreProperties(String prefix) {
        Map<String, String> out = new LinkedHashMap<>();
        put(out, prefix + "circuit-breaker.enabled", circuitBreaker.enabled);
        put(out, prefix + "circuit-breaker.failure-rate-threshold", circuitBreaker.failureRateThreshold);
        put(out, prefix + "circuit-breaker.slow-call-duration-threshold", circuitBreaker.slowCallDurationThreshold);
        put(out, prefix + "circuit-breaker.slow-call-rate-threshold", circuitBreaker.slowCallRateThreshold);
        put(out, prefix + "circuit-breaker.sliding-window-size", circuitBreaker.slidingWindowSize);
        put(out, prefix + "circuit-breaker.minimum-number-of-calls", circuitBreaker.minimumNumberOfCalls);
        put(out, prefix + "circuit-breaker.wait-duration-in-open-state", circuitBreaker.waitDurationInOpenState);
        put(out, prefix + "circuit-breaker.permitted-calls-in-half-open-state", circuitBreaker.permittedCallsInHalfOpenState);
        out.putAll(retry.toCoreProperties(prefix + "retry."));
        put(out, prefix + "timeout", timeout);
        put(out, prefix + "rate-limit", rateLimit.permitsPerSecond);
        put(out, prefix + "rate-limit.timeout", rateLimit.timeout);
        put(out, prefix + "bulkhead.max-concurrent", bulkhead.maxConcurrent);
        return out;
    }

    /** Puts a set value as core reads it (durations in milliseconds); leaves an unset one out. */
    static void put(Map<String, String> out, String key, Object value) {
        if (value instanceof Duration d) {
            out.put(key, d.toMillis() + "ms");
        } else if (value != null) {
            out.put(key, value.toString());
        }
    }

    /** Circuit breaker settings; core's defaults in brackets. */
    public static class CircuitBreaker {
        /** Whether publishing goes through a circuit breaker [false]. */
        private Boolean enabled;
        /** Failure rate in percent that opens the circuit [50]. */
        private Integer failureRateThreshold;
        /** Calls slower than this count as slow [5s]. */
        private Duration slowCallDurationThreshold;
        /** Slow call rate in percent that opens the circuit [100]. */
        private Integer slowCallRateThreshold;
        /** Calls in the sliding window [20]. */
        private Integer slidingWindowSize;
        /** Calls before the failure rate is computed [10]. */
        private Integer minimumNumberOfCalls;
        /** How long the circuit stays open before trying again [10s]. */
        private Duration waitDurationInOpenState;
        /** Trial calls while half open [3]. */
        private Integer permittedCallsInHalfOpenState;

        public Boolean getEnabled() {
            return enabled;
        }

        public void setEnabled(Boolean enabled) {
            this.enabled = enabled;
        }

        public Integer getFailureRateThreshold() {
            return failureRateThreshold;
        }

        public void setFailureRateThreshold(Integer failureRateThreshold) {
            this.failureRateThreshold = failureRateThreshold;
        }

        public Duration getSlowCallDurationThreshold() {
            return slowCallDurationThreshold;
        }

        public void setSlowCallDurationThreshold(Duration slowCallDurationThreshold) {
            this.slowCallDurationThreshold = slowCallDurationThreshold;
        }

        public Integer getSlowCallRateThreshold() {
            return slowCallRateThreshold;
        }

        public void setSlowCallRateThreshold(Integer slowCallRateThreshold) {
            this.slowCallRateThreshold = slowCallRateThreshold;
        }

        public Integer getSlidingWindowSize() {
            return slidingWindowSize;
        }

        public void setSlidingWindowSize(Integer slidingWindowSize) {
            this.slidingWindowSize = slidingWindowSize;
        }

        public Integer getMinimumNumberOfCalls() {
            return minimumNumberOfCalls;
        }

        public void setMinimumNumberOfCalls(Integer minimumNumberOfCalls) {
            this.minimumNumberOfCalls = minimumNumberOfCalls;
        }

        public Duration getWaitDurationInOpenState() {
            return waitDurationInOpenState;
        }

        public void setWaitDurationInOpenState(Duration waitDurationInOpenState) {
            this.waitDurationInOpenState = waitDurationInOpenState;
        }

        public Integer getPermittedCallsInHalfOpenState() {
            return permittedCallsInHalfOpenState;
        }

        public void setPermittedCallsInHalfOpenState(Integer permittedCallsInHalfOpenState) {
            this.permittedCallsInHalfOpenState = permittedCallsInHalfOpenState;
        }
    }

    /** Rate limit settings. */
    public static class RateLimit {
        /** Publishes per second [none]. */
        private Integer permitsPerSecond;
        /** How long a publish waits for a permit [5s]. */
        private Duration timeout;

        public Integer getPermitsPerSecond() {
            return permitsPerSecond;
        }

        public void setPermitsPerSecond(Integer permitsPerSecond) {
            this.permitsPerSecond = permitsPerSecond;
        }

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }
    }

    /** Bulkhead settings. */
    public static class Bulkhead {
        /** Publishes awaiting acknowledgement at once [none]. */
        private Integer maxConcurrent;

        public Integer getMaxConcurrent() {
            return maxConcurrent;
        }

        public void setMaxConcurrent(Integer maxConcurrent) {
            this.maxConcurrent = maxConcurrent;
        }
    }
}
