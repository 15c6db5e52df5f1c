package io.switchboard.internal.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.FunctionTimer;
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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("switchboard.metrics.histogram: the latency timers' percentile histograms")
class HistogramSettingTest {

    @Test
    @DisplayName("off by default (SLO buckets only), on with true, anything else refused naming the value")
    void histogramSwitch() {
        assertThat(publishTimerBuckets(null, null, "micrometer")).as("Micrometer timers: no histogram")
                .isEqualTo("histogram false, 0 SLOs");
        assertThat(publishTimerBuckets(null, "1ms,25ms", null)).as("default, with two SLO buckets: Micrometer timers")
                .isEqualTo("histogram false, 2 SLOs");
        assertThat(publishTimerBuckets("false", null, "micrometer")).as("off").isEqualTo("histogram false, 0 SLOs");
        assertThat(publishTimerBuckets("true", null, null)).as("on: Micrometer timers").isEqualTo("histogram true, 0 SLOs");
        assertThatThrownBy(() -> publishTimerBuckets("sometimes", null, null)).isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("switchboard.metrics.histogram").hasMessageContaining("sometimes");
    }

    @Test
    @DisplayName("switchboard.metrics.timers: Micrometer Timers by default, read the Micrometer way; the published size a byte counter, one Timer record a publish")
    void micrometerByDefault() {
        Map<String, String> props = Map.of("memory.broker", "default-" + UUID.randomUUID());
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Switchboard sb = Switchboard.builder().instance("main", "memory", props).meterRegistry(registry).build()) {
            var publisher = sb.publisher("orders", Codec.bytes()).build();
            for (int i = 0; i < 3; i++) {
                publisher.publish(new byte[10 + i]).toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
            }
            java.util.Collection<Timer> timers = registry.find(Meters.PUBLISH).tag("broker", "memory").timers();
            assertThat(timers).as("switchboard.publish as Micrometer Timers: outcome success and failure").hasSize(2);
            Timer timer = registry.get(Meters.PUBLISH).tags("broker", "memory", "instance", "main", "destination", "orders",
                    "outcome", "success").timer();
            assertThat(timer.count()).isEqualTo(3);
            assertThat(timer.totalTime(TimeUnit.NANOSECONDS)).isPositive();
            assertThat(timer.max(TimeUnit.NANOSECONDS)).isPositive().isLessThanOrEqualTo(timer.totalTime(TimeUnit.NANOSECONDS));
            assertThat(registry.get(Meters.PUBLISH_BYTES).tag("destination", "orders").functionCounter().count())
                    .isEqualTo(10 + 11 + 12);
            assertThat(registry.find(Meters.PUBLISH).functionTimer()).as("no function timer").isNull();
            assertThat(registry.find(Meters.PUBLISH + ".max").meter()).as("no separate max series").isNull();
            assertThat(registry.find("switchboard.publish.size").meter()).as("no size summary: a second meter record a publish")
                    .isNull();
        }
    }

    @Test
    @DisplayName("switchboard.metrics.timers=lean on request (count, total, max as function timers); a conflict or typo refused")
    void timersSwitch() {
        Map<String, String> props = Map.of("memory.broker", "lean-" + UUID.randomUUID(), MetricsSettings.TIMERS, "lean");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Switchboard sb = Switchboard.builder().instance("main", "memory", props).meterRegistry(registry).build()) {
            var publisher = sb.publisher("orders", Codec.bytes()).build();
            for (int i = 0; i < 3; i++) {
                publisher.publish(new byte[10 + i]).toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
            }
            FunctionTimer timer = registry.get(Meters.PUBLISH).tag("outcome", "success").functionTimer();
            assertThat(timer.count()).isEqualTo(3);
            assertThat(timer.totalTime(TimeUnit.NANOSECONDS)).isPositive();
            double max = registry.get(Meters.PUBLISH + ".max").tag("outcome", "success").timeGauge().value(TimeUnit.NANOSECONDS);
            assertThat(max).isPositive().isLessThanOrEqualTo(timer.totalTime(TimeUnit.NANOSECONDS));
            assertThat(registry.get(Meters.PUBLISH_BYTES).functionCounter().count()).isEqualTo(10 + 11 + 12);
            assertThat(registry.find(Meters.PUBLISH).timer()).as("no Micrometer Timer").isNull();
            assertThat(registry.find("switchboard.publish.size").summary()).as("no size summary").isNull();
            // a second publisher with the same tags records into the same meters
            sb.publisher("orders", Codec.bytes()).build().publish(new byte[5]).toCompletableFuture().orTimeout(30, TimeUnit.SECONDS)
                    .join();
            assertThat(registry.get(Meters.PUBLISH).tag("outcome", "success").functionTimer().count()).isEqualTo(4);
            assertThat(registry.get(Meters.PUBLISH_BYTES).functionCounter().count()).isEqualTo(38);
        }
        assertThatThrownBy(() -> publishTimerBuckets(null, null, "fast")).isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("switchboard.metrics.timers").hasMessageContaining("'fast'").hasMessageContaining("micrometer")
                .hasMessageContaining("off");
        assertThatThrownBy(() -> publishTimerBuckets("true", null, "lean")).isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("switchboard.metrics.timers").hasMessageContaining("switchboard.metrics.histogram=true")
                .hasMessageContaining("micrometer");
    }

    /** Publishes one message with the settings; {@return how its {@code switchboard.publish} timer was configured} */
    private static String publishTimerBuckets(String histogram, String slo, String timers) {
        Map<String, String> props = new HashMap<>(Map.of("memory.broker", "histogram-" + UUID.randomUUID()));
        if (histogram != null) {
            props.put("switchboard.metrics.histogram", histogram);
        }
        if (slo != null) {
            props.put("switchboard.metrics.slo", slo);
        }
        if (timers != null) {
            props.put("switchboard.metrics.timers", timers);
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
