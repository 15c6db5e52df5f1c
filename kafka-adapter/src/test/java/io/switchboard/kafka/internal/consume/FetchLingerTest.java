package io.switchboard.kafka.internal.consume;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Pure logic: when a group consumer's next poll waits for records to gather on the broker, and for how long. */
@DisplayName("FetchLinger: only a busy poll makes the next one wait, and a wakeup ends the wait")
class FetchLingerTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    @Test
    @DisplayName("after a busy poll the next waits out the rest of the linger, counted from when that one returned")
    void busyPollLingers() {
        FetchLinger linger = new FetchLinger(Duration.ofMillis(2), 16, 500);
        linger.polled(40, 1_000 * MS);
        assertThat(linger.remaining(1_000 * MS)).isEqualTo(2 * MS);
        assertThat(linger.remaining(1_000 * MS + MS / 2)).isEqualTo(3 * MS / 2);
        assertThat(linger.remaining(1_003 * MS)).as("the application's handling took longer than the linger").isZero();
    }

    @Test
    @DisplayName("a poll of fewer records than busy, or of max.poll.records (more are buffered), is followed at once")
    void quietOrFullPollDoesNotLinger() {
        FetchLinger linger = new FetchLinger(Duration.ofMillis(2), 16, 500);
        linger.polled(15, 0);
        assertThat(linger.remaining(0)).isZero();
        linger.polled(16, 0);
        assertThat(linger.remaining(0)).isEqualTo(2 * MS);
        linger.polled(500, 0);
        assertThat(linger.remaining(0)).isZero();
        linger.polled(1, 0);
        assertThat(linger.remaining(0)).as("a quiet poll after a busy one").isZero();
    }

    @Test
    @DisplayName("a zero linger never waits")
    void zeroIsOff() {
        FetchLinger linger = new FetchLinger(Duration.ZERO, 1, 500);
        linger.polled(100, 0);
        assertThat(linger.remaining(0)).isZero();
    }

    @Test
    @DisplayName("the wait is taken once: after await the next poll does not wait again until another busy poll")
    void awaitConsumesTheLinger() {
        FetchLinger linger = new FetchLinger(Duration.ofMillis(1), 16, 500);
        linger.polled(100, System.nanoTime());
        linger.await();
        assertThat(linger.remaining(System.nanoTime() - 10 * MS)).isZero();
    }

    @Test
    @Timeout(20)
    @DisplayName("an unpark of the poll thread (attach, detach, nack, close) ends a long linger at once")
    void wakeupEndsTheWait() throws InterruptedException {
        FetchLinger linger = new FetchLinger(Duration.ofMinutes(10), 16, 500);
        CountDownLatch lingering = new CountDownLatch(1);
        Thread poller = new Thread(() -> {
            linger.polled(100, System.nanoTime());
            lingering.countDown();
            linger.await();
        }, "fetch-linger-test");
        poller.start();
        assertThat(lingering.await(10, TimeUnit.SECONDS)).as("the poller started").isTrue();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (poller.isAlive() && System.nanoTime() < deadline) {
            LockSupport.unpark(poller); // repeated: the first may come before it parks, which a park then absorbs
            poller.join(50);
        }
        assertThat(poller.isAlive()).as("the poller still lingered 10 s after being woken").isFalse();
    }
}
