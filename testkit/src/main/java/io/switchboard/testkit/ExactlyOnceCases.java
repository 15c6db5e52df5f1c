package io.switchboard.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.Delivery;
import io.switchboard.Message;
import io.switchboard.Publisher;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The contract's "Exactly-once" cases; {@link BrokerContract} runs them as a nested group. */
abstract class ExactlyOnceCases extends ContractCases {

    ExactlyOnceCases(ContractSupport contract) {
        super(contract);
    }

    @Test
    @DisplayName("handles each message id once when duplicates are published")
    void duplicatesHandledOnce() {
        String dest = destination();
        Recorder<String> rec = recorder();
        subscribe(dest, TEXT, "g", Delivery.EXACTLY_ONCE, rec);
        Publisher<String> pub = publisher(dest, TEXT, Delivery.EXACTLY_ONCE);
        for (int i = 0; i < 10; i++) {
            Message<String> m = Message.builder("p" + i).key("k").id("dup-" + i).build();
            join(pub.publish(m));
            join(pub.publish(m));
            if (i % 3 == 0) {
                join(pub.publish(m));
            }
        }
        join(pub.publish(Message.builder("marker").key("k").id("marker").build()));
        rec.awaitCount(11);
        assertThat(rec.payloads()).containsExactly("p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9", "marker");
    }

    @Test
    @DisplayName("lets a retry handle a message whose first attempt failed")
    void failedAttemptReleasesTheId() {
        String dest = destination();
        Recorder<String> rec = new Recorder<>(timeout(), r -> r.context().attempt() == 1);
        subscribe(dest, TEXT, "g", Delivery.EXACTLY_ONCE, rec);
        join(publisher(dest, TEXT, Delivery.EXACTLY_ONCE).publish(Message.builder("retry-me").id("eo-1").build()));
        assertThat(rec.awaitCount(1).payloads()).containsExactly("retry-me");
        assertThat(rec.attempts()).hasSize(2);
    }

    @Test
    @DisplayName("deduplicates per consumer group: each group handles the id once")
    void perGroup() {
        String dest = destination();
        Recorder<String> a = recorder();
        Recorder<String> b = recorder();
        subscribe(dest, TEXT, "a", Delivery.EXACTLY_ONCE, a);
        subscribe(dest, TEXT, "b", Delivery.EXACTLY_ONCE, b);
        Publisher<String> pub = publisher(dest, TEXT, Delivery.EXACTLY_ONCE);
        Message<String> m = Message.builder("once").key("k").id("same-id").build();
        join(pub.publish(m));
        join(pub.publish(m));
        join(pub.publish(Message.builder("end").key("k").build()));
        assertThat(a.awaitCount(2).payloads()).containsExactly("once", "end");
        assertThat(b.awaitCount(2).payloads()).containsExactly("once", "end");
    }
}
