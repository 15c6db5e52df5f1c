package io.switchboard.bench.report;

import io.switchboard.bench.driver.BenchDriver;
import io.switchboard.bench.run.RunResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.TreeMap;

/**
 * Pairs each SDK run with the native run of the same workload point and broker, and sums the
 * ratios up per broker: the SDK's overhead in one figure each.
 */
public final class Comparison {

    /** The throughput target: SDK at least this fraction of native. */
    public static final double THROUGHPUT_TARGET = 0.97;
    /** The latency target: SDK p99 at most this multiple of native (at 4,000 msg/s). */
    public static final double P99_TARGET = 1.10;
    /** The rate at which the p99 target is judged. */
    public static final long P99_TARGET_RATE = 4_000;

    /**
     * The pairings reported, each as {the SDK side's mode, the native side's mode, its label}: the
     * SDK against the native client; the SDK against the native client carrying the same
     * CloudEvents headers (what the SDK's code costs); the SDK's compact envelope against the native
     * client (one small header each); on RocketMQ the same against the native client that batches
     * keyed sends in order as the SDK does, with and without the CloudEvents headers; with the Spring
     * peers, the SDK against Spring Kafka / Spring AMQP (as a Spring application sends, and with the
     * headers of native-ce), the compact envelope against the Spring peer, and the Spring peer
     * against the native client (what Spring's code costs, on the same wire content each); with the
     * Spring Cloud Stream peers, the SDK against it and it against the native client.
     */
    public static final List<String[]> PAIRINGS = List.of(
            new String[] {BenchDriver.SDK, BenchDriver.NATIVE, "SDK/native"},
            new String[] {BenchDriver.SDK, BenchDriver.NATIVE_ENVELOPE, "SDK/native-ce"},
            new String[] {BenchDriver.SDK_COMPACT, BenchDriver.NATIVE, "compact/native"},
            new String[] {BenchDriver.SDK_NONE, BenchDriver.NATIVE, "none/native"},
            new String[] {BenchDriver.SDK_NONE, BenchDriver.NATIVE_BATCH, "none/native-batch"},
            new String[] {BenchDriver.SDK_NONE, BenchDriver.SPRING, "none/spring"},
            new String[] {BenchDriver.SDK, BenchDriver.NATIVE_BATCH, "SDK/native-batch"},
            new String[] {BenchDriver.SDK, BenchDriver.NATIVE_BATCH_ENVELOPE, "SDK/native-batch-ce"},
            new String[] {BenchDriver.SDK_COMPACT, BenchDriver.NATIVE_BATCH, "compact/native-batch"},
            new String[] {BenchDriver.SDK, BenchDriver.SPRING, "SDK/spring"},
            new String[] {BenchDriver.SDK, BenchDriver.SPRING_ENVELOPE, "SDK/spring-ce"},
            new String[] {BenchDriver.SDK_COMPACT, BenchDriver.SPRING, "compact/spring"},
            new String[] {BenchDriver.SPRING, BenchDriver.NATIVE, "spring/native"},
            new String[] {BenchDriver.SPRING_ENVELOPE, BenchDriver.NATIVE_ENVELOPE, "spring-ce/native-ce"},
            new String[] {BenchDriver.SDK, BenchDriver.SCS, "SDK/scs"},
            new String[] {BenchDriver.SCS, BenchDriver.NATIVE, "scs/native"});

    private Comparison() {}

    /**
     * An SDK run and its native twin.
     *
     * @param sdk the SDK run
     * @param nativeRun the native run, or null (memory, or it failed to plan)
     */
    public record Pair(RunResult sdk, RunResult nativeRun) {

        /** SDK/native publish throughput, or NaN. */
        public double publishRatio() {
            return ratio(sdk.publishRate(), nativeRun == null ? 0 : nativeRun.publishRate());
        }

        /** SDK/native consume throughput, or NaN. */
        public double consumeRatio() {
            return ratio(sdk.consumeRate(), nativeRun == null ? 0 : nativeRun.consumeRate());
        }

