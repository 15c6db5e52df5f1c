package io.switchboard.bench.report;

import io.switchboard.bench.driver.BenchDriver;
import io.switchboard.bench.measure.Percentiles;
import io.switchboard.bench.run.RunResult;
import io.switchboard.bench.workload.Study;
import io.switchboard.bench.workload.Workload;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The tables printed at the end of a run: one per workload, then the SDK/native summary. */
public final class ConsoleReport {

    private static final String ROW = "%-56s %-8s %-10s %11s %11s %8s %8s %8s %8s %8s %9s %9s %8s%n";

    private ConsoleReport() {}

    /** Prints everything. */
    public static void print(PrintStream out, List<RunResult> results) {
        Map<String, List<RunResult>> byWorkload = new LinkedHashMap<>();
        results.forEach(r -> byWorkload.computeIfAbsent(r.workload().name(), n -> new java.util.ArrayList<>()).add(r));
        byWorkload.forEach((name, runs) -> printWorkload(out, runs));
        printSummary(out, results);
    }

    private static void printWorkload(PrintStream out, List<RunResult> runs) {
        Workload first = runs.get(0).workload();
        out.println();
        out.println("== " + first.name() + (first.description().isBlank() ? "" : ": " + first.description().trim()));
        out.printf(Locale.ROOT, ROW, "variant", "broker", "mode", "pub msg/s", "cons msg/s", "p50 ms", "p75", "p95", "p99",
                "p99.9", "max", "delay p99", "lost");
        for (RunResult r : runs) {
            if (!r.ok()) {
                out.printf(Locale.ROOT, "%-56s %-8s %-10s FAILED: %s%n", shorten(r.workload().variant()), r.broker(),
                        r.mode(), r.error());
                continue;
            }
            Percentiles e = r.endToEnd();
            out.printf(Locale.ROOT, ROW, shorten(r.workload().variant()), r.broker(), r.mode(), rate(r.publishRate()),
                    rate(r.consumeRate()), ms(e.p50()), ms(e.p75()), ms(e.p95()), ms(e.p99()), ms(e.p999()), ms(e.max()),
                    ms(r.publishDelay().p99()), r.lost() == 0 ? "0" : String.format(Locale.ROOT, "%,d", r.lost()));
        }
        for (RunResult r : runs) {
            if (r.ok() && r.heap().probes() > 0) {
                out.printf(Locale.ROOT, "   %s %s: rate cv publish %.3f, consume %.3f; heap after GC %.1f -> %.1f MiB, "
                        + "slope %+.2f MiB/min over %d probes%n", r.broker(), r.mode(), r.publishCv(), r.consumeCv(),
                        r.heap().startMiB(), r.heap().endMiB(), r.heap().slopeMiBPerMinute(), r.heap().probes());
            }
        }
        for (String[] pairing : Comparison.PAIRINGS) {
            for (Comparison.Pair p : Comparison.pairs(runs, pairing[0], pairing[1])) {
                if (p.complete()) {
                    out.printf(Locale.ROOT, "%-56s %-8s %-16s %5s %11s %8s %8s %8s %8s%n",
                            shorten(p.sdk().workload().variant()), p.sdk().broker(), pairing[2], ratio(p.publishRatio()),
                            ratio(p.consumeRatio()), "", "", "", ratio(p.p99Ratio()));
                }
            }
        }
        runs.stream().filter(r -> r.ok() && r.mode().startsWith(BenchDriver.SDK)).map(JsonReport::metricsTimers).distinct()
                .forEach(timers -> out.println("   SDK meters: switchboard.metrics.timers=" + timers));
        Study study = first.study();
        if (study.present()) {
            out.println("   study:      " + study.source());
            out.println("   published:  " + study.figure());
            out.println("   conditions: " + study.conditions());
        }
    }

    private static void printSummary(PrintStream out, List<RunResult> results) {
        for (int i = 0; i < Comparison.PAIRINGS.size(); i++) {
            String[] pairing = Comparison.PAIRINGS.get(i);
            List<Comparison.BrokerSummary> summary = Comparison.summary(results, pairing[0], pairing[1]);
            if (i == 0 || !summary.isEmpty()) { // SDK/native always, the others when they were run
                printSummary(out, results, pairing[2], summary);
            }
        }
    }

    private static void printSummary(PrintStream out, List<RunResult> results, String label,
            List<Comparison.BrokerSummary> summary) {
        long failed = results.stream().filter(r -> !r.ok()).count();
        out.println();
        out.println("== " + label.replace("/", " / ") + ", per broker (geometric means over paired runs)");
        out.printf(Locale.ROOT, "%-10s %22s %6s %26s %6s %22s%n", "broker", "min(pub,cons) max rate", "runs",
                "e2e p99 @ 4,000 msg/s", "runs", "e2e p99 (all rates)");
        for (Comparison.BrokerSummary s : summary) {
            out.printf(Locale.ROOT, "%-10s %22s %6d %26s %6d %22s%n", s.broker(),
                    verdict(s.throughputRatio(), s.throughputRatio() >= Comparison.THROUGHPUT_TARGET), s.throughputRuns(),
                    verdict(s.p99Ratio(), s.p99Ratio() <= Comparison.P99_TARGET), s.p99Runs(), ratio(s.p99RatioAllRates()));
        }
        out.printf(Locale.ROOT, "targets: throughput >= %.2fx native, p99 <= %.2fx native; %d of %d runs failed%n",
                Comparison.THROUGHPUT_TARGET, Comparison.P99_TARGET, failed, results.size());
    }

    private static String verdict(double ratio, boolean met) {
        return Double.isNaN(ratio) ? "-" : ratio(ratio) + (met ? " (met)" : " (MISSED)");
    }

    static String ratio(double r) {
        return Double.isNaN(r) ? "-" : String.format(Locale.ROOT, "%.3fx", r);
    }

    static String rate(double r) {
        return String.format(Locale.ROOT, "%,.0f", r);
    }

    static String ms(double v) {
        return String.format(Locale.ROOT, v >= 100 ? "%.0f" : "%.2f", v);
    }

    private static String shorten(String variant) {
        String v = variant.isEmpty() ? "-" : variant;
        return v.length() <= 56 ? v : v.substring(0, 55) + "…";
    }
}
