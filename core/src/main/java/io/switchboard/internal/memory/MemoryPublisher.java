package io.switchboard.internal.memory;

import io.switchboard.SwitchboardClosedException;
import io.switchboard.spi.OutboundRecord;
import io.switchboard.spi.RawPublisher;
import io.switchboard.spi.SendResult;
import java.util.concurrent.CompletableFuture;

/** Appends to a memory topic; waits up to the publish timeout for space, then fails the future. */
final class MemoryPublisher implements RawPublisher {

    private final MemoryBroker broker;
    private final String destination;
    private final long timeoutNanos;
    private volatile boolean closed;

    MemoryPublisher(MemoryBroker broker, String destination, long timeoutNanos) {
        this.broker = broker;
        this.destination = destination;
        this.timeoutNanos = timeoutNanos;
    }

    @Override
    public CompletableFuture<SendResult> send(OutboundRecord record) {
        if (closed) {
            return CompletableFuture.failedFuture(
                    new SwitchboardClosedException("Memory publisher for '" + destination + "' is closed"));
        }
        try {
            return CompletableFuture.completedFuture(broker.topic(record.destination()).append(record, timeoutNanos));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public void close() {
        closed = true;
    }
}
