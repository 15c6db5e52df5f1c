package io.switchboard.bench.workload;

import io.switchboard.Delivery;
import io.switchboard.bench.measure.SendStamp;
import io.switchboard.bench.workload.Workload.Payload;
import io.switchboard.spi.BrokerConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Turns one YAML mapping (a workload, or one grid point of it) into a {@link Workload}, checking
 * every field. Each error names the file, the field, the bad value and what to write instead.
 */
final class WorkloadFields {

    /** Every field a workload file may have, in the order {@code bench/README.md} documents them. */
    static final List<String> KNOWN = List.of("name", "description", "brokers", "topics", "partitionsPerTopic",
            "messageSize", "payloadFile", "producersPerTopic", "subscriptionsPerTopic", "consumersPerSubscription",
            "producerRate", "duration", "messageCount", "warmup", "delivery", "keyDistribution", "synchronous",
            "maxOutstanding", "consumerPrefetch", "drainTimeout", "brokerProperties", "study", "grid", "fullGrid");

    /** The broker ids {@code brokers} and {@code brokerProperties} accept. */
    static final Set<String> BROKERS = Set.of("kafka", "rabbitmq", "rocketmq", "memory");

    private final String source;
    private final Map<String, Object> raw;

    WorkloadFields(String source, Map<String, Object> raw) {
        this.source = source;
        this.raw = raw;
    }

    Workload toWorkload(String variant, Function<String, byte[]> payloadFiles) {
        rejectUnknownFields();
        String name = text("name", null);
        if (name == null || name.isBlank()) {
            throw error("name", null, "a short name such as 'seed-003-throughput'");
        }
        long messageCount = number("messageCount", 0, 0, Long.MAX_VALUE, "a whole number of messages >= 1, or leave it out and give 'duration'");
        Duration duration = duration("duration", null);
        if ((messageCount > 0) == (duration != null)) {
            throw new WorkloadException(source + ": give exactly one of 'duration' (such as 30s) and 'messageCount' "
                    + "(such as 100000); " + (duration == null ? "neither is set" : "both are set"));
        }
        return new Workload(name, variant, text("description", ""), brokers(),
                (int) number("topics", 1, 1, 10_000, "a whole number of topics >= 1"),
                (int) number("partitionsPerTopic", 1, 1, 10_000, "a whole number of partitions >= 1"),
                payload(payloadFiles),
                (int) number("producersPerTopic", 1, 1, 1_000, "a whole number of producers >= 1"),
                (int) number("subscriptionsPerTopic", 1, 1, 1_000, "a whole number of subscriptions >= 1"),
                (int) number("consumersPerSubscription", 1, 1, 1_000, "a whole number of consumers >= 1"),
                number("producerRate", 0, 0, 10_000_000, "messages per second across all producers, a whole number >= 0 (0 = as fast as possible)"),
                duration, messageCount,
                duration("warmup", Duration.ofSeconds(5)),
                delivery(),
                keyDistribution(),
                bool("synchronous", false),
                (int) number("maxOutstanding", 1000, 1, 1_000_000, "a whole number of unacknowledged sends >= 1"),
                (int) number("consumerPrefetch", 256, 1, 100_000, "a whole number of messages >= 1"),
                duration("drainTimeout", Duration.ofSeconds(15)),
                brokerProperties(),
                study());
    }

    private void rejectUnknownFields() {
        for (String key : raw.keySet()) {
            if (!KNOWN.contains(key)) {
                throw new WorkloadException(source + ": unknown field '" + key + "'" + suggestion(key)
                        + "; the fields are " + KNOWN);
            }
        }
    }

