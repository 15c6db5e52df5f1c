package io.switchboard.rocketmq;

import java.util.Map;

/**
 * A message a {@link TransactionHandler} is asked about.
 *
 * @param destination the destination it was published to
 * @param messageId the envelope id ({@code Message.id()} on the publishing and the receiving side)
 * @param key the message key, or null
 * @param headers envelope and application headers under their Switchboard names, unmodifiable
 * @param payload the encoded payload
 */
public record TransactionalMessage(
        String destination, String messageId, String key, Map<String, String> headers, byte[] payload) {}
