package io.switchboard.internal.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.switchboard.Codec;
import io.switchboard.ConfigurationException;
import io.switchboard.Switchboard;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("switchboard.metrics.histogram: the latency timers' percentile histograms")
class HistogramSettingTest {

    @Test
    @DisplayName("off by default (SLO buckets only), on with true, anything else refused naming the value")
    void histogramSwitch() {
        assertThat(publishTimerBuckets(null, null)).as("default: no histogram").isEqualTo("histogram false, 0 SLOs");
        assertThat(publishTimerBuckets(null, "1ms,25ms")).as("default, with two SLO buckets")
                .isEqualTo("histogram false, 2 SLOs");
        assertThat(publishTimerBuckets("false", null)).as("off").isEqualTo("histogram false, 0 SLOs");
        assertThat(publishTimerBuckets("true", null)).as("on").isEqualTo("histogram true, 0 SLOs");
        assertThatThrownBy(() -> publishTimerBuckets("sometimes", null)).isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("switchboard.metrics.histogram").hasMessageContaining("sometimes");
    }

    /** Publishes one message with the settings; {@return how its {@code switchboard.publish} timer was configured} */
    private static String publishTimerBuckets(String histogram, String slo) {
        Map<String, String> props = new HashMap<>(Map.of("memory.broker", "histogram-" + UUID.randomUUID()));
        if (histogram != null) {
            props.put("switchboard.metrics.histogram", histogram);
        }
        if (slo != null) {
            props.put("switchboard.metrics.slo", slo);
        }
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        java.util.List<String> configured = new java.util.concurrent.CopyOnWriteArrayList<>();
        registry.config().meterFilter(new MeterFilter() {
            @Override
            public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
                if (id.getName().equals(Meters.PUBLISH)) {
                    double[] slos = config.getServiceLevelObjectiveBoundaries();
                    configured.add("histogram " + Boolean.TRUE.equals(config.isPercentileHistogram()) + ", "
                            + (slos == null ? 0 : slos.length) + " SLOs");
                }
                return config;
            }
        });
        try (Switchboard sb = Switchboard.builder().instance("main", "memory", props).meterRegistry(registry).build()) {
            sb.publisher("orders", Codec.bytes()).build().publish(new byte[1]).toCompletableFuture()
                    .orTimeout(Duration.ofSeconds(30).toSeconds(), java.util.concurrent.TimeUnit.SECONDS).join();
            Timer timer = registry.get(Meters.PUBLISH).tag("outcome", "success").timer();
            assertThat(timer.count()).isEqualTo(1);
            assertThat(configured).as("success and failure timers, configured alike").hasSize(2).containsOnly(configured.get(0));
            return configured.get(0);
        }
    }
}
