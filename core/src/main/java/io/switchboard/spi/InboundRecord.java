package io.switchboard.spi;

import java.util.Map;

/**
 * A record delivered by a {@link RawConsumer}, with its acknowledgement handle.
 *
 * <p>Core calls exactly one of {@link #ack()} or {@link #nack()} for every record, from any
 * thread, possibly long after delivery; implementations must be thread-safe and must tolerate a
 * second call (ignored). Neither may block on the network: an adapter that must talk to the broker
 * to settle a record hands that work to its own thread or client.
 */
public interface InboundRecord {

    /** {@return the destination the record came from} */
    String destination();

    /** {@return the partition or queue index, or -1 when the broker has none} Core orders handling by it. */
    int partition();

    /** {@return the offset or sequence within the partition, or -1 when unknown} */
    long offset();

    /** {@return the record key, or null} */
    String key();

    /**
     * {@return the headers under the envelope's logical names (see {@link io.switchboard.Envelope})} A record
     * published by a plain client may have none of the envelope headers. Never null.
     */
    Map<String, String> headers();

    /** {@return the payload bytes, never null} */
    byte[] payload();

    /**
     * {@return how many times the broker has delivered this record, this delivery included (1 for a first
     * delivery)} Adapters whose broker does not count return 1, or 2 when the broker flags a redelivery without a
     * count.
     */
    int deliveryCount();

    /** {@return the broker's own message id, used when the record has no envelope id; or null} */
    default String nativeId() {
        return null;
    }

    /** {@return the broker's timestamp in epoch milliseconds, used when the record has no envelope time; or -1} */
    default long brokerTimestamp() {
        return -1;
    }

    /**
     * The record is done with: the broker may forget it for this consumer group. For Kafka this
     * allows committing the offset once all earlier offsets of the partition are acked too.
     */
    void ack();

    /**
     * The record was not processed: return it to the broker so that it is delivered again, to
     * this or another member of the group. Core calls it only when it could not finish a record
     * (shutdown before handling, dead-letter destination unavailable); retries with backoff and
     * dead-lettering are core's job, not the broker's.
     */
    void nack();
}
