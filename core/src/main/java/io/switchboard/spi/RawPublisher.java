package io.switchboard.spi;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

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

    /**
     * Hands one record to the broker and calls {@code done} once, with the broker's acknowledgement or the error, under
     * the same contract as {@link #send(OutboundRecord)}; {@code done} may run before this returns. Core publishes
     * through this method: an adapter whose client takes a callback overrides it to call {@code done} from that
     * callback, without a future per record (a {@link CompletableFuture} and the completion core would attach to it).
     * The default sends with {@link #send(OutboundRecord)} and attaches {@code done} to its future.
     *
     * @param record the record: destination, key, headers and payload
     * @param done called once with the acknowledgement (error null) or the error (result null); never throws
     */
    default void send(OutboundRecord record, BiConsumer<SendResult, Throwable> done) {
        CompletableFuture<SendResult> sent;
        try {
            sent = send(record);
        } catch (RuntimeException e) {
            done.accept(null, e);
            return;
        }
        sent.whenComplete(done);
    }

    /**
     * Hands several records to the broker, calling {@code done.get(i)} once for {@code records.get(i)}, under the same
     * contract as {@link #send(OutboundRecord, BiConsumer)}. Core calls it for {@link io.switchboard.Publisher#publishAll},
     * after every record was checked. An adapter whose broker takes several records in one request overrides it (and
     * says in its documentation whether such a request is atomic); the default hands them to
     * {@link #send(OutboundRecord, BiConsumer)} one by one, in order.
     *
     * @param records the records, in the order the application gave them
     * @param done one callback per record, at the same index; each called once, never throws
     */
    default void sendAll(List<OutboundRecord> records, List<? extends BiConsumer<SendResult, Throwable>> done) {
        for (int i = 0; i < records.size(); i++) {
            send(records.get(i), done.get(i));
        }
    }

    /**
     * The future-returning {@link #send(OutboundRecord)} of an adapter that overrides the callback
     * {@link #send(OutboundRecord, BiConsumer)} (only such an adapter may call it: the default callback send calls the
     * future-returning one).
     *
     * @param publisher the adapter's publisher
     * @param record the record
     * @return completed with the acknowledgement, or exceptionally with the adapter's own exception
     */
    static CompletableFuture<SendResult> sendViaCallback(RawPublisher publisher, OutboundRecord record) {
        CompletableFuture<SendResult> future = new CompletableFuture<>();
        publisher.send(record, (result, error) -> {
            if (error == null) {
                future.complete(result);
            } else {
                future.completeExceptionally(error);
            }
        });
        return future;
    }

    /** Flushes outstanding records, then releases resources. Idempotent. */
    @Override
    void close();
}
