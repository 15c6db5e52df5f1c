package io.switchboard.testkit.fault;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.switchboard.Codec;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("ExitCheck: a JVM that must exit once main returned")
@Tag("threads")
class ExitCheckTest {

    @TempDir
    Path directory;

    /** Leaves a non-daemon thread running: its JVM never exits on its own. */
    public static final class LeavesAThread {
        public static void main(String[] args) {
            Thread left = new Thread(() -> {
                try {
                    Thread.sleep(java.time.Duration.ofMinutes(10).toMillis()); // far past the check, bounded all the same
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "left-running-by-main");
            left.start();
        }
    }

    /** Publishes and receives on the memory broker with a try-with-resources Switchboard, then returns. */
    public static final class MemoryRoundTrip {
        public static void main(String[] args) throws Exception {
            try (Switchboard sb = Switchboard.builder().broker("memory").property("memory.broker", "exit-check").build()) {
                CountDownLatch received = new CountDownLatch(10);
                Subscription sub = sb.subscriber("orders", Codec.utf8()).group("g").concurrency(2)
                        .subscribe((m, c) -> received.countDown());
                sub.ready().toCompletableFuture().get(30, TimeUnit.SECONDS);
                Publisher<String> orders = sb.publisher("orders", Codec.utf8()).build();
                for (int i = 0; i < 10; i++) {
                    orders.publish("m" + i).toCompletableFuture().get(30, TimeUnit.SECONDS);
                }
                if (!received.await(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("received " + (10 - received.getCount()) + " of 10");
                }
            }
            System.out.println("main returned");
        }
    }

    @Test
    @DisplayName("fails naming the non-daemon thread that kept the JVM alive, and kills it")
    void namesTheThreadLeft() {
        assertThatThrownBy(() -> ExitCheck.assertExitsOnItsOwn(directory, LeavesAThread.class, List.of(),
                Duration.ofSeconds(10)))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("did not exit within 10 s; non-daemon threads alive: [left-running-by-main]")
                .hasMessageContaining("java.lang.Thread.sleep");
    }

    @Test
    @DisplayName("passes when a closed Switchboard on the memory broker leaves the JVM free to exit")
    void memoryBrokerLetsTheJvmExit() {
        ExitCheck.assertExitsOnItsOwn(directory, MemoryRoundTrip.class, List.of(), Duration.ofSeconds(60));
    }
}
