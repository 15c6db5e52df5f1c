package io.switchboard.bench.driver;

import io.switchboard.Delivery;
import io.switchboard.bench.workload.Workload;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.core.AcknowledgeMode;
import org.springframework.amqp.core.Binding;
import org.springframework.amqp.core.DirectExchange;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageDeliveryMode;
import org.springframework.amqp.core.MessageListener;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.connection.CorrelationData;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;

/**
 * The Spring AMQP peer (modes {@link #SPRING} and {@link #SPRING_ENVELOPE}, {@code --spring-peers}):
 * what a Spring user would pick instead of Switchboard, on the topology of the native driver
 * ({@link RabbitNativeDriver}: a durable direct exchange per topic, a durable queue per subscription
 * and partition, routed by key hash) and with its guarantees. At-least-once: persistent messages
 * through a {@link RabbitTemplate} with correlated publisher confirms, a send acknowledged when its
 * {@link CorrelationData}'s future says ack (a nack or a returned message fails it), at most
 * {@code max-outstanding-confirms} (default 1,000) unconfirmed per producer as on the native side;
 * consuming through a {@link SimpleMessageListenerContainer} per bench consumer (one consumer
 * thread on all the subscription's queues) in {@link AcknowledgeMode#AUTO}: the container acks each
 * message after the listener returned (batch size 1), with a prefetch of {@code consumerPrefetch}
 * shared out over the queues, as the native driver's {@code basicQos}. At-most-once: transient
 * messages without confirms, {@link AcknowledgeMode#NONE} (auto-ack). Publishing and consuming use
 * a {@link CachingConnectionFactory} each (two connections, as the native driver has).
 *
 * <p>Mode {@link #SPRING} sends what a Spring application sends by default (the payload, Spring's
 * default properties: content-type {@code application/octet-stream}, delivery mode, priority 0);
 * {@link #SPRING_ENVELOPE} carries the same header table and properties as mode
 * {@link #NATIVE_ENVELOPE} and publishes as mandatory (an unroutable message fails, as through the
 * SDK), and its listener reads the id as the SDK does. Built by hand, without an application context:
 * no Micrometer timers or observations of Spring's own (the SDK driver runs with its meters on).
 * The send time travels in the payload's first 8 bytes.
 *
 * <p>Workload properties (the adapter's names): {@code lazy}, {@code max-length}, {@code overflow},
 * {@code queue-type}, {@code max-outstanding-confirms}.
 */
final class SpringRabbitDriver extends NativeDriver {

    private static final Logger log = LoggerFactory.getLogger(SpringRabbitDriver.class);

    private final Workload workload;
    private final Map<String, String> props;
    private final boolean confirms;
    private final CachingConnectionFactory publishFactory;
    private final CachingConnectionFactory consumeFactory;
    private final RabbitAdmin admin;
    private final RabbitTemplate template;
    private final Map<String, Integer> partitions = new ConcurrentHashMap<>();
    private final List<String> declaredQueues = new ArrayList<>();

    SpringRabbitDriver(String uri, Workload workload, String runId, boolean envelope) {
        super("rabbitmq", envelope, envelope ? SPRING_ENVELOPE : SPRING);
        this.workload = workload;
        this.props = workload.propertiesFor("rabbitmq");
        this.confirms = workload.delivery() != Delivery.AT_MOST_ONCE;
        this.publishFactory = new CachingConnectionFactory(URI.create(uri));
        publishFactory.setConnectionNameStrategy(f -> "bench-spring-" + runId + "-publish");
        if (confirms) {
            publishFactory.setPublisherConfirmType(CachingConnectionFactory.ConfirmType.CORRELATED);
            publishFactory.setPublisherReturns(envelope);
        }
        this.consumeFactory = new CachingConnectionFactory(URI.create(uri));
        consumeFactory.setConnectionNameStrategy(f -> "bench-spring-" + runId + "-consume");
        this.admin = new RabbitAdmin(publishFactory);
        this.template = new RabbitTemplate(publishFactory);
        // the SDK publishes with confirms as mandatory (an unroutable record fails); envelope runs do the same
        template.setMandatory(confirms && envelope);
        template.afterPropertiesSet();
    }

    @Override
    public void createTopic(String topic, int partitionCount) {
        admin.declareExchange(new DirectExchange(topic, true, false));
        partitions.put(topic, partitionCount);
    }

