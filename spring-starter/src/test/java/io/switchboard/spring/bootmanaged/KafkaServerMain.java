package io.switchboard.spring.bootmanaged;

import io.switchboard.testkit.kafka.EmbeddedKafka;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Runs testkit's Kafka broker in a JVM of its own, on the kafka-clients the broker was built with,
 * so that the test JVM can load the older kafka-clients Spring Boot manages. Writes the bootstrap
 * servers to the file named by the first argument; stops when its standard input ends (the test
 * JVM exited or closed it).
 */
public final class KafkaServerMain {

    private KafkaServerMain() {}

    /** Starts the broker, publishes its address, waits for the end of standard input. */
    public static void main(String[] args) throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            Path ready = Path.of(args[0]);
            Path partial = ready.resolveSibling(ready.getFileName() + ".tmp");
            Files.writeString(partial, kafka.bootstrapServers(), StandardCharsets.UTF_8);
            Files.move(partial, ready);
            while (System.in.read() >= 0) {
                // keep running until the parent goes away
            }
        }
    }
}
