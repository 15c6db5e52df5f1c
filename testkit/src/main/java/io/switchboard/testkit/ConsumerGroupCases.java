package io.switchboard.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Delivery;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The contract's "Consumer groups" cases; {@link BrokerContract} runs them as a nested group. */
abstract class ConsumerGroupCases extends ContractCases {

    ConsumerGroupCases(ContractSupport contract) {
        super(contract);
    }

    @Test
    @DisplayName("share the messages among members: each message is handled by one member")
    void membersCompete() {
        String dest = destination();
        Recorder<String> a = recorder();
        Recorder<String> b = recorder();
        subscribe(dest, TEXT, "workers", Delivery.AT_LEAST_ONCE, a);
        subscribe(newSwitchboard(), dest, TEXT, s -> s.group("workers").delivery(Delivery.AT_LEAST_ONCE), b);
        Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
        List<CompletableFuture<PublishReceipt>> sent = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            sent.add(pub.publish(keyed("k" + i, "m" + i)).toCompletableFuture());
        }
        join(CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)));
        await().atMost(timeout()).until(() -> a.received().size() + b.received().size() >= 200);
        List<String> all = new ArrayList<>(a.payloads());
        all.addAll(b.payloads());
        assertThat(all).hasSize(200).doesNotHaveDuplicates();
        assertThat(a.payloads()).as("member a's share").isNotEmpty();
        assertThat(b.payloads()).as("member b's share").isNotEmpty();
    }

    @Test
    @DisplayName("give every group its own copy of every message")
    void groupsAreIndependent() {
        String dest = destination();
        Recorder<String> billing = recorder();
        Recorder<String> audit = recorder();
        subscribe(dest, TEXT, "billing", Delivery.AT_LEAST_ONCE, billing);
        subscribe(dest, TEXT, "audit", Delivery.AT_LEAST_ONCE, audit);
        Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
        for (int i = 0; i < 30; i++) {
            join(pub.publish("m" + i));
        }
        assertThat(billing.awaitCount(30).payloads()).hasSize(30).doesNotHaveDuplicates();
        assertThat(audit.awaitCount(30).payloads()).hasSize(30).doesNotHaveDuplicates();
    }

    @Test
    @DisplayName("keep messages published while no member is subscribed")
    void groupIsDurable() {
        String dest = destination();
        Subscription first = subscribe(dest, TEXT, "durable", Delivery.AT_LEAST_ONCE, recorder());
        first.close();
        Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
        for (int i = 0; i < 10; i++) {
            join(pub.publish("while-away-" + i));
        }
        Recorder<String> back = recorder();
        subscribe(dest, TEXT, "durable", Delivery.AT_LEAST_ONCE, back);
        assertThat(back.awaitCount(10).payloads()).hasSize(10).doesNotHaveDuplicates();
    }
}
