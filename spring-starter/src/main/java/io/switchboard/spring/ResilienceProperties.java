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

    /** {@return circuit breaker on publishing, one per broker instance (or per destination when it sets its own)} */
    public CircuitBreaker getCircuitBreaker() {
        return circuitBreaker;
    }

    /** {@return retry of publishes that failed with a retriable error (time-outs, back-pressure, I/O)} */
    public RetryProperties getRetry() {
        return retry;
    }

    /** {@return how long a publish waits for a permit [5s]} */
    public Duration getTimeout() {
        return timeout;
    }

    /**
     * Sets {@link #getTimeout()}.
     *
     * @param timeout the value to set
     */
    public void setTimeout(Duration timeout) {
        this.timeout = timeout;
    }

    /** {@return rate limit on publishing} */
    public RateLimit getRateLimit() {
        return rateLimit;
    }

    /** {@return bulkhead: publishes awaiting acknowledgement at once} */
    public Bulkhead getBulkhead() {
        return bulkhead;
    }

    /**
     * {@return the settings made, as core properties under {@code prefix} (for example {@code
     * switchboard.resilience.}); unset values are left out}
     *
     * @param prefix the prefix
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

        /** {@return whether publishing goes through a circuit breaker [false]} */
        public Boolean getEnabled() {
            return enabled;
        }

        /**
         * Sets {@link #getEnabled()}.
         *
         * @param enabled the value to set
         */
        public void setEnabled(Boolean enabled) {
            this.enabled = enabled;
        }

        /** {@return failure rate in percent that opens the circuit [50]} */
        public Integer getFailureRateThreshold() {
            return failureRateThreshold;
        }

        /**
         * Sets {@link #getFailureRateThreshold()}.
         *
         * @param failureRateThreshold the value to set
         */
        public void setFailureRateThreshold(Integer failureRateThreshold) {
            this.failureRateThreshold = failureRateThreshold;
        }

        /** {@return calls slower than this count as slow [5s]} */
        public Duration getSlowCallDurationThreshold() {
            return slowCallDurationThreshold;
        }

        /**
         * Sets {@link #getSlowCallDurationThreshold()}.
         *
         * @param slowCallDurationThreshold the value to set
         */
        public void setSlowCallDurationThreshold(Duration slowCallDurationThreshold) {
            this.slowCallDurationThreshold = slowCallDurationThreshold;
        }

        /** {@return slow call rate in percent that opens the circuit [100]} */
        public Integer getSlowCallRateThreshold() {
            return slowCallRateThreshold;
        }

        /**
         * Sets {@link #getSlowCallRateThreshold()}.
         *
         * @param slowCallRateThreshold the value to set
         */
        public void setSlowCallRateThreshold(Integer slowCallRateThreshold) {
            this.slowCallRateThreshold = slowCallRateThreshold;
        }

        /** {@return calls in the sliding window [20]} */
        public Integer getSlidingWindowSize() {
            return slidingWindowSize;
        }

        /**
         * Sets {@link #getSlidingWindowSize()}.
         *
         * @param slidingWindowSize the value to set
         */
        public void setSlidingWindowSize(Integer slidingWindowSize) {
            this.slidingWindowSize = slidingWindowSize;
        }

        /** {@return calls before the failure rate is computed [10]} */
        public Integer getMinimumNumberOfCalls() {
            return minimumNumberOfCalls;
        }

        /**
         * Sets {@link #getMinimumNumberOfCalls()}.
         *
         * @param minimumNumberOfCalls the value to set
         */
        public void setMinimumNumberOfCalls(Integer minimumNumberOfCalls) {
            this.minimumNumberOfCalls = minimumNumberOfCalls;
        }

        /** {@return how long the circuit stays open before trying again [10s]} */
        public Duration getWaitDurationInOpenState() {
            return waitDurationInOpenState;
        }

        /**
         * Sets {@link #getWaitDurationInOpenState()}.
         *
         * @param waitDurationInOpenState the value to set
         */
        public void setWaitDurationInOpenState(Duration waitDurationInOpenState) {
            this.waitDurationInOpenState = waitDurationInOpenState;
        }

        /** {@return trial calls while half open [3]} */
        public Integer getPermittedCallsInHalfOpenState() {
            return permittedCallsInHalfOpenState;
        }

        /**
         * Sets {@link #getPermittedCallsInHalfOpenState()}.
         *
         * @param permittedCallsInHalfOpenState the value to set
         */
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

        /** {@return publishes per second [none]} */
        public Integer getPermitsPerSecond() {
            return permitsPerSecond;
        }

        /**
         * Sets {@link #getPermitsPerSecond()}.
         *
         * @param permitsPerSecond the value to set
         */
        public void setPermitsPerSecond(Integer permitsPerSecond) {
            this.permitsPerSecond = permitsPerSecond;
        }

        /** {@return how long a publish waits for a permit [5s]} */
        public Duration getTimeout() {
            return timeout;
        }

        /**
         * Sets {@link #getTimeout()}.
         *
         * @param timeout the value to set
         */
        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }
    }

    /** Bulkhead settings. */
    public static class Bulkhead {
        /** Publishes awaiting acknowledgement at once [none]. */
        private Integer maxConcurrent;

        /** {@return publishes awaiting acknowledgement at once [none]} */
        public Integer getMaxConcurrent() {
            return maxConcurrent;
        }

        /**
         * Sets {@link #getMaxConcurrent()}.
         *
         * @param maxConcurrent the value to set
         */
        public void setMaxConcurrent(Integer maxConcurrent) {
            this.maxConcurrent = maxConcurrent;
        }
    }
}
