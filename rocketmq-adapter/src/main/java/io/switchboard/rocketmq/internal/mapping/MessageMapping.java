package io.switchboard.rocketmq.internal.mapping;

import io.switchboard.Envelope;
import io.switchboard.InvalidMessageException;
import io.switchboard.rocketmq.internal.RocketMqSettings;
import io.switchboard.spi.BindingNames;
import io.switchboard.spi.OutboundRecord;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageAccessor;
import org.apache.rocketmq.common.message.MessageConst;

/**
 * Envelope headers to RocketMQ user properties and back, following the CloudEvents RocketMQ
 * binding: {@code ce_<attribute>} is written as {@code CE_<attribute>}, {@code content-type} as
 * {@code CE_contenttype}; application headers keep their names. The key becomes RocketMQ's
 * {@code KEYS} (so the console can find a message by key), the tag RocketMQ's {@code TAGS}.
 */
public final class MessageMapping {

    static final String BINDING_PREFIX = "CE_";
    static final String BINDING_CONTENT_TYPE = "CE_contenttype";

    /** RocketMQ stores all properties of a message in at most {@code Short.MAX_VALUE} bytes. */
    private static final int MAX_PROPERTIES_BYTES = Short.MAX_VALUE - 1024;
    private static final Set<String> SYSTEM_PROPERTIES = systemProperties();
    /** {@link #SYSTEM_PROPERTIES} by length: index n holds the names of n characters. */
    private static final String[][] SYSTEM_BY_LENGTH = byLength(SYSTEM_PROPERTIES);
    /**
     * The binding's names of the envelope attributes and their envelope names: a consumed message's
     * envelope properties map to these constants with one hash of the name, no substring; and the
     * other way, an envelope header's property name without building it per message.
     */
    private static final BindingNames NAMES = new BindingNames(BINDING_PREFIX,
            Map.of(Envelope.CONTENT_TYPE, BINDING_CONTENT_TYPE), SYSTEM_PROPERTIES::contains);
    /**
     * RocketMQ's own properties that a consumed message usually carries, the commonest first: the unique key, the
     * key, the store flag, the queue's offsets, the tag, the consume start time, a retry's original topic.
     */
    private static final String[] USUAL_SYSTEM = {MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX,
        MessageConst.PROPERTY_KEYS, MessageConst.PROPERTY_WAIT_STORE_MSG_OK, MessageConst.PROPERTY_MIN_OFFSET,
        MessageConst.PROPERTY_MAX_OFFSET, MessageConst.PROPERTY_TAGS, MessageConst.PROPERTY_CONSUME_START_TIMESTAMP,
        MessageConst.PROPERTY_RETRY_TOPIC};

    private MessageMapping() {}

    /**
     * The RocketMQ message for a record.
     *
     * @param tag the tag when the record carries no {@code rocketmq.tag} header, or null
     * @param deliverAt the delivery time already rounded to the broker's timer, or 0
     * @throws InvalidMessageException when a header cannot be carried by RocketMQ
     */
    public static Message toMessage(OutboundRecord record, String tag, long deliverAt) {
        Message message = new Message(record.destination(), record.payload());
        PropertyWriter writer = new PropertyWriter(message, record.destination(), tag);
        record.headers().forEach(writer);
        if (writer.chars > MAX_PROPERTIES_BYTES / 3 && propertyBytes(message) > MAX_PROPERTIES_BYTES) {
            throw new InvalidMessageException("Headers of the message to '" + record.destination() + "' take more than "
                    + MAX_PROPERTIES_BYTES + " bytes, RocketMQ's limit for message properties; move large values into "
                    + "the payload");
        }
        if (writer.tag != null && !writer.tag.isEmpty()) {
            message.setTags(writer.tag);
        }
        if (record.key() != null && !record.key().isEmpty()) {
            message.setKeys(record.key());
        }
        if (deliverAt > 0) {
            message.setDeliverTimeMs(deliverAt);
        }
        return message;
    }

    /** Writes headers as properties while counting their size; iterated with forEach, no entry objects. */
    private static final class PropertyWriter implements BiConsumer<String, String> {
        private final Message message;
        private final String destination;
        private String tag;
        private int chars;

        PropertyWriter(Message message, String destination, String tag) {
            this.message = message;
            this.destination = destination;
            this.tag = tag;
        }

        @Override
        public void accept(String name, String value) {
            String property = toProperty(name, destination);
            MessageAccessor.putProperty(message, property, value);
            chars += property.length() + value.length() + 2;
            if (name.equals(RocketMqSettings.TAG)) {
                tag = value;
            }
        }
    }

    /**
     * The envelope and application headers of a received message; RocketMQ's own properties left out. A message
     * with none (envelope {@code none}, no application headers) gets the shared empty map: no map per message.
     */
    public static Map<String, String> headers(Message message) {
        Map<String, String> properties = message.getProperties();
        if (onlyUsualSystem(properties)) {
            return Collections.emptyMap();
        }
        Map<String, String> headers = null;
        for (Map.Entry<String, String> property : properties.entrySet()) {
            String header = headerOf(property.getKey());
            if (header != null) {
                if (headers == null) {
                    headers = new HashMap<>(properties.size() * 2);
                }
                headers.put(header, property.getValue());
            }
        }
        return headers == null ? Collections.emptyMap() : headers;
    }

