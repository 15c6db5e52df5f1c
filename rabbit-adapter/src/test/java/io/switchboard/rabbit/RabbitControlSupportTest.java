package io.switchboard.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import io.switchboard.spi.BrokerAdapter;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.ControlLog;
import io.switchboard.spi.Leadership;
import io.switchboard.testkit.control.ControlSupportContract;
import io.switchboard.testkit.rabbit.RabbitMqServer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("RabbitMQ control support (stream queue log, exclusive queue leadership)")
class RabbitControlSupportTest extends ControlSupportContract {

    private static final RabbitMqServer SERVER = RabbitMqServer.local();
    /** The streams this class declares: names the contract and the cases below make. */
    private static final Pattern OURS = Pattern.compile("ctl-(log|live|a|b|resume)-[0-9a-f]{8}");
    private static final Set<String> BEFORE = new HashSet<>();

    @BeforeAll
    static void rememberExistingQueues() {
        SERVER.require();
        BEFORE.addAll(SERVER.queuesOf(SERVER.virtualHost()));
    }

    @AfterAll
    static void deleteTheStreamsOfThisClass() throws Exception {
        try (Connection connection = SERVER.connect("switchboard-test-control-cleanup")) {
            Channel channel = connection.createChannel();
            for (String queue : SERVER.queuesOf(SERVER.virtualHost())) {
                if (OURS.matcher(queue).matches() && !BEFORE.contains(queue)) {
                    channel.queueDelete(queue);
                }
            }
        }
    }

    @Override
    protected BrokerAdapter newAdapter() {
        return adapter("sb-ctl-test-" + UUID.randomUUID().toString().substring(0, 8));
    }

    private static BrokerAdapter adapter(String connectionName) {
        return new RabbitAdapterFactory().create(new BrokerConfig("ctl", "rabbitmq", Map.of(
                "rabbitmq.uri", SERVER.uriWithCredentials(), "rabbitmq.connection-name", connectionName,
                "rabbitmq.recovery-interval", "300ms")));
    }

    @Test
    @DisplayName("a follower whose connection the broker closes resumes after the last record it passed")
    void followerResumesAfterForcedClose() throws Exception {
        String name = name("resume");
        String followerConnection = "sb-ctl-resume-" + UUID.randomUUID().toString().substring(0, 8);
        try (BrokerAdapter writerAdapter = newAdapter(); BrokerAdapter followerAdapter = adapter(followerConnection)) {
            ControlLog writer = writerAdapter.control().orElseThrow().openLog(name);
            ControlLog follower = followerAdapter.control().orElseThrow().openLog(name);
            List<String> read = new CopyOnWriteArrayList<>();
            follower.follow((key, value) -> read.add(key + "=" + new String(value, StandardCharsets.UTF_8)))
                    .toCompletableFuture().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                writer.append("k", bytes(i)).toCompletableFuture().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                expected.add("k=" + i);
            }
            await().atMost(TIMEOUT).until(() -> read.size() == 10);

            assertThat(SERVER.closeConnectionsNamed(followerConnection + "-control-log-")).isEqualTo(1);
            await().atMost(TIMEOUT).until(() -> !follower.connected());
            await().atMost(TIMEOUT).until(follower::connected);
            for (int i = 10; i < 20; i++) {
                writer.append("k", bytes(i)).toCompletableFuture().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                expected.add("k=" + i);
            }
            await().atMost(TIMEOUT).until(() -> read.size() >= 20);
            assertThat(read).as("every record once, in order, across the reconnection").containsExactlyElementsOf(expected);
        }
    }

    @Test
    @DisplayName("a leader whose connection the broker closes steps down, is told revoked(), and is elected again")
    void leaderStepsDownOnLostConnection() {
        String name = name("relead");
        String connection = "sb-ctl-relead-" + UUID.randomUUID().toString().substring(0, 8);
        AtomicInteger elected = new AtomicInteger();
        AtomicInteger revoked = new AtomicInteger();
        List<Boolean> leaderWhenRevoked = new CopyOnWriteArrayList<>();
        try (BrokerAdapter adapter = adapter(connection)) {
            Leadership[] leadership = new Leadership[1];
            leadership[0] = adapter.control().orElseThrow().campaign(name, new Leadership.Listener() {
                @Override
                public void elected() {
                    elected.incrementAndGet();
                }

                @Override
                public void revoked() {
                    leaderWhenRevoked.add(leadership[0].isLeader());
                    revoked.incrementAndGet();
                }
            });
            await().atMost(TIMEOUT).until(() -> leadership[0].isLeader());

            assertThat(SERVER.closeConnectionsNamed(connection + "-control-leader-")).isEqualTo(1);
            await().atMost(TIMEOUT).until(() -> revoked.get() == 1);
            assertThat(leaderWhenRevoked).as("isLeader() is false before revoked()").containsExactly(false);
            await().atMost(TIMEOUT).until(() -> elected.get() == 2 && leadership[0].isLeader());
        }
    }

    private static byte[] bytes(int i) {
        return Integer.toString(i).getBytes(StandardCharsets.UTF_8);
    }
}
