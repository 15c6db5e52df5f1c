package io.switchboard.it.closing;

import io.switchboard.testkit.fault.ExitCheck;
import io.switchboard.testkit.kafka.EmbeddedKafka;
import io.switchboard.testkit.rabbit.RabbitMqServer;
import io.switchboard.testkit.rocketmq.EmbeddedRocketMq;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("A JVM whose main closed its Switchboards exits on its own")
@Tag("exit")
class JvmExitsAfterCloseTest {

    private static final RabbitMqServer RABBIT = RabbitMqServer.local();
    private final String prefix = "exit_" + UUID.randomUUID().toString().substring(0, 8);

    @TempDir
    Path directory;

    @AfterEach
    void deleteRabbitQueues() throws Exception {
        RABBIT.deleteNamesStartingWith(List.of(prefix));
    }

    @Test
    @DisplayName("after a round trip on Kafka, RocketMQ and RabbitMQ, closed with try-with-resources")
    void exitsAfterMainReturns() {
        RABBIT.require();
        List<String> args = List.of(EmbeddedKafka.shared().bootstrapServers(), EmbeddedRocketMq.shared().nameServerAddress(),
                RABBIT.uriWithCredentials(), prefix);
        // the whole test took 22 s here (the embedded brokers started, main ran, the JVM exited): ample headroom
        ExitCheck.assertExitsOnItsOwn(directory, ExitAfterCloseMain.class, args, Duration.ofSeconds(120));
    }
}
