package io.switchboard.bench.reply;

import io.switchboard.Delivery;
import io.switchboard.bench.env.BrokerChild;
import io.switchboard.bench.measure.HeapProbe;
import io.switchboard.bench.measure.HeapTrend;
import io.switchboard.bench.measure.RateLimiter;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Request/reply under load on each broker, through Switchboard ({@code sdk}: a {@code Requester} and replying
 * subscriptions) and through the broker's own request/reply ({@code native}: Spring Kafka's
 * {@code ReplyingKafkaTemplate}, RabbitMQ direct reply-to, RocketMQ's {@code DefaultMQProducer.request}), with the
 * same responders count, payload and open-loop rate. Latency runs from each request's intended send time (so a
 * stalled sender is not hidden) to its reply's arrival at the requester, after a warm-up. Kafka and RocketMQ run in
 * child JVMs; RabbitMQ is the local server.
 *
 * <p>Settings (system properties): {@code bench.brokers} (kafka,rabbitmq,rocketmq), {@code bench.modes}
 * (sdk,native), {@code bench.reps} (1; modes alternate in order between repetitions), {@code bench.rate} (2000
 * requests/s), {@code bench.seconds} (60, warm-up included), {@code bench.warmup} (10 s), {@code bench.responders}
 * (4), {@code bench.payload} (256 bytes), {@code bench.drop-percent} (0: responders answer every request; 5 drops
 * one in twenty, which then times out), {@code bench.timeout-ms} (5000), {@code bench.delivery} (the SDK requests'
 * guarantee, at-least-once), {@code bench.heap-probe-seconds} (0: off; else the heap after a forced GC every so many
 * seconds, the trend printed), {@code bench.rabbit-uri}.
 *
 * <p>Run: {@code mvn -B -q package -pl bench -am -DskipTests && java -cp bench/target/switchboard-bench.jar
 * io.switchboard.bench.reply.RequestReplyBench}. Prints one line per run.
 */
public final class RequestReplyBench {

    private RequestReplyBench() {}

    /** Whether the responder drops the {@code n}th request it saw (1-based), at {@code percent} in a hundred. */
    static boolean drops(long n, int percent) {
        return percent > 0 && n % 100 < percent;
    }

    public static void main(String[] args) throws Exception {
        List<String> brokers = List.of(System.getProperty("bench.brokers", "kafka,rabbitmq,rocketmq").split(","));
        List<String> modes = List.of(System.getProperty("bench.modes", "sdk,native").split(","));
        int reps = Integer.getInteger("bench.reps", 1);
        int rate = Integer.getInteger("bench.rate", 2000);
        int seconds = Integer.getInteger("bench.seconds", 60);
        int warmup = Integer.getInteger("bench.warmup", 10);
        int responders = Integer.getInteger("bench.responders", 4);
        int payloadBytes = Integer.getInteger("bench.payload", 256);
        int drop = Integer.getInteger("bench.drop-percent", 0);
        Duration timeout = Duration.ofMillis(Long.getLong("bench.timeout-ms", 5000));
        Delivery delivery = Delivery.valueOf(System.getProperty("bench.delivery", "at-least-once").toUpperCase(Locale.ROOT)
                .replace('-', '_'));
        int probeSeconds = Integer.getInteger("bench.heap-probe-seconds", 0);
        String rabbitUri = System.getProperty("bench.rabbit-uri", "amqp://guest:guest@127.0.0.1:5672/");
        PrintStream out = System.out;
        out.printf(Locale.ROOT, "request/reply: %d requests/s for %d s (%d s warm-up), %d responders, %d B, drop %d%%, "
                + "timeout %d ms, SDK requests %s; java %s, %d cores%n", rate, seconds, warmup, responders, payloadBytes, drop,
                timeout.toMillis(), delivery, System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());
        List<AutoCloseable> started = new ArrayList<>();
        try {
            String kafka = brokers.contains("kafka") ? child("kafka", started, out) : null;
            String rocketmq = brokers.contains("rocketmq") ? child("rocketmq", started, out) : null;
            byte[] payload = new byte[payloadBytes];
            ThreadLocalRandom.current().nextBytes(payload);
            for (int rep = 0; rep < reps; rep++) {
                for (String broker : brokers) {
                    List<String> order = new ArrayList<>(modes);
                    if (rep % 2 == 1) {
                        java.util.Collections.reverse(order);
                    }
                    for (String mode : order) {
                        String destination = "rr-" + UUID.randomUUID().toString().substring(0, 8);
                        Rig rig = rig(broker, mode, kafka, rabbitUri, rocketmq, destination, responders, drop, timeout,
                                delivery);
                        try {
                            Result r = run(rig, payload, rate, seconds, warmup, timeout, probeSeconds);
                            out.println("rep " + (rep + 1) + " " + r);
                        } finally {
                            rig.close();
                        }
                        System.gc();
                    }
                }
            }
        } catch (Throwable e) { // a rig that could not start: its clients' threads must not keep the JVM alive
            e.printStackTrace();
            closeAll(started);
            System.exit(1);
        }
        closeAll(started);
    }

    private static void closeAll(List<AutoCloseable> started) throws Exception {
        for (int i = started.size() - 1; i >= 0; i--) {
            started.get(i).close();
        }
        started.clear();
    }

