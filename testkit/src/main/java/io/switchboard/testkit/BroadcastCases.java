package io.switchboard.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.switchboard.Delivery;
import io.switchboard.Publisher;
import io.switchboard.UnsupportedCapabilityException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The contract's "Broadcast" cases; {@link BrokerContract} runs them as a nested group. */
abstract class BroadcastCases extends ContractCases {

    BroadcastCases(ContractSupport contract) {
        super(contract);
    }

    @Test
    @DisplayName("delivers every message to every broadcast subscriber")
    void everySubscriberGetsEverything() {
        assumeTrue(capabilities().broadcast(), "broker '" + brokerId() + "' does not declare broadcast");
        String dest = destination();
        Recorder<String> one = recorder();
        Recorder<String> two = recorder();
        subscribe(switchboard(), dest, TEXT, b -> b.broadcast(), one);
        subscribe(newSwitchboard(), dest, TEXT, b -> b.broadcast(), two);
        Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
        for (int i = 0; i < 20; i++) {
            join(pub.publish("b" + i));
        }
        assertThat(one.awaitCount(20).payloads()).hasSize(20).doesNotHaveDuplicates();
        assertThat(two.awaitCount(20).payloads()).hasSize(20).doesNotHaveDuplicates();
    }

    @Test
    @DisplayName("is refused at build time by a broker that cannot broadcast")
    void refusedWithoutCapability() {
        assumeFalse(capabilities().broadcast(), "broker '" + brokerId() + "' supports broadcast");
        assertThatThrownBy(() -> switchboard().subscriber(destination(), TEXT).broadcast().subscribe((m, c) -> { }))
                .isInstanceOf(UnsupportedCapabilityException.class).hasMessageContaining(brokerId());
    }
}
