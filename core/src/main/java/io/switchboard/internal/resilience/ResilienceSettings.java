package io.switchboard.internal.resilience;

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

    int cbInt(String name, int def) {
        return view.getInt(key("circuit-breaker." + name), def);
    }

    Duration cbDuration(String name, Duration def) {
        return view.getDuration(key("circuit-breaker." + name), def);
    }

    int retryAttempts() {
        return view.getInt(key("retry.max-attempts"), 1);
    }

    Duration retryDuration(String name, Duration def) {
        return view.getDuration(key("retry." + name), def);
    }

    double retryDouble(String name, double def) {
        String value = view.get(key("retry." + name));
        if (value == null) {
            return def;
        }
        try {
            return Double.parseDouble(value.trim());
        } catch (NumberFormatException e) {
            throw new io.switchboard.ConfigurationException("Property '" + key("retry." + name) + "' is '" + value
                    + "' but must be a number such as " + def);
        }
    }

    Duration timeout() {
        return view.getDuration(key("timeout"), null);
    }

    int rateLimit() {
        return view.getInt(key("rate-limit"), 0);
    }

    Duration rateLimitTimeout() {
        return view.getDuration(key("rate-limit.timeout"), Duration.ofSeconds(5));
    }

    int bulkhead() {
        return view.getInt(key("bulkhead.max-concurrent"), 0);
    }
}
