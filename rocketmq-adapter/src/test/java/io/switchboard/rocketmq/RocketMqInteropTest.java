package io.switchboard.rocketmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Message;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import io.switchboard.testkit.ContractSupport;
import io.switchboard.testkit.Received;
import io.switchboard.testkit.Recorder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Both directions with plain rocketmq-client: what a {@link DefaultMQProducer} sends, a
 * Switchboard group reads; what Switchboard publishes, a {@link DefaultMQPushConsumer} in its
 * own group reads, CloudEvents attributes included as {@code CE_} user properties.
 */
@DisplayName("Interoperation with plain rocketmq-client")
class RocketMqInteropTest extends ContractSupport {

    private static final Codec<String> TEXT = Codec.utf8();
    private static final int KEYED = 10;
    private static final int KEYLESS = 10;

    @Override
    protected String brokerId() {
        return "rocketmq";
    }

    @Override
    protected Map<String, String> brokerProperties() {
        return RocketMqContractTest.embeddedBroker();
    }

    @Test
    @DisplayName("a Switchboard group consumes what a plain producer sent: payload, keys, user properties, msgId as id")
    void switchboardConsumesPlainMessages() throws Exception {
        String topic = destination();
        Recorder<String> recorder = recorder();
        subscribe(switchboard, topic, TEXT, b -> b.group("reader").delivery(Delivery.AT_LEAST_ONCE), recorder);

        Map<String, Sent> sent = new HashMap<>();
        DefaultMQProducer producer = plainProducer();
        try {
            for (int i = 0; i < KEYED; i++) {
                org.apache.rocketmq.common.message.Message message = new org.apache.rocketmq.common.message.Message(
                        topic, "TagA", "customer-" + (i % 3), bytes("keyed-" + i));
                message.putUserProperty("origin", "legacy");
                message.putUserProperty("seq", Integer.toString(i));
                // a CloudEvents extension another producer wrote, in the RocketMQ binding's form
                message.putUserProperty("CE_tenant", "acme");
                sent.put("keyed-" + i, new Sent(message.getKeys(), message.getUserProperty("seq"), send(producer, message)));
            }
            for (int i = 0; i < KEYLESS; i++) {
                org.apache.rocketmq.common.message.Message message =
                        new org.apache.rocketmq.common.message.Message(topic, bytes("keyless-" + i));
                sent.put("keyless-" + i, new Sent(null, null, send(producer, message)));
            }
            org.apache.rocketmq.common.message.Message twoKeys =
                    new org.apache.rocketmq.common.message.Message(topic, bytes("two-keys"));
            twoKeys.setKeys(List.of("order-1", "customer-9"));
            sent.put("two-keys", new Sent("order-1 customer-9", null, send(producer, twoKeys)));
        } finally {
            producer.shutdown();
        }

        List<Received<String>> received = recorder.awaitCount(sent.size()).received();
        assertThat(received).extracting(r -> r.message().payload()).containsExactlyInAnyOrderElementsOf(sent.keySet());
        for (Received<String> r : received) {
            Sent expected = sent.get(r.message().payload());
            assertThat(r.message().key()).as("key of %s", r.message().payload()).isEqualTo(expected.keys());
            Map<String, String> headers = expected.seq() == null
                    ? Map.of()
                    : Map.of("origin", "legacy", "seq", expected.seq(), "ce_tenant", "acme");
            assertThat(r.message().headers()).as("headers of %s: user properties and CloudEvents extensions", r.message().payload())
                    .isEqualTo(headers);
            assertThat(r.message().id()).as("id of %s", r.message().payload()).isEqualTo(expected.result().getMsgId());
            assertThat(r.message().timestamp()).isNotNull().isBeforeOrEqualTo(Instant.now());
            assertThat(r.context().group()).isEqualTo("reader");
            assertThat(r.context().partition()).isEqualTo(expected.result().getMessageQueue().getQueueId());
            assertThat(r.context().offset()).isEqualTo(expected.result().getQueueOffset());
            assertThat(r.context().attempt()).isEqualTo(1);
        }
        assertThat(recorder.ids()).as("distinct ids").hasSize(sent.size());
        assertThat(recorder.attempts()).as("each handled once, without error, none dead-lettered").hasSize(sent.size());
        System.out.println("RocketMqInteropTest: Switchboard consumed " + received.size() + " plain messages");
    }

