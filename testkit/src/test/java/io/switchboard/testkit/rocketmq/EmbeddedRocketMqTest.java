package io.switchboard.testkit.rocketmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendCallback;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("EmbeddedRocketMq")
class EmbeddedRocketMqTest {

    private static final EmbeddedRocketMq ROCKETMQ = EmbeddedRocketMq.shared();
    private static final int MESSAGES = 2_000;
    private static final int MAX_IN_FLIGHT = 256;

    private final List<Runnable> cleanups = new CopyOnWriteArrayList<>();

    @AfterEach
    void cleanUp() {
        cleanups.forEach(Runnable::run);
    }

    @Test
    @DisplayName("round-trips every message from an async producer to a push consumer")
    void roundTripsMessages() throws Exception {
        String topic = "embedded_round_trip";
        ROCKETMQ.createTopic(topic, 4);
        Map<String, String> received = new ConcurrentHashMap<>();
        startConsumer(topic, received);
        DefaultMQProducer producer = startProducer();

        List<Throwable> sendFailures = new CopyOnWriteArrayList<>();
        Semaphore window = new Semaphore(MAX_IN_FLIGHT);
        for (int i = 0; i < MESSAGES; i++) {
            window.acquire();
            Message message = new Message(topic, ("body-" + i).getBytes(StandardCharsets.UTF_8));
            message.setKeys("key-" + i);
            producer.send(message, new SendCallback() {
                @Override
                public void onSuccess(SendResult sendResult) {
                    window.release();
                }

                @Override
                public void onException(Throwable e) {
                    sendFailures.add(e);
                    window.release();
                }
            });
        }

        Map<String, String> expected = IntStream.range(0, MESSAGES).boxed()
                .collect(Collectors.toMap(i -> "key-" + i, i -> "body-" + i));
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            assertThat(sendFailures).isEmpty();
            assertThat(received).hasSize(MESSAGES);
        });
        assertThat(received).isEqualTo(expected);
    }

    @Test
    @DisplayName("createTopic returns once producers see every queue of the topic")
    void createTopicServesTheRoute() throws Exception {
        String topic = "embedded_route_check";
        ROCKETMQ.createTopic(topic, 3);

        List<MessageQueue> queues = startProducer().fetchPublishMessageQueues(topic);

        assertThat(queues).extracting(MessageQueue::getQueueId).containsExactlyInAnyOrder(0, 1, 2);
    }

    @Test
    @DisplayName("createTopic names the bad queue count")
    void createTopicRejectsZeroQueues() {
        assertThatThrownBy(() -> ROCKETMQ.createTopic("embedded_no_queues", 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("but was 0")
                .hasMessageContaining("embedded_no_queues");
    }

    @Test
    @DisplayName("shared() is one running broker that close() does not stop")
    void sharedInstanceOutlivesClose() {
        EmbeddedRocketMq shared = EmbeddedRocketMq.shared();
        shared.close();

        assertThat(shared).isSameAs(ROCKETMQ);
        assertThat(shared.nameServerAddress()).startsWith("127.0.0.1:");
        shared.createTopic("embedded_after_close", 1);
    }

    private DefaultMQProducer startProducer() throws Exception {
        DefaultMQProducer producer = new DefaultMQProducer("embedded_test_producer");
        producer.setNamesrvAddr(ROCKETMQ.nameServerAddress());
        producer.setInstanceName("embedded-test-" + System.nanoTime());
        producer.start();
        cleanups.add(producer::shutdown);
        return producer;
    }

    private void startConsumer(String topic, Map<String, String> received) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("embedded_test_" + topic);
        consumer.setNamesrvAddr(ROCKETMQ.nameServerAddress());
        consumer.setInstanceName("embedded-test-" + System.nanoTime());
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe(topic, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (messages, context) -> {
            messages.forEach(m -> received.put(m.getKeys(), new String(m.getBody(), StandardCharsets.UTF_8)));
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        cleanups.add(consumer::shutdown);
    }
}
