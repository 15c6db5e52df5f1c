package io.switchboard.bench.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class JitActivityTest {

    @Test
    @DisplayName("the JIT's time is counted, and the wait for an idle compiler ends by its deadline")
    void countsAndWaitsNoLongerThanAsked() throws Exception {
        long before = JitActivity.millis();
        assertThat(before).as("HotSpot counts compile time").isNotNegative();
        long start = System.nanoTime();
        Duration waited = JitActivity.awaitIdle(Duration.ofMillis(300));
        long took = System.nanoTime() - start;
        assertThat(waited).isLessThanOrEqualTo(Duration.ofMillis(took / 1_000_000 + 1));
        assertThat(Duration.ofNanos(took)).as("a 300 ms deadline").isLessThan(Duration.ofSeconds(2));
        assertThat(JitActivity.millis()).isGreaterThanOrEqualTo(before);
    }
}
