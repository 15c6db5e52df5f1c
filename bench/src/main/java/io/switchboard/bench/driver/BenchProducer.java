package io.switchboard.bench.driver;

/** Sends to one topic. */
public interface BenchProducer extends AutoCloseable {

    /**
     * Sends one message asynchronously.
     *
     * @param key the key, or null
     * @param payload the payload
     * @param sendMicros the timestamp to carry, in microseconds since the epoch (the intended send time)
     * @param callback completed once the broker acknowledged the message (at once when the delivery
     *     guarantee has no acknowledgement), from any thread
     */
    void send(String key, byte[] payload, long sendMicros, SendCallback callback);

    /** Flushes and closes. */
    @Override
    void close();

    /** The outcome of one send. */
    @FunctionalInterface
    interface SendCallback {
        /** Called once: {@code error} is null on success. */
        void done(Throwable error);
    }
}
