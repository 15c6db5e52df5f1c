package io.switchboard.it.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Message;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.outbox.Outbox;
import io.switchboard.outbox.OutboxPublisher;
import io.switchboard.testkit.kafka.EmbeddedKafka;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The outbox's relay when a real broker refuses rows in the middle of a batch: RabbitMQ's {@code x-overflow:
 * reject-publish} with the publisher's resilience retry on, and a Kafka topic whose {@code max.message.bytes} refuses
 * one row. No key is reordered, nothing is lost, and the row that can never go is parked while its key goes on.
 */
@DisplayName("Outbox under broker refusals mid-batch (RabbitMQ, Kafka), on PostgreSQL")
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class OutboxFaultsOnBrokersTest extends OutboxSupport {

    @Test
    @DisplayName("RabbitMQ refuses rows while its queue is full (reject-publish), retry on: every key in order, none lost")
    void rabbitRefusesMidBatch() throws Exception {
        String full = destination("full");
        Map<String, String> props = withRetry(rabbit());
        props.put("rabbitmq.max-length", "40");
        props.put("rabbitmq.overflow", "reject-publish");
        props.put("rabbitmq.required-groups", "billing");
        // the consumer: slower than the relay, so the queue fills and the broker refuses rows of a batch
        Switchboard consumer = closeAfter(Switchboard.builder().broker("rabbitmq").properties(props).build());
        List<String> got = new CopyOnWriteArrayList<>();
        Subscription s = consumer.subscriber(full, Codec.utf8()).group("billing").delivery(Delivery.AT_LEAST_ONCE)
                .subscribe((m, ctx) -> {
                    got.add(m.key() + "/" + m.payload() + "/" + m.id());
                    Thread.sleep(1);
                });
        s.ready().toCompletableFuture().get(60, TimeUnit.SECONDS);
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        Switchboard app = closeAfter(Switchboard.builder().broker("rabbitmq").properties(props).meterRegistry(meters).build());
        Outbox outbox = closeAfter(Outbox.builder(app, db).table(table).batchSize(200).relayThreads(2)
                .backoff(Duration.ofMillis(20), Duration.ofMillis(200)).build());
        OutboxPublisher<String> writer = outbox.publisher(full, Codec.utf8());
        int total = 3_000;
        commit(writer, 0, total, 100, 100);
        await().atMost(DRAIN).until(() -> books(got)[1] >= total);
        Thread.sleep(1000); // a repeat would arrive by now
        long[] books = books(got);
        double held = meters.find("switchboard.outbox.held").counters().stream().mapToDouble(Counter::count).sum();
        System.out.printf("outbox=refused-mid-batch broker=rabbitmq db=postgresql retry=on committed=%d received=%d unique=%d"
                + " held=%.0f parked=%d lost=%d reordered=%d%n", total, books[0], books[1], held, outbox.parked(),
                total - books[1], books[2]);
        assertThat(held).as("rows the broker refused mid-batch (else the case tried nothing)").isPositive();
        assertThat(books[1]).as("unique messages received").isEqualTo(total);
        assertThat(books[2]).as("keys out of order").isZero();
        await().atMost(Duration.ofSeconds(30)).until(() -> rows(table) == 0);
        assertThat(outbox.parked()).isZero();
    }

    @Test
    @DisplayName("Kafka refuses one row as too large for its topic, retry on: the row is parked, its key and the others go"
            + " on in order, none lost")
    void kafkaRefusesOneRow() throws Exception {
        String topic = destination("small");
        Properties admin = new Properties();
        admin.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, EmbeddedKafka.shared().bootstrapServers());
        try (Admin a = Admin.create(admin)) {
            // made by a neighbour before the service moved: records up to 4 KiB
            a.createTopics(List.of(new NewTopic(topic, 3, (short) 1).configs(Map.of("max.message.bytes", "4096"))))
                    .all().get(60, TimeUnit.SECONDS);
        }
        List<String> got = consume("kafka", kafka(), topic);
        Switchboard app = closeAfter(Switchboard.builder().broker("kafka").properties(withRetry(kafka())).build());
        Outbox outbox = closeAfter(Outbox.builder(app, db).table(table).batchSize(200).maxAttempts(3)
                .backoff(Duration.ofMillis(50), Duration.ofMillis(200)).build());
        OutboxPublisher<String> writer = outbox.publisher(topic, Codec.utf8());
        int total = 2_000;
        try (Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            List<Message<String>> batch = new ArrayList<>();
            for (int n = 0; n < total; n++) {
                // message 100 of key k0 is 8 KiB: the topic refuses it, whatever the retries
                String payload = n == 100 ? "100" + " ".repeat(8192) : Integer.toString(n);
                batch.add(Message.of("k" + (n % 50), payload));
            }
            writer.publishAll(c, batch);
            c.commit();
        }
        await().atMost(DRAIN).until(() -> books(trimmed(got))[1] >= total - 1);
        await().atMost(Duration.ofSeconds(30)).until(() -> outbox.parked() == 1);
        Thread.sleep(1000);
        long[] books = books(trimmed(got));
        System.out.printf("outbox=poison-row broker=kafka db=postgresql retry=on committed=%d received=%d unique=%d parked=%d"
                + " lost=%d reordered=%d%n", total, books[0], books[1], outbox.parked(), total - 1 - books[1], books[2]);
        assertThat(books[1]).as("unique messages received, the refused one aside").isEqualTo(total - 1);
        assertThat(books[2]).as("keys out of order").isZero();
        assertThat(got).noneMatch(line -> line.startsWith("k0/100 "));
        assertThat(got).anyMatch(line -> line.startsWith("k0/150/")).as("the refused row's key went on");
        assertThat(outbox.parked()).isEqualTo(1);
        assertThat(outbox.health().reason()).contains("parked").contains("too large");
        assertThat(rows(table)).isZero();
    }

    /** The broker's properties with the publishers' resilience retry on: 3 attempts, from 10 ms. */
    private static Map<String, String> withRetry(Map<String, String> broker) {
        Map<String, String> props = new HashMap<>(broker);
        props.put("switchboard.resilience.retry.max-attempts", "3");
        props.put("switchboard.resilience.retry.initial-backoff", "10ms");
        return props;
    }

    /** The payloads without the padding of the large one. */
    private static List<String> trimmed(List<String> got) {
        List<String> out = new ArrayList<>(got.size());
        for (String line : got) {
            out.add(line.replace(" ", ""));
        }
        return out;
    }
}
