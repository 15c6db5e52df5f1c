package io.switchboard.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.GetResponse;
import io.switchboard.Codec;
import io.switchboard.Message;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import io.switchboard.Switchboard;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.testkit.Received;
import io.switchboard.testkit.Recorder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Interop with plain amqp-client")
class RabbitInteropTest extends RabbitTestSupport {

    @Test
    @DisplayName("a plain consumer reads a Switchboard message as a CloudEvent in AMQP binary mode")
    void plainConsumerReadsSwitchboardMessage() throws Exception {
        Switchboard sb = switchboard();
        String destination = scratch.name("outbound");
        sb.provisioning().ensureDestination(DestinationSpec.of(destination, 1));
        try (Connection plain = SERVER.connect(scratch.name("plain"))) {
            Channel channel = plain.createChannel();
            String queue = scratch.queue("plain-reader");
            channel.queueDeclare(queue, false, true, true, null);
            channel.queueBind(queue, destination, "#");

            PublishReceipt receipt = join(sb.publisher(destination, Codec.utf8()).build()
                    .publish(Message.builder("hello").key("k-1").header("tenant", "acme").header("ce_region", "eu-west")
                            .build()));

            AtomicReference<GetResponse> got = new AtomicReference<>();
            await().atMost(TIMEOUT).until(() -> {
                got.set(channel.basicGet(queue, true));
                return got.get() != null;
            });
            AMQP.BasicProperties props = got.get().getProps();
            Map<String, Object> headers = props.getHeaders();
            assertThat(new String(got.get().getBody(), StandardCharsets.UTF_8)).isEqualTo("hello");
            assertThat(props.getMessageId()).isEqualTo(receipt.messageId());
            assertThat(props.getContentType()).startsWith("text/plain");
            assertThat(props.getDeliveryMode()).as("persistent").isEqualTo(2);
            assertThat(headers.get("cloudEvents_id")).hasToString(receipt.messageId());
            assertThat(headers.get("cloudEvents_specversion")).hasToString("1.0");
            assertThat(headers.get("cloudEvents_subject")).hasToString("k-1");
            assertThat(headers.get("tenant")).hasToString("acme");
            assertThat(headers.get("cloudEvents_region")).as("a CloudEvents extension, in the binding's form").hasToString("eu-west");
            String time = headers.get("cloudEvents_time").toString();
            assertThat(time).as("microsecond publish time").matches(".*T.*\\.\\d{6}Z");
            assertThat(props.getTimestamp().getTime()).as("AMQP timestamp: whole seconds of the same instant")
                    .isEqualTo(Instant.parse(time).getEpochSecond() * 1000);
        }
    }

    /** A fresh destination with one partition and group "g" subscribed to it through Switchboard. */
    private String subscribed(String prefix, Recorder<String> received) throws Exception {
        Switchboard sb = switchboard();
        String destination = scratch.name(prefix);
        sb.provisioning().ensureDestination(DestinationSpec.of(destination, 1));
        join(sb.subscriber(destination, Codec.utf8()).group("g").subscribe(received).ready());
        return destination;
    }

    @Test
    @DisplayName("a CloudEvents extension another producer wrote (cloudEvents:<name> or cloudEvents_<name>) reaches the handler as ce_<name>")
    void extensionsFromAnotherProducer() throws Exception {
        Recorder<String> received = new Recorder<>(TIMEOUT);
        String destination = subscribed("inbound-ext", received);
        AMQP.BasicProperties props = new AMQP.BasicProperties.Builder().messageId("ce-1").contentType("text/plain")
                .headers(Map.of("cloudEvents:specversion", "1.0", "cloudEvents:id", "ce-1", "cloudEvents:source", "/other",
                        "cloudEvents:type", "com.example.created", "cloudEvents:tenant", "acme", "cloudEvents_region", "eu-west"))
                .build();
        try (Connection plain = SERVER.connect(scratch.name("plain"))) {
            plain.createChannel().basicPublish(destination, "k", props, "event".getBytes(StandardCharsets.UTF_8));
        }
        Message<String> got = received.awaitCount(1).received().get(0).message();
        assertThat(got.id()).isEqualTo("ce-1");
        assertThat(got.headers()).containsOnly(Map.entry("ce_tenant", "acme"), Map.entry("ce_region", "eu-west"));
    }

