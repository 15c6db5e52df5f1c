package io.switchboard.internal.envelope;

import io.switchboard.ConfigurationException;
import io.switchboard.spi.BrokerConfig;
import java.util.Collection;

/**
 * How a broker instance's publishers write the envelope, from property {@value #PROPERTY}:
 * {@code cloudevents} (the default) writes a lean CloudEvent: the required attributes and the
 * content type, and only what the broker does not carry itself; {@code cloudevents-full} writes
 * every attribute, as the default did before; {@code compact} writes one header,
 * {@link io.switchboard.Envelope#COMPACT}, with the publish time and the id. Consumers read every
 * form whatever this says.
 */
public enum EnvelopeFormat {
    /**
     * CloudEvents binary mode, lean: {@code ce_specversion}, {@code ce_id} (22 characters),
     * {@code ce_source}, {@code ce_type}, {@code content-type} unless the codec's content type is
     * {@code application/octet-stream} (opaque bytes: CloudEvents' {@code datacontenttype} is
     * optional and says nothing then); {@code ce_time} unless the broker stamps the send time
     * itself; no {@code ce_subject} (the key travels as the broker's key) and no {@code ce_attempt}.
     */
    CLOUDEVENTS,
    /**
     * CloudEvents binary mode, every attribute: a UUID id, {@code ce_time} with microseconds,
     * {@code ce_subject} (the key) and {@code ce_attempt}, type {@code io.switchboard.message}
     * unless configured.
     */
    CLOUDEVENTS_FULL,
    /** One {@code ce_sb} header: {@code <epoch microseconds>;<id>}. */
    COMPACT,
    /**
     * No envelope header: the id and the time come from the broker (Kafka: {@code
     * <topic>-<partition>-<offset>} and the record's CreateTime; RabbitMQ: the {@code message-id}
     * and {@code timestamp} properties, whole seconds; RocketMQ: the client's unique key and the born
     * timestamp). Trace headers are written only when tracing is on. A route over more than one
     * instance is refused when one of them has this format: no id is the same on two brokers.
     */
    NONE;

    /** The property that chooses, per broker instance. */
    public static final String PROPERTY = "switchboard.envelope";

    /**
     * The format of a broker instance.
     *
     * @throws ConfigurationException naming the property, the value and the allowed values when it is none of them
     */
    public static EnvelopeFormat of(BrokerConfig config) {
        String value = config.get(PROPERTY, "cloudevents");
        String name = value.trim().replace('-', '_');
        for (EnvelopeFormat format : values()) {
            if (format.name().equalsIgnoreCase(name)) {
                return format;
            }
        }
        throw new ConfigurationException("Property '" + PROPERTY + "' of broker instance '" + config.instanceName()
                + "' is '" + value + "'; use 'cloudevents' (the default: a lean CloudEvent, required attributes and "
                + "what the broker does not carry), 'cloudevents-full' (every CloudEvents attribute as a header) "
                + "'compact' (one ce_sb header with the publish time and the id, for throughput) or 'none' (no envelope "
                + "header: id and time from the broker)");
    }

    /**
     * Refuses a route over several instances, {@code spanned}, one of which, {@code config}'s, writes
     * no envelope: its messages carry no id that is the same on two brokers.
     *
     * @param what the route, as the error names it
     * @throws ConfigurationException naming the property and the fix
     */
    public static void checkSpan(String what, Collection<String> spanned, BrokerConfig config) {
        if (of(config) == NONE) {
            throw new ConfigurationException(what + " spans broker instances " + spanned + ", but instance '"
                    + config.instanceName() + "' has property '" + PROPERTY + "' = none: its messages carry no id "
                    + "that is the same on two brokers, which mirroring's shadow check, migration's deduplication "
                    + "and a split need; set '" + PROPERTY + "' of '" + config.instanceName() + "' to 'compact' (one "
                    + "header) or 'cloudevents', or route to that instance alone");
        }
    }
}
