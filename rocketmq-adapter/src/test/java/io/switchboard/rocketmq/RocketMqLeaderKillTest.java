package io.switchboard.rocketmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.spi.BrokerAdapter;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.Leadership;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leader killed with {@code kill -9}: its broker lock is not released, so another campaigner is
 * elected when the lock expires (the broker's 60 seconds after the last renewal).
 */
@Tag("fault")
@DisplayName("RocketMQ leadership after the leader's process is killed")
class RocketMqLeaderKillTest {

    @Test
    @DisplayName("another campaigner is elected once the dead leader's broker lock expired")
    void killedLeaderIsReplaced(@TempDir Path dir) throws Exception {
        String name = "ctl-kill-" + UUID.randomUUID().toString().substring(0, 8);
        Path elected = dir.resolve("elected");
        String nameServer = RocketMqContractTest.embeddedBroker().get("rocketmq.namesrv-addr");
        Process child = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-Dtls.server.mode=disabled", "-cp", System.getProperty("java.class.path"),
                Child.class.getName(), nameServer, name, elected.toString()))
                .redirectErrorStream(true).redirectOutput(dir.resolve("child.log").toFile()).start();
        try (BrokerAdapter adapter = adapter("kill-survivor", nameServer)) {
            await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(elected));
            Leadership mine = adapter.control().orElseThrow().campaign(name, new Leadership.Listener() {
                @Override
                public void elected() { }

                @Override
                public void revoked() { }
            });
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> !mine.isLeader());
            long killed = System.nanoTime();
            child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100)).until(mine::isLeader);
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
            System.out.println("Leadership handed over " + millis + " ms after the leader was killed");
            assertThat(millis).as("the broker lock expires 60 s after the last renewal")
                    .isBetween(55_000L, 65_000L);
        } finally {
            child.destroyForcibly();
        }
    }

    private static BrokerAdapter adapter(String instance, String nameServer) {
        return new RocketMqAdapterFactory().create(new BrokerConfig(instance, "rocketmq",
                java.util.Map.of("rocketmq.namesrv-addr", nameServer)));
    }

    /** The leader to kill: campaigns, writes the file once elected, then runs until killed. */
    public static final class Child {
        public static void main(String[] args) throws Exception {
            BrokerAdapter adapter = adapter("kill-leader", args[0]);
            File elected = new File(args[2]);
            adapter.control().orElseThrow().campaign(args[1], new Leadership.Listener() {
                @Override
                public void elected() {
                    try {
                        Files.createFile(elected.toPath());
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }

                @Override
                public void revoked() { }
            });
            while (true) {
                LockSupport.park();
            }
        }
    }
}
