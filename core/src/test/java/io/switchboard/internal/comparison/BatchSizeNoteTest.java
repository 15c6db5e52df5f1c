package io.switchboard.internal.comparison;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.routing.ComparisonReport;
import io.switchboard.routing.ComparisonReport.Finding;
import io.switchboard.spi.ClientThreads;
import io.switchboard.spi.PerformanceSetting;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Random;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A client-CPU finding between instances whose clients sent batches of different sizes says so (issue 87): the cheaper
 * side's bigger batches spread each request's fixed cost over more records.
 */
@DisplayName("Client-CPU findings between instances at different batch sizes")
class BatchSizeNoteTest {

    private static final List<PerformanceSetting> LINGER_20 = List.of(
            PerformanceSetting.batchingWait("linger.ms", 20, "kafka.linger.ms"),
            PerformanceSetting.other("batch.size", "16384", "kafka.batch.size"),
            PerformanceSetting.other("acks", "all", "kafka.acks"));
    private static final List<PerformanceSetting> LINGER_0 = List.of(
            PerformanceSetting.batchingWait("linger.ms", 0, "kafka.linger.ms"),
            PerformanceSetting.other("batch.size", "16384", "kafka.batch.size"),
            PerformanceSetting.other("acks", "all", "kafka.acks"));

    @Test
    @DisplayName("a cheaper instance at 38 records a request against 4: the finding carries the note, the table the row")
    void differentBatchSizes() {
        ComparisonReport report = run(38.2, 4.1);
        System.out.print(report.toTable());
        assertThat(report.verdict().findings()).as(report.toTable()).anySatisfy(f -> {
            assertThat(f.figure()).isEqualTo("client CPU per message");
            assertThat(f.ahead()).isEqualTo("a");
            assertThat(f.notes()).singleElement().asString()
                    .startsWith("measured at different batch sizes: a sent 38.2 records a request, b 4.1 (kafka "
                            + "linger.ms=20, batch.size=16384 vs rabbitmq without a batching setting): CPU per message "
                            + "falls as batches grow");
        });
        assertThat(report.toTable()).contains("| records per request | 38.20 | 4.10 |")
                .contains("      note: measured at different batch sizes");
        assertThat(report.toJson()).contains("\"recordsPerRequest\":38.2").contains("\"recordsPerRequest\":4.1");
        assertThat(report.instances().get(0).cost().recordsPerRequest()).isCloseTo(38.2,
                org.assertj.core.data.Offset.offset(1e-9));
    }

    @Test
    @DisplayName("at equal batch sizes, or with one unknown, the same finding carries no note")
    void sameOrUnknownBatchSizes() {
        for (double b : new double[] {30, Double.NaN}) {
            ComparisonReport report = run(38.2, b);
            Finding cost = report.verdict().findings().stream().filter(f -> f.figure().equals("client CPU per message"))
                    .findFirst().orElseThrow(() -> new AssertionError(report.toTable()));
            assertThat(cost.notes()).as(report.toTable()).isEmpty();
            if (Double.isNaN(b)) {
                assertThat(report.toTable()).contains("| records per request | 38.20 | - |");
                assertThat(report.toJson()).containsOnlyOnce("\"recordsPerRequest\"");
            }
        }
        ComparisonReport none = run(Double.NaN, Double.NaN);
        assertThat(none.toTable()).doesNotContain("records per request");
        assertThat(none.toJson()).doesNotContain("recordsPerRequest");
    }

    @Test
    @DisplayName("two Kafka instances: the note names linger.ms on both sides and the like-for-like value")
    void namesTheSettingThatDiffers() {
        SettingEffects effects = new SettingEffects(Map.of("a", "kafka", "b", "kafka"), Map.of("a", LINGER_20, "b", LINGER_0));
        assertThat(effects.batchSizes("a", 38.2, "b", 4.1)).containsExactly("measured at different batch sizes: a sent 38.2 "
                + "records a request, b 4.1 (kafka linger.ms=20, batch.size=16384 vs kafka linger.ms=0, batch.size=16384): CPU "
                + "per message falls as batches grow; set a's linger.ms=0 (as b's; property kafka.linger.ms) or the other way "
                + "round to compare like for like");
        assertThat(effects.batchSizes("a", 6, "b", 4.1)).as("1.46x apart: within the ratio").isEmpty();
        assertThat(effects.batchSizes("a", 6.2, "b", 4.1)).as("1.51x apart").hasSize(1);
        SettingEffects same = new SettingEffects(Map.of("a", "kafka", "b", "kafka"), Map.of("a", LINGER_0, "b", LINGER_0));
        assertThat(same.batchSizes("a", 1.2, "b", 9.5)).singleElement().asString()
                .endsWith("the settings are the same, so the load or the keys made the batches differ: compare at the same "
                        + "rate and keys");
    }

    /**
     * 20 seconds of 200 messages a second on each instance, a's client costing 48 us a message and b's 83 us (the
     * planted run of issue 87), with the records per request each adapter tells.
     */
    private static ComparisonReport run(double aPerRequest, double bPerRequest) {
        assertThat(ClientCost.measured()).as("this JVM has thread CPU clocks").isTrue();
        SimulatedTraffic sim = new SimulatedTraffic(60, 0, Map.of("a", LINGER_20, "b", List.of()));
        ClientCost.Account a = sim.book.cost().account("a", ClientThreads.NONE);
        ClientCost.Account b = sim.book.cost().account("b", ClientThreads.NONE);
        sim.book.batches().register("a", () -> reading(aPerRequest));
        sim.book.batches().register("b", () -> reading(bPerRequest));
        Random random = new Random(87);
        for (int s = 0; s < 20; s++) {
            for (int i = 0; i < 100; i++) {
                sim.sample("a", 2_000 + random.nextInt(500), 3_000 + random.nextInt(500));
                sim.sample("b", 2_000 + random.nextInt(500), 3_000 + random.nextInt(500));
            }
            // 200 messages a second (100 published, 100 consumed): the CPU of a second, counted 64 times when sampled
            a.publishSampled((long) (200 * (48_000 + random.nextGaussian() * 3_000)) / ClientCost.SAMPLE_EVERY, 100);
            b.publishSampled((long) (200 * (83_000 + random.nextGaussian() * 3_000)) / ClientCost.SAMPLE_EVERY, 100);
            sim.nextSecond();
        }
        return sim.engine.report("orders", Duration.ofSeconds(20));
    }

    private static OptionalDouble reading(double perRequest) {
        return Double.isNaN(perRequest) ? OptionalDouble.empty() : OptionalDouble.of(perRequest);
    }
}
