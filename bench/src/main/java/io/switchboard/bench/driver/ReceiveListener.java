package io.switchboard.bench.driver;

import io.switchboard.bench.measure.SendStamp;

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

    /**
     * One message arrived with this payload: its send time is read from the payload's first 8 bytes
     * ({@link SendStamp}), as every driver carries it.
     */
    default void received(byte[] payload) {
        received(SendStamp.read(payload), payload.length);
    }
}