        /**
         * The headline: SDK/native of min(published/s, consumed/s), or NaN. A side whose publishers
         * outrun its consumers only grows a backlog, so publish batching cannot hide a consume gap.
         */
        public double throughputRatio() {
            return ratio(Math.min(sdk.publishRate(), sdk.consumeRate()),
                    nativeRun == null ? 0 : Math.min(nativeRun.publishRate(), nativeRun.consumeRate()));
        }

        /** SDK/native end-to-end p99, or NaN. */
        public double p99Ratio() {
            return ratio(sdk.endToEnd().p99(), nativeRun == null ? 0 : nativeRun.endToEnd().p99());
        }

        /** True when both runs completed. */
        public boolean complete() {
            return nativeRun != null && sdk.ok() && nativeRun.ok();
        }
    }

    /**
     * Per broker, the ratios summed up (geometric means).
     *
     * @param broker the broker id
     * @param throughputRatio SDK/native of min(published/s, consumed/s) over the runs at full speed
     * @param throughputRuns how many runs that covers
     * @param p99Ratio SDK/native end-to-end p99 over the fixed-rate runs at {@link #P99_TARGET_RATE}
     * @param p99Runs how many runs that covers
     * @param p99RatioAllRates the same over every fixed-rate run
     */
    public record BrokerSummary(String broker, double throughputRatio, int throughputRuns, double p99Ratio, int p99Runs,
            double p99RatioAllRates) {}

    /** SDK/native pairs in the order of the SDK runs. */
    public static List<Pair> pairs(List<RunResult> results) {
        return pairs(results, BenchDriver.SDK, BenchDriver.NATIVE);
    }

    /** Pairs of the two modes, in the order of the first mode's runs. */
    public static List<Pair> pairs(List<RunResult> results, String sdkMode, String nativeMode) {
        Map<String, RunResult> natives = new LinkedHashMap<>();
        for (RunResult r : results) {
            if (r.mode().equals(nativeMode)) {
                natives.put(key(r), r);
            }
        }
        List<Pair> pairs = new ArrayList<>();
        for (RunResult r : results) {
            if (r.mode().equals(sdkMode)) {
                pairs.add(new Pair(r, natives.get(key(r))));
            }
        }
        return pairs;
    }

    private static String key(RunResult r) {
        return r.workload().label() + "\u0000" + r.broker();
    }

    /** The per-broker SDK/native summary over the complete pairs, brokers in alphabetical order. */
    public static List<BrokerSummary> summary(List<RunResult> results) {
        return summary(results, BenchDriver.SDK, BenchDriver.NATIVE);
    }

    /** The per-broker summary of one pairing over its complete pairs, brokers in alphabetical order. */
    public static List<BrokerSummary> summary(List<RunResult> results, String sdkMode, String nativeMode) {
        Map<String, List<Pair>> byBroker = new TreeMap<>();
        for (Pair p : pairs(results, sdkMode, nativeMode)) {
            if (p.complete()) {
                byBroker.computeIfAbsent(p.sdk().broker(), b -> new ArrayList<>()).add(p);
            }
        }
        List<BrokerSummary> summary = new ArrayList<>();
        byBroker.forEach((broker, pairs) -> {
            List<Double> throughput = pairs.stream().filter(p -> p.sdk().workload().maxRate())
                    .map(Pair::throughputRatio).toList();
            List<Double> p99 = pairs.stream().filter(p -> p.sdk().workload().producerRate() == P99_TARGET_RATE)
                    .map(Pair::p99Ratio).toList();
            List<Double> p99All = pairs.stream().filter(p -> !p.sdk().workload().maxRate())
                    .map(Pair::p99Ratio).toList();
            summary.add(new BrokerSummary(broker, geometricMean(throughput), throughput.size(), geometricMean(p99),
                    p99.size(), geometricMean(p99All)));
        });
        return summary;
    }

    static double geometricMean(List<Double> values) {
        OptionalDouble logMean = values.stream().filter(v -> v > 0 && Double.isFinite(v)).mapToDouble(Math::log).average();
        return logMean.isPresent() ? Math.exp(logMean.getAsDouble()) : Double.NaN;
    }

    static double ratio(double a, double b) {
        return b > 0 ? a / b : Double.NaN;
    }
}
