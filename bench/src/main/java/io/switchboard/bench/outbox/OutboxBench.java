package io.switchboard.bench.outbox;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.switchboard.Codec;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.outbox.Outbox;
import io.switchboard.outbox.OutboxPublisher;
import io.switchboard.testkit.fault.PooledDataSource;
import io.switchboard.testkit.kafka.EmbeddedKafka;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Recorder;
import org.HdrHistogram.Histogram;

/**
 * The transactional outbox's figures on the local PostgreSQL (127.0.0.1:5432, database test, user postgres) and the
 * in-process Kafka (testkit's EmbeddedKafka, one node):
 *
 * <ol>
 *   <li><b>relay throughput</b>: {@code -Dbench.rows} (100,000) rows of 1 KiB committed while the relay is stopped,
 *       then the relay started: rows acknowledged by Kafka and deleted per second, until the table is empty;</li>
 *   <li><b>added end-to-end latency</b>: {@code -Dbench.rate} (500) orders a second for {@code -Dbench.seconds} (30),
 *       each in a transaction of its own through the outbox (woken by LISTEN/NOTIFY; {@code -Dbench.latency-relay-threads}
 *       relays, 1), then the same through a plain
 *       {@code publish}; from the publish call to the consumer's handler, p50/p99/p99.9 of each.</li>
 * </ol>
 *
 * <p>Run: {@code mvn -B -q package -pl bench -am -DskipTests && java -cp bench/target/switchboard-bench.jar
 * io.switchboard.bench.outbox.OutboxBench}. Prints one line per figure.
 */
public final class OutboxBench {

    private static final int PAYLOAD = 1024;

    private OutboxBench() {}

