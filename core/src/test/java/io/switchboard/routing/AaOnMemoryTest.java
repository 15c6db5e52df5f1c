package io.switchboard.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.Codec;
import io.switchboard.Publisher;
import io.switchboard.Switchboard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A/A on two identical memory instances: traffic split 50/50 at about 4,000 msg/s, judged over {@value #RUNS}
 * consecutive five-second windows (each about 10,000 samples per instance, so p50 and p99 are judged): at least 95% of
 * the windows must give no finding.
 */
@DisplayName("A/A on two identical memory instances: no finding")
@Timeout(300)
class AaOnMemoryTest {

    private static final int RUNS = 20;
    private Switchboard sb;

    @AfterEach
    void close() {
        if (sb != null) {
            sb.close();
        }
    }

    @Test
    @DisplayName("at least 95% of five-second windows give no finding")
    void noFinding() throws Exception {
        String run = UUID.randomUUID().toString().substring(0, 8);
        sb = Switchboard.builder()
                .instance("a", "memory", Map.of("memory.broker", "aa-" + run))
                .instance("b", "memory", Map.of("memory.broker", "aa-" + run))
                .route("orders", Route.split(Map.of("a", 50, "b", 50)))
                .property("switchboard.comparison.warm-up", "0s")
                .build();
        sb.subscriber("orders", Codec.bytes()).group("g").subscribe((m, c) -> { }).ready().toCompletableFuture()
                .get(30, java.util.concurrent.TimeUnit.SECONDS);
        Publisher<byte[]> p = sb.publisher("orders", Codec.bytes()).build();
        AtomicBoolean stop = new AtomicBoolean();
        Thread load = new Thread(() -> {
            long next = System.nanoTime();
            int k = 0;
            while (!stop.get()) {
                for (int i = 0; i < 40; i++) {
                    p.publish(("k" + (k++ % 1000)).getBytes());
                }
                next += 10_000_000L; // 40 every 10 ms: 4,000 a second
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    java.util.concurrent.locks.LockSupport.parkNanos(wait);
                }
            }
        }, "aa-load");
        load.start();
        List<String> withFindings = new ArrayList<>();
        int judged = 0;
        try {
            Thread.sleep(3_000); // past the JIT of the first seconds
            for (int r = 0; r < RUNS; r++) {
                Thread.sleep(5_000);
                ComparisonReport report = sb.comparison().report("orders", Duration.ofSeconds(5));
                judged += report.verdict().summary().startsWith("not enough") ? 0 : 1;
                if (report.verdict().significant()) {
                    withFindings.add(report.toTable());
                }
            }
        } finally {
            stop.set(true);
            load.join(10_000);
        }
        System.out.printf("A/A on memory: %d of %d five-second windows with a finding (%d judged)%n", withFindings.size(), RUNS,
                judged);
        withFindings.forEach(System.out::print);
        assertThat(judged).as("windows with enough samples to judge").isGreaterThanOrEqualTo(RUNS * 3 / 4);
        assertThat(withFindings.size()).as("windows with a finding, of %d", RUNS).isLessThanOrEqualTo(RUNS / 20);
    }
}
