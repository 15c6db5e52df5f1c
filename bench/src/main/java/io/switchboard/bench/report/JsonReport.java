package io.switchboard.bench.report;

import io.switchboard.bench.driver.BenchDriver;
import io.switchboard.bench.measure.Percentiles;
import io.switchboard.bench.run.RunResult;
import io.switchboard.bench.run.Sample;
import io.switchboard.bench.workload.Workload;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The results as a JSON-ready tree: machine, command, every run with its time series, pairs, summary. */
public final class JsonReport {

    private JsonReport() {}

    /** The document. */
    public static Map<String, Object> document(List<RunResult> results, String command) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("generated", Instant.now().toString());
        doc.put("command", command);
        doc.put("machine", machine());
        List<Object> runs = new ArrayList<>();
        results.forEach(r -> runs.add(run(r)));
        doc.put("runs", runs);
        List<Object> pairs = new ArrayList<>();
        for (Comparison.Pair p : Comparison.pairs(results)) {
            if (p.complete()) {
                Map<String, Object> pair = new LinkedHashMap<>();
                pair.put("workload", p.sdk().workload().name());
                pair.put("variant", p.sdk().workload().variant());
                pair.put("broker", p.sdk().broker());
                pair.put("publishRatio", finite(p.publishRatio()));
                pair.put("consumeRatio", finite(p.consumeRatio()));
                pair.put("throughputRatio", finite(p.throughputRatio()));
                pair.put("p99Ratio", finite(p.p99Ratio()));
                pairs.add(pair);
            }
        }
        doc.put("pairs", pairs);
        List<Object> summary = new ArrayList<>();
        for (Comparison.BrokerSummary s : Comparison.summary(results)) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("broker", s.broker());
            row.put("throughputRatio", finite(s.throughputRatio()));
            row.put("throughputRuns", s.throughputRuns());
            row.put("p99RatioAt4000", finite(s.p99Ratio()));
            row.put("p99Runs", s.p99Runs());
            row.put("p99RatioAllRates", finite(s.p99RatioAllRates()));
            summary.add(row);
        }
        doc.put("summary", summary);
        List<Object> others = new ArrayList<>();
        for (String[] pairing : Comparison.PAIRINGS.subList(1, Comparison.PAIRINGS.size())) {
            for (Comparison.BrokerSummary s : Comparison.summary(results, pairing[0], pairing[1])) {
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("pairing", pairing[2]);
                row.put("broker", s.broker());
                row.put("throughputRatio", finite(s.throughputRatio()));
                row.put("throughputRuns", s.throughputRuns());
                row.put("p99RatioAt4000", finite(s.p99Ratio()));
                row.put("p99RatioAllRates", finite(s.p99RatioAllRates()));
                others.add(row);
            }
        }
        doc.put("otherPairings", others);
        return doc;
    }

    static Map<String, Object> machine() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("cores", Runtime.getRuntime().availableProcessors());
        m.put("maxHeapMiB", Runtime.getRuntime().maxMemory() / (1024 * 1024));
        m.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"));
        return m;
    }

    /** {@return the SDK run's latency meters: its workload's switchboard.metrics.timers, or the default (micrometer)} */
    static String metricsTimers(RunResult r) {
        return r.workload().propertiesFor(r.broker()).getOrDefault("switchboard.metrics.timers", "micrometer");
    }

    private static Map<String, Object> run(RunResult r) {
        Workload w = r.workload();
        Map<String, Object> run = new LinkedHashMap<>();
        run.put("workload", w.name());
        run.put("variant", w.variant());
        run.put("description", w.description());
        run.put("broker", r.broker());
        run.put("mode", r.mode());
        Map<String, Object> config = new LinkedHashMap<>();
        config.put("topics", w.topics());
        config.put("partitionsPerTopic", w.partitionsPerTopic());
        config.put("payload", w.payload().origin());
        config.put("messageBytes", w.payload().size());
        config.put("producersPerTopic", w.producersPerTopic());
        config.put("subscriptionsPerTopic", w.subscriptionsPerTopic());
        config.put("consumersPerSubscription", w.consumersPerSubscription());
        config.put("producerRate", w.producerRate());
        config.put("duration", w.duration() == null ? null : w.duration().toString());
        config.put("messageCount", w.messageCount());
        config.put("warmup", w.warmup().toString());
        config.put("delivery", w.delivery().name());
        config.put("keyDistribution", w.keyDistribution().name());
        config.put("synchronous", w.synchronous());
        config.put("brokerProperties", w.propertiesFor(r.broker()));
        if (r.mode().startsWith(BenchDriver.SDK)) {
            config.put("metricsTimers", metricsTimers(r));
        }
        run.put("config", config);
        if (w.study().present()) {
            run.put("study", Map.of("source", w.study().source(), "figure", w.study().figure(),
                    "conditions", w.study().conditions()));
        }
        run.put("sent", r.sent());
        run.put("acked", r.acked());
        run.put("failed", r.failed());
        run.put("received", r.received());
        run.put("expected", r.expected());
        run.put("lost", r.lost());
        run.put("publishRate", r.publishRate());
        run.put("consumeRate", r.consumeRate());
        run.put("publishCv", r.publishCv());
        run.put("consumeCv", r.consumeCv());
        run.put("jvmCpuMicrosPerMessage", finite(r.cpuMicrosPerMessage()));
        run.put("brokerCpuMicrosPerMessage", finite(r.brokerCpuMicrosPerMessage()));
        run.put("clientCpuMicrosPerMessage", finite(r.clientCpuMicrosPerMessage()));
        run.put("jitMillis", finite(r.jitMillis()));
        run.put("endToEndMs", percentiles(r.endToEnd()));
        run.put("publishLatencyMs", percentiles(r.publishLatency()));
        run.put("publishDelayMs", percentiles(r.publishDelay()));
        List<Object> samples = new ArrayList<>();
        for (Sample s : r.samples()) {
            samples.add(List.of(round(s.seconds()), round(s.publishRate()), round(s.consumeRate()), round(s.p99Millis())));
        }
        run.put("samples", samples);
        if (r.heap().probes() > 0) {
            Map<String, Object> heap = new LinkedHashMap<>();
            heap.put("probes", r.heap().probes());
            heap.put("startMiB", finite(r.heap().startMiB()));
            heap.put("endMiB", finite(r.heap().endMiB()));
            heap.put("slopeMiBPerMinute", finite(r.heap().slopeMiBPerMinute()));
            run.put("heap", heap);
        }
        run.put("error", r.error());
        return run;
    }

    private static Map<String, Object> percentiles(Percentiles p) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("count", p.count());
        m.put("mean", p.mean());
        m.put("p50", p.p50());
        m.put("p75", p.p75());
        m.put("p95", p.p95());
        m.put("p99", p.p99());
        m.put("p999", p.p999());
        m.put("max", p.max());
        return m;
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000d;
    }

    private static Double finite(double v) {
        return Double.isFinite(v) ? v : null;
    }
}
