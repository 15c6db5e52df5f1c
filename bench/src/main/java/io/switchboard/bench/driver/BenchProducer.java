package io.switchboard.bench.driver;

/** Sends to one topic. */
public interface BenchProducer extends AutoCloseable {

    /**
     * Sends one message asynchronously.
     *
     * @param key the key, or null
     * @param payload the payload, its first 8 bytes already the send time ({@link io.switchboard.bench.measure.SendStamp});
     *     the driver's own, not reused by the caller
     * @param sendMicros that send time, in microseconds since the epoch (the intended send time); drivers carry it
     *     in the payload only, never as a header, property or message timestamp
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
