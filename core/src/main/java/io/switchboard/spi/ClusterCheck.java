package io.switchboard.spi;

import io.switchboard.ConfigurationException;
import java.util.Locale;
import org.slf4j.Logger;

/**
 * What an adapter does when it finds a setting that cannot keep Switchboard's delivery guarantees
 * on the cluster it is connected to (a Kafka topic with one replica on a multi-broker cluster, a
 * classic RabbitMQ queue on a cluster, a RocketMQ group that replicates asynchronously): property
 * {@value #PROPERTY}, {@code warn} (the default: log the problem at WARN, with its fix) or
 * {@code refuse} (fail with a {@link ConfigurationException} that names the setting and the fix).
 */
public enum ClusterCheck {

    /** Log the problem at WARN and go on. */
    WARN,
    /** Refuse: throw a {@link ConfigurationException}. */
    REFUSE;

    /** The instance property that selects the check. */
    public static final String PROPERTY = "switchboard.cluster-check";

    /**
     * {@return the check an instance asked for}
     *
     * @param config the instance's configuration
     * @throws ConfigurationException naming the property and its allowed values, for any other value
     */
    public static ClusterCheck of(BrokerConfig config) {
        String value = config.get(PROPERTY, "warn").trim();
        try {
            return valueOf(value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException("Broker instance '" + config.instanceName() + "' (" + config.adapterId()
                    + "): property '" + PROPERTY + "' is '" + value + "' but must be 'warn' (log settings that cannot keep "
                    + "acknowledged messages on this cluster, the default) or 'refuse' (fail instead)");
        }
    }

    /**
     * Reports {@code problem} (what is wrong and how to fix it): logs it at WARN through {@code log},
     * or throws it as a {@link ConfigurationException}.
     *
     * @param log the adapter's logger
     * @param problem what is wrong and how to fix it
     */
    public void report(Logger log, String problem) {
        if (this == REFUSE) {
            throw new ConfigurationException(problem + " (refused because " + PROPERTY + "=refuse; set it to 'warn' to "
                    + "only log this)");
        }
        log.warn(problem);
    }
}
