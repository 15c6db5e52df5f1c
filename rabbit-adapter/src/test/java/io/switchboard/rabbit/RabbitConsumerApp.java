package io.switchboard.rabbit;

import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A consumer in a JVM of its own, for {@link RabbitFaultTest} to kill with {@code kill -9}: subscribes a
 * group at-least-once, sleeps a little per message and appends each handled payload as a line to a
 * file, flushed per line. Creates {@code <file>.ready} once the subscription is ready, then runs until
 * killed.
 *
 * <p>Arguments: AMQP URI, connection name, destination, group, output file, sleep per message in ms.
 */
public final class RabbitConsumerApp {

    private RabbitConsumerApp() {}

    public static void main(String[] args) throws Exception {
        String uri = args[0];
        String connectionName = args[1];
        String destination = args[2];
        String group = args[3];
        Path out = Path.of(args[4]);
        long sleepMillis = Long.parseLong(args[5]);
        Switchboard sb = Switchboard.builder().broker("rabbitmq")
                .property("rabbitmq.uri", uri)
                .property("rabbitmq.connection-name", connectionName)
                .build();
        Writer writer = Files.newBufferedWriter(out, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        Subscription subscription = sb.subscriber(destination, Codec.utf8()).group(group)
                .delivery(Delivery.AT_LEAST_ONCE)
                .subscribe((message, context) -> {
                    Thread.sleep(sleepMillis);
                    append(writer, message.payload());
                });
        subscription.ready().toCompletableFuture().join();
        Files.createFile(Path.of(args[4] + ".ready"));
        // the handler threads may be daemons: keep the JVM alive until killed
        subscription.terminated().toCompletableFuture().join();
    }

    private static synchronized void append(Writer writer, String payload) throws IOException {
        writer.write(payload + "\n");
        writer.flush();
    }
}
