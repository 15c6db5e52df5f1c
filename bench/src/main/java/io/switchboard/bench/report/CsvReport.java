package io.switchboard.bench.report;

import io.switchboard.bench.measure.Percentiles;
import io.switchboard.bench.run.RunResult;
import io.switchboard.bench.workload.Workload;
import java.util.List;
import java.util.Locale;

/**
 * One CSV row per run, every figure in its own column. New columns go at the end, so that scripts reading
 * older files by position keep working.
 */
public final class CsvReport {

    static final String HEADER = "workload,variant,broker,mode,topics,partitions,message_bytes,producers_per_topic,"
            + "subscriptions_per_topic,consumers_per_subscription,producer_rate,delivery,synchronous,sent,acked,failed,"
            + "received,expected,lost,publish_msg_s,consume_msg_s,publish_cv,consume_cv,"
            + "e2e_p50_ms,e2e_p75_ms,e2e_p95_ms,e2e_p99_ms,e2e_p999_ms,e2e_max_ms,e2e_mean_ms,"
            + "publish_p50_ms,publish_p99_ms,publish_max_ms,delay_p50_ms,delay_p99_ms,delay_max_ms,"
            + "heap_probes,heap_start_mib,heap_end_mib,heap_slope_mib_min,jvm_cpu_us_per_msg,error,"
            + "broker_cpu_us_per_msg,client_cpu_us_per_msg,jit_ms";

    private CsvReport() {}

    /** The CSV text. */
    public static String render(List<RunResult> results) {
        StringBuilder csv = new StringBuilder(HEADER).append('\n');
        for (RunResult r : results) {
            Workload w = r.workload();
            Percentiles e = r.endToEnd();
            csv.append(String.join(",", quote(w.name()), quote(w.variant()), r.broker(), r.mode(),
                    n(w.topics()), n(w.partitionsPerTopic()), n(w.payload().size()), n(w.producersPerTopic()),
                    n(w.subscriptionsPerTopic()), n(w.consumersPerSubscription()), n(w.producerRate()),
                    w.delivery().name(), Boolean.toString(w.synchronous()), n(r.sent()), n(r.acked()), n(r.failed()),
                    n(r.received()), n(r.expected()), n(r.lost()), d(r.publishRate()), d(r.consumeRate()),
                    d(r.publishCv()), d(r.consumeCv()), d(e.p50()), d(e.p75()), d(e.p95()), d(e.p99()), d(e.p999()),
                    d(e.max()), d(e.mean()), d(r.publishLatency().p50()), d(r.publishLatency().p99()),
                    d(r.publishLatency().max()), d(r.publishDelay().p50()), d(r.publishDelay().p99()),
                    d(r.publishDelay().max()), n(r.heap().probes()), d(r.heap().startMiB()), d(r.heap().endMiB()),
                    d(r.heap().slopeMiBPerMinute()), d(r.cpuMicrosPerMessage()), quote(r.error() == null ? "" : r.error()),
                    d(r.brokerCpuMicrosPerMessage()), d(r.clientCpuMicrosPerMessage()),
                    d(r.jitMillis()))).append('\n');
        }
        return csv.toString();
    }

    private static String n(long v) {
        return Long.toString(v);
    }

    private static String d(double v) {
        if (Double.isNaN(v)) {
            return "";
        }
        return String.format(Locale.ROOT, "%.4f", v);
    }

    private static String quote(String s) {
        return s.contains(",") || s.contains("\"") || s.contains("\n") ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
    }
}
