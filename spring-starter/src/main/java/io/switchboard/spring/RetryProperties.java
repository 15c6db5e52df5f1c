package io.switchboard.spring;

import io.switchboard.ConfigurationException;
import io.switchboard.RetryPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.util.ClassUtils;

/**
 * Retry with exponential backoff and jitter: of a failing handler before its message is
 * dead-lettered ({@code switchboard.destinations.<name>.retry.*}, unset values keep
 * {@link RetryPolicy#DEFAULT}'s), or of a publish that failed with a retriable error
 * ({@code resilience.retry.*}, unset values keep core's: no retry). A handler's retry may name the exceptions it
 * does not retry ({@code not-retryable}, as Spring Kafka's {@code addNotRetryableExceptions}) or the only ones it
 * retries ({@code retryable}, as Spring Cloud Stream's {@code retryable-exceptions}); see
 * {@link RetryPolicy.Exceptions} for how a failure and its causes are matched.
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

    /**
     * Handlers only: fully-qualified names of exception classes not retried (with their subclasses, also as a cause of
     * what the handler threw); such a failure is dead-lettered at once, reason non-retryable [none].
     */
    private List<String> notRetryable = new ArrayList<>();

    /**
     * Handlers only: fully-qualified names of the only exception classes retried (with their subclasses, also as a
     * cause of what the handler threw); any other failure is dead-lettered at once, reason non-retryable [none: all].
     */
    private List<String> retryable = new ArrayList<>();

    private List<Class<? extends Throwable>> notRetryableTypes = List.of();
    private List<Class<? extends Throwable>> retryableTypes = List.of();

    /** {@return true when any value is set} */
    public boolean isSet() {
        return maxAttempts != null || initialBackoff != null || multiplier != null || maxBackoff != null || jitter != null
                || !notRetryableTypes.isEmpty() || !retryableTypes.isEmpty();
    }

    /** {@return the handler retry policy: the values set over {@link RetryPolicy#DEFAULT}'s} */
    public RetryPolicy toPolicy() {
        RetryPolicy d = RetryPolicy.DEFAULT;
        Duration initial = initialBackoff != null ? initialBackoff : d.initialBackoff();
        Duration max = maxBackoff != null ? maxBackoff : (initial.compareTo(d.maxBackoff()) > 0 ? initial : d.maxBackoff());
        RetryPolicy policy = new RetryPolicy(maxAttempts != null ? maxAttempts : d.maxAttempts(), initial,
                multiplier != null ? multiplier : d.multiplier(), max, jitter != null ? jitter : d.jitter());
        if (!notRetryableTypes.isEmpty()) {
            policy = policy.notRetrying(array(notRetryableTypes));
        }
        if (!retryableTypes.isEmpty()) {
            policy = policy.retryingOnly(array(retryableTypes));
        }
        return policy;
    }

    @SuppressWarnings("unchecked")
    private static Class<? extends Throwable>[] array(List<Class<? extends Throwable>> types) {
        return types.toArray(new Class[0]);
    }

    /** The classes named, each checked to be an exception class on the classpath. */
    private static List<Class<? extends Throwable>> exceptionTypes(List<String> names, String property) {
        List<Class<? extends Throwable>> types = new ArrayList<>();
        for (String name : names == null ? List.<String>of() : names) {
            String trimmed = name == null ? "" : name.trim();
            Class<?> type;
            try {
                type = ClassUtils.forName(trimmed, ClassUtils.getDefaultClassLoader());
            } catch (ClassNotFoundException | LinkageError | IllegalArgumentException e) {
                throw new ConfigurationException("retry." + property + " names '" + name + "', which is not a class on the"
                        + " classpath; give the fully-qualified name of an exception class, such as"
                        + " java.lang.IllegalArgumentException or com.example.OrderRejectedException");
            }
            if (!Throwable.class.isAssignableFrom(type)) {
                throw new ConfigurationException("retry." + property + " names '" + name + "', which is not an exception"
                        + " class (a java.lang.Throwable); give exception classes only, such as java.lang.IllegalArgumentException");
            }
            types.add(type.asSubclass(Throwable.class));
        }
        return List.copyOf(types);
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
        if (!notRetryableTypes.isEmpty() || !retryableTypes.isEmpty()) {
            throw new ConfigurationException(prefix + (notRetryableTypes.isEmpty() ? "retryable" : "not-retryable")
                    + " is set, but exception types apply to a handler's retry only; move it to"
                    + " switchboard.destinations.<name>.retry, or remove it (a publish is retried on retriable errors only)");
        }
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

    /** {@return handlers only: names of exception classes not retried, dead-lettered at once} */
    public List<String> getNotRetryable() {
        return notRetryable;
    }

    /**
     * Sets {@link #getNotRetryable()}; each name must be an exception class on the classpath.
     *
     * @param notRetryable fully-qualified class names
     */
    public void setNotRetryable(List<String> notRetryable) {
        this.notRetryableTypes = exceptionTypes(notRetryable, "not-retryable");
        this.notRetryable = notRetryable;
    }

    /** {@return handlers only: names of the only exception classes retried; others are dead-lettered at once} */
    public List<String> getRetryable() {
        return retryable;
    }

    /**
     * Sets {@link #getRetryable()}; each name must be an exception class on the classpath.
     *
     * @param retryable fully-qualified class names
     */
    public void setRetryable(List<String> retryable) {
        this.retryableTypes = exceptionTypes(retryable, "retryable");
        this.retryable = retryable;
    }
}
