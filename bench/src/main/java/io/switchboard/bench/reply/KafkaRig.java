package io.switchboard.bench.reply;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.KafkaMessageListenerContainer;
import org.springframework.kafka.requestreply.ReplyingKafkaTemplate;
import org.springframework.kafka.support.KafkaHeaders;

/**
 * Kafka's own request/reply as a Spring user has it: Spring Kafka's {@link ReplyingKafkaTemplate} (its reply container
 * on a reply topic, correlation by {@code kafka_correlationId}), and responders that do what a {@code @KafkaListener}
 * with {@code @SendTo} does, each a kafka-clients consumer (one group) with a producer of its own: read the request,
 * send the reply to {@code kafka_replyTopic} with the correlation id. Client defaults, {@code acks=all} on both
 * producers, offsets committed automatically by the responders.
 */
final class KafkaRig implements Rig {

    private final String bootstrap;
    private final DefaultKafkaProducerFactory<byte[], byte[]> producers;
    private final KafkaMessageListenerContainer<byte[], byte[]> replies;
    private final ReplyingKafkaTemplate<byte[], byte[], byte[]> template;
    private final String requests;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Thread> responders = new ArrayList<>();

    KafkaRig(String bootstrap, String requests, int responderCount, int dropPercent, Duration timeout) throws Exception {
        this.bootstrap = bootstrap;
        this.requests = requests;
        String replyTopic = requests + "-replies";
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(requests, 4, (short) 1), new NewTopic(replyTopic, 4, (short) 1)))
                    .all().get(60, TimeUnit.SECONDS);
        }
        producers = new DefaultKafkaProducerFactory<>(producerProps());
        Map<String, Object> replyConsumer = consumerProps(requests + "-requester");
        ContainerProperties container = new ContainerProperties(replyTopic);
        replies = new KafkaMessageListenerContainer<>(new DefaultKafkaConsumerFactory<>(replyConsumer), container);
        template = new ReplyingKafkaTemplate<>(producers, replies);
        template.setDefaultReplyTimeout(timeout);
        template.setSharedReplyTopic(false);
        template.start();
        if (!template.waitForAssignment(Duration.ofSeconds(60))) {
            throw new IllegalStateException("The ReplyingKafkaTemplate's reply container got no partition of '" + replyTopic
                    + "' within 60 s");
        }
        AtomicLong seen = new AtomicLong();
        for (int i = 0; i < responderCount; i++) {
            Thread t = new Thread(() -> respond(seen, dropPercent), "bench-kafka-responder-" + i);
            t.setDaemon(true);
            responders.add(t);
            t.start();
        }
    }

    private Map<String, Object> producerProps() {
        Map<String, Object> p = new HashMap<>();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        return p;
    }

    private Map<String, Object> consumerProps(String group) {
        Map<String, Object> c = new HashMap<>();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
        return c;
    }

    /** A responder: what a {@code @KafkaListener @SendTo} method does, on a plain consumer and producer. */
    private void respond(AtomicLong seen, int dropPercent) {
        Map<String, Object> c = consumerProps(requests + "-responders");
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c);
                KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProps())) {
            consumer.subscribe(List.of(requests));
            while (running.get()) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                    if (RequestReplyBench.drops(seen.incrementAndGet(), dropPercent)) {
                        continue;
                    }
                    Header to = r.headers().lastHeader(KafkaHeaders.REPLY_TOPIC);
                    Header correlation = r.headers().lastHeader(KafkaHeaders.CORRELATION_ID);
                    if (to == null || correlation == null) {
                        continue;
                    }
                    ProducerRecord<byte[], byte[]> reply = new ProducerRecord<>(new String(to.value(),
                            java.nio.charset.StandardCharsets.UTF_8), null, r.key(), r.value());
                    reply.headers().add(KafkaHeaders.CORRELATION_ID, correlation.value());
                    producer.send(reply);
                }
            }
        }
    }

    @Override
    public String name() {
        return "kafka native (Spring Kafka ReplyingKafkaTemplate)";
    }

    @Override
    public void request(byte[] payload, Outcome outcome) {
        Rig.completes(template.sendAndReceive(new ProducerRecord<>(requests, payload)), outcome);
    }

    @Override
    public int pending() {
        return -1; // the template does not say
    }

    @Override
    public void close() throws InterruptedException {
        running.set(false);
        for (Thread t : responders) {
            t.join(10_000);
        }
        template.stop();
        template.destroy();
        producers.destroy();
    }
}
