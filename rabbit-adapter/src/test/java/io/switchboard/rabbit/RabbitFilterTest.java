package io.switchboard.rabbit;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.switchboard.Codec;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
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

@DisplayName("RabbitMQ tag filters: group bindings select the tags broker-side")
class RabbitFilterTest extends RabbitTestSupport {

    private static final String[] TAGS = {"paid", "shipped", "refunded", null, "paid.v2"};

    @Test
    @DisplayName("a filtered group's queue gets only its tags from the broker; an unfiltered group gets every record")
    void filteredGroupGetsOnlyItsTags() throws Exception {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        Switchboard sb = switchboard();
        sb.bindTo(meters);
        String destination = scratch.name("orders");
        Recorder<String> billing = recorded(sb.subscriber(destination, Codec.utf8()).group("billing").filter("paid || shipped"));
        Recorder<String> audit = recorded(sb.subscriber(destination, Codec.utf8()).group("audit"));

        int sent = publishTagged(sb.publisher(destination, Codec.utf8()).build(), 20);

        assertThat(audit.awaitCount(sent).payloads()).hasSize(sent);
        List<String> billed = billing.awaitCount(2 * 20).payloads();
        assertThat(billed).allMatch(p -> p.startsWith("paid/") || p.startsWith("shipped/")).hasSize(40);
        assertThat(meters.find("switchboard.filtered").counters()).allSatisfy(c ->
                assertThat(c.count()).as("records the client had to drop").isZero());
        System.out.println("capability=filter broker=rabbitmq sent=" + sent + " received=" + billed.size()
                + " (filter 'paid || shipped', expected 40) unfiltered_received=" + audit.payloads().size() + " lost=0");
    }

    @Test
    @DisplayName("the broker routes only the filter's tags into the group queue, also with partitions and per-key order")
    void partitionedQueuesHoldOnlyTheFiltersTags() throws Exception {
        Switchboard sb = switchboard();
        String destination = scratch.name("parts");
        sb.provisioning().ensureDestination(DestinationSpec.of(destination, 3));
        Subscription subscription = sb.subscriber(destination, Codec.utf8()).group("g").filter("paid").subscribe((m, c) -> { });
        join(subscription.ready());
        subscription.close(); // the durable queues keep their bindings: what the broker routes stays in them

        Publisher<String> publisher = sb.publisher(destination, Codec.utf8()).build();
        List<CompletableFuture<?>> sent = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            for (String tag : TAGS) {
                sent.add(publisher.publish(Message.builder("k" + i % 7 + ":" + i).key("k" + i % 7).tag(tag).build())
                        .toCompletableFuture());
            }
        }
        join(CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)));

        assertThat(queued(destination + ".g.0", destination + ".g.1", destination + ".g.2")).isEqualTo(30);
        Recorder<String> received = new Recorder<>(TIMEOUT);
        join(sb.subscriber(destination, Codec.utf8()).group("g").filter("paid").concurrency(3).subscribe(received).ready());
        List<Received<String>> all = received.awaitCount(30).received();
        assertThat(all).allSatisfy(r -> assertThat(r.message().tag()).isEqualTo("paid"));
        Map<String, List<Integer>> perKey = new HashMap<>();
        for (Received<String> r : all) {
            String[] parts = r.message().payload().split(":");
            perKey.computeIfAbsent(parts[0], k -> new ArrayList<>()).add(Integer.parseInt(parts[1]));
        }
        perKey.values().forEach(sequence -> assertThat(sequence).isSorted());
    }

    @Test
    @DisplayName("subscribing a group with another filter rebinds its queue; without a filter it gets everything again")
    void changingTheFilterRebindsTheGroup() throws Exception {
        Switchboard sb = switchboard();
        String destination = scratch.name("rebind");
        String queue = destination + ".g";
        Publisher<String> publisher = sb.publisher(destination, Codec.utf8()).build();

        sb.subscriber(destination, Codec.utf8()).group("g").filter("paid").subscribe((m, c) -> { }).close();
        publishTagged(publisher, 3);
        assertThat(queued(queue)).as("queued for 'paid'").isEqualTo(3);
        purge(queue);

        sb.subscriber(destination, Codec.utf8()).group("g").filter("shipped || paid.v2").subscribe((m, c) -> { }).close();
        publishTagged(publisher, 3);
        assertThat(queued(queue)).as("queued for 'shipped || paid.v2'").isEqualTo(6);
        purge(queue);

        Recorder<String> everything = new Recorder<>(TIMEOUT);
        join(sb.subscriber(destination, Codec.utf8()).group("g").subscribe(everything).ready());
        int sent = publishTagged(publisher, 3);
        assertThat(everything.awaitCount(sent).payloads()).hasSize(sent);
    }

    @Test
    @DisplayName("required groups declared again by a new publisher keep the filter a subscription gave them")
    void requiredGroupKeepsItsFilter() throws Exception {
        String destination = scratch.name("required");
        Switchboard first = switchboard("rabbitmq.required-groups", "g");
        first.subscriber(destination, Codec.utf8()).group("g").filter("paid").subscribe((m, c) -> { }).close();

        Switchboard second = switchboard("rabbitmq.required-groups", "g");
        publishTagged(second.publisher(destination, Codec.utf8()).build(), 4);

        assertThat(queued(destination + ".g")).isEqualTo(4);
    }

    @Test
    @DisplayName("a broadcast subscriber with a filter gets only its tags")
    void broadcastFilter() throws Exception {
        Switchboard sb = switchboard();
        String destination = scratch.name("fanout");
        Recorder<String> paid = recorded(sb.subscriber(destination, Codec.utf8()).broadcast().filter("paid"));
        Recorder<String> all = recorded(sb.subscriber(destination, Codec.utf8()).broadcast());

        int sent = publishTagged(sb.publisher(destination, Codec.utf8()).build(), 5);

        assertThat(all.awaitCount(sent).payloads()).hasSize(sent);
        assertThat(paid.awaitCount(5).payloads()).hasSize(5).allMatch(p -> p.startsWith("paid/"));
    }

    /** Publishes {@code rounds} records of each of {@link #TAGS} (payload {@code <tag>/<round>}); returns how many. */
    private static int publishTagged(Publisher<String> publisher, int rounds) throws Exception {
        List<CompletableFuture<?>> sent = new ArrayList<>();
        for (int i = 0; i < rounds; i++) {
            for (String tag : TAGS) {
                sent.add(publisher.publish(Message.builder(tag + "/" + i).tag(tag).build()).toCompletableFuture());
            }
        }
        join(CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)));
        return sent.size();
    }


    private void purge(String queue) throws Exception {
        try (Connection admin = SERVER.connect(scratch.name("admin")); Channel channel = admin.createChannel()) {
            channel.queuePurge(queue);
        }
    }
}