    @Test
    @DisplayName("Switchboard consumes a plain message that has no envelope headers")
    void switchboardConsumesPlainMessage() throws Exception {
        Recorder<String> received = new Recorder<>(TIMEOUT);
        String destination = subscribed("inbound", received);
        try (Connection plain = SERVER.connect(scratch.name("plain"))) {
            Channel channel = plain.createChannel();
            channel.basicPublish(destination, "any.routing.key", null, "bare".getBytes(StandardCharsets.UTF_8));
            AMQP.BasicProperties props = new AMQP.BasicProperties.Builder().messageId("plain-2")
                    .timestamp(new Date(1_700_000_000_000L)).headers(Map.of("origin", "legacy")).build();
            channel.basicPublish(destination, "any.routing.key", props, "with id".getBytes(StandardCharsets.UTF_8));
        }

        var got = received.awaitCount(2).received();
        Message<String> bare = got.get(0).message();
        assertThat(bare.payload()).isEqualTo("bare");
        assertThat(bare.key()).as("a plain message's routing key is its key").isEqualTo("any.routing.key");
        assertThat(bare.headers()).isEmpty();
        assertThat(bare.id()).isNotBlank();
        Message<String> withId = got.get(1).message();
        assertThat(withId.id()).isEqualTo("plain-2");
        assertThat(withId.timestamp()).isEqualTo(Instant.ofEpochMilli(1_700_000_000_000L));
        assertThat(withId.headers()).containsExactly(Map.entry("origin", "legacy"));
        assertThat(got.get(0).context().attempt()).isEqualTo(1);
    }

    @Test
    @DisplayName("default (partitions off): a group is one queue bound with '#': a plain publisher reaches it"
            + " with any routing key")
    void plainPublisherReachesGroupWithAnyRoutingKey() throws Exception {
        Switchboard sb = switchboard();
        String destination = scratch.name("foreign-in");
        Recorder<String> received = new Recorder<>(TIMEOUT);
        join(sb.subscriber(destination, Codec.utf8()).group("g").subscribe(received).ready());
        try (Connection plain = SERVER.connect(scratch.name("plain"))) {
            assertThat(queueExists(plain, destination + ".g")).as("the group's one queue").isTrue();
            assertThat(queueExists(plain, destination + ".g.0")).as("no partition queues").isFalse();
            Channel channel = plain.createChannel();
            List<String> returned = new CopyOnWriteArrayList<>();
            channel.addReturnListener(r -> returned.add(r.getRoutingKey()));
            channel.confirmSelect();
            channel.basicPublish(destination, "k9", true, null, bytes("to k9"));
            channel.basicPublish(destination, "orders.eu", true,
                    new AMQP.BasicProperties.Builder().messageId("plain-eu").build(), bytes("to orders.eu"));
            channel.basicPublish(destination, "", true, null, bytes("to the empty key"));
            channel.waitForConfirmsOrDie(TIMEOUT.toMillis());
            assertThat(returned).as("routing keys the broker could not route").isEmpty();
        }

        Map<String, Message<String>> byPayload = new HashMap<>();
        received.awaitCount(3).received().forEach(r -> byPayload.put(r.message().payload(), r.message()));
        assertThat(byPayload).containsOnlyKeys("to k9", "to orders.eu", "to the empty key");
        assertThat(byPayload.get("to k9").key()).isEqualTo("k9");
        assertThat(byPayload.get("to orders.eu").key()).isEqualTo("orders.eu");
        assertThat(byPayload.get("to orders.eu").id()).as("the message-id property").isEqualTo("plain-eu");
        assertThat(byPayload.get("to the empty key").key()).as("an empty routing key is no key").isNull();
        assertThat(byPayload.get("to k9").id()).as("a generated id").isNotBlank().isNotEqualTo("plain-eu");
        assertThat(received.ids()).as("distinct ids").hasSize(3);
    }

