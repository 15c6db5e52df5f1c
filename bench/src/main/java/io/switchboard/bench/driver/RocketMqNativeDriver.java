package io.switchboard.bench.driver;

import io.switchboard.Delivery;
import io.switchboard.bench.workload.Workload;
import io.switchboard.spi.BrokerConfig;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
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
 * RocketMQ through plain rocketmq-client, set up as the Switchboard adapter sets up its own: one
 * producer for the run (asynchronous sends for at-least-once, one-way sends for at-most-once; a
 * key picks the queue by hash; 3 s send timeout), one push consumer per consumer with the
 * orderly listener the adapter uses for per-key order (8 consume threads, batches of up to 32, from the first offset,
 * {@code SUCCESS} after the message was handled). Every client has its own instance name so that
 * SDK and native clients in one JVM never share a client instance. The send time travels in
 * the payload's first 8 bytes, as through the SDK.
 *
 * <p>Workload properties (the adapter's names): {@code consume-threads}, {@code consume-mode},
 * {@code send-timeout}.
 */
final class RocketMqNativeDriver extends NativeDriver {

    private static final int MAX_BATCH = 32;
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
    /** Mode {@link BenchDriver#NATIVE_BATCH}: keyed sends batched per queue, in order ({@link RocketMqBatchingSender}). */
    private final boolean batching;

    /** @param mode {@link #NATIVE}, {@link #NATIVE_ENVELOPE}, {@link #NATIVE_BATCH} or {@link #NATIVE_BATCH_ENVELOPE} */
    RocketMqNativeDriver(String nameServer, Workload workload, String runId, String mode) throws Exception {
        super("rocketmq", mode.equals(NATIVE_ENVELOPE) || mode.equals(NATIVE_BATCH_ENVELOPE), mode);
        this.batching = mode.equals(NATIVE_BATCH) || mode.equals(NATIVE_BATCH_ENVELOPE);
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
        producer.setSendMsgTimeout((int) BrokerConfig.parseDuration(props.getOrDefault("send-timeout", "3s")).toMillis());
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
        NativeEnvelope ce = envelope ? new NativeEnvelope() : null;
        RocketMqBatchingSender lanes;
        try {
            lanes = batching && !oneWay ? new RocketMqBatchingSender(producer, topic) : null;
        } catch (Exception e) {
            throw new IllegalStateException("RocketMQ has no queues for topic " + topic + " to batch sends to: " + e, e);
        }
        return new BenchProducer() {
            @Override
            public void send(String key, byte[] payload, long sendMicros, BenchProducer.SendCallback callback) {
                Message message = new Message(topic, payload);
                // the send time is in the payload; plain runs carry no property of their own
                if (ce != null) {
                    // what the SDK's mapping writes for the default envelope (the CloudEvents RocketMQ binding's names)
                    message.putUserProperty("CE_specversion", NativeEnvelope.SPEC_VERSION);
                    message.putUserProperty("CE_id", ce.nextId());
                    message.putUserProperty("CE_source", NativeEnvelope.SOURCE);
                    message.putUserProperty("CE_type", NativeEnvelope.TYPE);
                    message.putUserProperty("CE_time", ce.time(sendMicros));
                    if (key != null) {
                        message.setKeys(key); // the SDK's mapping: the key is RocketMQ's KEYS, indexed by the broker
                    }
                }
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
                    } else if (lanes != null) {
                        lanes.send(key, message, callback);
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
        // a RocketMQ group must subscribe to the same topics on every member: one group per topic,
        // named as the adapter names it (<group>_<destination>)
        String group = subscription + "_" + topic;
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(group);
        consumer.setNamesrvAddr(nameServer);
        // as the adapter runs them: the first member of every group in one client instance shared by the run's consumers
        // (rocketmq-client's default when no instance name is set), a second member of a group in an instance of its own
        consumer.setInstanceName("bench-native-consumers-" + runId + (index == 0 ? "" : "-" + index));
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        int threads = Integer.parseInt(props.getOrDefault("consume-threads", "8"));
        consumer.setConsumeThreadMin(threads);
        consumer.setConsumeThreadMax(threads);
        // batches as the adapter takes them: up to 32 messages a pull and a listener call
        consumer.setConsumeMessageBatchMaxSize(Math.min(MAX_BATCH, workload.consumerPrefetch()));
        consumer.setPullBatchSize(MAX_BATCH);
        consumer.setPullThresholdForQueue(Math.max(2 * MAX_BATCH, Math.min(1000, workload.consumerPrefetch())));
        consumer.subscribe(topic, "*");
        // the adapter's listener: orderly unless the workload asks for rocketmq.consume-mode=concurrently
        if ("concurrently".equalsIgnoreCase(props.getOrDefault("consume-mode", "orderly").trim())) {
            consumer.registerMessageListener((MessageListenerConcurrently) (messages, context) -> {
                received(messages, listener);
                return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            });
        } else {
            consumer.registerMessageListener((MessageListenerOrderly) (messages, context) -> {
                received(messages, listener);
                return ConsumeOrderlyStatus.SUCCESS;
            });
        }
        consumer.start();
        return consumer::shutdown;
    }

    private static void received(List<MessageExt> messages, ReceiveListener listener) {
        for (MessageExt m : messages) {
            // envelope runs: the client has decoded every property, the CloudEvents ones included
            listener.received(m.getBody()); // the send time is in the payload, as through the SDK
        }
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
