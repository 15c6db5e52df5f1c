package io.switchboard.internal.envelope;

import io.switchboard.ConfigurationException;
import io.switchboard.spi.BrokerConfig;

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
    COMPACT;

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
                + "or 'compact' (one ce_sb header with the publish time and the id, for throughput)");
    }
}