    @Override
    public BenchProducer createProducer(String topic) {
        return new SpringRabbitProducer(topic, partitions.getOrDefault(topic, 1));
    }

    @Override
    public AutoCloseable createConsumer(String topic, String subscription, int index, int consumers, ReceiveListener listener) {
        int count = partitions.getOrDefault(topic, 1);
        String[] queues = new String[count];
        for (int p = 0; p < count; p++) {
            queues[p] = RabbitNativeDriver.queueName(topic, subscription, p, count);
            Queue queue = new Queue(queues[p], true, false, false, RabbitNativeDriver.queueArguments(props));
            admin.declareQueue(queue);
            admin.declareBinding(new Binding(queues[p], Binding.DestinationType.QUEUE, topic, Integer.toString(p), null));
            synchronized (declaredQueues) {
                declaredQueues.add(queues[p]);
            }
        }
        SimpleMessageListenerContainer container = new SimpleMessageListenerContainer(consumeFactory);
        container.setQueueNames(queues);
        container.setConcurrentConsumers(1);
        container.setBatchSize(1);
        if (confirms) {
            container.setAcknowledgeMode(AcknowledgeMode.AUTO);
            container.setPrefetchCount(Math.max(1, workload.consumerPrefetch() / count));
        } else {
            container.setAcknowledgeMode(AcknowledgeMode.NONE);
        }
        IdReadingReceiver<Message> receiver = new IdReadingReceiver<>(listener, envelope ? SpringRabbitDriver::idLength : null);
        container.setMessageListener((MessageListener) message -> receiver.received(message, message.getBody()));
        container.setBeanName("bench-spring-" + subscription + "-" + index);
        container.afterPropertiesSet();
        container.start(); // returns once the consumer is consuming its queues
        return container::stop;
    }

    /** The length of a message's envelope id (0 without one), read as the SDK reads it. */
    private static int idLength(Message message) {
        Object id = message.getMessageProperties().getHeader(RabbitNativeDriver.AMQP_ID);
        return id == null ? 0 : id.toString().length();
    }

    @Override
    public void deleteTopic(String topic) {
        for (String queue : RabbitNativeDriver.queuesOf(topic, declaredQueues)) {
            admin.deleteQueue(queue);
        }
        admin.deleteExchange(topic);
    }

    @Override
    public void close() {
        try {
            template.destroy();
        } catch (RuntimeException e) {
            log.debug("Closing the RabbitTemplate failed", e);
        }
        publishFactory.destroy();
        consumeFactory.destroy();
    }

    /** One producer: a window of unconfirmed sends; the template picks a cached channel per send. */
    private final class SpringRabbitProducer implements BenchProducer {
        private final String topic;
        private final int partitionCount;
        private final RabbitConfirmWindow window = new RabbitConfirmWindow(props);
        private final NativeEnvelope ce = envelope ? new NativeEnvelope() : null;
        private int roundRobin;

        SpringRabbitProducer(String topic, int partitionCount) {
            this.topic = topic;
            this.partitionCount = partitionCount;
        }

        @Override
        public void send(String key, byte[] payload, long sendMicros, SendCallback callback) {
            String routingKey = Integer.toString(RabbitNativeDriver.partition(key, roundRobin++, partitionCount));
            MessageProperties properties = new MessageProperties();
            properties.setDeliveryMode(confirms ? MessageDeliveryMode.PERSISTENT : MessageDeliveryMode.NON_PERSISTENT);
            if (ce != null) {
                // what the SDK's AMQP mapping writes for the default envelope, as in native-ce
                String id = ce.nextId();
                properties.setHeaders(RabbitNativeDriver.envelopeHeaders(ce, id, key, sendMicros));
                properties.setContentType(NativeEnvelope.CONTENT_TYPE);
                properties.setMessageId(id);
                properties.setTimestamp(RabbitNativeDriver.timestamp(sendMicros));
            }
            Message message = new Message(payload, properties);
            if (!confirms) {
                try {
                    template.send(topic, routingKey, message);
                    callback.done(null);
                } catch (RuntimeException e) {
                    callback.done(e);
                }
                return;
            }
            window.publish(callback, correlation -> template.send(topic, routingKey, message, correlation));
        }

        @Override
        public void close() {
            if (confirms) {
                window.awaitConfirms(); // every send confirmed
            }
        }
    }
}
