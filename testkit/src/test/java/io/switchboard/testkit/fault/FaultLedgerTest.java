package io.switchboard.testkit.fault;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("FaultLedger")
class FaultLedgerTest {

    @Test
    @DisplayName("counts lost acknowledged payloads and duplicate handler calls; failed publishes are not lost")
    void figures() {
        FaultLedger ledger = new FaultLedger("broker-restart", "kafka");
        for (String p : new String[] {"a", "b", "c", "d"}) {
            ledger.published(p);
        }
        ledger.acked("a");
        ledger.acked("b");
        ledger.acked("c");
        ledger.failed("d");
        ledger.consumed("a");
        ledger.consumed("a");
        ledger.consumed("b");
        assertThat(ledger.line()).isEqualTo(
                "fault=broker-restart broker=kafka published=4 acked=3 consumed=3 unique=2 lost=1 duplicates=1");
        assertThat(ledger.nothingLost()).isFalse();
        ledger.consumed("c");
        assertThat(ledger.nothingLost()).isTrue();
        assertThat(ledger.toString()).endsWith("(failed publishes 1)");
    }

    @Test
    @DisplayName("as a history checker: per-key reordering of first deliveries, unexpected payloads, the cluster line")
    void history() {
        FaultLedger ledger = new FaultLedger("leader-kill", "kafka");
        for (String p : new String[] {"k1:1", "k2:1", "k1:2", "k1:3", "k2:2"}) {
            String key = p.substring(0, 2);
            ledger.track(key, p, () -> java.util.concurrent.CompletableFuture.completedFuture(p));
        }
        ledger.consumed("k1", "k1:1");
        ledger.consumed("k1", "k1:3");
        ledger.consumed("k2", "k2:2");
        ledger.consumed("k1", "k1:2");   // published before k1:3, delivered after it: reordered
        ledger.consumed("k1", "k1:1");   // a redelivery: a duplicate, not a reorder
        ledger.consumed("k2", "k2:1");   // published before k2:2, delivered after it: reordered
        ledger.consumed("k9", "k9:1");   // never published
        assertThat(ledger.reorderedCount()).isEqualTo(2);
        assertThat(ledger.unexpectedCount()).isEqualTo(1);
        assertThat(ledger.lostCount()).isZero();
        assertThat(ledger.line(3)).startsWith("fault=leader-kill broker=kafka nodes=3 published=5 acked=5 consumed=7 unique=6 "
                + "lost=0 duplicates=1 reordered=2 unexpected=1 stall_ms=");
    }
}
