package io.switchboard.bench.jmh;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.bench.noop.NoopConsumers;
import io.switchboard.spi.AbstractInboundRecord;
import io.switchboard.spi.InboundRecord;
import io.switchboard.spi.RecordListener;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Core's consume path on the do-nothing adapter: records handed to the subscription's listener
 * (as an adapter's poll thread would), decoded, passed to an empty handler on core's lanes, and
 * acked; one op = one record, measured over batches of 1,000 until the last is acked, so the
 * hand-off to the lane threads and back is included. At least once, bytes codec, 512-byte payload,
 * 16 partitions; with and without meters.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g"})
public class ConsumePathBenchmark {

    private static final int BATCH = 1000;

    /** Handler lanes. */
    @Param({"1", "4"})
    public int concurrency;

    /**
     * {@code lanes}: every record handed to a core handler thread and its ack back (the only way
     * before 2026-11-23); {@code auto}: the handler runs on the delivering thread, as it now does on
     * adapters that agree (Kafka and RabbitMQ at concurrency 1, RocketMQ's consume threads).
     */
    @Param({"lanes", "auto"})
    public String dispatch;

    /** Meters on or off. */
    @Param({"false", "true"})
    public boolean metrics;

    private Switchboard sb;
    private Subscription subscription;
    private RecordListener listener;
    private final AtomicInteger acked = new AtomicInteger();
    private final InboundRecord[] records = new InboundRecord[BATCH];

    @Setup(Level.Trial)
    public void setUp() {
        Switchboard.Builder b = Switchboard.builder().broker("noop").property("switchboard.consume.dispatch", dispatch);
        if (metrics) {
            b.meterRegistry(new SimpleMeterRegistry());
        }
        sb = b.build();
        subscription = sb.subscriber("jmh-consume", Codec.bytes()).group("g").delivery(Delivery.AT_LEAST_ONCE)
                .concurrency(concurrency).maxInFlight(BATCH * 2).subscribe((m, c) -> { });
        subscription.ready().toCompletableFuture().join();
        listener = NoopConsumers.listener("jmh-consume", "g");
        byte[] payload = new byte[512];
        for (int i = 0; i < BATCH; i++) {
            Map<String, String> headers = new HashMap<>();
            headers.put("ce_id", "01a20128-26fb-7d46-a289-ea51382f" + String.format("%04d", i));
            headers.put("ce_time", "2026-11-22T10:00:00.123456Z");
            headers.put("ce_specversion", "1.0");
            headers.put("ce_source", "switchboard");
            headers.put("ce_type", "io.switchboard.message");
            headers.put("content-type", "application/octet-stream");
            headers.put("ce_subject", "customer-" + i % 64);
            records[i] = record(i % 16, i, "customer-" + i % 64, headers, payload);
        }
    }

    private InboundRecord record(int partition, long offset, String key, Map<String, String> headers, byte[] payload) {
        // the records are reused across invocations: ack and nack only count, without settling the record
        return new AbstractInboundRecord("jmh-consume", partition, offset, key, headers, payload, 1, null, -1,
                AbstractInboundRecord.PENDING) {
            @Override
            public void ack() {
                acked.incrementAndGet();
            }

            @Override
            public void nack() {
                acked.incrementAndGet();
            }
        };
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        sb.close();
    }

    /** 1,000 records in, until the last is acked; reported per record. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int recordToHandlerToAck() {
        acked.set(0);
        for (InboundRecord r : records) {
            listener.onRecord(r);
        }
        while (acked.get() < BATCH) {
            LockSupport.parkNanos(10_000); // lanes only: inline handling has acked every record by now
        }
        return acked.get();
    }
}
