package io.switchboard.it.scale;

import io.micrometer.core.instrument.MeterRegistry;
import io.switchboard.Codec;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.testkit.ThreadLeaks;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * One application with {@code n} destinations on one broker, as a user writes it: a loop creating, per destination,
 * a group subscription and a publisher; then it waits until every subscription is ready, publishes one message per
 * destination and waits until each arrived. Measures the threads it started (the broker's own excluded), the heap
 * after GC while it runs, and the times.
 */
final class DestinationCost {

    private static final long DEADLINE_SECONDS = 300;

    /** What one run measured: {@code callSeconds} is the time spent inside {@code subscribe()} and {@code build()}. */
    record Figures(int threads, long heapBytes, double readySeconds, double readyCpuSeconds, double callSeconds,
            double roundTripSeconds,
            Map<String, Long> threadNames) {}

    private DestinationCost() {
    }

    static Figures measure(String broker, Map<String, String> properties, String brokerThreads, String prefix, int n,
            boolean sharedGroup) throws Exception {
        return measure(broker, properties, brokerThreads, prefix, n, sharedGroup, null);
    }

    /**
     * As {@link #measure(String, Map, String, String, int, boolean)}, the Switchboard's meters recorded in
     * {@code registry} (none when null: metrics off).
     */
    static Figures measure(String broker, Map<String, String> properties, String brokerThreads, String prefix, int n,
            boolean sharedGroup, MeterRegistry registry) throws Exception {
        ThreadLeaks before = ThreadLeaks.snapshot().ignoring(brokerThreads);
        Switchboard.Builder builder = Switchboard.builder().broker(broker).properties(properties);
        if (registry != null) {
            builder.meterRegistry(registry);
        }
        try (Switchboard sb = builder.build()) {
            CountDownLatch received = new CountDownLatch(n);
            Set<String> seen = ConcurrentHashMap.newKeySet();
            List<CompletableFuture<Void>> ready = new ArrayList<>();
            List<Publisher<String>> publishers = new ArrayList<>();
            long start = System.nanoTime();
            double cpuAtStart = cpuSeconds();
            long inCalls = 0;
            for (int i = 0; i < n; i++) {
                String destination = prefix + "_" + i;
                long call = System.nanoTime();
                Subscription subscription = sb.subscriber(destination, Codec.utf8())
                        .group(sharedGroup ? "app" : "app_" + i)
                        .subscribe((m, c) -> {
                            if (seen.add(m.payload())) {
                                received.countDown();
                            }
                        });
                ready.add(subscription.ready().toCompletableFuture());
                publishers.add(sb.publisher(destination, Codec.utf8()).build());
                inCalls += System.nanoTime() - call;
            }
            CompletableFuture.allOf(ready.toArray(CompletableFuture[]::new)).get(DEADLINE_SECONDS, TimeUnit.SECONDS);
            double readySeconds = (System.nanoTime() - start) / 1e9;
            double readyCpuSeconds = cpuSeconds() - cpuAtStart;
            long sent = System.nanoTime();
            List<CompletableFuture<?>> receipts = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                receipts.add(publishers.get(i).publish("m" + i).toCompletableFuture());
            }
            CompletableFuture.allOf(receipts.toArray(CompletableFuture[]::new)).get(DEADLINE_SECONDS, TimeUnit.SECONDS);
            if (!received.await(DEADLINE_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException(broker + ": " + (n - received.getCount()) + " of " + n + " messages arrived");
            }
            double roundTripSeconds = (System.nanoTime() - sent) / 1e9;
            List<Thread> started = before.started();
            Map<String, Long> names = started.stream().collect(Collectors.groupingBy(
                    t -> t.getName().replace(prefix, "<dest>").replaceAll("\\d+", "#"), TreeMap::new, Collectors.counting()));
            return new Figures(started.size(), heapAfterGc(), readySeconds, readyCpuSeconds, inCalls / 1e9, roundTripSeconds,
                    names);
        }
    }

    /** {@return the CPU this JVM (the client: the broker runs elsewhere or is left out) has used so far, in seconds} */
    static double cpuSeconds() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime()
                / 1e9;
    }

    private static long heapAfterGc() throws InterruptedException {
        return NativeKafkaHeap.heapAfterGc();
    }
}
