package io.switchboard.internal.resilience;

import io.switchboard.ConfigurationException;
import io.switchboard.spi.BrokerConfig;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Resilience settings for one destination: the instance-wide {@code switchboard.resilience.*}
 * properties, overridden by {@code switchboard.destination.<destination>.resilience.*}. Nothing
 * is enabled unless configured:
 *
 * <ul>
 *   <li>{@code circuit-breaker.enabled=true}, with {@code failure-rate-threshold} (percent, 50),
 *       {@code slow-call-duration-threshold} (5s), {@code slow-call-rate-threshold} (percent, 100),
 *       {@code sliding-window-size} (20 calls), {@code minimum-number-of-calls} (10),
 *       {@code wait-duration-in-open-state} (10s), {@code permitted-calls-in-half-open-state} (3);</li>
 *   <li>{@code retry.max-attempts} (attempts in all), {@code retry.initial-backoff} (100ms),
 *       {@code retry.multiplier} (2.0), {@code retry.max-backoff} (5s), {@code retry.jitter} (0.5);
 *       only retriable errors are retried;</li>
 *   <li>{@code timeout}: time limit on waiting for the broker's acknowledgement;</li>
 *   <li>{@code rate-limit}: publishes per second, waiting up to {@code rate-limit.timeout} (5s) for a permit;</li>
 *   <li>{@code bulkhead.max-concurrent}: publishes awaiting acknowledgement at once.</li>
 * </ul>
 */
public final class ResilienceSettings {

    private final BrokerConfig view;
    private final boolean destinationSpecificBreaker;

    private ResilienceSettings(BrokerConfig view, boolean destinationSpecificBreaker) {
        this.view = view;
        this.destinationSpecificBreaker = destinationSpecificBreaker;
    }

    /** The settings for a destination. */
    public static ResilienceSettings forDestination(BrokerConfig config, String destination) {
        Map<String, String> merged = new LinkedHashMap<>(config.withPrefix("switchboard.resilience."));
        Map<String, String> specific = config.withPrefix("switchboard.destination." + destination + ".resilience.");
        merged.putAll(specific);
        boolean ownBreaker = specific.keySet().stream().anyMatch(k -> k.startsWith("circuit-breaker."));
        return new ResilienceSettings(new BrokerConfig(config.instanceName(), config.adapterId(), prefixed(merged)), ownBreaker);
    }

    private static Map<String, String> prefixed(Map<String, String> m) {
        Map<String, String> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put("switchboard.resilience." + k, v));
        return out;
    }

    private String key(String name) {
        return "switchboard.resilience." + name;
    }

    /** True when anything is configured. */
    public boolean any() {
        return circuitBreakerEnabled() || retryAttempts() > 1 || timeout() != null || rateLimit() > 0 || bulkhead() > 0;
    }

    boolean circuitBreakerEnabled() {
        return view.getBoolean(key("circuit-breaker.enabled"), false);
    }

    boolean destinationSpecificBreaker() {
        return destinationSpecificBreaker;
    }

    int cbInt(String name, int def, int min, int max) {
        return within(key("circuit-breaker." + name), view.getInt(key("circuit-breaker." + name), def), min, max, def);
    }

    Duration cbDuration(String name, Duration def) {
        return positive(key("circuit-breaker." + name), view.getDuration(key("circuit-breaker." + name), def), def);
    }

    int retryAttempts() {
        return within(key("retry.max-attempts"), view.getInt(key("retry.max-attempts"), 1), 1, 100, 3);
    }

    Duration retryDuration(String name, Duration def) {
        return positive(key("retry." + name), view.getDuration(key("retry." + name), def), def);
    }

    double retryDouble(String name, double def, double min, double max) {
        String value = view.get(key("retry." + name));
        if (value == null) {
            return def;
        }
        double parsed;
        try {
            parsed = Double.parseDouble(value.trim());
        } catch (NumberFormatException e) {
            throw new ConfigurationException("Property '" + key("retry." + name) + "' is '" + value
                    + "' but must be a number such as " + def);
        }
        if (!(parsed >= min && parsed <= max)) {
            throw new ConfigurationException("Property '" + key("retry." + name) + "' is " + value + " but must be between "
                    + min + " and " + max + ", such as " + def);
        }
        return parsed;
    }

    Duration timeout() {
        return positive(key("timeout"), view.getDuration(key("timeout"), null), Duration.ofSeconds(5));
    }

    int rateLimit() {
        return within(key("rate-limit"), view.getInt(key("rate-limit"), 0), 0, Integer.MAX_VALUE, 1000);
    }

    Duration rateLimitTimeout() {
        return view.getDuration(key("rate-limit.timeout"), Duration.ofSeconds(5));
    }

    int bulkhead() {
        return within(key("bulkhead.max-concurrent"), view.getInt(key("bulkhead.max-concurrent"), 0), 0, Integer.MAX_VALUE, 100);
    }

    // The keys named in errors are the instance-wide ones; a destination's own override
    // (switchboard.destination.<name>.resilience.*) has the same rule.
    private static int within(String key, int value, int min, int max, int example) {
        if (value < min || value > max) {
            throw new ConfigurationException("Property '" + key + "' is " + value + " but must be "
                    + (max == Integer.MAX_VALUE ? "at least " + min : "between " + min + " and " + max) + ", such as " + example);
        }
        return value;
    }

    private static Duration positive(String key, Duration value, Duration example) {
        if (value != null && (value.isNegative() || value.isZero())) {
            throw new ConfigurationException("Property '" + key + "' is " + value + " but must be a positive duration, such as "
                    + example);
        }
        return value;
    }
}
