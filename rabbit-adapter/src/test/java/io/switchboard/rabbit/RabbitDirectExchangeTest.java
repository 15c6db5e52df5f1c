package io.switchboard.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.switchboard.Codec;
import io.switchboard.ConfigurationException;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Switchboard;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.testkit.Received;
import io.switchboard.testkit.Recorder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("RabbitMQ with rabbitmq.exchange-type=direct: routed by partition, tag filters in the client")
class RabbitDirectExchangeTest extends RabbitTestSupport {

    private static final String DIRECT = "direct";
    private static final String[] TAGS = {"paid", "shipped", null};

    private Switchboard direct(String... more) {
        String[] keyValues = new String[more.length + 2];
        keyValues[0] = "rabbitmq.exchange-type";
        keyValues[1] = DIRECT;
        System.arraycopy(more, 0, keyValues, 2, more.length);
        return switchboard(keyValues);
    }

    @Test
    @DisplayName("each partition queue gets its keys in order; a filtered group gets only its tag, the rest counted as filtered")
    void partitionsKeysAndFilters() throws Exception {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        Switchboard sb = direct();
        sb.bindTo(meters);
        String destination = scratch.name("orders");
        sb.provisioning().ensureDestination(DestinationSpec.of(destination, 3));
        assertDirectExchange(destination);
        Recorder<String> all = recorded(sb.subscriber(destination, Codec.utf8()).group("all").concurrency(3));
        Recorder<String> paid = recorded(sb.subscriber(destination, Codec.utf8()).group("billing").filter("paid"));

        int sent = publishKeyedAndTagged(sb.publisher(destination, Codec.utf8()).build(), 20, 5);

        List<Received<String>> received = all.awaitCount(sent).received();
        assertThat(received).hasSize(sent);
        Map<String, List<Integer>> perKey = new HashMap<>();
        for (Received<String> r : received) {
            String[] parts = r.message().payload().split(":");
            perKey.computeIfAbsent(parts[0], k -> new ArrayList<>()).add(Integer.parseInt(parts[2]));
        }
        assertThat(perKey).hasSize(5);
        perKey.values().forEach(sequence -> assertThat(sequence).isSorted().hasSize(20 * TAGS.length));
        assertThat(paid.awaitCount(100).received()).hasSize(100)
                .allSatisfy(r -> assertThat(r.message().tag()).isEqualTo("paid"));
        assertThat(meters.find("switchboard.filtered").counters().stream().mapToDouble(c -> c.count()).sum())
                .as("records of other tags the billing group's client acknowledged and dropped").isEqualTo(sent - 100.0);
    }

    @Test
    @DisplayName("a broadcast subscriber gets the records of every partition")
    void broadcastGetsEveryPartition() throws Exception {
        Switchboard sb = direct();
        String destination = scratch.name("fanout");
        sb.provisioning().ensureDestination(DestinationSpec.of(destination, 4));
        Recorder<String> first = recorded(sb.subscriber(destination, Codec.utf8()).broadcast());
        Recorder<String> second = recorded(sb.subscriber(destination, Codec.utf8()).broadcast().filter("shipped"));

        int sent = publishKeyedAndTagged(sb.publisher(destination, Codec.utf8()).build(), 4, 8);

        assertThat(first.awaitCount(sent).payloads()).hasSize(sent).doesNotHaveDuplicates();
        assertThat(second.awaitCount(sent / TAGS.length).payloads()).hasSize(sent / TAGS.length)
                .allMatch(p -> p.contains(":shipped:"));
    }

    @Test
    @DisplayName("what the broker drops from a partition queue reaches the dead-letter destination (routing key 0)")
    void brokerDeadLettersReachTheDeadLetterDestination() throws Exception {
        Switchboard sb = direct("rabbitmq.required-groups", "g");
        String destination = scratch.name("limited");
        sb.provisioning().ensureDestination(DestinationSpec.of(destination + ".dlq", 2));
        sb.provisioning().ensureDestination(new DestinationSpec(destination, 3,
                Map.of("rabbitmq.max-length", "1", "rabbitmq.overflow", "drop-head")));

        int sent = publishKeyedAndTagged(sb.publisher(destination, Codec.utf8()).build(), 3, 6);

        long kept = queued(destination + ".g.0", destination + ".g.1", destination + ".g.2");
        long dead = queued(destination + ".dlq.default.0");
        assertThat(kept).as("one record left in each partition queue of 'g'").isEqualTo(3);
        assertThat(dead).as("the rest, dead-lettered by the broker into the dead-letter destination's partition 0")
                .isEqualTo(sent - 3);
        assertThat(queued(destination + ".dlq.default.1")).isZero();
    }

    @Test
    @DisplayName("a destination that exists as a topic exchange: the error names rabbitmq.exchange-type and both ways out")
    void topicExchangeRefused() throws Exception {
        String destination = scratch.name("made-as-topic");
        switchboard().provisioning().ensureDestination(DestinationSpec.of(destination, 1));

        assertThatThrownBy(() -> direct().provisioning().ensureDestination(DestinationSpec.of(destination, 1)))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("'" + destination + "'")
                .hasMessageContaining("rabbitmq.exchange-type=direct cannot use it")
                .hasMessageContaining("rabbitmq.exchange-type=topic")
                .hasMessageContaining("delete the exchange");
    }

    @Test
    @DisplayName("a subscription cannot route otherwise than its broker instance: refused, naming the property")
    void perSubscriptionExchangeTypeRefused() {
        Switchboard sb = direct();
        assertThatThrownBy(() -> sb.subscriber(scratch.name("own"), Codec.utf8()).group("g")
                .property("rabbitmq.exchange-type", "topic").subscribe((m, c) -> { }))
                .hasMessageContaining("rabbitmq.exchange-type")
                .hasMessageContaining("set it on the instance");
    }

    /** A passive-style check: declaring the exchange again as direct fails (406) unless it is one. */
    private void assertDirectExchange(String exchange) throws Exception {
        try (Connection admin = SERVER.connect(scratch.name("admin")); Channel channel = admin.createChannel()) {
            channel.exchangeDeclare(exchange, BuiltinExchangeType.DIRECT, true);
        }
    }

    /**
     * Publishes {@code rounds} rounds of one record per key and tag (payload {@code <key>:<tag>:<n>}, n counting per
     * key) and waits for every receipt; returns how many.
     */
    private static int publishKeyedAndTagged(Publisher<String> publisher, int rounds, int keys) throws Exception {
        List<CompletableFuture<?>> sent = new ArrayList<>();
        int[] next = new int[keys];
        for (int i = 0; i < rounds; i++) {
            for (String tag : TAGS) {
                for (int k = 0; k < keys; k++) {
                    String key = "key-" + k;
                    sent.add(publisher.publish(Message.builder(key + ":" + tag + ":" + next[k]++).key(key).tag(tag).build())
                            .toCompletableFuture());
                }
            }
        }
        join(CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)));
        return sent.size();
    }
}
