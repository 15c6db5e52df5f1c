package io.switchboard.testkit;

import io.switchboard.spi.InboundRecord;
import io.switchboard.spi.RecordListener;
import java.util.List;
import java.util.Objects;

/**
 * A {@link RecordListener} for tests of an adapter's raw consumer: adds every record to a list, and
 * fails the test (an {@link AssertionError}) when the consumer reports a failure.
 */
public final class CollectingListener implements RecordListener {

    private final List<InboundRecord> records;

    /**
     * A listener adding to {@code records}.
     *
     * @param records where the records go, in delivery order; thread-safe when the consumer delivers on several threads
     */
    public CollectingListener(List<InboundRecord> records) {
        this.records = Objects.requireNonNull(records, "records");
    }

    @Override
    public void onRecord(InboundRecord record) {
        records.add(record);
    }

    @Override
    public void onFailure(Throwable error) {
        throw new AssertionError("consumer failed", error);
    }
}
