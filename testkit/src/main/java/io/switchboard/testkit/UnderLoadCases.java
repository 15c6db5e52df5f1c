package io.switchboard.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.Delivery;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The contract's "Under load" cases; {@link BrokerContract} runs them as a nested group. */
abstract class UnderLoadCases extends ContractCases {

    UnderLoadCases(ContractSupport contract) {
        super(contract);
    }

    @Test
    @DisplayName("many concurrent publisher threads lose nothing")
    void concurrentPublishers() throws Exception {
        String dest = destination();
        Recorder<String> rec = recorder();
        subscribe(switchboard(), dest, TEXT, b -> b.group("g").concurrency(4), rec);
        Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<CompletableFuture<Void>> done = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int thread = t;
                done.add(CompletableFuture.runAsync(() -> {
                    List<CompletableFuture<PublishReceipt>> sent = new ArrayList<>();
                    for (int i = 0; i < 250; i++) {
                        sent.add(pub.publish("t" + thread + "-" + i).toCompletableFuture());
                    }
                    CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).join();
                }, threads));
            }
            join(CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)));
        } finally {
            threads.shutdown();
        }
        assertThat(rec.awaitCount(2000).payloads()).hasSize(2000).doesNotHaveDuplicates();
    }

    @Test
    @DisplayName("a 10,000-message run arrives with exact counts")
    void tenThousand() {
        String dest = destination();
        Recorder<String> rec = recorder();
        subscribe(switchboard(), dest, TEXT, b -> b.group("g").concurrency(2).maxInFlight(1000), rec);
        Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
        List<CompletableFuture<PublishReceipt>> sent = new ArrayList<>(10_000);
        for (int i = 0; i < 10_000; i++) {
            sent.add(pub.publish(keyed("k" + (i % 16), Integer.toString(i))).toCompletableFuture());
        }
        join(CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)));
        rec.awaitCount(10_000);
        assertThat(rec.payloads()).hasSize(10_000).doesNotHaveDuplicates();
        assertThat(rec.ids()).hasSize(10_000);
    }
}
