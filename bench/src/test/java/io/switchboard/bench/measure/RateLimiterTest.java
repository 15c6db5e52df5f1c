package io.switchboard.bench.measure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class RateLimiterTest {

    @Test
    @DisplayName("intended send times are evenly spaced from the start")
    void evenlySpaced() {
        RateLimiter limiter = new RateLimiter(4_000, 1_000_000L, () -> 0L);
        assertThat(limiter.next()).isEqualTo(1_000_000L);
        assertThat(limiter.next()).isEqualTo(1_250_000L);
        assertThat(limiter.next()).isEqualTo(1_500_000L);
        assertThat(limiter.scheduled()).isEqualTo(3);
    }

    @Test
    @DisplayName("a sender that falls behind keeps the schedule: late sends keep their intended times (no coordinated omission)")
    void lateSenderKeepsSchedule() {
        AtomicLong clock = new AtomicLong();
        RateLimiter limiter = new RateLimiter(1_000, 0, clock::get);
        assertThat(limiter.awaitNext()).isZero();
        clock.set(50_000_000L); // the sender stalled for 50 ms
        long[] intended = new long[5];
        for (int i = 0; i < intended.length; i++) {
            intended[i] = limiter.awaitNext(); // all overdue: no waiting, and the schedule is not pushed back
        }
        assertThat(intended).containsExactly(1_000_000L, 2_000_000L, 3_000_000L, 4_000_000L, 5_000_000L);
    }

    @Test
    @DisplayName("fractional intervals do not drift")
    void noDrift() {
        RateLimiter limiter = new RateLimiter(3, 0, () -> Long.MAX_VALUE);
        long last = 0;
        for (int i = 0; i < 301; i++) {
            last = limiter.next();
        }
        assertThat(last).isEqualTo(100_000_000_000L);
    }

    @Test
    @DisplayName("a rate that is not positive is refused with the value")
    void badRate() {
        assertThatThrownBy(() -> new RateLimiter(0, 0)).hasMessageContaining("but was 0.0");
    }
}
