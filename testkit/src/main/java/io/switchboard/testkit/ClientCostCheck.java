package io.switchboard.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Codec;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Switchboard;
import io.switchboard.routing.ComparisonReport;
import io.switchboard.routing.Route;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * The comparison's client cost per message on a real broker (issue 36): instance {@code x} of the broker under test
 * carries a keyed stream that it also consumes, beside an idle in-memory instance {@code m}. The report must give
 * {@code x} a client CPU per message that covers at least the CPU of the client threads the test itself finds by name
 * (among those started after the check began, so the adapter's {@code clientThreads()} named them), bytes on the wire above the payload and key, and {@code m},
 * which carried nothing, no figure.
 */
public final class ClientCostCheck {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private ClientCostCheck() {}

    /**
     * Runs the check and returns the report.
     *
     * @param broker the adapter id
     * @param properties the instance's properties
     * @param destination a fresh destination
     * @param messages how many to publish and consume
     * @param networkThreads names of the client library's threads of instance {@code x} that must count (the test's
     *     own reading, independent of the adapter's)
     * @return the comparison report after the run
     * @throws Exception when the run fails
     */
    public static ComparisonReport run(String broker, Map<String, String> properties, String destination, int messages,
            Pattern networkThreads) throws Exception {
        java.util.Set<Long> older = new java.util.HashSet<>();
        for (long id : THREADS.getAllThreadIds()) {
            older.add(id); // other tests' clients in this JVM are not x's
        }
        // a window far longer than the check: on a loaded machine its traffic must not slide out of the report
        // and no warm-up: the check sums every message of a short run, from the first second
        try (Switchboard sb = Switchboard.builder().property("switchboard.comparison.window", "600s")
                .property("switchboard.comparison.warm-up", "0s")
                .instance("x", broker, properties)
                .instance("m", "memory", Map.of("memory.broker", "cost-" + destination))
                .route(destination, Route.single("x")).build()) {
            AtomicLong handled = new AtomicLong();
            sb.subscriber(destination, Codec.bytes()).group("cost").subscribe((m, c) -> handled.incrementAndGet())
                    .ready().toCompletableFuture().get(60, java.util.concurrent.TimeUnit.SECONDS);
            Publisher<byte[]> pub = sb.publisher(destination, Codec.bytes()).build();
            long threadsBefore = cpuOf(networkThreads, older);
            CompletableFuture<?>[] sent = new CompletableFuture<?>[messages];
            for (int i = 0; i < messages; i++) {
                sent[i] = pub.publish(Message.builder(new byte[1024]).key("key-" + (i % 100)).build()).toCompletableFuture();
            }
            CompletableFuture.allOf(sent).get(120, java.util.concurrent.TimeUnit.SECONDS);
            await("all " + messages + " consumed").atMost(Duration.ofSeconds(120)).until(() -> handled.get() >= messages);
            await("the seconds of the last messages closed").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        ComparisonReport.InstanceFigures f = sb.comparison().report().instances().get(0);
                        return f.published() >= messages && f.consumed() >= messages;
                    });
            long threadNanos = cpuOf(networkThreads, older) - threadsBefore;
            long readAt = java.time.Instant.now().getEpochSecond();
            // a report whose last closed second is after the test's own reading: its thread scan ran after it too
            await("a second closed after the threads were read").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                    .until(() -> sb.comparison().report().at().getEpochSecond() >= readAt + 2);
            ComparisonReport report = sb.comparison().report();
            ComparisonReport.Cost x = report.instances().get(0).cost();
            ComparisonReport.Cost m = report.instances().get(1).cost();
            double threadMicrosPerMessage = threadNanos / 1000.0 / x.messages();
            System.out.printf("%s client cost: %.2f us CPU per message (%d messages), %.0f bytes on the wire per message;"
                    + " of which the client library's network threads (%s) %.2f us%n", broker, x.cpuMicrosPerMessage(),
                    x.messages(), x.wireBytesPerMessage(), networkThreads, threadMicrosPerMessage);
            System.out.print(report.toTable());
            System.out.println("busiest threads (CPU ms): " + busiest(12));
            assertThat(x.messages()).as("published and consumed on x").isGreaterThanOrEqualTo(2L * messages);
            assertThat(threadNanos).as("CPU of the threads named %s", networkThreads).isPositive();
            assertThat(x.cpuMicrosPerMessage()).as("x's client CPU per message covers its network threads' %.2f us",
                    threadMicrosPerMessage).isGreaterThanOrEqualTo(threadMicrosPerMessage * 0.9);
            assertThat(x.wireBytesPerMessage()).as("bytes on the wire: 1024 of payload, a key and the envelope")
                    .isGreaterThan(1024 + 5);
            assertThat(m.cpuMicrosPerMessage()).as("the idle memory instance").isNaN();
            return report;
        }
    }

    /** The {@code n} live threads with the most CPU time, with it in ms. */
    private static String busiest(int n) {
        java.util.List<String> out = new java.util.ArrayList<>();
        java.util.Arrays.stream(THREADS.getThreadInfo(THREADS.getAllThreadIds(), 0)).filter(java.util.Objects::nonNull)
                .sorted(java.util.Comparator.comparingLong((ThreadInfo t) -> THREADS.getThreadCpuTime(t.getThreadId())).reversed())
                .limit(n).forEach(t -> out.add(t.getThreadName() + "=" + THREADS.getThreadCpuTime(t.getThreadId()) / 1_000_000));
        return String.join(", ", out);
    }

    /** CPU time of the live threads whose whole name matches {@code names}, except the {@code older} ones. */
    private static long cpuOf(Pattern names, java.util.Set<Long> older) {
        long sum = 0;
        for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds(), 0)) {
            if (info != null && !older.contains(info.getThreadId()) && names.matcher(info.getThreadName()).matches()) {
                long cpu = THREADS.getThreadCpuTime(info.getThreadId());
                sum += Math.max(0, cpu);
            }
        }
        return sum;
    }
}
