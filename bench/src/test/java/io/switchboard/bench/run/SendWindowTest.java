package io.switchboard.bench.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class SendWindowTest {

    @Test
    @DisplayName("a sender waiting on a full window of 8 is woken when a quarter of it (2) is free, not at the first")
    void resumesAtAQuarterFree() throws Exception {
        SendWindow window = new SendWindow(8);
        for (int i = 0; i < 8; i++) {
            assertThat(window.acquire(0)).as("place %d of 8", i + 1).isTrue();
        }
        assertThat(window.acquire(20)).as("a full window: the sender waits, and gives up at its deadline").isFalse();
        CompletableFuture<Boolean> waiting = new CompletableFuture<>();
        Thread sender = new Thread(() -> {
            try {
                waiting.complete(window.acquire(TimeUnit.SECONDS.toMillis(20)));
            } catch (Throwable e) {
                waiting.completeExceptionally(e);
            }
        }, "send-window-test-sender");
        sender.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (sender.getState() != Thread.State.TIMED_WAITING) { // parked in acquire
            assertThat(System.nanoTime()).as("the sender thread parks on the full window within 10 s").isLessThan(deadline);
            Thread.onSpinWait();
        }
        window.release();
        assertThatThrownBy(() -> waiting.get(300, TimeUnit.MILLISECONDS))
                .as("one place free of 8: the waiting sender is not woken yet").isInstanceOf(TimeoutException.class);
        window.release(); // the second free place: the waiting sender is woken
        assertThat(waiting.get(20, TimeUnit.SECONDS)).as("the sender waiting when a quarter became free").isTrue();
        assertThat(window.acquire(0)).as("the other free place").isTrue();
        assertThat(window.acquire(0)).as("the window is full again").isFalse();
    }

    @Test
    @DisplayName("a window of one (a synchronous producer) waits for the one acknowledgement")
    void windowOfOne() throws Exception {
        SendWindow window = new SendWindow(1);
        assertThat(window.acquire(0)).isTrue();
        assertThat(window.acquire(0)).isFalse();
        window.release();
        assertThat(window.acquire(0)).isTrue();
    }

    @Test
    @DisplayName("a window of no sends is refused with the value")
    void refusesEmpty() {
        assertThatThrownBy(() -> new SendWindow(0)).hasMessageContaining("window of 0 sends");
    }
}
