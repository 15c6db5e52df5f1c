package io.switchboard.internal.metrics;

import io.switchboard.ConfigurationException;
import io.switchboard.spi.BrokerConfig;
import java.time.Duration;
import java.util.Arrays;

/**
 * Meter settings from properties: {@code switchboard.metrics.slo} (comma-separated durations,
 * e.g. {@code 1ms,5ms,25ms,100ms}) adds SLO buckets to every latency timer, and
 * {@code switchboard.metrics.histogram=true} has them publish a percentile histogram between 100 µs
 * and 60 s. Off by default, as Micrometer's and Spring Boot's own timers: recording into it cost
 * 4 to 9 % of the client's CPU a message on Kafka at full speed (bench/README.md, issue 35).
 *
 * @param slos service-level-objective boundaries, possibly empty
 * @param histogram whether latency timers publish a percentile histogram
 */
public record MetricsSettings(Duration[] slos, boolean histogram) {

    /** The property that turns the latency timers' percentile histograms on. */
    public static final String HISTOGRAM = "switchboard.metrics.histogram";

    /** No SLO buckets, no percentile histograms: the defaults. */
    public static final MetricsSettings DEFAULTS = new MetricsSettings(new Duration[0], false);

    /** Reads the settings. */
    public static MetricsSettings from(BrokerConfig config) {
        boolean histogram = config.getBoolean(HISTOGRAM, false);
        String text = config.get("switchboard.metrics.slo");
        if (text == null || text.isBlank()) {
            return new MetricsSettings(new Duration[0], histogram);
        }
        try {
            return new MetricsSettings(Arrays.stream(text.split(",")).map(String::trim).map(BrokerConfig::parseDuration)
                    .sorted().toArray(Duration[]::new), histogram);
        } catch (RuntimeException e) {
            throw new ConfigurationException("Property 'switchboard.metrics.slo' is '" + text
                    + "' but must be comma-separated durations such as 1ms,5ms,25ms,100ms", e);
        }
    }
}
