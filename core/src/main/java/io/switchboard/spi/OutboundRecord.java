package io.switchboard.spi;

import java.util.Map;

/**
 * A record on its way to the broker: bytes plus string headers. Core has already encoded the
 * payload, added the envelope headers and checked the size.
 *
 * <p>The header map is owned by the record and must not be modified by the adapter. Header names
 * are the envelope's logical names (see {@link io.switchboard.Envelope}); an adapter maps them to
 * its broker's CloudEvents binding when it writes them.
 *
 * @param destination the destination name
 * @param key the routing key (partition/queue selection and per-key order), or null
 * @param headers envelope plus user headers, never null
 * @param payload the encoded payload, never null
 * @param deliverAtEpochMillis earliest delivery time for delayed delivery, or 0 for now; only
 *     non-zero when the adapter declared {@link Capabilities#delayedDelivery()}
 */
public record OutboundRecord(
        String destination, String key, Map<String, String> headers, byte[] payload, long deliverAtEpochMillis) {}
