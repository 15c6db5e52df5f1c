package io.switchboard.rabbit.internal.mapping;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.LongString;
import io.switchboard.Envelope;
import io.switchboard.spi.BindingNames;
import io.switchboard.spi.OutboundRecord;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * Maps the envelope to AMQP 0-9-1 and back, after the CloudEvents AMQP binding: attribute
 * {@code ce_x} travels as application header {@code cloudEvents_x} (the binding's
 * {@code cloudEvents:x} is read too), the content type as the {@code content-type} property, the id
 * also as the {@code message-id} property. The AMQP {@code timestamp} property has whole seconds
 * only, so the microsecond publish time travels in {@code cloudEvents_time}; the property is set as
 * well for plain AMQP consumers. The compact envelope ({@code ce_sb}) travels as
 * {@code cloudEvents_sb}; it sets neither property. With envelope {@code none} there is no
 * {@code ce_id}: the generated id travels as {@code message-id} alone and the time as {@code
 * timestamp} alone, so the receiving side has it to the second only. Other headers travel under their own names.
 * Inbound, a header of another type than text (a plain AMQP publisher's {@code Integer}, {@code Long},
 * {@code Boolean}, {@code byte[]}, nested table or array) reaches the handler in the text form {@link #text} defines.
 */
public final class AmqpHeaders {

    static final String CLOUD_EVENTS_PREFIX = "cloudEvents_";
    private static final String CLOUD_EVENTS_COLON_PREFIX = "cloudEvents:";
    /** Set by quorum queues on redelivery: earlier delivery attempts. */
    static final String DELIVERY_COUNT = "x-delivery-count";
    private static final List<String> BROKER_HEADER_PREFIXES =
            List.of(DELIVERY_COUNT, "x-death", "x-first-death-", "x-last-death-");
    /** The binding's names: {@code ce_x} as {@code cloudEvents_x}. */
    private static final BindingNames NAMES = new BindingNames(CLOUD_EVENTS_PREFIX, Map.of(), name -> false);

    private AmqpHeaders() {}

    /**
     * The AMQP properties of an outbound record.
     *
     * @param persistent delivery mode 2 (written to disk) rather than 1
     */
    public static AMQP.BasicProperties properties(OutboundRecord record, boolean persistent) {
        return properties(record, persistent, 0);
    }

    /**
     * The AMQP properties of an outbound record that goes through the delay levels first.
     *
     * @param persistent delivery mode 2 (written to disk) rather than 1; a delayed record is always persistent
     * @param delayUnits the delay in {@link DelayLevels} units, or 0 for none
     */
    public static AMQP.BasicProperties properties(OutboundRecord record, boolean persistent, long delayUnits) {
        Map<String, String> envelope = record.headers();
        Outbound out = new Outbound(envelope.size() + (delayUnits > 0 ? DelayLevels.LEVELS + 1 : 0));
        envelope.forEach(out); // core's envelope map iterates without entry objects
        if (delayUnits > 0) {
            DelayLevels.write(delayUnits, record.destination(), out.headers);
        }
        String key = record.key();
        if (key != null && !envelope.containsKey(Envelope.SUBJECT)) {
            out.headers.put(outboundName(Envelope.SUBJECT), key);
        }
        // a ce_time that core holds as a number needs no parsing back from its text (the compact value sets no timestamp)
        long micros = record.timeMicros();
        Date timestamp = out.time == null ? null
                : micros != OutboundRecord.NO_TIME ? new Date(Math.floorDiv(micros, 1_000_000L) * 1000) : wholeSeconds(out.time);
        String id = out.id;
        if (id == null && !out.compact && envelope instanceof Supplier<?> generated) {
            // envelope none: no ce_id, so the id and the time (whole seconds) travel as the properties alone
            id = (String) generated.get();
            timestamp = micros == OutboundRecord.NO_TIME ? null : new Date(Math.floorDiv(micros, 1_000_000L) * 1000);
        }
        return new AMQP.BasicProperties.Builder()
                .headers(out.headers)
                .contentType(out.contentType)
                .messageId(id)
                .timestamp(timestamp)
                .deliveryMode(persistent || delayUnits > 0 ? 2 : 1)
                .build();
    }

    /** Collects the AMQP headers and properties of one outbound record. */
    private static final class Outbound implements BiConsumer<String, String> {
        final Map<String, Object> headers;
        String contentType;
        String id;
        String time;
        /** The compact envelope: it sets neither property. */
        boolean compact;

        Outbound(int size) {
            headers = new HashMap<>((size + 2) * 4 / 3 + 1);
        }

        @Override
        public void accept(String name, String value) {
            if (value == null) {
                return;
            }
            if (name.equals(Envelope.CONTENT_TYPE)) {
                contentType = value;
                return;
            }
            if (name.equals(Envelope.ID)) {
                id = value;
            } else if (name.equals(Envelope.COMPACT)) {
                compact = true;
            } else if (name.equals(Envelope.TIME)) {
                time = value;
            }
            // the String itself: amqp-client encodes it twice (size, then write), which still costs less than a
            // pre-encoded LongString, written through a stream copy that allocates a 4 KiB buffer per value
            // (amqp-client 5.x ValueWriter.copy; 53 % of the publishing thread's samples in 35bb39e)
            headers.put(outboundName(name), value);
        }
    }

    /** The envelope and application headers of a delivery, under the envelope's logical names. */
    public static Map<String, String> headers(AMQP.BasicProperties properties) {
        Map<String, Object> amqp = properties.getHeaders();
        Map<String, String> headers = new HashMap<>(amqp == null ? 4 : (amqp.size() + 1) * 4 / 3 + 1);
        if (amqp != null) {
            for (Map.Entry<String, Object> e : amqp.entrySet()) {
                if (e.getValue() != null && !isBrokerHeader(e.getKey())) {
                    headers.put(inboundName(e.getKey()), text(e.getValue()));
                }
            }
        }
        if (properties.getContentType() != null) {
            headers.putIfAbsent(Envelope.CONTENT_TYPE, properties.getContentType());
        }
        return headers;
    }

    /** The record's tag ({@link io.switchboard.spi.TagFilter#TAG_HEADER}), or null. */
    public static String tag(AMQP.BasicProperties properties) {
        Map<String, Object> amqp = properties.getHeaders();
        Object tag = amqp == null ? null : amqp.get(io.switchboard.spi.TagFilter.TAG_HEADER);
        return tag == null ? null : text(tag);
    }

    /** Earlier delivery attempts counted by a quorum queue, or -1 when the header is absent. */
    public static int earlierDeliveries(AMQP.BasicProperties properties) {
        Map<String, Object> amqp = properties.getHeaders();
        Object count = amqp == null ? null : amqp.get(DELIVERY_COUNT);
        return count instanceof Number n ? n.intValue() : -1;
    }

    private static String outboundName(String name) {
        return NAMES.toBinding(name);
    }

    private static String inboundName(String name) {
        if (name.startsWith(CLOUD_EVENTS_COLON_PREFIX)) {
            return Envelope.PREFIX + name.substring(CLOUD_EVENTS_COLON_PREFIX.length());
        }
        return NAMES.fromBinding(name);
    }

    private static boolean isBrokerHeader(String name) {
        if (!name.startsWith("x-")) {
            return name.startsWith(DelayLevels.HEADER_PREFIX); // the delay levels' routing, not the application's
        }
        for (String prefix : BROKER_HEADER_PREFIXES) {
            if (name.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The text form of a header value, as a plain AMQP publisher (Spring AMQP's {@code RabbitTemplate}, for one) may
     * have typed it: a string as it is; a {@code byte[]} as UTF-8; a number in its decimal form ({@code 42},
     * {@code -7}, {@code 2.5}; a decimal without exponent, {@code 12.50}); a boolean as {@code true} or
     * {@code false}; a timestamp as an RFC 3339 instant ({@code 2026-01-01T00:00:07Z}); a nested table as a JSON
     * object and an array as a JSON array, their values in the same forms (strings, byte arrays and timestamps
     * quoted; numbers and booleans bare).
     */
    static String text(Object value) {
        if (value instanceof LongString s) {
            return s.toString();
        }
        if (value instanceof String s) {
            return s;
        }
        if (value instanceof byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
        if (value instanceof Date date) {
            return Instant.ofEpochMilli(date.getTime()).toString();
        }
        if (value instanceof java.math.BigDecimal decimal) {
            return decimal.toPlainString();
        }
        if (value instanceof Map<?, ?> || value instanceof List<?> || value instanceof Object[]) {
            StringBuilder json = new StringBuilder();
            appendJson(json, value);
            return json.toString();
        }
        return String.valueOf(value);
    }

    private static void appendJson(StringBuilder json, Object value) {
        if (value == null) {
            json.append("null");
        } else if (value instanceof Number || value instanceof Boolean) {
            json.append(text(value));
        } else if (value instanceof Map<?, ?> table) {
            json.append('{');
            String separator = "";
            for (Map.Entry<?, ?> e : table.entrySet()) {
                json.append(separator);
                appendJsonString(json, String.valueOf(e.getKey()));
                json.append(':');
                appendJson(json, e.getValue());
                separator = ",";
            }
            json.append('}');
        } else if (value instanceof List<?> || value instanceof Object[]) {
            json.append('[');
            String separator = "";
            for (Object element : value instanceof Object[] array ? List.of(array) : (List<?>) value) {
                json.append(separator);
                appendJson(json, element);
                separator = ",";
            }
            json.append(']');
        } else {
            appendJsonString(json, text(value));
        }
    }

    private static void appendJsonString(StringBuilder json, String text) {
        json.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                case '\n' -> json.append("\\n");
                case '\r' -> json.append("\\r");
                case '\t' -> json.append("\\t");
                default -> {
                    if (c < 0x20) {
                        json.append(String.format("\\u%04x", (int) c));
                    } else {
                        json.append(c);
                    }
                }
            }
        }
        json.append('"');
    }

    private static Date wholeSeconds(String rfc3339) {
        try {
            return new Date(Envelope.parseTime(rfc3339).getEpochSecond() * 1000);
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
