package io.switchboard.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Codec;
import io.switchboard.Message;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.routing.Route;
import io.switchboard.testkit.rocketmq.EmbeddedRocketMq;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.acl.common.AclClientRPCHook;
import org.apache.rocketmq.acl.common.SessionCredentials;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A payments service written after a RocketMQ application's patterns moves to Switchboard alone: its topic, tags and
 * consumer groups stay as its neighbours use them, on a broker with ACL on; the neighbours keep rocketmq-client. Then
 * the service mirrors the topic to RabbitMQ and migrates it there, while the unmigrated neighbour keeps reading
 * RocketMQ until the cutover.
 */
@DisplayName("Adopting a RocketMQ service with tags and ACL, then mirror and migrate")
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class AdoptRocketMqServiceTest extends RoutingTestSupport {

    private static final String ACCESS_KEY = "payments-service";
    private static final String SECRET_KEY = "payments-Secret-4d1e8a";
    private static EmbeddedRocketMq rocketMq;

    /** The payments' JSON, as the neighbours write it. */
    public record Payment(String order, long cents) {}

    @BeforeAll
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    static void startBroker() {
        rocketMq = EmbeddedRocketMq.startWithAcl(ACCESS_KEY, SECRET_KEY);
    }

    @AfterAll
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    static void stopBroker() {
        if (rocketMq != null) {
            rocketMq.close();
        }
    }

    private static AclClientRPCHook acl() {
        return new AclClientRPCHook(new SessionCredentials(ACCESS_KEY, SECRET_KEY));
    }

    private static Map<String, String> rocketWithAcl() {
        return Map.of("rocketmq.namesrv-addr", rocketMq.nameServerAddress(), "rocketmq.access-key", ACCESS_KEY,
                "rocketmq.secret-key", SECRET_KEY, "rocketmq.group-per-destination", "false");
    }

    /** The unmigrated neighbour: a plain push consumer of the tags it always read, counting payloads by tag. */
    private static DefaultMQPushConsumer neighbour(String topic, String group, Map<String, Set<String>> byTag) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(group, acl());
        consumer.setNamesrvAddr(rocketMq.nameServerAddress());
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.setInstanceName(group + "-" + System.nanoTime());
        consumer.subscribe(topic, "paid || refunded");
        consumer.registerMessageListener((MessageListenerConcurrently) (messages, context) -> {
            for (MessageExt m : messages) {
                byTag.computeIfAbsent(m.getTags(), t -> ConcurrentHashMap.newKeySet())
                        .add(new String(m.getBody(), StandardCharsets.UTF_8));
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        return consumer;
    }

    @Test
    @DisplayName("the ported service reads and writes the neighbours' tagged topic under ACL, then mirrors and migrates it")
    void adoptMirrorMigrate() throws Exception {
        String topic = destination("payments");
        rocketMq.createTopic(topic, 4);
        Map<String, Set<String>> neighbourGot = new ConcurrentHashMap<>();
        DefaultMQPushConsumer ledger = neighbour(topic, "ledger_" + topic, neighbourGot);
        DefaultMQProducer producer = new DefaultMQProducer("checkout_" + topic, acl());
        producer.setNamesrvAddr(rocketMq.nameServerAddress());
        producer.setInstanceName("checkout-" + System.nanoTime());
        producer.start();
        try {
            Switchboard sb = closeAfter(builder().instance("rocket", "rocketmq", rocketWithAcl())
                    .instance("rabbit", "rabbitmq", rabbit()).route(topic, Route.single("rocket")).build());
            Map<String, Integer> portedGot = new ConcurrentHashMap<>();
            Subscription notifier = sb.subscriber(topic, Codec.json(Payment.class)).group("notifier_" + topic).filter("paid")
                    .subscribe((m, c) -> portedGot.merge(m.payload().order(), 1, Integer::sum));
            notifier.ready().toCompletableFuture().get(60, TimeUnit.SECONDS);

            // 1. the ported consumer reads what the plain producer sends, by tag
            int n = 200;
            for (int i = 0; i < n; i++) {
                String tag = i % 4 == 0 ? "refunded" : i % 4 == 1 ? "other" : "paid";
                org.apache.rocketmq.common.message.Message m = new org.apache.rocketmq.common.message.Message(topic, tag,
                        "plain-" + i, ("{\"order\":\"plain-" + i + "\",\"cents\":" + i + "}").getBytes(StandardCharsets.UTF_8));
                assertThat(producer.send(m).getSendStatus()).isEqualTo(SendStatus.SEND_OK);
            }
            int paidPlain = (int) java.util.stream.IntStream.range(0, n).filter(i -> i % 4 >= 2).count();
            await().atMost(TIMEOUT).until(() -> portedGot.size() == paidPlain);
            assertThat(portedGot.keySet()).allMatch(o -> Integer.parseInt(o.substring(6)) % 4 >= 2);
            // 2. the neighbour reads what the ported producer sends, tags and JSON as it expects
            Publisher<Payment> payments = sb.publisher(topic, Codec.json(Payment.class)).build();
            List<CompletableFuture<PublishReceipt>> sent = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                sent.add(payments.publish(Message.builder(new Payment("ported-" + i, i)).key("o" + i)
                        .tag(i % 2 == 0 ? "paid" : "refunded").build()).toCompletableFuture());
            }
            for (CompletableFuture<PublishReceipt> f : sent) {
                assertThat(f.get(60, TimeUnit.SECONDS).instance()).isEqualTo("rocket");
            }
            await().atMost(TIMEOUT).until(() -> count(neighbourGot, "ported-") == n);
            assertThat(neighbourGot.get("paid")).filteredOn(p -> p.contains("ported-")).hasSize(n / 2)
                    .allMatch(p -> p.startsWith("{\"order\":\"ported-"));
            await().atMost(TIMEOUT).until(() -> portedGot.size() == paidPlain + n / 2);
            report("adopt", topic, n + n, count(neighbourGot, "ported-"), n, portedGot, paidPlain + n / 2);

            // 3. mirror to RabbitMQ: the neighbour still gets everything on RocketMQ; the service handles each once
            sb.routing().update(topic, Route.mirror("rocket", "rabbit"));
            sent.clear();
            for (int i = 0; i < n; i++) {
                sent.add(payments.publish(Message.builder(new Payment("mirror-" + i, i)).key("o" + i).tag("paid").build())
                        .toCompletableFuture());
            }
            for (CompletableFuture<PublishReceipt> f : sent) {
                assertThat(f.get(60, TimeUnit.SECONDS).instance()).isEqualTo("rocket");
            }
            await().atMost(TIMEOUT).until(() -> count(neighbourGot, "mirror-") == n);
            await().atMost(TIMEOUT).until(() -> sb.routing().shadowReport(topic).shadowSeen() >= n);
            await().atMost(TIMEOUT).until(() -> portedGot.size() == paidPlain + n / 2 + n);
            System.out.println(sb.routing().shadowReport(topic).summary());
            report("mirror", topic, n, count(neighbourGot, "mirror-"), n, portedGot, paidPlain + n / 2 + n);

            // 4. migrate: new payments go to RabbitMQ; the service reads both until RocketMQ is drained
            sb.routing().update(topic, Route.migrate("rocket", "rabbit"));
            sent.clear();
            for (int i = 0; i < n; i++) {
                sent.add(payments.publish(Message.builder(new Payment("migrated-" + i, i)).key("o" + i).tag("paid").build())
                        .toCompletableFuture());
            }
            for (CompletableFuture<PublishReceipt> f : sent) {
                assertThat(f.get(60, TimeUnit.SECONDS).instance()).isEqualTo("rabbit");
            }
            sb.routing().drained(topic).toCompletableFuture().get(60, TimeUnit.SECONDS);
            int expected = paidPlain + n / 2 + n + n;
            await().atMost(TIMEOUT).until(() -> portedGot.size() == expected);
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
                    .until(() -> portedGot.values().stream().allMatch(c -> c == 1));
            assertThat(count(neighbourGot, "migrated-")).as("after the cutover the neighbour on RocketMQ gets nothing new")
                    .isZero();
            report("migrate", topic, n, count(neighbourGot, "migrated-"), 0, portedGot, expected);
            assertThat(portedGot.values()).containsOnly(1);
        } finally {
            producer.shutdown();
            ledger.shutdown();
        }
    }

    private static long count(Map<String, Set<String>> byTag, String marker) {
        return byTag.values().stream().flatMap(Set::stream).filter(p -> p.contains("\"" + marker)).count();
    }

    /**
     * One phase's line: what the neighbour got of what it should, what the service handled (all phases so far) of what
     * it should; lost counts both shortfalls, type errors the dead letters (undecodable payloads).
     */
    private void report(String phase, String topic, int sent, long neighbourGot, int neighbourExpected,
            Map<String, Integer> ported, int portedExpected) {
        long duplicates = ported.values().stream().filter(c -> c > 1).count();
        long lost = Math.max(0, neighbourExpected - neighbourGot) + Math.max(0, portedExpected - ported.size());
        long typeErrors = (long) counter("switchboard.dead.letters");
        System.out.printf("adopt=rocketmq-payments broker=rocketmq phase=%s acl=on topic=%s sent=%d neighbour_received=%d/%d "
                + "ported_handled=%d/%d duplicates=%d lost=%d type_errors=%d%n", phase, topic, sent, neighbourGot,
                neighbourExpected, ported.size(), portedExpected, duplicates, lost, typeErrors);
        assertThat(lost).isZero();
        assertThat(typeErrors).isZero();
        assertThat(duplicates).isZero();
    }
}