    @Test
    @DisplayName("a plain push consumer reads what Switchboard published: payload, keys, headers and CE_ properties")
    void plainConsumerReadsSwitchboardMessages() throws Exception {
        String topic = destination();
        Publisher<String> publisher = switchboard.publisher(topic, TEXT).build();
        Map<String, PublishReceipt> receipts = new HashMap<>();
        Map<String, String> keys = new HashMap<>();
        for (int i = 0; i < KEYED; i++) {
            String payload = "{\"order\":" + i + "}";
            keys.put(payload, "customer-" + (i % 3));
            receipts.put(payload, join(publisher.publish(
                    Message.builder(payload).key("customer-" + (i % 3)).header("tenant", "acme")
                            .header("ce_region", "eu-west").build())));
        }
        for (int i = 0; i < KEYLESS; i++) {
            String payload = "keyless-" + i;
            receipts.put(payload, join(publisher.publish(payload)));
        }

        Map<String, MessageExt> read = new ConcurrentHashMap<>();
        List<String> duplicates = new ArrayList<>();
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("plain_" + UUID.randomUUID().toString().substring(0, 8));
        try {
            consumer.setNamesrvAddr(brokerProperties().get("rocketmq.namesrv-addr"));
            consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
            consumer.setInstanceName("plain-consumer-" + UUID.randomUUID());
            consumer.subscribe(topic, "*");
            consumer.registerMessageListener((MessageListenerConcurrently) (messages, context) -> {
                for (MessageExt message : messages) {
                    if (read.putIfAbsent(new String(message.getBody(), StandardCharsets.UTF_8), message) != null) {
                        synchronized (duplicates) {
                            duplicates.add(message.getMsgId());
                        }
                    }
                }
                return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            });
            consumer.start();

            await().atMost(timeout()).until(() -> read.size() >= receipts.size());
        } finally {
            consumer.shutdown();
        }

        assertThat(read.keySet()).containsExactlyInAnyOrderElementsOf(receipts.keySet());
        receipts.forEach((payload, receipt) -> {
            MessageExt message = read.get(payload);
            String key = keys.get(payload);
            assertThat(message.getKeys()).as("keys of %s", payload).isEqualTo(key);
            assertThat(message.getQueueId()).isEqualTo(receipt.partition());
            assertThat(message.getQueueOffset()).isEqualTo(receipt.offset());
            assertThat(message.getUserProperty("CE_id")).isEqualTo(receipt.messageId());
            assertThat(message.getUserProperty("CE_specversion")).isEqualTo("1.0");
            assertThat(message.getUserProperty("CE_contenttype")).isEqualTo(TEXT.contentType());
            assertThat(message.getUserProperty("CE_source")).isNotBlank();
            assertThat(message.getUserProperty("CE_type")).isNotBlank();
            assertThat(Instant.parse(message.getUserProperty("CE_time"))).isBeforeOrEqualTo(Instant.now());
            assertThat(message.getUserProperty("CE_subject")).as("the key travels as KEYS only").isNull();
            assertThat(message.getUserProperty("CE_attempt")).as("no attempt on a first publish").isNull();
            if (key != null) {
                assertThat(message.getUserProperty("tenant")).isEqualTo("acme");
                assertThat(message.getUserProperty("CE_region")).as("a CloudEvents extension, in the binding's form")
                        .isEqualTo("eu-west");
            } else {
                assertThat(message.getUserProperty("tenant")).isNull();
            }
            assertThat(message.getProperties().keySet()).as("no envelope header under its Switchboard name")
                    .noneMatch(name -> name.startsWith("ce_") || name.equals("content-type"));
        });
        System.out.println("RocketMqInteropTest: plain consumer read " + read.size() + " Switchboard messages"
                + (duplicates.isEmpty() ? "" : ", " + duplicates.size() + " redelivered"));
    }

    private DefaultMQProducer plainProducer() throws Exception {
        DefaultMQProducer producer = new DefaultMQProducer("plain_producer_" + UUID.randomUUID().toString().substring(0, 8));
        producer.setNamesrvAddr(brokerProperties().get("rocketmq.namesrv-addr"));
        producer.setInstanceName("plain-producer-" + UUID.randomUUID());
        producer.start();
        return producer;
    }

    private static SendResult send(DefaultMQProducer producer, org.apache.rocketmq.common.message.Message message)
            throws Exception {
        SendResult result = producer.send(message);
        assertThat(result.getSendStatus()).isEqualTo(SendStatus.SEND_OK);
        return result;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** What the plain producer sent: RocketMQ keys (null for none), the seq property, and the broker's answer. */
    private record Sent(String keys, String seq, SendResult result) {}
}
