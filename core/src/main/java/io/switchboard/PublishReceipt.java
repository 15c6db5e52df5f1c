package io.switchboard;

/**
 * The broker's acknowledgement of one published message.
 *
 * @param messageId the envelope id
 * @param destination the destination
 * @param broker the broker instance name
 * @param partition partition or queue index, or -1 when the broker does not say
 * @param offset offset within the partition, or -1 when the broker does not say
 */
public record PublishReceipt(String messageId, String destination, String broker, int partition, long offset) {}
