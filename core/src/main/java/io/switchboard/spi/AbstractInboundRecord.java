package io.switchboard.spi;

import java.util.Map;

/**
 * An {@link InboundRecord} with the record's attributes read from the broker's message once, when the record is made,
 * and then only returned, and the settlement state of {@link SettledOnce}. An adapter supplies the broker's
 * acknowledgement, and may override an accessor to work something out only when it is read (headers decoded lazily,
 * say).
 */
public abstract class AbstractInboundRecord extends SettledOnce {

    private final String destination;
    private final int partition;
    private final long offset;
    private final String key;
    private final Map<String, String> headers;
    private final byte[] payload;
    private final int deliveryCount;
    private final String nativeId;
    private final long brokerTimestamp;

    /**
     * Makes a record with the given attributes, in the settlement state {@code initialState}.
     *
     * @param destination the destination the record came from
     * @param partition the partition or queue index, or -1 when the broker has none
     * @param offset the offset or sequence within the partition, or -1 when unknown
     * @param key the record key, or null
     * @param headers the headers under the envelope's logical names; null only when the subclass
     *     overrides {@link #headers()}
     * @param payload the payload bytes
     * @param deliveryCount how many times the broker has delivered the record, this delivery included
     * @param nativeId the broker's own message id, or null
     * @param brokerTimestamp the broker's timestamp in epoch milliseconds, or -1
     * @param initialState the settlement state to start in: {@link #PENDING}, or an adapter's own
     *     state for a record settled before it reaches core
     */
    protected AbstractInboundRecord(String destination, int partition, long offset, String key, Map<String, String> headers,
            byte[] payload, int deliveryCount, String nativeId, long brokerTimestamp, int initialState) {
        super(initialState);
        this.destination = destination;
        this.partition = partition;
        this.offset = offset;
        this.key = key;
        this.headers = headers;
        this.payload = payload;
        this.deliveryCount = deliveryCount;
        this.nativeId = nativeId;
        this.brokerTimestamp = brokerTimestamp;
    }

    @Override
    public String destination() {
        return destination;
    }

    @Override
    public int partition() {
        return partition;
    }

    @Override
    public long offset() {
        return offset;
    }

    @Override
    public String key() {
        return key;
    }

    @Override
    public Map<String, String> headers() {
        return headers;
    }

    @Override
    public byte[] payload() {
        return payload;
    }

    @Override
    public int deliveryCount() {
        return deliveryCount;
    }

    @Override
    public String nativeId() {
        return nativeId;
    }

    @Override
    public long brokerTimestamp() {
        return brokerTimestamp;
    }
}
