package io.switchboard.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.spi.BrokerAdapter;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.ControlLog;
import io.switchboard.testkit.control.ControlSupportContract;
import io.switchboard.testkit.fault.TcpProxy;
import io.switchboard.testkit.kafka.EmbeddedKafka;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

@DisplayName("Kafka control support (compacted one-partition topic log, consumer-group leadership)")
class KafkaControlSupportTest extends ControlSupportContract {

    private static final Logger log = LoggerFactory.getLogger(KafkaControlSupportTest.class);

    @Override
    protected BrokerAdapter newAdapter() {
        return adapter(KafkaTestSupport.bootstrap());
    }

    private static BrokerAdapter adapter(String bootstrap) {
        return new KafkaAdapterFactory().create(new BrokerConfig("ctl", "kafka", Map.of("kafka.bootstrap.servers", bootstrap)));
    }

    @Test
    @DisplayName("a follower cut off from its broker says so within seconds, and follows again once the cut is healed")
    void followerCutOffAndBack() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        try (TcpProxy proxy = TcpProxy.start("127.0.0.1", port);
                EmbeddedKafka kafka = EmbeddedKafka.builder().port(port).advertisedPort(proxy.port())
                        .brokerProperty("num.network.threads", "1").brokerProperty("num.io.threads", "1").start();
                BrokerAdapter followerAdapter = adapter(kafka.bootstrapServers());
                BrokerAdapter writerAdapter = adapter(kafka.bootstrapServers())) {
            String name = name("cut");
            ControlLog follower = followerAdapter.control().orElseThrow().openLog(name);
            ControlLog writer = writerAdapter.control().orElseThrow().openLog(name);
            List<String> read = new CopyOnWriteArrayList<>();
            follower.follow((key, value) -> read.add(key + "=" + new String(value, StandardCharsets.UTF_8)))
                    .toCompletableFuture().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            writer.append("orders", "before-cut".getBytes(StandardCharsets.UTF_8)).toCompletableFuture()
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            await().atMost(TIMEOUT).until(() -> read.contains("orders=before-cut"));
            assertThat(follower.connected()).isTrue();

            long cutAt = System.nanoTime();
            proxy.cut();
            await().atMost(TIMEOUT).until(() -> !follower.connected());
            long noticed = System.nanoTime();
            assertThat(writer.append("orders", "during-cut".getBytes(StandardCharsets.UTF_8)).toCompletableFuture())
                    .as("an append while the broker is unreachable fails within the send timeout")
                    .failsWithin(TIMEOUT);

            proxy.restore();
            long restored = System.nanoTime();
            await().atMost(TIMEOUT).until(follower::connected);
            writer.append("orders", "after-cut".getBytes(StandardCharsets.UTF_8)).toCompletableFuture()
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            await().atMost(TIMEOUT).until(() -> read.contains("orders=after-cut"));
            log.info("control log cut: disconnected noticed after {} ms, connected again {} ms after the restore",
                    TimeUnit.NANOSECONDS.toMillis(noticed - cutAt), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restored));
        }
    }
}
