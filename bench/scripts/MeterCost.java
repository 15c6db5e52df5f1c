import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.distribution.TimeWindowMax;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one per-message meter record and one clock read cost on this machine, one thread, no contention: the pieces the
 * SDK adds per message over a plain client (a publish timer and a size summary on the acknowledgement, an end-to-end
 * and a handler timer on consumption, and the clock reads around them). Each Micrometer timer or summary record reads
 * the wall clock once more inside its {@code TimeWindowMax} (the max's rotation check).
 *
 * <pre>
 * M=~/.m2/repository/io/micrometer
 * java -cp $M/micrometer-core/1.17.1/micrometer-core-1.17.1.jar:$M/micrometer-commons/1.17.1/micrometer-commons-1.17.1.jar:$M/micrometer-observation/1.17.1/micrometer-observation-1.17.1.jar:$HOME/.m2/repository/org/hdrhistogram/HdrHistogram/2.2.2/HdrHistogram-2.2.2.jar \
 *     bench/scripts/MeterCost.java
 * </pre>
 */
public class MeterCost {
    static volatile long sink;

    public static void main(String[] args) {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Timer timer = Timer.builder("timer").register(registry);
        DistributionSummary summary = DistributionSummary.builder("summary").register(registry);
        TimeWindowMax max = new TimeWindowMax(Clock.SYSTEM, DistributionStatisticConfig.DEFAULT);
        LongAdder adder = new LongAdder();
        int n = Integer.getInteger("n", 20_000_000);
        for (int round = 0; round < Integer.getInteger("rounds", 4); round++) {
            long x = 0;
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                timer.record(1000 + (i & 1023), TimeUnit.NANOSECONDS);
            }
            long t1 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                summary.record(128);
            }
            long t2 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                max.record(1000 + (i & 1023), TimeUnit.NANOSECONDS);
            }
            long t3 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                adder.add(i);
            }
            long t4 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                x += System.currentTimeMillis();
            }
            long t5 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                x += System.nanoTime();
            }
            long t6 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                x += Instant.now().getNano();
            }
            long t7 = System.nanoTime();
            sink = x;
            System.out.printf("round %d: Timer.record %.1f ns, DistributionSummary.record %.1f, TimeWindowMax.record %.1f, "
                    + "LongAdder.add %.1f, currentTimeMillis %.1f, nanoTime %.1f, Instant.now %.1f%n", round,
                    per(t0, t1, n), per(t1, t2, n), per(t2, t3, n), per(t3, t4, n), per(t4, t5, n), per(t5, t6, n),
                    per(t6, t7, n));
        }
    }

    private static double per(long from, long to, int n) {
        return (to - from) / (double) n;
    }
}
