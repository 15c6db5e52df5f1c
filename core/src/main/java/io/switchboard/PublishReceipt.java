package io.switchboard;

/**
 * The broker's acknowledgement of one published message.
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
public record PublishReceipt(String messageId, String destination, String instance, String brokerId, int partition,
        long offset) {

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
}