    @Test
    @DisplayName("default (partitions off): a plain publisher's keys each arrive in order, with concurrent handlers"
            + " and across members with single-active-consumer")
    void plainPublisherKeepsPerKeyOrder() throws Exception {
        Switchboard first = switchboard("rabbitmq.single-active-consumer", "true");
        Switchboard second = switchboard("rabbitmq.single-active-consumer", "true");
        String destination = scratch.name("foreign-order");
        Recorder<String> received = new Recorder<>(TIMEOUT);
        join(first.subscriber(destination, Codec.utf8()).group("g").concurrency(4).subscribe(received).ready());
        join(second.subscriber(destination, Codec.utf8()).group("g").concurrency(4).subscribe(received).ready());
        int keys = 8;
        int perKey = 60;
        try (Connection plain = SERVER.connect(scratch.name("plain"))) {
            Channel channel = plain.createChannel();
            channel.confirmSelect();
            for (int i = 0; i < perKey; i++) {
                for (int k = 0; k < keys; k++) {
                    String routingKey = k % 2 == 0 ? "key-" + k : "orders.region-" + k;
                    channel.basicPublish(destination, routingKey, true, null, bytes(routingKey + ":" + i));
                }
            }
            channel.waitForConfirmsOrDie(TIMEOUT.toMillis());
        }

        List<Received<String>> all = received.awaitCount(keys * perKey).received();
        Map<String, List<Integer>> sequences = new HashMap<>();
        for (Received<String> r : all) {
            String[] parts = r.message().payload().split(":");
            assertThat(r.message().key()).as("the routing key is the key").isEqualTo(parts[0]);
            sequences.computeIfAbsent(parts[0], x -> new ArrayList<>()).add(Integer.parseInt(parts[1]));
        }
        assertThat(sequences).hasSize(keys);
        sequences.values().forEach(sequence -> assertThat(sequence).hasSize(perKey).isSorted());
        assertThat(all.stream().map(Received::thread).distinct().count()).as("handler threads").isGreaterThan(1);
        assertThat(all).allSatisfy(r -> assertThat(r.context().partition()).isEqualTo(-1));
    }

