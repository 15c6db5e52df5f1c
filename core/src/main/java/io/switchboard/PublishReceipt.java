package io.switchboard;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The broker's acknowledgement of one published message: an immutable value with the accessors,
 * {@code equals}, {@code hashCode} and {@code toString} of a record of its six values, serialized
 * by Jackson as that record would be.
 *
 * <p>It is a class rather than a record so that a receipt made by a publisher writes the id's text
 * only when {@link #messageId()} is first called: most publishers never read it, and the text
 * would be most of what a publish allocates.
 */
@JsonPropertyOrder({"messageId", "destination", "instance", "brokerId", "partition", "offset"})
public final class PublishReceipt {

    /** The id as text, or the {@link Supplier} that writes it until someone asked for it. */
    private Object messageId;
    private final String destination;
    private final String instance;
    private final String brokerId;
    private final int partition;
    private final long offset;

    /**
     * A receipt.
     *
     * @param messageId the envelope id
     * @param destination the destination
     * @param instance the name of the broker instance that took the message; with routing across
     *     instances this tells which one it went to
     * @param brokerId the adapter id of that instance ({@code kafka}, {@code rabbitmq}, {@code rocketmq},
     *     {@code memory}); null only in a receipt built with the deprecated constructor
     * @param partition partition or queue index, or -1 when the broker does not say
     * @param offset offset within the partition, or -1 when the broker does not say
     */
    @JsonCreator
    public PublishReceipt(@JsonProperty("messageId") String messageId, @JsonProperty("destination") String destination,
            @JsonProperty("instance") String instance, @JsonProperty("brokerId") String brokerId,
            @JsonProperty("partition") int partition, @JsonProperty("offset") long offset) {
        this((Object) messageId, destination, instance, brokerId, partition, offset);
    }

    private PublishReceipt(Object messageId, String destination, String instance, String brokerId, int partition,
            long offset) {
        this.messageId = messageId;
        this.destination = destination;
        this.instance = instance;
        this.brokerId = brokerId;
        this.partition = partition;
        this.offset = offset;
    }

    /**
     * A receipt without the adapter id, as in early snapshots.
     *
     * @param messageId the envelope id
     * @param destination the destination's name
     * @param instance the name of the broker instance that took the message
     * @param partition the partition or queue index, or -1
     * @param offset the offset within the partition, or -1
     * @deprecated use the canonical constructor, which takes the instance name and the adapter id
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public PublishReceipt(String messageId, String destination, String instance, int partition, long offset) {
        this(messageId, destination, instance, null, partition, offset);
    }

    /**
     * A receipt whose id is written by {@code messageId} when {@link #messageId()} is first called
     * (at most once per thread that races to read it first; every call must give the same text).
     * For adapters and layers that hold an id as numbers and would otherwise write its text for
     * every message.
     *
     * @param messageId writes the envelope id
     * @param destination the destination
     * @param instance the name of the broker instance that took the message
     * @param brokerId the adapter id of that instance
     * @param partition partition or queue index, or -1
     * @param offset offset within the partition, or -1
     * @return the receipt
     */
    public static PublishReceipt withIdFrom(Supplier<String> messageId, String destination, String instance,
            String brokerId, int partition, long offset) {
        return new PublishReceipt((Object) Objects.requireNonNull(messageId, "messageId"), destination, instance,
                brokerId, partition, offset);
    }

    /** The id of a receipt made by {@link #atPosition}: written from the destination, partition and offset when asked. */
    private static final Object POSITION = new Object();

    /**
     * A receipt whose id is the record's position, {@code <destination>-<partition>-<offset>} (the id a consumer sees
     * for a record published without an envelope, {@code switchboard.envelope=none}), written when {@link #messageId()}
     * is first called.
     *
     * @param destination the destination
     * @param instance the name of the broker instance that took the message
     * @param brokerId the adapter id of that instance
     * @param partition the partition, 0 or more
     * @param offset the offset within the partition, 0 or more
     * @return the receipt
     */
    public static PublishReceipt atPosition(String destination, String instance, String brokerId, int partition,
            long offset) {
        return new PublishReceipt(POSITION, destination, instance, brokerId, partition, offset);
    }

    /** {@return the envelope id} */
    @JsonProperty("messageId")
    public String messageId() {
        Object id = messageId;
        if (id == POSITION) {
            String text = destination + "-" + partition + "-" + offset;
            messageId = text; // racy but benign: every reader writes the same text
            return text;
        }
        if (id instanceof Supplier<?> supplier) {
            String text = (String) supplier.get();
            messageId = text; // racy but benign: every reader writes the same text
            return text;
        }
        return (String) id;
    }

    /** {@return the destination} */
    @JsonProperty("destination")
    public String destination() {
        return destination;
    }

    /**
     * {@return the name of the broker instance that took the message; with routing across instances
     * this tells which one it went to}
     */
    @JsonProperty("instance")
    public String instance() {
        return instance;
    }

    /**
     * {@return the adapter id of that instance ({@code kafka}, {@code rabbitmq}, {@code rocketmq},
     * {@code memory}); null only in a receipt built with the deprecated constructor}
     */
    @JsonProperty("brokerId")
    public String brokerId() {
        return brokerId;
    }

    /** {@return the partition or queue index, or -1 when the broker does not say} */
    @JsonProperty("partition")
    public int partition() {
        return partition;
    }

    /** {@return the offset within the partition, or -1 when the broker does not say} */
    @JsonProperty("offset")
    public long offset() {
        return offset;
    }

    /**
     * The broker instance's name, which this accessor has always returned (not the adapter id).
     *
     * @return the broker instance's name, as {@link #instance()}
     * @deprecated the name misled: use {@link #instance()} for the instance name or {@link #brokerId()}
     *     for the broker
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public String broker() {
        return instance;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof PublishReceipt r
                && partition == r.partition && offset == r.offset
                && Objects.equals(messageId(), r.messageId()) && Objects.equals(destination, r.destination)
                && Objects.equals(instance, r.instance) && Objects.equals(brokerId, r.brokerId);
    }

    @Override
    public int hashCode() {
        return Objects.hash(messageId(), destination, instance, brokerId, partition, offset);
    }

    @Override
    public String toString() {
        return "PublishReceipt[messageId=" + messageId() + ", destination=" + destination + ", instance=" + instance
                + ", brokerId=" + brokerId + ", partition=" + partition + ", offset=" + offset + "]";
    }
}
