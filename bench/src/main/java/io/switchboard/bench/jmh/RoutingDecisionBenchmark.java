package io.switchboard.bench.jmh;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Switchboard;
import io.switchboard.routing.Route;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What routing adds to a publish: the same keyed messages (built once) published through a
 * one-instance Switchboard and through a two-instance Switchboard with a 50/50 split, both on the
 * do-nothing adapter, with and without meters (the routed one then also counts its decision).
 * The routing decision's cost is {@code splitNoComparison} minus {@code single}; {@code split} adds
 * the comparison's per-message recording (on by default); {@code splitPerMessage} minus {@code splitNoComparison}
 * is what drawing each message's instance costs over keeping a key on one;
 * run with {@code -prof gc} for the bytes.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g"})
public class RoutingDecisionBenchmark {

    private static final int KEYS = 1024;

    @SuppressWarnings("unchecked")
    private final Message<byte[]>[] messages = new Message[KEYS];
    private int next;
    private Switchboard single;
    private Switchboard singleMetered;
    private Switchboard routed;
    private Switchboard routedMetered;
    private Switchboard routedNoComparison;
    private Publisher<byte[]> splitNoComparisonPublisher;
    private Publisher<byte[]> singlePublisher;
    private Publisher<byte[]> singleMeteredPublisher;
    private Publisher<byte[]> splitPublisher;
    private Switchboard routedPerMessage;
    private Publisher<byte[]> splitPerMessagePublisher;
    private Publisher<byte[]> splitMeteredPublisher;

    @Setup(Level.Trial)
    public void setUp() {
        byte[] payload = new byte[512];
        for (int i = 0; i < KEYS; i++) {
            messages[i] = Message.of("customer-" + i, payload);
        }
        single = Switchboard.builder().broker("noop").build();
        singleMetered = Switchboard.builder().broker("noop").meterRegistry(new SimpleMeterRegistry()).build();
        routed = twoInstances(null, true);
        routedMetered = twoInstances(new SimpleMeterRegistry(), true);
        routedNoComparison = twoInstances(null, false);
        routedPerMessage = Switchboard.builder().instance("a", "noop", Map.of()).instance("b", "noop", Map.of())
                .property("switchboard.comparison.enabled", "false")
                .route("jmh-route", Route.split(Map.of("a", 50, "b", 50)).perMessage()).build();
        splitPerMessagePublisher = routedPerMessage.publisher("jmh-route", Codec.bytes()).delivery(Delivery.AT_MOST_ONCE).build();
        splitNoComparisonPublisher = routedNoComparison.publisher("jmh-route", Codec.bytes()).delivery(Delivery.AT_MOST_ONCE).build();
        singlePublisher = single.publisher("jmh-route", Codec.bytes()).delivery(Delivery.AT_MOST_ONCE).build();
        singleMeteredPublisher = singleMetered.publisher("jmh-route", Codec.bytes()).delivery(Delivery.AT_MOST_ONCE).build();
        splitPublisher = routed.publisher("jmh-route", Codec.bytes()).delivery(Delivery.AT_MOST_ONCE).build();
        splitMeteredPublisher = routedMetered.publisher("jmh-route", Codec.bytes()).delivery(Delivery.AT_MOST_ONCE).build();
    }

    private static Switchboard twoInstances(SimpleMeterRegistry registry, boolean comparison) {
        Switchboard.Builder b = Switchboard.builder().instance("a", "noop", Map.of()).instance("b", "noop", Map.of())
                .property("switchboard.comparison.enabled", Boolean.toString(comparison))
                .route("jmh-route", Route.split(Map.of("a", 50, "b", 50)));
        if (registry != null) {
            b.meterRegistry(registry);
        }
        return b.build();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        single.close();
        singleMetered.close();
        routed.close();
        routedMetered.close();
        routedNoComparison.close();
        routedPerMessage.close();
    }

    private Message<byte[]> nextMessage() {
        next = (next + 1) & (KEYS - 1);
        return messages[next];
    }

    /** One instance, no routing layer. */
    @Benchmark
    public Object single() {
        return singlePublisher.publish(nextMessage());
    }

    /** Two instances, split 50/50 by key, comparison windows recording (the default). */
    @Benchmark
    public Object split() {
        return splitPublisher.publish(nextMessage());
    }

    /** Two instances, split 50/50 by key, comparison off: the routing decision alone. */
    @Benchmark
    public Object splitNoComparison() {
        return splitNoComparisonPublisher.publish(nextMessage());
    }

    /** Two instances, split 50/50 per message (each message's instance drawn by weight), comparison off. */
    @Benchmark
    public Object splitPerMessage() {
        return splitPerMessagePublisher.publish(nextMessage());
    }

    /** One instance, with meters. */
    @Benchmark
    public Object singleMetered() {
        return singleMeteredPublisher.publish(nextMessage());
    }

    /** Two instances, split 50/50, with meters (the routing-decision counter and the comparison windows included). */
    @Benchmark
    public Object splitMetered() {
        return splitMeteredPublisher.publish(nextMessage());
    }
}