    private static String suggestion(String key) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String known : KNOWN) {
            int d = distance(key.toLowerCase(Locale.ROOT), known.toLowerCase(Locale.ROOT));
            if (d < bestDistance) {
                bestDistance = d;
                best = known;
            }
        }
        return bestDistance <= Math.max(2, key.length() / 3) ? "; did you mean '" + best + "'?" : "";
    }

    private static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                current[j] = Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }

    private List<String> brokers() {
        Object value = raw.get("brokers");
        if (value == null) {
            return List.of();
        }
        List<String> result = new ArrayList<>();
        for (Object item : value instanceof List<?> list ? list : List.of(value)) {
            String id = String.valueOf(item).trim().toLowerCase(Locale.ROOT);
            if (!BROKERS.contains(id)) {
                throw error("brokers", item, "a list of broker ids from " + new TreeSet<>(BROKERS));
            }
            result.add(id);
        }
        return result;
    }

    private Payload payload(Function<String, byte[]> payloadFiles) {
        String file = text("payloadFile", null);
        if (file != null) {
            if (raw.containsKey("messageSize")) {
                throw new WorkloadException(source + ": give either 'messageSize' or 'payloadFile', not both");
            }
            byte[] bytes = payloadFiles.apply(file);
            if (bytes == null) {
                throw error("payloadFile", file, "a file that exists, relative to the workload file");
            }
            if (bytes.length < SendStamp.BYTES) {
                throw error("payloadFile", file, "a file of at least " + SendStamp.BYTES
                        + " bytes (the bench carries its send time in a payload's first 8 bytes)");
            }
            return new Payload(bytes, file);
        }
        int size = (int) number("messageSize", 1024, SendStamp.BYTES, 64 * 1024 * 1024,
                "a size in bytes >= 8 (the bench carries its send time in a payload's first 8 bytes), such as 544");
        byte[] bytes = new byte[size];
        for (int i = 0; i < size; i++) {
            bytes[i] = (byte) ('a' + (i * 7 + i / 26) % 26); // compressible like text, not all one byte
        }
        return new Payload(bytes, size + " B");
    }

    private Delivery delivery() {
        String value = text("delivery", "at-least-once");
        return switch (value.trim().toLowerCase(Locale.ROOT).replace('_', '-')) {
            case "at-most-once" -> Delivery.AT_MOST_ONCE;
            case "at-least-once" -> Delivery.AT_LEAST_ONCE;
            case "exactly-once" -> throw error("delivery", value, "at-most-once or at-least-once (exactly-once has no "
                    + "equivalent native-client setting in the harness, so it cannot be compared)");
            default -> throw error("delivery", value, "at-most-once or at-least-once");
        };
    }

    private KeyDistribution keyDistribution() {
        String value = text("keyDistribution", "NO_KEY");
        try {
            return KeyDistribution.valueOf(value.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException e) {
            throw error("keyDistribution", value, "one of NO_KEY, KEY_ROUND_ROBIN, RANDOM");
        }
    }

    private Map<String, Map<String, String>> brokerProperties() {
        Object value = raw.get("brokerProperties");
        if (value == null) {
            return Map.of();
        }
        if (!(value instanceof Map<?, ?> perBroker)) {
            throw error("brokerProperties", value, "a mapping from broker id to properties, such as "
                    + "{kafka: {linger.ms: 5}, rabbitmq: {lazy: true}}");
        }
        Map<String, Map<String, String>> result = new LinkedHashMap<>();
        perBroker.forEach((broker, props) -> {
            String id = String.valueOf(broker);
            if (!BROKERS.contains(id)) {
                throw error("brokerProperties." + id, props, "properties under a broker id from " + new TreeSet<>(BROKERS));
            }
            if (props == null) {
                return;
            }
            if (!(props instanceof Map<?, ?> map)) {
                throw error("brokerProperties." + id, props, "a mapping of property names to values");
            }
            Map<String, String> strings = new LinkedHashMap<>();
            map.forEach((k, v) -> {
                if (v == null || v instanceof Map || v instanceof List) {
                    throw error("brokerProperties." + id + "." + k, v, "a single value (text, number or true/false)");
                }
                strings.put(String.valueOf(k), String.valueOf(v));
            });
            result.put(id, strings);
        });
        return result;
    }

    private Study study() {
        Object value = raw.get("study");
        if (value == null) {
            return Study.NONE;
        }
        if (!(value instanceof Map<?, ?> map)) {
            throw error("study", value, "a mapping with 'source', 'figure' and 'conditions'");
        }
        for (Object key : map.keySet()) {
            if (!List.of("source", "figure", "conditions").contains(String.valueOf(key))) {
                throw error("study." + key, map.get(key), "only 'source', 'figure' and 'conditions' under 'study'");
            }
        }
        return new Study(string(map.get("source")), string(map.get("figure")), string(map.get("conditions")));
    }

    private static String string(Object value) {
        return value == null ? "" : String.valueOf(value).trim();
    }

    private String text(String field, String defaultValue) {
        Object value = raw.get(field);
        if (value == null) {
            return defaultValue;
        }
        if (value instanceof Map || value instanceof List) {
            throw error(field, value, "a single value");
        }
        return String.valueOf(value);
    }

    private long number(String field, long defaultValue, long min, long max, String expected) {
        Object value = raw.get(field);
        if (value == null) {
            return defaultValue;
        }
        long n;
        try {
            n = Long.parseLong(String.valueOf(value).trim().replace("_", ""));
        } catch (NumberFormatException e) {
            throw error(field, value, expected);
        }
        if (n < min || n > max) {
            throw error(field, value, expected + (max < Long.MAX_VALUE ? " and <= " + max : ""));
        }
        return n;
    }

    private boolean bool(String field, boolean defaultValue) {
        Object value = raw.get(field);
        if (value == null) {
            return defaultValue;
        }
        if (value instanceof Boolean b) {
            return b;
        }
        throw error(field, value, "true or false");
    }

    private Duration duration(String field, Duration defaultValue) {
        Object value = raw.get(field);
        if (value == null) {
            return defaultValue;
        }
        try {
            Duration d = BrokerConfig.parseDuration(String.valueOf(value));
            if (d.isNegative() || (d.isZero() && !field.equals("warmup"))) {
                throw new IllegalArgumentException("not positive");
            }
            return d;
        } catch (RuntimeException e) {
            throw error(field, value, "a duration such as 500ms, 30s or 2m" + (field.equals("warmup") ? " (0s for none)" : ""));
        }
    }

    private WorkloadException error(String field, Object value, String expected) {
        return new WorkloadException(source + ": field '" + field + "' is " + (value == null ? "missing" : "'" + value + "'")
                + " but must be " + expected);
    }
}
