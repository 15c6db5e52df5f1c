package io.switchboard.bench.driver;

import io.switchboard.Delivery;
import io.switchboard.bench.workload.Workload;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.MessageQueueSelector;
import org.apache.rocketmq.client.producer.SendCallback;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.remoting.protocol.route.BrokerData;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;

/**
 * RocketMQ through plain rocketmq-client: one producer for the run (asynchronous sends for
 * at-least-once, one-way sends for at-most-once; a key picks the queue by hash), one push
 * consumer per consumer (concurrent listener, from the first offset, {@code CONSUME_SUCCESS}
 * after the message was handled). Every client has its own instance name so that SDK and native
 * clients in one JVM never share a client instance. The send time travels as a user property.
 *
 * <p>Workload properties: {@code consume-thread-min}, {@code consume-thread-max},
 * {@code pull-batch-size}, {@code send-timeout} (ms).
 */
final class RocketMqNativeDriver extends NativeDriver {

    static final String TIMESTAMP_PROPERTY = "bench_ts";
    private static final long ROUTE_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final MessageQueueSelector BY_KEY_HASH =
            (queues, message, key) -> queues.get((key.hashCode() & 0x7fffffff) % queues.size());

    private final Workload workload;
    private final Map<String, String> props;
    private final String nameServer;
    private final String runId;
    private final DefaultMQAdminExt admin;
    private final DefaultMQProducer producer;
    private final String brokerAddress;

    RocketMqNativeDriver(String nameServer, Workload workload, String runId) throws Exception {
        super("rocketmq");
        this.workload = workload;
        this.props = workload.propertiesFor("rocketmq");
        this.nameServer = nameServer;
        this.runId = runId;
        this.admin = new DefaultMQAdminExt();
        admin.setNamesrvAddr(nameServer);
        admin.setInstanceName("bench-native-admin-" + runId);
        admin.start();
        this.brokerAddress = admin.examineBrokerClusterInfo().getBrokerAddrTable().values().stream()
                .map(BrokerData::selectBrokerAddr).findFirst()
                .orElseThrow(() -> new IllegalStateException("No RocketMQ broker registered at name server " + nameServer));
        this.producer = new DefaultMQProducer("bench-native-" + runId);
        producer.setNamesrvAddr(nameServer);
        producer.setInstanceName("bench-native-producer-" + runId);
        producer.setSendMsgTimeout(Integer.parseInt(props.getOrDefault("send-timeout", "10000")));
        producer.start();
    }


    @Override
    public void createTopic(String topic, int partitions) throws Exception {
        TopicConfig config = new TopicConfig(topic, partitions, partitions);
        admin.createAndUpdateTopicConfig(brokerAddress, config);
        long deadline = System.nanoTime() + ROUTE_TIMEOUT_NANOS;
        while (true) {
            try {
                admin.examineTopicRouteInfo(topic);
                return;
            } catch (Exception e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("RocketMQ topic " + topic + " has no route after 30 s", e);
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            }
        }
    }

    @Override
    public BenchProducer createProducer(String topic) {
        boolean oneWay = workload.delivery() == Delivery.AT_MOST_ONCE;
        return new BenchProducer() {
            @Override
            public void send(String key, byte[] payload, long sendMicros, BenchProducer.SendCallback callback) {
                Message message = new Message(topic, payload);
                message.putUserProperty(TIMESTAMP_PROPERTY, Long.toString(sendMicros));
                try {
                    if (oneWay) {
                        if (key == null) {
                            producer.sendOneway(message);
                        } else {
                            producer.sendOneway(message, BY_KEY_HASH, key);
                        }
                        callback.done(null);
                    } else if (key == null) {
                        producer.send(message, adapt(callback));
                    } else {
                        producer.send(message, BY_KEY_HASH, key, adapt(callback));
                    }
                } catch (Exception e) {
                    callback.done(e);
                }
            }

            @Override
            public void close() {
                // the shared producer closes with the driver
            }
        };
    }

    private static SendCallback adapt(BenchProducer.SendCallback callback) {
        return new SendCallback() {
            @Override
            public void onSuccess(SendResult result) {
                callback.done(null);
            }

            @Override
            public void onException(Throwable e) {
                callback.done(e);
            }
        };
    }

    @Override
    public AutoCloseable createConsumer(String topic, String subscription, int index, int consumers, ReceiveListener listener)
            throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(subscription);
        consumer.setNamesrvAddr(nameServer);
        consumer.setInstanceName("bench-native-" + subscription + "-" + index);
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.setPullBatchSize(Integer.parseInt(props.getOrDefault("pull-batch-size", "32")));
        consumer.setConsumeThreadMin(Integer.parseInt(props.getOrDefault("consume-thread-min", "20")));
        consumer.setConsumeThreadMax(Integer.parseInt(props.getOrDefault("consume-thread-max", "20")));
        consumer.subscribe(topic, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (messages, context) -> {
            for (MessageExt m : messages) {
                listener.received(Long.parseLong(m.getUserProperty(TIMESTAMP_PROPERTY)), m.getBody().length);
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        return consumer::shutdown;
    }

    @Override
    public void deleteTopic(String topic) throws Exception {
        admin.deleteTopicInBroker(Set.of(brokerAddress), topic);
        admin.deleteTopicInNameServer(Set.of(nameServer), topic);
    }

    @Override
    public void close() {
        producer.shutdown();
        admin.shutdown();
    }
}
