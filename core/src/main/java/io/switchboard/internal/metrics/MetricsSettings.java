package io.switchboard.internal.metrics;

import io.switchboard.ConfigurationException;
import io.switchboard.spi.BrokerConfig;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;

/**
 * Meter settings from properties: {@code switchboard.metrics.slo} (comma-separated durations,
 * e.g. {@code 1ms,5ms,25ms,100ms}) adds SLO buckets to every latency timer, and
 * {@code switchboard.metrics.histogram=true} has them publish a percentile histogram between 100 µs
 * and 60 s. Off by default, as Micrometer's and Spring Boot's own timers: recording into it cost
 * 4 to 9 % of the client's CPU a message on Kafka at full speed (bench/README.md, issue 35).
 * {@code switchboard.metrics.timers}: {@code micrometer} (the default: Micrometer {@code Timer}s and the size
 * {@code DistributionSummary}, as every Micrometer-instrumented library records them, and what SLOs and histograms
 * need), {@code lean} (an opt-in for a saturated client: {@link LeanTimer}, count, total and max without a clock read
 * per record, exported as function timers; about 50 ns a publish and 90 ns a consumed record cheaper) or {@code off}
 * (count only, {@link CountingMeter}: no latency, so no clock read a message for it; the routing layer's comparison
 * keeps its own latencies).
 *
 * @param slos service-level-objective boundaries, possibly empty
 * @param histogram whether latency timers publish a percentile histogram
 * @param lean whether latencies go to {@link LeanTimer}s (or, not timed, {@link CountingMeter}s) and the published
 *     size to a byte counter
 * @param timed false when the latency meters only count ({@code off})
 */
public record MetricsSettings(Duration[] slos, boolean histogram, boolean lean, boolean timed) {

    /** The property that turns the latency timers' percentile histograms on. */
    public static final String HISTOGRAM = "switchboard.metrics.histogram";
    /** The property that chooses lean meters or Micrometer timers. */
    public static final String TIMERS = "switchboard.metrics.timers";

    /** No SLO buckets, no percentile histograms, Micrometer timers: the defaults. */
    public static final MetricsSettings DEFAULTS = new MetricsSettings(new Duration[0], false, false, true);

    /** Reads the settings. */
    public static MetricsSettings from(BrokerConfig config) {
        boolean histogram = config.getBoolean(HISTOGRAM, false);
        String text = config.get("switchboard.metrics.slo");
        Duration[] slos;
        if (text == null || text.isBlank()) {
            slos = new Duration[0];
        } else {
            try {
                slos = Arrays.stream(text.split(",")).map(String::trim).map(BrokerConfig::parseDuration).sorted()
                        .toArray(Duration[]::new);
            } catch (RuntimeException e) {
                throw new ConfigurationException("Property 'switchboard.metrics.slo' is '" + text
                        + "' but must be comma-separated durations such as 1ms,5ms,25ms,100ms", e);
            }
        }
        boolean distribution = histogram || slos.length > 0;
        String timers = config.get(TIMERS);
        String chosen = timers == null ? "micrometer" : timers.trim().toLowerCase(Locale.ROOT);
        if (!chosen.equals("lean") && !chosen.equals("micrometer") && !chosen.equals("off")) {
            throw new ConfigurationException("Property '" + TIMERS + "' is '" + timers + "' but must be micrometer "
                    + "(Micrometer Timers, the default), lean (count, total and max without a clock read a record, for a "
                    + "saturated client) or off (count only, no clock read a message)");
        }
        if (!chosen.equals("micrometer") && distribution) {
            throw new ConfigurationException("Property '" + TIMERS + "' is '" + chosen + "' but "
                    + (histogram ? HISTOGRAM + "=true" : "switchboard.metrics.slo=" + text)
                    + " needs Micrometer Timers; set " + TIMERS + "=micrometer, "
                    + "or leave it unset");
        }
        return new MetricsSettings(slos, histogram, !chosen.equals("micrometer"), !chosen.equals("off"));
    }
}
