package io.switchboard.spi;

import io.switchboard.ConfigurationException;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The configuration of one named broker instance: its name, its adapter id and flat string
 * properties. Typed getters fail with a {@link ConfigurationException} naming the key, the value
 * and the expected form. {@link #toString()} masks values whose key looks secret.
 */
public final class BrokerConfig {

    private static final Pattern SECRET_KEY =
            Pattern.compile("(?i).*(password|passwd|secret|token|credential|jaas|apikey|api-key|private).*");
    private static final Pattern URI_PASSWORD = Pattern.compile("(://[^:/@]+:)[^@]+@");

    private final String instanceName;
    private final String adapterId;
    private final Map<String, String> properties;
    private final ClientEvents events;

    /**
     * Creates a configuration.
     *
     * @param instanceName the name of the broker instance (defaults to the adapter id)
     * @param adapterId the adapter id
     * @param properties flat properties; copied
     */
    public BrokerConfig(String instanceName, String adapterId, Map<String, String> properties) {
        this(instanceName, adapterId, properties, ClientEvents.NONE);
    }

    /**
     * Creates a configuration whose adapter reports its client events to a sink.
     *
     * @param instanceName the name of the broker instance (defaults to the adapter id)
     * @param adapterId the adapter id
     * @param properties flat properties; copied
     * @param events where the adapter reports rebalances, connection loss and the like
     */
    public BrokerConfig(String instanceName, String adapterId, Map<String, String> properties, ClientEvents events) {
        this.instanceName = Objects.requireNonNull(instanceName, "instanceName");
        this.adapterId = Objects.requireNonNull(adapterId, "adapterId");
        this.properties = Collections.unmodifiableMap(new LinkedHashMap<>(properties));
        this.events = Objects.requireNonNull(events, "events");
    }

    /** {@return where the adapter reports its client events ({@link ClientEvents#NONE} when nothing listens)} */
    public ClientEvents events() {
        return events;
    }

    /** {@return the broker instance name, used in metrics tags and error messages} */
    public String instanceName() {
        return instanceName;
    }

    /** {@return the adapter id} */
    public String adapterId() {
        return adapterId;
    }

    /** {@return all properties, unmodifiable} */
    public Map<String, String> properties() {
        return properties;
    }

    /**
     * {@return the property, or null}
     *
     * @param key the property name
     */
    public String get(String key) {
        return properties.get(key);
    }

    /**
     * {@return the property, or the default}
     *
     * @param key the property name
     * @param defaultValue the value when the property is not set
     */
    public String get(String key, String defaultValue) {
        return properties.getOrDefault(key, defaultValue);
    }

    /**
     * {@return the property, which must be set}
     *
     * @param key the property name
     * @param purpose what the property is for, for the message
     * @throws ConfigurationException naming the key and what it is for, when the property is not set or blank
     */
    public String require(String key, String purpose) {
        String value = properties.get(key);
        if (value == null || value.isBlank()) {
            throw new ConfigurationException("Broker instance '" + instanceName + "' (" + adapterId
                    + ") needs property '" + key + "': " + purpose);
        }
        return value;
    }

    /**
     * {@return an integer property}
     *
     * @param key the property name
     * @param defaultValue the value when the property is not set
     */
    public int getInt(String key, int defaultValue) {
        String value = properties.get(key);
        if (value == null) {
            return defaultValue;
        }
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw invalid(key, value, "a whole number such as " + defaultValue);
        }
    }

    /**
     * {@return a long property}
     *
     * @param key the property name
     * @param defaultValue the value when the property is not set
     */
    public long getLong(String key, long defaultValue) {
        String value = properties.get(key);
        if (value == null) {
            return defaultValue;
        }
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw invalid(key, value, "a whole number such as " + defaultValue);
        }
    }

    /**
     * {@return a boolean property: {@code true} or {@code false}}
     *
     * @param key the property name
     * @param defaultValue the value when the property is not set
     */
    public boolean getBoolean(String key, boolean defaultValue) {
        String value = properties.get(key);
        if (value == null) {
            return defaultValue;
        }
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw invalid(key, value, "true or false");
        };
    }

    /**
     * {@return a duration property: {@code 250ms}, {@code 5s}, {@code 2m}, {@code 1h} or ISO-8601 ({@code PT5S})}
     *
     * @param key the property name
     * @param defaultValue the value when the property is not set
     */
    public Duration getDuration(String key, Duration defaultValue) {
        String value = properties.get(key);
        if (value == null) {
            return defaultValue;
        }
        try {
            return parseDuration(value);
        } catch (RuntimeException e) {
            throw invalid(key, value, "a duration such as 250ms, 5s, 2m or PT5S");
        }
    }

    /**
     * {@return an integer property of at least {@code min}}
     *
     * @param key the property name
     * @param min the smallest value allowed
     * @param defaultValue the value when the property is not set
     * @throws ConfigurationException naming the property, its value and the bound when it is smaller
     */
    public int getInt(String key, int min, int defaultValue) {
        int value = getInt(key, defaultValue);
        if (value < min) {
            throw invalid(key, Integer.toString(value), "at least " + min);
        }
        return value;
    }

    /**
     * {@return a duration property above zero}
     *
     * @param key the property name
     * @param defaultValue the value when the property is not set
     * @throws ConfigurationException naming the property and its value when it is zero or negative
     */
    public Duration getPositiveDuration(String key, Duration defaultValue) {
        Duration value = getDuration(key, defaultValue);
        if (value.isNegative() || value.isZero()) {
            throw invalid(key, value.toString(), "a positive duration such as 1s");
        }
        return value;
    }

    /**
     * {@return a property that must be one of a few words, trimmed and in lower case}
     *
     * @param key the property name
     * @param defaultValue the value when the property is not set
     * @param allowed the words allowed, in lower case
     * @throws ConfigurationException naming the property, its value and the words allowed
     */
    public String getOneOf(String key, String defaultValue, Set<String> allowed) {
        String value = get(key, defaultValue).trim().toLowerCase(Locale.ROOT);
        if (!allowed.contains(value)) {
            throw invalid(key, value, "one of " + allowed);
        }
        return value;
    }

    /**
     * {@return the error for a property that is set but malformed, naming the instance, the
     * property, its value (masked when it is a secret) and what it must be}
     *
     * @param key the property name
     * @param value its value as given
     * @param expected what it must be, such as {@code "at least 1"}
     */
    public ConfigurationException invalid(String key, String value, String expected) {
        return new ConfigurationException("Broker instance '" + instanceName + "' (" + adapterId + "): property '"
                + key + "' is '" + printable(key, value) + "' but must be " + expected);
    }

    /**
     * {@return the properties under a prefix, with the prefix removed: {@code withPrefix("kafka.")} turns {@code
     * kafka.linger.ms} into {@code linger.ms}, for passing through to a native client}
     *
     * @param prefix the prefix, such as {@code kafka.}
     */
    public Map<String, String> withPrefix(String prefix) {
        Map<String, String> result = new LinkedHashMap<>();
        properties.forEach((k, v) -> {
            if (k.startsWith(prefix) && k.length() > prefix.length()) {
                result.put(k.substring(prefix.length()), v);
            }
        });
        return result;
    }

    /**
     * {@return a copy with more properties (later ones win)}
     *
     * @param overrides the properties to add or replace
     */
    public BrokerConfig with(Map<String, String> overrides) {
        Map<String, String> merged = new LinkedHashMap<>(properties);
        merged.putAll(overrides);
        return new BrokerConfig(instanceName, adapterId, merged, events);
    }

    /**
     * {@return true when the key names a secret; its value must never be logged}
     *
     * @param key the property name
     */
    public static boolean isSecretKey(String key) {
        return SECRET_KEY.matcher(key).matches();
    }

    /**
     * {@return the value as it may be logged: secrets masked, passwords in URIs masked}
     *
     * @param key the property name
     * @param value its value
     */
    public static String printable(String key, String value) {
        if (value == null) {
            return null;
        }
        if (isSecretKey(key)) {
            return "******";
        }
        return URI_PASSWORD.matcher(value).replaceAll("$1******@");
    }

    /**
     * Parses {@code 250ms}, {@code 5s}, {@code 2m}, {@code 1h}, a bare number of milliseconds, or ISO-8601.
     *
     * @param text the duration as written in a property
     * @return the duration
     */
    public static Duration parseDuration(String text) {
        String v = text.trim().toLowerCase(Locale.ROOT);
        if (v.startsWith("pt") || v.startsWith("p")) {
            return Duration.parse(text.trim().toUpperCase(Locale.ROOT));
        }
        if (v.endsWith("ms")) {
            return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2).trim()));
        }
        if (v.endsWith("s")) {
            return Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1).trim()));
        }
        if (v.endsWith("m")) {
            return Duration.ofMinutes(Long.parseLong(v.substring(0, v.length() - 1).trim()));
        }
        if (v.endsWith("h")) {
            return Duration.ofHours(Long.parseLong(v.substring(0, v.length() - 1).trim()));
        }
        return Duration.ofMillis(Long.parseLong(v));
    }

    @Override
    public String toString() {
        Map<String, String> shown = new TreeMap<>();
        properties.forEach((k, v) -> shown.put(k, printable(k, v)));
        return "BrokerConfig[" + instanceName + " (" + adapterId + ") " + shown + "]";
    }
}
