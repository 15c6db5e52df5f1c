package io.switchboard.rocketmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.spi.BrokerAdapter;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.ControlLog;
import io.switchboard.spi.Leadership;
import io.switchboard.testkit.fault.TcpProxy;
import io.switchboard.testkit.rocketmq.EmbeddedRocketMq;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The control support while the broker is unreachable (a proxy in front of it, cut): the follower
 * says it is not connected and catches up once the broker is back; the leader steps down on its own
 * when its 30 s lease runs out, before the broker's lock (60 s) could go to another campaigner.
 */
@Tag("fault")
@DisplayName("RocketMQ control support through a network cut")
class RocketMqControlFaultTest {

    @Test
    @DisplayName("a cut leader steps down within its lease; the follower reconnects and reads on")
    void cutLeaderStepsDown() throws Exception {
        try (EmbeddedRocketMq rocketMq = EmbeddedRocketMq.startBehindProxy();
                BrokerAdapter adapter = new RocketMqAdapterFactory().create(new BrokerConfig("control-fault", "rocketmq",
                        Map.of("rocketmq.namesrv-addr", rocketMq.nameServerAddress())))) {
            TcpProxy proxy = rocketMq.brokerProxy();
            ControlLog log = adapter.control().orElseThrow().openLog("ctl-fault-log");
            List<String> seen = new CopyOnWriteArrayList<>();
            log.follow((k, v) -> seen.add(k + "=" + new String(v, StandardCharsets.UTF_8)))
                    .toCompletableFuture().get(60, TimeUnit.SECONDS);
            AtomicLong revokedAt = new AtomicLong();
            AtomicBoolean leaderWhenRevoked = new AtomicBoolean();
            Leadership[] leadership = new Leadership[1];
            leadership[0] = adapter.control().orElseThrow().campaign("ctl-fault-lead", new Leadership.Listener() {
                @Override
                public void elected() { }

                @Override
                public void revoked() {
                    leaderWhenRevoked.set(leadership[0].isLeader());
                    revokedAt.set(System.nanoTime());
                }
            });
            await().atMost(Duration.ofSeconds(60)).until(() -> leadership[0] != null && leadership[0].isLeader());

            long cut = System.nanoTime();
            proxy.cut();
            await().atMost(Duration.ofSeconds(15)).until(() -> !log.connected());
            await().atMost(Duration.ofSeconds(45)).until(() -> revokedAt.get() != 0);
            long steppedDown = TimeUnit.NANOSECONDS.toMillis(revokedAt.get() - cut);
            System.out.println("Leader stepped down " + steppedDown + " ms after the cut");
            assertThat(steppedDown).as("within the lease of 30 s after the last renewal").isBetween(27_000L, 33_000L);
            assertThat(leaderWhenRevoked).as("isLeader() was false when revoked() came").isFalse();

            proxy.restore();
            log.append("after", "cut".getBytes(StandardCharsets.UTF_8)).toCompletableFuture().get(60, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(60)).until(() -> seen.contains("after=cut") && log.connected());
            await("the broker still holds its lock: elected again").atMost(Duration.ofSeconds(30))
                    .until(leadership[0]::isLeader);
        }
    }
}
