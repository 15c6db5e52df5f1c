package io.switchboard.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.switchboard.Delivery;
import io.switchboard.Message;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The contract's "Delayed delivery" cases; {@link BrokerContract} runs them as a nested group. */
abstract class DelayedCases extends ContractCases {

    DelayedCases(ContractSupport contract) {
        super(contract);
    }

    @Test
    @DisplayName("arrives no earlier than asked")
    void arrivesNoEarlier() {
        assumeTrue(capabilities().delayedDelivery(), "broker '" + brokerId() + "' does not declare delayed delivery");
        String dest = destination();
        Recorder<String> rec = recorder();
        subscribe(dest, TEXT, "g", Delivery.AT_LEAST_ONCE, rec);
        long sentAt = System.currentTimeMillis();
        join(publisher(dest, TEXT, Delivery.AT_LEAST_ONCE).publish(Message.builder("later").delay(Duration.ofSeconds(2)).build()));
        rec.awaitCount(1);
        long arrivedAfter = System.currentTimeMillis() - sentAt;
        assertThat(arrivedAfter).as("delivery no earlier than the delay").isGreaterThanOrEqualTo(2000 - 1000);
    }
}
