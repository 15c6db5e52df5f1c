package io.switchboard.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.Delivery;
import io.switchboard.Publisher;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The contract's "At-most-once" cases; {@link BrokerContract} runs them as a nested group. */
abstract class AtMostOnceCases extends ContractCases {

    AtMostOnceCases(ContractSupport contract) {
        super(contract);
    }

    @Test
    @DisplayName("does not redeliver a message whose handler failed")
    void noRedelivery() {
        String dest = destination();
        Recorder<String> rec = new Recorder<>(timeout(), r -> r.message().payload().equals("boom"));
        subscribe(dest, TEXT, "g", Delivery.AT_MOST_ONCE, rec);
        Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_MOST_ONCE);
        join(pub.publish(keyed("same", "boom")));
        join(pub.publish(keyed("same", "after")));
        rec.awaitCount(1);
        assertThat(rec.payloads()).containsExactly("after");
        assertThat(rec.attempts()).extracting(r -> r.message().payload()).containsExactly("boom", "after");
    }

    @Test
    @DisplayName("delivers messages published without waiting for replication")
    void delivers() {
        String dest = destination();
        Recorder<String> rec = recorder();
        subscribe(dest, TEXT, "g", Delivery.AT_MOST_ONCE, rec);
        Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_MOST_ONCE);
        for (int i = 0; i < 50; i++) {
            join(pub.publish("amo-" + i));
        }
        assertThat(rec.awaitCount(50).payloads()).hasSize(50).doesNotHaveDuplicates();
    }
}
