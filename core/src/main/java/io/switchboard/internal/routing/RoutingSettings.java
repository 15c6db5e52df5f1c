package io.switchboard.internal.routing;

import io.switchboard.ConfigurationException;
import io.switchboard.spi.BrokerConfig;
import java.time.Duration;

/**
 * The routing properties of a multi-instance Switchboard, read from its common properties:
 * {@code switchboard.comparison.min-samples}, {@code switchboard.comparison.min-difference},
 * {@code switchboard.comparison.warm-up}, {@code switchboard.routing.shadow-buffer},
 * {@code switchboard.routing.shadow-grace} and {@code switchboard.routing.ready-timeout}.
 */
record RoutingSettings(long minSamples, double minDifference, int shadowBuffer, long shadowGraceMillis,
        Duration readyTimeout, long warmUpSeconds) {

    /** The seconds of each instance's first traffic the comparison leaves out by default (docs/verdict.md). */
    static final Duration DEFAULT_WARM_UP = Duration.ofSeconds(5);

    static RoutingSettings from(BrokerConfig common) {
        Duration warmUp = common.getDuration("switchboard.comparison.warm-up", DEFAULT_WARM_UP);
        if (warmUp.isNegative() || warmUp.toSeconds() > 600) {
            throw new ConfigurationException("Property 'switchboard.comparison.warm-up' is " + warmUp
                    + " but must be between 0s (judge from the first second) and 10m, such as " + DEFAULT_WARM_UP.toSeconds() + "s");
        }
        return new RoutingSettings(
                positiveLong(common, "switchboard.comparison.min-samples", 200),
                fraction(common, "switchboard.comparison.min-difference", 0.10),
                (int) positiveLong(common, "switchboard.routing.shadow-buffer", 10_000),
                common.getDuration("switchboard.routing.shadow-grace", Duration.ofSeconds(5)).toMillis(),
                common.getDuration("switchboard.routing.ready-timeout", Duration.ofSeconds(30)), warmUp.toSeconds());
    }

    private static long positiveLong(BrokerConfig c, String key, long def) {
        long v = c.getInt(key, (int) def);
        if (v < 1) {
            throw new ConfigurationException("Property '" + key + "' is " + v + " but must be at least 1, such as " + def);
        }
        return v;
    }

    private static double fraction(BrokerConfig c, String key, double def) {
        String text = c.get(key);
        if (text == null) {
            return def;
        }
        try {
            double v = Double.parseDouble(text.trim());
            if (v >= 0 && v < 1) {
                return v;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw new ConfigurationException("Property '" + key + "' is '" + text + "' but must be a fraction in [0, 1), such as " + def);
    }
}
