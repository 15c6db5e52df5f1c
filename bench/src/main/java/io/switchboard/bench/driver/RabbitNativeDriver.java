package io.switchboard.bench.driver;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import io.switchboard.Delivery;
import io.switchboard.bench.workload.Workload;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * RabbitMQ through plain amqp-client, set up as the Switchboard adapter sets up its own: a durable
 * exchange per topic, one durable queue per subscription (per subscription and partition when a
 * topic has several partitions, routed by key hash, round robin without a key); at-least-once
 * publishes persistent messages with asynchronous publisher confirms (at most
 * {@code max-outstanding-confirms}, default 1,000, unconfirmed per producer) and acknowledges each
 * message after it was handled, with a prefetch of {@code consumerPrefetch}; at-most-once publishes
 * transient messages without confirms and consumes with auto-ack. Each consumer of a subscription
 * consumes every queue of it. The send time travels in the payload's first 8 bytes, as through the SDK.
 *
 * <p>Workload properties (the adapter's names): {@code lazy}, {@code max-length}, {@code overflow},
 * {@code queue-type}, {@code max-outstanding-confirms}.
 */
final class RabbitNativeDriver extends NativeDriver {


    private final Workload workload;
    private final Map<String, String> props;
    private final boolean confirms;
    private final Connection publishConnection;
    private final Connection consumeConnection;
    private final Map<String, Integer> partitions = new ConcurrentHashMap<>();
    private final List<String> declaredQueues = new ArrayList<>();
    /** Envelope runs read the id, as the SDK does (the sum keeps the JIT from dropping the decoding). */
    private long idLength;

    RabbitNativeDriver(String uri, Workload workload, String runId, boolean envelope) throws Exception {
        super("rabbitmq", envelope);
        this.workload = workload;
        this.props = workload.propertiesFor("rabbitmq");
        this.confirms = workload.delivery() != Delivery.AT_MOST_ONCE;
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(uri);
        this.publishConnection = factory.newConnection("bench-native-" + runId + "-publish");
        this.consumeConnection = factory.newConnection("bench-native-" + runId + "-consume");
    }


    @Override
    public void createTopic(String topic, int partitionCount) throws Exception {
        try (Channel channel = publishConnection.createChannel()) {
            channel.exchangeDeclare(topic, BuiltinExchangeType.DIRECT, true);
        }
        partitions.put(topic, partitionCount);
    }

    @Override
    public BenchProducer createProducer(String topic) throws Exception {
        Channel channel = publishConnection.createChannel();
        int count = partitions.getOrDefault(topic, 1);
        if (!confirms) {
            return new RabbitProducer(channel, topic, count, null);
        }
        channel.confirmSelect();
        ConcurrentNavigableMap<Long, BenchProducer.SendCallback> pending = new ConcurrentSkipListMap<>();
        channel.addConfirmListener((tag, multiple) -> settle(pending, tag, multiple, null),
                (tag, multiple) -> settle(pending, tag, multiple, new IOException("nacked by RabbitMQ")));
        return new RabbitProducer(channel, topic, count, pending);
    }

    private static void settle(ConcurrentNavigableMap<Long, BenchProducer.SendCallback> pending, long tag, boolean multiple,
            Throwable error) {
        if (multiple) {
            ConcurrentNavigableMap<Long, BenchProducer.SendCallback> done = pending.headMap(tag, true);
            done.values().forEach(cb -> cb.done(error));
            done.clear();
        } else {
            BenchProducer.SendCallback cb = pending.remove(tag);
            if (cb != null) {
                cb.done(error);
            }
        }
    }

    @Override
    public AutoCloseable createConsumer(String topic, String subscription, int index, int consumers, ReceiveListener listener)
            throws Exception {
        int count = partitions.getOrDefault(topic, 1);
        Channel channel = consumeConnection.createChannel();
        boolean autoAck = !confirms;
        if (!autoAck) {
            channel.basicQos(Math.max(1, workload.consumerPrefetch() / count));
        }
        for (int p = 0; p < count; p++) {
            String queue = queueName(topic, subscription, p, count);
            channel.queueDeclare(queue, true, false, false, queueArguments(props));
            channel.queueBind(queue, topic, Integer.toString(p));
            synchronized (declaredQueues) {
                declaredQueues.add(queue);
            }
            channel.basicConsume(queue, autoAck, new DefaultConsumer(channel) {
                @Override
                public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body)
                        throws IOException {
                    Map<String, Object> headers = properties.getHeaders();
                    Object id = headers == null ? null : headers.get(AMQP_ID);
                    if (id != null) {
                        idLength += id.toString().length(); // read as the SDK reads it (a LongString decoded)
                    }
                    listener.received(body); // the send time is in the payload, as through the SDK
                    if (!autoAck) {
                        getChannel().basicAck(envelope.getDeliveryTag(), false);
                    }
                }
            });
        }
        return channel::close;
    }

    /** The queue of a subscription and partition, named as the adapter names it. */
    static String queueName(String topic, String subscription, int partition, int count) {
        return count == 1 ? topic + "." + subscription : topic + "." + subscription + "." + partition;
    }

    /** The partition (routing key) of a message: the key's hash, round robin without a key. */
    static int partition(String key, int roundRobin, int count) {
        return key == null ? Math.floorMod(roundRobin, count) : (key.hashCode() & 0x7fffffff) % count;
    }

    /** The queue arguments of the workload's properties ({@code queue-type}, {@code lazy}, {@code max-length}, {@code overflow}). */
    static Map<String, Object> queueArguments(Map<String, String> props) {
        Map<String, Object> args = new HashMap<>();
        args.put("x-queue-type", props.getOrDefault("queue-type", "classic"));
        if (Boolean.parseBoolean(props.getOrDefault("lazy", "false"))) {
            args.put("x-queue-mode", "lazy");
        }
        long maxLength = Long.parseLong(props.getOrDefault("max-length", "0"));
        if (maxLength > 0) {
            args.put("x-max-length", maxLength);
            args.put("x-overflow", props.getOrDefault("overflow", "drop-head"));
        }
        return args;
    }

    @Override
    public void deleteTopic(String topic) throws Exception {
        try (Channel channel = publishConnection.createChannel()) {
            deleteTopology(channel, topic, declaredQueues);
        }
    }

    /** Deletes the queues declared for a topic's subscriptions (of {@code declaredQueues}), then its exchange. */
    static void deleteTopology(Channel channel, String topic, List<String> declaredQueues) throws IOException {
        for (String queue : queuesOf(topic, declaredQueues)) {
            channel.queueDelete(queue);
        }
        channel.exchangeDelete(topic);
    }

    /** The queues of {@code declaredQueues} (guarded by itself) that belong to a topic. */
    static List<String> queuesOf(String topic, List<String> declaredQueues) {
        synchronized (declaredQueues) {
            return declaredQueues.stream().filter(queue -> queue.startsWith(topic + ".")).toList();
        }
    }

    @Override
    public void close() {
        for (Connection c : List.of(publishConnection, consumeConnection)) {
            try {
                c.close();
            } catch (IOException | RuntimeException e) {
                // already closed
            }
        }
    }

    /**
     * {@code -Dbench.rabbitmq.native-as-none=true}: the plain native run ({@code native}) writes the properties and
     * the header the SDK's envelope {@code none} writes (a {@code message-id}, a {@code timestamp}, the key as {@code
     * cloudEvents_subject}) and publishes as {@code mandatory}, so that a pair tells what those cost on the wire and in
     * the server from what the SDK's code costs (issue 35's RabbitMQ latency row).
     */
    static final boolean AS_NONE = Boolean.getBoolean("bench.rabbitmq.native-as-none");

    /** The envelope's header names as the SDK's AMQP mapping writes them: {@code ce_x} as {@code cloudEvents_x}. */
    private static final String AMQP_SPEC_VERSION = "cloudEvents_specversion";
    static final String AMQP_ID = "cloudEvents_id";
    private static final String AMQP_SOURCE = "cloudEvents_source";
    private static final String AMQP_TYPE = "cloudEvents_type";
    private static final String AMQP_TIME = "cloudEvents_time";
    private static final String AMQP_SUBJECT = "cloudEvents_subject";

    /**
     * The header table the SDK's AMQP mapping writes for the default envelope: the attributes but
     * content-type (a property), the key as {@code cloudEvents_subject} (RabbitMQ has no key of its own).
     */
    static Map<String, Object> envelopeHeaders(NativeEnvelope ce, String id, String key, long sendMicros) {
        Map<String, Object> headers = new HashMap<>(16);
        headers.put(AMQP_SPEC_VERSION, NativeEnvelope.SPEC_VERSION);
        headers.put(AMQP_ID, id);
        headers.put(AMQP_SOURCE, NativeEnvelope.SOURCE);
        headers.put(AMQP_TYPE, NativeEnvelope.TYPE);
        headers.put(AMQP_TIME, ce.time(sendMicros));
        if (key != null) {
            headers.put(AMQP_SUBJECT, key);
        }
        return headers;
    }

    /** The {@code timestamp} property the SDK's mapping writes: the send time in whole seconds. */
    static java.util.Date timestamp(long sendMicros) {
        return new java.util.Date(Math.floorDiv(sendMicros, 1_000_000L) * 1000);
    }

    /** One producer: its own channel, confirms tracked by sequence number. */
    // envelope runs: the SDK's CloudEvents headers as well (RabbitMQ's AMQP binding puts them in the header table)
    private final class RabbitProducer implements BenchProducer {
        private final Channel channel;
        private final String topic;
        private final int partitionCount;
        private final ConcurrentNavigableMap<Long, SendCallback> pending;
        private final java.util.concurrent.Semaphore window;
        private final NativeEnvelope ce = envelope ? new NativeEnvelope() : null;
        /** {@link #AS_NONE}: the plain run writes what the SDK's envelope {@code none} writes (a diagnostic). */
        private final NativeEnvelope asNone = !envelope && AS_NONE ? new NativeEnvelope() : null;
        private int roundRobin;

        RabbitProducer(Channel channel, String topic, int partitionCount, ConcurrentNavigableMap<Long, SendCallback> pending) {
            this.channel = channel;
            this.topic = topic;
            this.partitionCount = partitionCount;
            this.pending = pending;
            this.window = new java.util.concurrent.Semaphore(Integer.parseInt(props.getOrDefault("max-outstanding-confirms", "1000")));
        }

        @Override
        public void send(String key, byte[] payload, long sendMicros, SendCallback callback) {
            int partition = partition(key, roundRobin++, partitionCount);
            AMQP.BasicProperties.Builder builder = new AMQP.BasicProperties.Builder().deliveryMode(confirms ? 2 : 1);
            // the send time is in the payload; plain runs carry no header of their own
            if (ce != null) {
                // what the SDK's AMQP mapping writes for the default envelope of bytes: the attributes as headers
                // (no content-type: the lean default leaves application/octet-stream out); the id also as message-id, the time also as
                // timestamp (whole seconds); RabbitMQ has no key of its own, so the key as cloudEvents_subject
                String id = ce.nextId();
                builder.headers(envelopeHeaders(ce, id, key, sendMicros)).messageId(id)
                        .timestamp(timestamp(sendMicros));
            } else if (asNone != null) {
                // the SDK's envelope none: the id as message-id alone, the time as timestamp alone, the key as a header
                builder.headers(key == null ? null : Map.of(AMQP_SUBJECT, key)).messageId(asNone.nextId())
                        .timestamp(timestamp(sendMicros));
            }
            AMQP.BasicProperties properties = builder.build();
            // the SDK publishes with confirms as mandatory (an unroutable record fails); envelope runs do the same
            boolean mandatory = (ce != null || asNone != null) && pending != null;
            try {
                if (pending != null) {
                    window.acquire();
                    long tag = channel.getNextPublishSeqNo();
                    pending.put(tag, error -> {
                        window.release();
                        callback.done(error);
                    });
                }
                channel.basicPublish(topic, Integer.toString(partition), mandatory, properties, payload);
                if (pending == null) {
                    callback.done(null);
                }
            } catch (IOException | RuntimeException e) {
                callback.done(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                callback.done(e);
            }
        }

        @Override
        public void close() {
            try {
                if (pending != null) {
                    channel.waitForConfirms(30_000);
                }
                channel.close();
            } catch (Exception e) {
                // the connection closes with the driver anyway
            }
        }
    }
}
