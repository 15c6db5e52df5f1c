package io.switchboard.internal.metrics;

import io.switchboard.ConfigurationException;
import io.switchboard.spi.BrokerConfig;
import java.time.Duration;
import java.util.Arrays;

/**
 * Meter settings from properties: {@code switchboard.metrics.slo} (comma-separated durations,
 * e.g. {@code 1ms,5ms,25ms,100ms}) adds SLO buckets to every latency timer, which always publish
 * a percentile histogram between 100 µs and 60 s.
 *
 * @param slos service-level-objective boundaries, possibly empty
 */
public record MetricsSettings(Duration[] slos) {

    /** Reads the settings. */
    public static MetricsSettings from(BrokerConfig config) {
        String text = config.get("switchboard.metrics.slo");
        if (text == null || text.isBlank()) {
            return new MetricsSettings(new Duration[0]);
        }
        try {
            return new MetricsSettings(Arrays.stream(text.split(",")).map(String::trim).map(BrokerConfig::parseDuration)
                    .sorted().toArray(Duration[]::new));
        } catch (RuntimeException e) {
            throw new ConfigurationException("Property 'switchboard.metrics.slo' is '" + text
                    + "' but must be comma-separated durations such as 1ms,5ms,25ms,100ms", e);
        }
    }
}