    @Test
    @DisplayName("default (partitions off): a plain consumer on its own queue bound with '#' receives Switchboard's"
            + " payload and CloudEvents headers")
    void plainConsumerReceivesFromDefaultDestination() throws Exception {
        Switchboard sb = switchboard();
        String destination = scratch.name("foreign-out");
        Publisher<String> publisher = sb.publisher(destination, Codec.utf8()).build(); // declares the exchange
        try (Connection plain = SERVER.connect(scratch.name("plain"))) {
            Channel channel = plain.createChannel();
            String queue = scratch.queue("plain-reader");
            channel.queueDeclare(queue, false, true, true, null);
            channel.queueBind(queue, destination, "#");
            BlockingQueue<Delivered> deliveries = new LinkedBlockingQueue<>();
            channel.basicConsume(queue, true, new DefaultConsumer(channel) {
                @Override
                public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body) {
                    deliveries.add(new Delivered(envelope, props, new String(body, StandardCharsets.UTF_8)));
                }
            });

            PublishReceipt keyed = join(publisher.publish(Message.builder("keyed").key("k-7").header("tenant", "acme").build()));
            PublishReceipt keyless = join(publisher.publish(Message.of("keyless")));

            Delivered first = take(deliveries);
            Delivered second = take(deliveries);
            assertThat(first.body()).isEqualTo("keyed");
            assertThat(second.body()).isEqualTo("keyless");
            assertThat(keyed.partition()).isZero();
            assertThat(first.envelope().getRoutingKey()).as("one partition: routing key \"0\"").isEqualTo("0");
            assertThat(second.envelope().getRoutingKey()).isEqualTo("0");
            Map<String, Object> headers = first.properties().getHeaders();
            assertThat(headers.get("cloudEvents_id")).hasToString(keyed.messageId());
            assertThat(headers.get("cloudEvents_specversion")).hasToString("1.0");
            assertThat(headers.get("cloudEvents_source")).hasToString("switchboard");
            assertThat(headers.get("cloudEvents_type")).hasToString("message");
            assertThat(headers.get("cloudEvents_subject")).as("AMQP has no key of its own: the key is the subject")
                    .hasToString("k-7");
            assertThat(headers).as("no attempt on a first publish").doesNotContainKey("cloudEvents_attempt");
            assertThat(headers.get("cloudEvents_time").toString()).matches(".*T.*\\.\\d{6}Z");
            assertThat(headers.get("tenant")).hasToString("acme");
            assertThat(first.properties().getMessageId()).isEqualTo(keyed.messageId());
            assertThat(first.properties().getContentType()).startsWith("text/plain");
            assertThat(first.properties().getDeliveryMode()).isEqualTo(2);
            Map<String, Object> keylessHeaders = second.properties().getHeaders();
            assertThat(keylessHeaders.get("cloudEvents_id")).hasToString(keyless.messageId());
            assertThat(keylessHeaders).doesNotContainKey("cloudEvents_subject");
        }
    }

    @Test
    @DisplayName("switchboard.partitions=4: groups have 4 partition queues; a plain publisher reaches one with"
            + " routing key \"2\", other keys are unroutable; two Switchboards with the same configuration agree")
    void explicitPartitions() throws Exception {
        Switchboard subscriberSide = switchboard("switchboard.partitions", "4");
        Switchboard publisherSide = switchboard("switchboard.partitions", "4");
        String destination = scratch.name("partitioned");
        Recorder<String> received = new Recorder<>(TIMEOUT);
        join(subscriberSide.subscriber(destination, Codec.utf8()).group("g").concurrency(4).subscribe(received).ready());
        try (Connection plain = SERVER.connect(scratch.name("plain"))) {
            for (int p = 0; p < 4; p++) {
                assertThat(queueExists(plain, destination + ".g." + p)).as("partition queue " + p).isTrue();
            }
            assertThat(queueExists(plain, destination + ".g")).as("no unpartitioned queue").isFalse();
            Channel channel = plain.createChannel();
            List<String> returned = new CopyOnWriteArrayList<>();
            channel.addReturnListener(r -> returned.add(r.getRoutingKey()));
            channel.confirmSelect();
            channel.basicPublish(destination, "2", true, new AMQP.BasicProperties.Builder().messageId("plain-2").build(),
                    bytes("to partition 2"));
            channel.basicPublish(destination, "k9", true, null, bytes("to nowhere"));
            channel.waitForConfirmsOrDie(TIMEOUT.toMillis());
            await().atMost(TIMEOUT).until(() -> !returned.isEmpty());
            assertThat(returned).as("returned as unroutable").containsExactly("k9");
        }
        Received<String> plainOne = received.awaitCount(1).received().get(0);
        assertThat(plainOne.message().payload()).isEqualTo("to partition 2");
        assertThat(plainOne.message().id()).isEqualTo("plain-2");
        assertThat(plainOne.context().partition()).isEqualTo(2);
        assertThat(plainOne.message().key()).as("a partition's routing key is no key").isNull();

        Publisher<String> publisher = publisherSide.publisher(destination, Codec.utf8()).build();
        List<PublishReceipt> sent = publishKeyed(publisher, 20, 8);
        List<Received<String>> all = received.awaitCount(1 + 160).received();
        Map<String, List<Integer>> sequences = new HashMap<>();
        for (Received<String> r : all.subList(1, all.size())) {
            String[] parts = r.message().payload().split(":");
            sequences.computeIfAbsent(parts[0], x -> new ArrayList<>()).add(Integer.parseInt(parts[1]));
            assertThat(r.context().partition()).isBetween(0, 3);
        }
        sequences.values().forEach(sequence -> assertThat(sequence).hasSize(20).isSorted());
        assertThat(sent.stream().map(PublishReceipt::partition).distinct().count()).as("partitions used").isGreaterThan(1);
    }

    @Test
    @DisplayName("a subscription's and a publisher's own switchboard.partitions asks for partitions on an instance without it")
    void partitionsPerSubscriptionAndPublisher() throws Exception {
        Switchboard sb = switchboard();
        String destination = scratch.name("own-partitions");
        Recorder<String> received = new Recorder<>(TIMEOUT);
        join(sb.subscriber(destination, Codec.utf8()).group("g").property("switchboard.partitions", "4")
                .subscribe(received).ready());
        try (Connection plain = SERVER.connect(scratch.name("plain"))) {
            assertThat(queueExists(plain, destination + ".g.3")).isTrue();
            assertThat(queueExists(plain, destination + ".g")).isFalse();
        }
        Publisher<String> publisher = sb.publisher(destination, Codec.utf8()).property("switchboard.partitions", "4").build();
        List<PublishReceipt> receipts = new ArrayList<>();
        for (int k = 0; k < 8; k++) {
            receipts.add(join(publisher.publish(Message.of("key-" + k, "v" + k))));
        }
        received.awaitCount(8);
        assertThat(receipts.stream().map(PublishReceipt::partition).distinct().count()).isGreaterThan(1);
        assertThat(received.received()).allSatisfy(r -> assertThat(r.context().partition()).isBetween(0, 3));
    }

    private record Delivered(Envelope envelope, AMQP.BasicProperties properties, String body) {}

    private static Delivered take(BlockingQueue<Delivered> deliveries) throws InterruptedException {
        Delivered delivered = deliveries.poll(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(delivered).as("a delivery within " + TIMEOUT).isNotNull();
        return delivered;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Whether the queue exists, asked on a channel of its own (a failed passive declare closes it). */
    private static boolean queueExists(Connection connection, String queue) throws Exception {
        Channel channel = connection.createChannel();
        try {
            channel.queueDeclarePassive(queue);
            return true;
        } catch (IOException e) {
            return false;
        } finally {
            if (channel.isOpen()) {
                channel.close();
            }
        }
    }
}
