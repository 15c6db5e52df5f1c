package io.switchboard.internal;

import io.switchboard.ConfigurationException;
import io.switchboard.spi.BrokerConfig;
import java.util.Locale;
import java.util.Map;

/**
 * Where a subscription's handler runs, from property {@value #PROPERTY} (per subscription, else per
 * broker instance): {@code auto} (the default) runs it on the adapter's own delivery threads when
 * the adapter agrees ({@link io.switchboard.spi.RawConsumer#handleOnDeliveryThreads(int)}), as the
 * brokers' native clients do, else on core's handler lanes; {@code lanes} always uses the lanes.
 */
enum Dispatch {
    /** The adapter's delivery threads where it agrees, else lanes. */
    AUTO,
    /** Always core's handler lanes (a hand-off per record). */
    LANES;

    /** The property that chooses. */
    public static final String PROPERTY = "switchboard.consume.dispatch";

    /** The dispatch of a subscription: its own properties first, then the instance's. */
    public static Dispatch of(Map<String, String> subscriptionProperties, BrokerConfig config) {
        String value = subscriptionProperties.get(PROPERTY);
        if (value == null) {
            value = config.get(PROPERTY, "auto");
        }
        switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "auto":
                return AUTO;
            case "lanes":
                return LANES;
            default:
                throw new ConfigurationException("Property '" + PROPERTY + "' of broker instance '" + config.instanceName()
                        + "' is '" + value + "'; use 'auto' (handlers on the adapter's delivery threads where it allows) or "
                        + "'lanes' (always on Switchboard's own handler threads)");
        }
    }
}
