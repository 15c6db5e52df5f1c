package io.switchboard.internal;

import io.switchboard.ConfigurationException;
import io.switchboard.spi.BrokerConfig;

/**
 * How a broker instance's publishers write the envelope, from property {@value #PROPERTY}:
 * {@code cloudevents} (the default) writes every CloudEvents attribute as its own header;
 * {@code compact} writes one header, {@link io.switchboard.Envelope#COMPACT}, with the publish
 * time and the id. Consumers read both forms whatever this says.
 */
public enum EnvelopeFormat {
    /** CloudEvents binary mode: {@code ce_id}, {@code ce_time}, {@code ce_source} and the others. */
    CLOUDEVENTS,
    /** One {@code ce_sb} header: {@code <epoch microseconds>;<id>}. */
    COMPACT;

    /** The property that chooses, per broker instance. */
    public static final String PROPERTY = "switchboard.envelope";

    /**
     * The format of a broker instance.
     *
     * @throws ConfigurationException naming the property, the value and the allowed values when it is neither
     */
    public static EnvelopeFormat of(BrokerConfig config) {
        String value = config.get(PROPERTY, "cloudevents");
        for (EnvelopeFormat format : values()) {
            if (format.name().equalsIgnoreCase(value.trim())) {
                return format;
            }
        }
        throw new ConfigurationException("Property '" + PROPERTY + "' of broker instance '" + config.instanceName()
                + "' is '" + value + "'; use 'cloudevents' (the default: every CloudEvents attribute as a header) "
                + "or 'compact' (one ce_sb header with the publish time and the id, for throughput)");
    }
}