    public static void main(String[] args) throws Exception {
        int rows = Integer.getInteger("bench.rows", 100_000);
        int rate = Integer.getInteger("bench.rate", 500);
        int seconds = Integer.getInteger("bench.seconds", 30);
        int batch = Integer.getInteger("bench.batch", 500);
        int threads = Integer.getInteger("bench.relay-threads", 1);
        int latencyThreads = Integer.getInteger("bench.latency-relay-threads", 1);
        String url = System.getProperty("bench.jdbc-url", "jdbc:postgresql://127.0.0.1:5432/test");
        String run = "bench_" + UUID.randomUUID().toString().substring(0, 8);
        String table = run + "_outbox";
        try (EmbeddedKafka kafka = EmbeddedKafka.start(); PooledDataSource db = new PooledDataSource(url, "postgres")) {
            Map<String, String> props = Map.of("kafka.bootstrap.servers", kafka.bootstrapServers());
            try {
                if (rows > 0) {
                    throughput(db, props, table, run + "_tput", rows, batch, threads);
                }
                if (seconds > 0) {
                    latency(db, props, table, run + "_lat", rate, seconds, latencyThreads);
                }
            } finally {
                try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
                    s.execute("DROP TABLE IF EXISTS " + table);
                    s.execute("DROP TABLE IF EXISTS " + table + "_lock");
                    s.execute("DROP TABLE IF EXISTS " + table + "_parked");
                    s.execute("DROP FUNCTION IF EXISTS " + table + "_notify()");
                }
            }
        }
    }

    private static void throughput(PooledDataSource db, Map<String, String> props, String table, String destination, int rows,
            int batch, int threads) throws Exception {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        try (Switchboard sb = Switchboard.builder().broker("kafka").properties(props).build();
                Outbox outbox = Outbox.builder(sb, db).table(table).batchSize(batch).relayThreads(threads).meterRegistry(meters).autoStart(false).build()) {
            // the topic made (and the client warm) before the clock starts
            sb.publisher(destination, Codec.bytes()).build().publish(Message.of(new byte[1])).toCompletableFuture()
                    .get(60, TimeUnit.SECONDS);
            OutboxPublisher<byte[]> writer = outbox.publisher(destination, Codec.bytes());
            byte[] payload = new byte[PAYLOAD];
            for (int from = 0; from < rows; from += 1000) {
                try (Connection c = db.getConnection()) {
                    c.setAutoCommit(false);
                    List<Message<byte[]>> messages = new ArrayList<>(1000);
                    for (int n = from; n < Math.min(rows, from + 1000); n++) {
                        messages.add(Message.of("k" + n % 1000, payload));
                    }
                    writer.publishAll(c, messages);
                    c.commit();
                }
            }
            long start = System.nanoTime();
            outbox.start();
            long deadline = start + TimeUnit.MINUTES.toNanos(10);
            while (relayed(meters) < rows) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the relay sent " + relayed(meters) + " of " + rows + " rows in 10 minutes");
                }
                Thread.sleep(5);
            }
            double secs = (System.nanoTime() - start) / 1e9;
            System.out.printf("outbox-bench figure=relay-throughput db=postgresql broker=kafka payload=%d rows=%d batch=%d"
                    + " relay_threads=%d seconds=%.2f msg_per_s=%.0f%n", PAYLOAD, rows, batch, threads, secs, rows / secs);
        }
    }

    private static double relayed(SimpleMeterRegistry meters) {
        return meters.find("switchboard.outbox.relayed").counters().stream().mapToDouble(c -> c.count()).sum();
    }

    private static void latency(PooledDataSource db, Map<String, String> props, String table, String destination, int rate,
            int seconds, int threads) throws Exception {
        try (Switchboard sb = Switchboard.builder().broker("kafka").properties(props).build();
                Outbox outbox = Outbox.builder(sb, db).table(table).relayThreads(threads).build()) {
            Recorder outboxLatency = new Recorder(3);
            Recorder plainLatency = new Recorder(3);
            AtomicLong received = new AtomicLong();
            Recorder[] current = {outboxLatency};
            Subscription s = sb.subscriber(destination, Codec.bytes()).group("bench").subscribe((m, ctx) -> {
                long micros = micros(Instant.now()) - micros(m.timestamp());
                current[0].recordValue(Math.max(0, micros));
                received.incrementAndGet();
            });
            s.ready().toCompletableFuture().get(60, TimeUnit.SECONDS);
            OutboxPublisher<byte[]> writer = outbox.publisher(destination, Codec.bytes());
            Publisher<byte[]> plain = sb.publisher(destination, Codec.bytes()).build();
            byte[] payload = new byte[PAYLOAD];
            // warm-up: 5 s each way, not recorded
            paced(rate, 5, n -> outboxWrite(db, writer, n, payload));
            paced(rate, 5, n -> plain.publish(Message.of("k" + n % 1000, payload)).toCompletableFuture().get(30, TimeUnit.SECONDS));
            awaitReceived(received, rate * 10L);
            outboxLatency.getIntervalHistogram();
            plainLatency.getIntervalHistogram();
            long before = received.get();
            paced(rate, seconds, n -> outboxWrite(db, writer, n, payload));
            awaitReceived(received, before + (long) rate * seconds);
            Histogram viaOutbox = outboxLatency.getIntervalHistogram();
            current[0] = plainLatency;
            before = received.get();
            paced(rate, seconds, n -> plain.send(Message.of("k" + n % 1000, payload)));
            awaitReceived(received, before + (long) rate * seconds);
            Histogram viaPlain = plainLatency.getIntervalHistogram();
            print("outbox", rate, viaOutbox);
            print("plain-publish", rate, viaPlain);
            System.out.printf("outbox-bench figure=added-latency rate=%d relay_threads=%d added_p50_ms=%.2f added_p99_ms=%.2f%n",
                    rate, threads,
                    (viaOutbox.getValueAtPercentile(50) - viaPlain.getValueAtPercentile(50)) / 1000.0,
                    (viaOutbox.getValueAtPercentile(99) - viaPlain.getValueAtPercentile(99)) / 1000.0);
        }
    }

    private static void print(String path, int rate, Histogram h) {
        System.out.printf("outbox-bench figure=e2e-latency path=%s db=postgresql broker=kafka payload=%d rate=%d count=%d"
                + " p50_ms=%.2f p99_ms=%.2f p999_ms=%.2f max_ms=%.2f%n", path, PAYLOAD, rate, h.getTotalCount(),
                h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(99) / 1000.0, h.getValueAtPercentile(99.9) / 1000.0,
                h.getMaxValue() / 1000.0);
    }

    private static void outboxWrite(PooledDataSource db, OutboxPublisher<byte[]> writer, long n, byte[] payload) throws Exception {
        try (Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            writer.publish(c, Message.of("k" + n % 1000, payload));
            c.commit();
        }
    }

    private interface Step {
        void run(long n) throws Exception;
    }

    /** Runs {@code step} {@code rate} times a second for {@code seconds}, on schedule (no coordinated omission). */
    private static void paced(int rate, int seconds, Step step) throws Exception {
        long interval = TimeUnit.SECONDS.toNanos(1) / rate;
        long start = System.nanoTime();
        long total = (long) rate * seconds;
        for (long n = 0; n < total; n++) {
            long due = start + n * interval;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            step.run(n);
        }
    }

    private static void awaitReceived(AtomicLong received, long count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (received.get() < count) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("received " + received.get() + " of " + count + " messages in 120 s");
            }
            Thread.sleep(10);
        }
    }

    private static long micros(Instant t) {
        return t.getEpochSecond() * 1_000_000L + t.getNano() / 1000;
    }
}
