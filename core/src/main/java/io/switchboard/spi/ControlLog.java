package io.switchboard.spi;

import java.util.concurrent.CompletionStage;

/**
 * A durable, keyed log on a broker, read whole by every follower: the fleet control plane keeps
 * its route records in one. Thread-safe.
 */
public interface ControlLog extends AutoCloseable {

    /** Receives the log's records. */
    @FunctionalInterface
    interface Listener {
        /**
         * One record, in log order, always from the same adapter thread. Must not block; core
         * hands real work to its own thread. A record may be passed more than once (after a
         * reconnection): records carry versions, and core ignores what it has seen.
         *
         * @param key the record's key
         * @param value the record's bytes
         */
        void onRecord(String key, byte[] value);
    }

    /**
     * Appends one record.
     *
     * @param key the record's key; a later record with the same key supersedes it
     * @param value the record's bytes
     * @return completes when the broker has stored the record durably (as at-least-once
     *     publishing would); completes exceptionally when it could not, within the adapter's
     *     send timeout
     */
    CompletionStage<Void> append(String key, byte[] value);

    /**
     * Reads the log from its beginning and then follows it until {@link #close()}. Called once.
     * A lost connection is recovered by the adapter, which goes on after the last record it
     * passed (or from the beginning again; see {@link Listener#onRecord}).
     *
     * @param listener takes every record, in log order
     * @return completes once every record appended before this call has been passed to the
     *     listener (the follower has caught up); completes exceptionally when the log cannot be
     *     read, while the adapter keeps trying in the background
     */
    CompletionStage<Void> follow(Listener listener);

    /** {@return true while the adapter is connected to the broker and following; cheap, any thread} */
    boolean connected();

    /** Stops following and releases what the log holds. Idempotent. */
    @Override
    void close();
}
