package io.switchboard.rabbit;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Connection;
import io.switchboard.Codec;
import io.switchboard.Message;
import io.switchboard.PublishException;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.SubscriptionException;
import io.switchboard.Switchboard;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.testkit.Received;
import io.switchboard.testkit.Recorder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("RabbitMQ-specific behaviour")
class RabbitBehaviourTest extends RabbitTestSupport {

    @Test
    @DisplayName("an unroutable message (no group bound yet) fails its publish; a routable one then succeeds")
    void unroutableFailsItsPublish() throws Exception {
        Switchboard sb = switchboard();
        String destination = scratch.name("nobody");
        Publisher<String> publisher = sb.publisher(destination, Codec.utf8()).build();

        CompletableFuture<PublishReceipt> lost = publisher.publish("into the void").toCompletableFuture();

        assertThat(lost).failsWithin(TIMEOUT).withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(PublishException.class)
                .withMessageContaining("could not route").withMessageContaining(destination)
                .withMessageContaining("rabbitmq.required-groups");
        Recorder<String> received = new Recorder<>(TIMEOUT);
        join(sb.subscriber(destination, Codec.utf8()).group("late").subscribe(received).ready());
        join(publisher.publish("now routable"));
        assertThat(received.awaitCount(1).payloads()).containsExactly("now routable");
    }

    @Test
    @DisplayName("required groups keep messages published before the group subscribes")
    void requiredGroupsKeepEarlyMessages() throws Exception {
        Switchboard sb = switchboard("rabbitmq.required-groups", "billing");
        String destination = scratch.name("early");
        Publisher<String> publisher = sb.publisher(destination, Codec.utf8()).build();
        join(publisher.publish(Message.of("k", "before anyone listened")));

        Recorder<String> received = new Recorder<>(TIMEOUT);
        join(sb.subscriber(destination, Codec.utf8()).group("billing").subscribe(received).ready());

        assertThat(received.awaitCount(1).payloads()).containsExactly("before anyone listened");
    }

    @Test
    @DisplayName("publishing to a destination that does not exist fails with the broker's reason and the fix")
    void missingExchangeFails() {
        Switchboard sb = switchboard("switchboard.auto-provision", "false");
        String destination = scratch.name("missing");
        Publisher<String> publisher = sb.publisher(destination, Codec.utf8()).build();

        assertThat(publisher.publish("x").toCompletableFuture()).failsWithin(TIMEOUT)
                .withThrowableOfType(ExecutionException.class).withCauseInstanceOf(PublishException.class)
                .withMessageContaining("no exchange '" + destination + "'").withMessageContaining("auto-provision");
    }

    @Test
    @DisplayName("a consumer cancelled by the broker (queue deleted) ends the subscription with a clear error")
    void consumerCancelEndsTheSubscription() throws Exception {
        Switchboard sb = switchboard();
        String destination = scratch.name("cancel");
        sb.provisioning().ensureDestination(DestinationSpec.of(destination, 1));
        Subscription subscription = sb.subscriber(destination, Codec.utf8()).group("g").subscribe((m, c) -> { });
        join(subscription.ready());
        String queue = destination + ".g";

        try (Connection admin = SERVER.connect(scratch.name("admin"))) {
            admin.createChannel().queueDelete(queue);
        }

        assertThat(subscription.terminated().toCompletableFuture()).failsWithin(TIMEOUT)
                .withThrowableOfType(ExecutionException.class).withCauseInstanceOf(SubscriptionException.class)
                .withMessageContaining("queue '" + queue + "'").withMessageContaining("deleted");
        assertThat(subscription.isActive()).isFalse();
    }

    @Test
    @DisplayName("a partitioned destination keeps per-key order with concurrency 4, spread over its 4 partition queues")
    void partitionedKeepsPerKeyOrder() throws Exception {
        Switchboard sb = switchboard();
        String destination = scratch.name("partitioned");
        sb.provisioning().ensureDestination(DestinationSpec.of(destination, 4));
        Recorder<String> received = new Recorder<>(TIMEOUT);
        join(sb.subscriber(destination, Codec.utf8()).group("g").concurrency(4).subscribe(received).ready());
        Publisher<String> publisher = sb.publisher(destination, Codec.utf8()).build();
        List<PublishReceipt> sent = publishKeyed(publisher, 100, 12);

        List<Received<String>> all = received.awaitCount(1200).received();
        Map<String, List<Integer>> perKey = new HashMap<>();
        for (Received<String> r : all) {
            String[] parts = r.message().payload().split(":");
            perKey.computeIfAbsent(parts[0], x -> new ArrayList<>()).add(Integer.parseInt(parts[1]));
        }
        assertThat(perKey).hasSize(12);
        perKey.values().forEach(sequence -> assertThat(sequence).hasSize(100).isSorted());
        assertThat(all.stream().map(r -> r.context().partition()).collect(Collectors.toSet())).containsExactlyInAnyOrder(0, 1, 2, 3);
        assertThat(all.stream().map(Received::thread).distinct().count()).as("handler threads").isGreaterThan(1);
        assertThat(sent).allSatisfy(r -> assertThat(r.partition()).isBetween(0, 3));
    }

    @Test
    @DisplayName("quorum queues work, and a subscription with other queue settings uses the existing queue as it is")
    void quorumQueuesAndSettingConflicts() throws Exception {
        Switchboard quorum = switchboard("rabbitmq.queue-type", "quorum", "rabbitmq.delivery-limit", "5");
        String destination = scratch.name("quorum");
        Recorder<String> received = new Recorder<>(TIMEOUT);
        Subscription first = quorum.subscriber(destination, Codec.utf8()).group("g").subscribe(received);
        join(first.ready());
        join(quorum.publisher(destination, Codec.utf8()).build().publish("replicated"));
        assertThat(received.awaitCount(1).payloads()).containsExactly("replicated");
        first.close();

        Switchboard classic = switchboard("rabbitmq.queue-type", "classic");
        Recorder<String> taken = new Recorder<>(TIMEOUT);
        join(classic.subscriber(destination, Codec.utf8()).group("g").subscribe(taken).ready());
        join(classic.publisher(destination, Codec.utf8()).build().publish("still quorum"));

        assertThat(taken.awaitCount(1).payloads()).containsExactly("still quorum");
    }

    @Test
    @DisplayName("the password of the URI never shows in errors")
    void passwordNeverShows() {
        Switchboard sb = Switchboard.builder().broker("rabbitmq")
                .property("rabbitmq.uri", "amqp://guest:topsecret@127.0.0.1:1/").build();
        try {
            Throwable error = org.assertj.core.api.Assertions.catchThrowable(
                    () -> sb.publisher(scratch.name("x"), Codec.utf8()).build());
            assertThat(error).hasMessageContaining("amqp://guest:******@127.0.0.1:1/")
                    .hasMessageContaining("rabbitmq-server -detached").hasMessageNotContaining("topsecret");
            assertThat(sb.toString()).doesNotContain("topsecret");
        } finally {
            sb.close();
        }
    }
}
