package io.switchboard.spi;

import java.util.concurrent.CompletableFuture;

/**
 * Sends records to one destination. Thread-safe: core calls {@link #send} from any thread.
 *
 * <p>Contract:
 * <ul>
 *   <li>{@link #send} returns without waiting for the broker; it may wait a bounded, configured
 *       time for buffer space (back-pressure) and then fails the future.</li>
 *   <li>The future completes when the broker has acknowledged the record as the publisher's
 *       {@link io.switchboard.Delivery} requires (for at-most-once: when the client took it).</li>
 *   <li>It completes exceptionally with {@link io.switchboard.PublishException} when the broker
 *       rejected or could not route the record, with {@link io.switchboard.BackPressureException}
 *       when no buffer space came in time, and with
 *       {@link io.switchboard.SwitchboardClosedException} after {@link #close()}. Adapters never
 *       complete futures on a thread that holds a lock of theirs, and never block inside the
 *       client's callbacks.</li>
 *   <li>{@link #close()} flushes: records sent before it complete (successfully or not) before
 *       it returns. Idempotent.</li>
 * </ul>
 */
public interface RawPublisher extends AutoCloseable {

    /**
     * Hands one record to the broker; see the interface contract.
     *
     * @param record the record: destination, key, headers and payload
     * @return completes with the broker's acknowledgement, exceptionally when it refused or did not answer
     */
    CompletableFuture<SendResult> send(OutboundRecord record);

    /** Flushes outstanding records, then releases resources. Idempotent. */
    @Override
    void close();
}
