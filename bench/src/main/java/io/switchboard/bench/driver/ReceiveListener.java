package io.switchboard.bench.driver;

/** Told of every message a consumer receives, on the consumer's thread; must be quick. */
@FunctionalInterface
public interface ReceiveListener {

    /**
     * One message arrived.
     *
     * @param sendMicros the timestamp the producer gave it, microseconds since the epoch
     * @param payloadSize its payload size in bytes
     */
    void received(long sendMicros, int payloadSize);
}
