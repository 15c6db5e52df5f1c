package io.switchboard.rabbit;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import io.switchboard.Message;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import io.switchboard.SubscriberBuilder;
import io.switchboard.Switchboard;
import io.switchboard.testkit.Recorder;
import io.switchboard.testkit.rabbit.RabbitMqServer;
import io.switchboard.testkit.rabbit.RabbitScratch;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;

/** A fresh scratch (unique names, deleted afterwards) and Switchboards on the local server, per test. */
abstract class RabbitTestSupport {

    static final RabbitMqServer SERVER = RabbitMqServer.local();
    static final Duration TIMEOUT = Duration.ofSeconds(60);

    RabbitScratch scratch;
    private final List<Switchboard> switchboards = new ArrayList<>();

    @BeforeEach
    void openScratch(TestInfo info) {
        SERVER.require();
        scratch = SERVER.scratch(info.getTestMethod().map(m -> m.getName()).orElse("test"));
    }

    @AfterEach
    void closeEverything() throws Exception {
        switchboards.forEach(Switchboard::close);
        scratch.close();
    }

    /** The client-provided name prefix of the connections of {@link #switchboard}'s adapters. */
    String connectionName() {
        return scratch.name("conn");
    }

    /** A Switchboard on the local server; extra properties as key, value pairs. Closed after the test. */
    Switchboard switchboard(String... keyValues) {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("rabbitmq.uri", SERVER.uriWithCredentials());
        properties.put("rabbitmq.connection-name", connectionName());
        for (int i = 0; i < keyValues.length; i += 2) {
            properties.put(keyValues[i], keyValues[i + 1]);
        }
        Switchboard sb = Switchboard.builder().broker("rabbitmq").properties(properties).build();
        switchboards.add(sb);
        return sb;
    }

    /** Subscribes a new recorder and waits until the subscription is ready. */
    static Recorder<String> recorded(SubscriberBuilder<String> subscriber) throws Exception {
        Recorder<String> recorder = new Recorder<>(TIMEOUT);
        join(subscriber.subscribe(recorder).ready());
        return recorder;
    }

    static <T> T join(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Publishes {@code rounds} rounds of one message per key {@code key-0} .. {@code key-<keys-1>}
     * (payload {@code <k>:<round>}, so that per-key order can be checked) and waits for every receipt.
     */
    static List<PublishReceipt> publishKeyed(Publisher<String> publisher, int rounds, int keys) throws Exception {
        List<CompletableFuture<PublishReceipt>> sent = new ArrayList<>();
        for (int i = 0; i < rounds; i++) {
            for (int k = 0; k < keys; k++) {
                sent.add(publisher.publish(Message.of("key-" + k, k + ":" + i)).toCompletableFuture());
            }
        }
        join(CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)));
        return sent.stream().map(CompletableFuture::join).toList();
    }

    /** The messages in the queues, read after the publishes were confirmed (so each is in every queue it was routed to). */
    long queued(String... queues) throws Exception {
        try (Connection admin = SERVER.connect(scratch.name("admin")); Channel channel = admin.createChannel()) {
            long depth = 0;
            for (String queue : queues) {
                depth += channel.queueDeclarePassive(queue).getMessageCount();
            }
            return depth;
        }
    }
}