    /**
     * The headers of a received message as core reads them: {@link #headers(Message)}'s map, but where the message
     * carries Switchboard's envelope ({@code CE_id} or {@code CE_sb}), a view that looks a header up by its property
     * name and walks the properties only when iterated. Core reads the envelope's time and id by name on every message
     * and copies the application's headers only when the handler asks for them, so the usual message costs a hash
     * lookup or two instead of a walk over the map's 128 buckets. Read by one thread at a time.
     */
    public static Map<String, String> receivedHeaders(Message message) {
        Map<String, String> properties = message.getProperties();
        if (properties.containsKey(ID_PROPERTY) || properties.containsKey(COMPACT_PROPERTY)) {
            return new ReceivedHeaders(properties);
        }
        return headers(message);
    }

    private static final String ID_PROPERTY = NAMES.toBinding(Envelope.ID);
    private static final String COMPACT_PROPERTY = NAMES.toBinding(Envelope.COMPACT);

    /**
     * The header a property carries, as {@link #headers(Message)} names it, or null for RocketMQ's own properties.
     */
    private static String headerOf(String property) {
        String header = NAMES.knownFromBinding(property);
        if (header == null && !isSystemProperty(property)) {
            header = NAMES.fromBinding(property);
        }
        return header;
    }

    /**
     * A received message's headers, looked up by name in its properties; decoded into a map only when iterated. Never
     * empty: it is made only for a message with an envelope id.
     */
    private static final class ReceivedHeaders extends java.util.AbstractMap<String, String> {
        private final Map<String, String> properties;
        private Map<String, String> decoded;

        ReceivedHeaders(Map<String, String> properties) {
            this.properties = properties;
        }

        @Override
        public String get(Object key) {
            if (decoded != null) {
                return decoded.get(key);
            }
            if (!(key instanceof String header)) {
                return null;
            }
            String property = NAMES.toBinding(header);
            String value = properties.get(property);
            // the same header as the walk would give it: not RocketMQ's own property, not another header's binding name
            return value != null && header.equals(headerOf(property)) ? value : null;
        }

        @Override
        public boolean containsKey(Object key) {
            return get(key) != null;
        }

        @Override
        public boolean isEmpty() {
            return false;
        }

        @Override
        public Set<Entry<String, String>> entrySet() {
            if (decoded == null) {
                Map<String, String> all = new HashMap<>(properties.size() * 2);
                properties.forEach((property, value) -> {
                    String header = headerOf(property);
                    if (header != null) {
                        all.put(header, value);
                    }
                });
                decoded = Collections.unmodifiableMap(all);
            }
            return decoded.entrySet();
        }
    }

    /**
     * Whether every property is one of {@link #USUAL_SYSTEM}, found by looking those up rather than by walking the map:
     * RocketMQ decodes a message's properties into a map of 128 buckets, and a walk visits them all.
     */
    private static boolean onlyUsualSystem(Map<String, String> properties) {
        int size = properties.size();
        if (size > USUAL_SYSTEM.length) {
            return false;
        }
        int found = 0;
        for (int i = 0; i < USUAL_SYSTEM.length && found < size; i++) {
            if (properties.containsKey(USUAL_SYSTEM[i])) {
                found++;
            }
        }
        return found == size;
    }

    private static String toProperty(String header, String destination) {
        String property = NAMES.toBinding(header);
        if (property.equals(header) && (header.startsWith(BINDING_PREFIX) || isSystemProperty(header))) {
            throw new InvalidMessageException("Header '" + header + "' of the message to '" + destination + "' is "
                    + "reserved on RocketMQ (its own properties and the CloudEvents binding's 'CE_' names); rename it");
        }
        return property;
    }

    /**
     * Whether RocketMQ uses the name itself: one of its own properties, or a name in its {@code __NAME} style, which it
     * keeps for properties to come. Spring's type-id headers ({@code __TypeId__}, {@code __ContentTypeId__}), which
     * also end with {@code __}, are the application's. Compared with the names of the same length rather than looked
     * up: a consumed message's property names are new strings, whose hash would be computed for each.
     */
    private static boolean isSystemProperty(String name) {
        if (name.length() < SYSTEM_BY_LENGTH.length) {
            for (String system : SYSTEM_BY_LENGTH[name.length()]) {
                if (system.equals(name)) {
                    return true;
                }
            }
        }
        return name.startsWith("__") && !(name.length() > 4 && name.endsWith("__"));
    }

    private static String[][] byLength(Set<String> names) {
        int longest = names.stream().mapToInt(String::length).max().orElse(0);
        String[][] table = new String[longest + 1][];
        for (int length = 0; length <= longest; length++) {
            int l = length;
            table[length] = names.stream().filter(n -> n.length() == l).sorted().toArray(String[]::new);
        }
        return table;
    }

    private static int propertyBytes(Message message) {
        int bytes = 0;
        for (Map.Entry<String, String> e : message.getProperties().entrySet()) {
            bytes += e.getKey().getBytes(StandardCharsets.UTF_8).length
                    + e.getValue().getBytes(StandardCharsets.UTF_8).length + 2;
        }
        return bytes;
    }

    /** Every property name RocketMQ defines for itself: the reserved set plus all PROPERTY_ constants. */
    private static Set<String> systemProperties() {
        Set<String> names = new HashSet<>(MessageConst.STRING_HASH_SET);
        for (Field field : MessageConst.class.getFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class
                    && field.getName().startsWith("PROPERTY_")) {
                try {
                    names.add((String) field.get(null));
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException("Cannot read RocketMQ's MessageConst." + field.getName(), e);
                }
            }
        }
        return Set.copyOf(names);
    }
}
