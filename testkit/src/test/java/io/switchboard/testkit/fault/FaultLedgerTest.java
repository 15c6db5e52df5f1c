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
}
