package io.switchboard.rocketmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.spi.BrokerAdapter;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.ControlLog;
import io.switchboard.spi.Leadership;
import io.switchboard.testkit.control.ControlSupportContract;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The RocketMQ control support")
class RocketMqControlSupportTest extends ControlSupportContract {

    private static final AtomicInteger ADAPTERS = new AtomicInteger();

    @Override
    protected BrokerAdapter newAdapter() {
        return new RocketMqAdapterFactory().create(new BrokerConfig("control-" + ADAPTERS.incrementAndGet(), "rocketmq",
                RocketMqContractTest.embeddedBroker()));
    }

    /** Tells elected and revoked apart, and whether isLeader() was already false when revoked() came. */
    private static final class Watcher implements Leadership.Listener {
        final AtomicInteger elected = new AtomicInteger();
        final AtomicInteger revoked = new AtomicInteger();
        final AtomicBoolean leaderWhenRevoked = new AtomicBoolean();
        volatile Leadership leadership;

        @Override
        public void elected() {
            elected.incrementAndGet();
        }

        @Override
        public void revoked() {
            revoked.incrementAndGet();
            if (leadership != null && leadership.isLeader()) {
                leaderWhenRevoked.set(true);
            }
        }
    }

    @Test
    @DisplayName("a leader closing hands over within a few seconds; a joining campaigner does not displace it")
    void cleanHandoverIsFast() {
        String name = name("handover");
        Watcher a = new Watcher();
        BrokerAdapter first = newAdapter();
        try {
            a.leadership = first.control().orElseThrow().campaign(name, a);
            await().atMost(TIMEOUT).until(a.leadership::isLeader);
            Watcher b = new Watcher();
            b.leadership = support().campaign(name, b);
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> !b.leadership.isLeader());
            assertThat(a.leadership.isLeader()).isTrue();

            long start = System.nanoTime();
            first.close();
            assertThat(a.leadership.isLeader()).isFalse();
            assertThat(a.revoked).hasValue(1);
            assertThat(a.leaderWhenRevoked).as("isLeader() was false when revoked() came").isFalse();
            await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10)).until(b.leadership::isLeader);
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            System.out.println("Leadership handed over " + millis + " ms after the leader's adapter was closed");
            // elected() is called on the leadership's own thread once isLeader() turns true: it may come a moment later
            await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10)).until(() -> b.elected.get() >= 1);
            assertThat(b.elected).hasValue(1);
        } finally {
            first.close();
        }
    }

    @Test
    @DisplayName("records keep their key, value and order; the adapter's close stops its followers")
    void recordsAndClose() throws Exception {
        String name = name("rec");
        BrokerAdapter adapter = newAdapter();
        ControlLog log1 = adapter.control().orElseThrow().openLog(name);
        List<String> seen = new CopyOnWriteArrayList<>();
        log1.follow((k, v) -> seen.add(k + "=" + new String(v, StandardCharsets.UTF_8)))
                .toCompletableFuture().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertThat(log1.connected()).isTrue();
        log1.append("route a.b", "x\u0000y".getBytes(StandardCharsets.UTF_8)).toCompletableFuture()
                .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        await().atMost(TIMEOUT).until(() -> seen.contains("route a.b=x\u0000y"));
        adapter.close();
        assertThat(log1.connected()).isFalse();
        assertThat(log1.follow((k, v) -> { }).toCompletableFuture()).isCompletedExceptionally();
    }
}
