package io.switchboard.rocketmq.internal.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class LimitedExecutorTest {

    private final ExecutorService shared = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        shared.shutdownNow();
    }

    @Test
    @DisplayName("runs at most its limit at once on the shared pool")
    void limit() throws Exception {
        LimitedExecutor executor = new LimitedExecutor(shared, 2);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(20);
        Runnable request = () -> {
            most.accumulateAndGet(running.incrementAndGet(), Math::max);
            sleep(5);
            running.decrementAndGet();
            done.countDown();
        };
        for (int i = 0; i < 20; i++) {
            executor.submit(request);
        }
        assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(most.get()).isBetween(1, 2);
        executor.shutdown();
        assertThat(executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        assertThatThrownBy(() -> executor.execute(() -> { })).isInstanceOf(RejectedExecutionException.class);
    }

    @Test
    @DisplayName("with a limit of one, runs one request at a time in submission order")
    void serial() throws Exception {
        LimitedExecutor executor = new LimitedExecutor(shared, 1);
        List<Integer> order = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(50);
        for (int i = 0; i < 50; i++) {
            int n = i;
            executor.execute(() -> {
                order.add(n);
                done.countDown();
            });
        }
        assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(order).isSorted().hasSize(50);
    }

    @Test
    @DisplayName("shutdownNow interrupts its own running request only and drops the waiting ones")
    void shutdownNow() throws Exception {
        LimitedExecutor executor = new LimitedExecutor(shared, 1);
        LimitedExecutor other = new LimitedExecutor(shared, 1);
        CountDownLatch inside = new CountDownLatch(2);
        CountDownLatch interrupted = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger otherInterrupted = new AtomicInteger();
        executor.execute(() -> {
            inside.countDown();
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                interrupted.countDown();
            }
        });
        executor.execute(() -> { });
        other.execute(() -> {
            inside.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                otherInterrupted.incrementAndGet();
            }
        });
        assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(executor.shutdownNow()).hasSize(1);
        assertThat(interrupted.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        release.countDown();
        other.shutdown();
        assertThat(other.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        assertThat(otherInterrupted.get()).isZero();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
