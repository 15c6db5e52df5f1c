package io.switchboard.bench.jmh;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.bench.noop.NoopAdapterFactory;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.OutboundRecord;
import io.switchboard.spi.PublisherSpec;
import io.switchboard.spi.RawPublisher;
import io.switchboard.spi.SendResult;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of Switchboard's publish path layer by layer, on a do-nothing adapter ({@code noop})
 * and on the in-memory broker: the bare adapter call, plus core (codec and envelope), plus
 * metrics, plus metrics, circuit breaker and retry; each through {@code publish} (a receipt in a
 * future) and through {@code send} (no receipt). Run with {@code -prof gc} for bytes per op.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g"})
public class PublishPathBenchmark {

    /** Which adapter carries the messages. */
    @Param({"noop", "memory"})
    public String broker;

    /** The envelope published: {@code cloudevents} (the default) or {@code compact} ({@code switchboard.envelope}). */
    @Param({"cloudevents", "compact"})
    public String envelope;

    /**
     * When the noop adapter acknowledges: {@code now} (within the send: the layers end the publish at
     * once) or {@code later} (64 sends later, as a real client's callback: the layers' callback path).
     * The memory broker always acknowledges within the send.
     */
    @Param({"now", "later"})
    public String ack;

    private final byte[] payload = new byte[512];
    private Switchboard bare;
    private RawPublisher raw;
    private OutboundRecord record;
    private Switchboard plain;
    private Switchboard metered;
    private Switchboard resilient;
    private Publisher<byte[]> corePublisher;
    private Publisher<byte[]> meteredPublisher;
    private Publisher<byte[]> resilientPublisher;
    private Subscription[] drains;

    @Setup(Level.Trial)
    public void setUp() {
        Map<String, String> props = Map.of("memory.broker", "jmh", "switchboard.partitions", "1", "switchboard.envelope", envelope,
                NoopAdapterFactory.ACK, ack);
        bare = Switchboard.builder().broker(broker).properties(props).build();
        raw = bareAdapter(bare);
        Map<String, String> headers = new HashMap<>();
        headers.put("ce_id", "01a20128-26fb-7d46-a289-ea51382ff68b");
        record = new OutboundRecord("jmh-bare", null, headers, payload, 0);
        plain = Switchboard.builder().broker(broker).properties(props).build();
        metered = Switchboard.builder().broker(broker).properties(props).meterRegistry(new SimpleMeterRegistry()).build();
        Map<String, String> withResilience = new HashMap<>(props);
        withResilience.put("switchboard.resilience.circuit-breaker.enabled", "true");
        withResilience.put("switchboard.resilience.retry.max-attempts", "3");
        resilient = Switchboard.builder().broker(broker).properties(withResilience).meterRegistry(new SimpleMeterRegistry()).build();
        corePublisher = plain.publisher("jmh-core", Codec.bytes()).delivery(Delivery.AT_MOST_ONCE).build();
        meteredPublisher = metered.publisher("jmh-metered", Codec.bytes()).delivery(Delivery.AT_MOST_ONCE).build();
        resilientPublisher = resilient.publisher("jmh-resilient", Codec.bytes()).delivery(Delivery.AT_MOST_ONCE).build();
        if (broker.equals("memory")) {
            // the memory broker keeps messages until a group acknowledges them: drain every destination
            drains = new Subscription[4];
            String[] names = {"jmh-bare", "jmh-core", "jmh-metered", "jmh-resilient"};
            for (int i = 0; i < names.length; i++) {
                drains[i] = plain.subscriber(names[i], Codec.bytes()).group("drain").delivery(Delivery.AT_MOST_ONCE)
                        .maxInFlight(10_000).subscribe((m, c) -> { });
            }
        }
    }

    private static RawPublisher bareAdapter(Switchboard sb) {
        return io.switchboard.internal.AdapterLoader.find(sb.brokerId())
                .create(new BrokerConfig("bare", sb.brokerId(), sb.config().properties()))
                .createPublisher(new PublisherSpec("jmh-bare", Delivery.AT_MOST_ONCE, Map.of()));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        resilient.close();
        metered.close();
        plain.close();
        bare.close();
    }

    /** The adapter's own send, record prepared once. */
    @Benchmark
    public CompletionStage<SendResult> bareAdapterCall() {
        return raw.send(record);
    }

    /** Plus codec, envelope (id, time, trace), size check. */
    @Benchmark
    public Object core() {
        return corePublisher.publish(payload);
    }

    /** Plus Micrometer meters (timer with histogram, size summary). */
    @Benchmark
    public Object coreMetrics() {
        return meteredPublisher.publish(payload);
    }

    /** Plus circuit breaker and retry. */
    @Benchmark
    public Object coreMetricsCircuitBreakerRetry() {
        return resilientPublisher.publish(payload);
    }

    /** Core through {@code send}: no receipt, no future. */
    @Benchmark
    public void coreSend() {
        corePublisher.send(payload);
    }

    /** Core and meters through {@code send}. */
    @Benchmark
    public void coreMetricsSend() {
        meteredPublisher.send(payload);
    }

    /** Core and meters through {@code publish}, with a dependent on the future as an application attaches one. */
    @Benchmark
    public void coreMetricsWhenComplete(org.openjdk.jmh.infra.Blackhole bh) {
        meteredPublisher.publish(Message.of(payload)).whenComplete((receipt, error) -> bh.consume(receipt));
    }

    /** Core and meters through {@code publish(message, callback)}: the receipt without a future. */
    @Benchmark
    public void coreMetricsCallback(org.openjdk.jmh.infra.Blackhole bh) {
        meteredPublisher.publish(Message.of(payload), (receipt, error) -> bh.consume(receipt));
    }

    /** The full stack through {@code send}. */
    @Benchmark
    public void coreMetricsCircuitBreakerRetrySend() {
        resilientPublisher.send(payload);
    }
}
