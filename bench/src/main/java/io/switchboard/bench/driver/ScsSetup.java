package io.switchboard.bench.driver;

import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.cloud.stream.binder.kafka.KafkaBindingRebalanceListener;
import org.springframework.cloud.stream.config.ListenerContainerCustomizer;
import org.springframework.kafka.listener.AbstractMessageListenerContainer;
import org.springframework.messaging.Message;

/**
 * What {@link SpringCloudStreamDriver}'s Spring Boot application contexts are made of: their common
 * properties, the Rabbit binder's queue properties, the beans the driver registers, and the application.
 */
final class ScsSetup {

    private ScsSetup() {}

    /** The Rabbit binder's consumer properties that redeclare a queue with the native driver's arguments. */
    static void queueProperties(String prefix, Map<String, Object> properties, Map<String, String> props) {
        if (props.getOrDefault("queue-type", "classic").equals("quorum")) {
            properties.put(prefix + "quorum.enabled", true);
        }
        if (Boolean.parseBoolean(props.getOrDefault("lazy", "false"))) {
            properties.put(prefix + "lazy", true);
        }
        long maxLength = Long.parseLong(props.getOrDefault("max-length", "0"));
        if (maxLength > 0) {
            properties.put(prefix + "max-length", maxLength);
            properties.put(prefix + "overflow-behavior", props.getOrDefault("overflow", "drop-head"));
        }
    }

    /** What every context of this driver is given: the binder, the broker, and nothing of Boot's that a bench has no use for. */
    static Map<String, Object> common(boolean kafka, String address) {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("spring.main.register-shutdown-hook", false);
        properties.put("spring.jmx.enabled", false);
        properties.put("spring.cloud.stream.default-binder", kafka ? "kafka" : "rabbit");
        if (kafka) {
            properties.put("spring.cloud.stream.kafka.binder.brokers", address);
            properties.put("spring.cloud.stream.kafka.binder.auto-create-topics", false);
            properties.put("spring.cloud.stream.kafka.binder.auto-add-partitions", false);
        } else {
            properties.put("spring.rabbitmq.addresses", address);
        }
        return properties;
    }

    /**
     * The bench consumer's function: hands each payload to the bench's listener. A class of its own
     * so that Spring Cloud Function sees its {@code Message<byte[]>} input type.
     */
    static final class Sink implements Consumer<Message<byte[]>> {
        private final ReceiveListener listener;

        Sink(ReceiveListener listener) {
            this.listener = listener;
        }

        @Override
        public void accept(Message<byte[]> message) {
            listener.received(message.getPayload());
        }
    }

    /** Completes once the Kafka binding has its partitions (possibly none, when the group has more members than partitions). */
    static final class ReadyListener implements KafkaBindingRebalanceListener {
        private final CompletableFuture<Void> assigned;

        ReadyListener(CompletableFuture<Void> assigned) {
            this.assigned = assigned;
        }

        @Override
        public void onPartitionsAssigned(String bindingName, org.apache.kafka.clients.consumer.Consumer<?, ?> consumer,
                Collection<TopicPartition> partitions, boolean initial) {
            assigned.complete(null);
        }
    }

    /** The Kafka binding's commits as the native driver's: asynchronous, every commit-interval ({@code RECORD} at 0). */
    static final class KafkaCommits implements ListenerContainerCustomizer<AbstractMessageListenerContainer<?, ?>> {
        private final Duration commitInterval;

        KafkaCommits(Duration commitInterval) {
            this.commitInterval = commitInterval;
        }

        @Override
        public void configure(AbstractMessageListenerContainer<?, ?> container, String destinationName, String group) {
            SpringKafkaDriver.commitAfterHandler(container.getContainerProperties(), commitInterval);
        }
    }

    /** The application every context runs: Boot's auto-configuration, Spring Cloud Stream's and its binders'. */
    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class StreamApplication {}
}