    private static String child(String broker, List<AutoCloseable> started, PrintStream out) {
        BrokerChild child = BrokerChild.start(broker);
        started.add(child);
        out.println(broker + ": a child JVM (pid " + child.pid() + ") at " + child.address());
        return child.address();
    }

    private static Rig rig(String broker, String mode, String kafka, String rabbitUri, String rocketmq, String destination,
            int responders, int drop, Duration timeout, Delivery delivery) throws Exception {
        Map<String, String> props = switch (broker) {
            case "kafka" -> Map.of("kafka.bootstrap.servers", kafka);
            case "rabbitmq" -> Map.of("rabbitmq.uri", rabbitUri);
            case "rocketmq" -> Map.of("rocketmq.namesrv-addr", rocketmq);
            default -> throw new IllegalArgumentException("bench.brokers: unknown broker '" + broker
                    + "'; use kafka, rabbitmq, rocketmq");
        };
        if (mode.equals("sdk")) {
            return new SdkRig(broker, props, destination, responders, drop, timeout, delivery);
        }
        if (!mode.equals("native")) {
            throw new IllegalArgumentException("bench.modes: unknown mode '" + mode + "'; use sdk, native");
        }
        return switch (broker) {
            case "kafka" -> new KafkaRig(kafka, destination, responders, drop, timeout);
            case "rabbitmq" -> new RabbitRig(rabbitUri, destination, responders, drop, timeout);
            default -> new RocketMqRig(rocketmq, destination, responders, drop, timeout);
        };
    }

    /** A request's outcome, counted once: the first call wins. */
    private abstract static class Once extends java.util.concurrent.atomic.AtomicBoolean implements Rig.Outcome {
        private static final long serialVersionUID = 1L;
    }

    record Result(String rig, long sent, long replied, long failed, Histogram latency, double seconds, int pendingAfter,
            HeapTrend heap) {
        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%-48s sent %d replied %d failed %d unanswered %d (%.0f/s)  p50 %.2f ms  p99 %.2f ms  "
                    + "p99.9 %.2f ms  max %.1f ms  pending after %s%s", rig, sent, replied, failed, sent - replied - failed, sent / seconds,
                    ms(latency, 50), ms(latency, 99), ms(latency, 99.9), latency.getMaxValue() / 1000d,
                    pendingAfter < 0 ? "n/a" : pendingAfter,
                    heap.probes() == 0 ? "" : String.format(Locale.ROOT, "  heap after GC %.1f -> %.1f MiB (%+.2f MiB/min, "
                            + "%d probes)", heap.startMiB(), heap.endMiB(), heap.slopeMiBPerMinute(), heap.probes()));
        }

        private static double ms(Histogram h, double percentile) {
            return h.getValueAtPercentile(percentile) / 1000d;
        }
    }

    static Result run(Rig rig, byte[] payload, int rate, int seconds, int warmup, Duration timeout, int probeSeconds)
            throws InterruptedException {
        Recorder recorder = new Recorder(3);
        AtomicLong replied = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicLong extra = new AtomicLong(); // a second outcome for one request: a client calling back twice
        java.util.concurrent.atomic.AtomicReference<Throwable> firstFailure = new java.util.concurrent.atomic.AtomicReference<>();
        long start = System.nanoTime();
        long measureFrom = start + Duration.ofSeconds(warmup).toNanos();
        long end = start + Duration.ofSeconds(seconds).toNanos();
        HeapProbe probe = new HeapProbe(Duration.ofSeconds(probeSeconds));
        probe.start(measureFrom, end);
        RateLimiter limiter = new RateLimiter(rate, start);
        long sent = 0;
        while (true) {
            long intended = limiter.awaitNext();
            if (intended >= end) {
                break;
            }
            boolean measured = intended >= measureFrom;
            rig.request(payload, new Once() {
                @Override
                public void replied() {
                    if (!compareAndSet(false, true)) {
                        extra.incrementAndGet();
                        return;
                    }
                    if (measured) {
                        recorder.recordValue(Math.max(1, (System.nanoTime() - intended) / 1000));
                    }
                    replied.incrementAndGet();
                }

                @Override
                public void failed(Throwable error) {
                    if (!compareAndSet(false, true)) {
                        extra.incrementAndGet();
                        return;
                    }
                    if (failed.incrementAndGet() == 1) {
                        firstFailure.set(error);
                    }
                }
            });
            sent++;
        }
        long deadline = System.nanoTime() + timeout.toNanos() + Duration.ofSeconds(10).toNanos();
        while (replied.get() + failed.get() < sent && System.nanoTime() < deadline) {
            LockSupport.parkNanos(10_000_000);
        }
        HeapTrend heap = probe.finish(Duration.ofSeconds(30));
        Throwable first = firstFailure.get();
        if (first != null) {
            System.out.println("  first failure of " + rig.name() + ": " + first);
        }
        if (extra.get() > 0) {
            System.out.println("  " + rig.name() + ": " + extra.get() + " second outcomes of a request, ignored (the first "
                    + "one counts)");
        }
        return new Result(rig.name(), sent, replied.get(), failed.get(), recorder.getIntervalHistogram(), seconds,
                rig.pending(), heap);
    }
}
