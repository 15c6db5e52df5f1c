package io.switchboard.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.switchboard.Delivery;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The contract's "Ordering" cases; {@link BrokerContract} runs them as a nested group. */
abstract class OrderingCases extends ContractCases {

    OrderingCases(ContractSupport contract) {
        super(contract);
    }

    @Test
    @DisplayName("keeps messages with the same key in publish order, with concurrent handlers")
    void perKeyOrder() {
        assumeTrue(capabilities().orderingPerKey(), "broker '" + brokerId() + "' does not declare ordering per key");
        String dest = destination();
        Recorder<String> rec = recorder();
        subscribe(switchboard(), dest, TEXT, b -> b.group("g").concurrency(4), rec);
        Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
        List<CompletableFuture<PublishReceipt>> sent = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            for (int k = 0; k < 8; k++) {
                sent.add(pub.publish(keyed("key-" + k, k + ":" + i)).toCompletableFuture());
            }
        }
        join(CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)));
        rec.awaitCount(400);
        Map<String, List<Integer>> perKey = new HashMap<>();
        for (String p : rec.payloads()) {
            String[] parts = p.split(":");
            perKey.computeIfAbsent(parts[0], x -> new ArrayList<>()).add(Integer.parseInt(parts[1]));
        }
        assertThat(perKey).hasSize(8);
        perKey.values().forEach(seq -> assertThat(seq).isSorted().hasSize(50));
    }
}
