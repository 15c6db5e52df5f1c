package io.switchboard.internal;

import io.switchboard.MessageTooLargeException;
import io.switchboard.UnsupportedCapabilityException;
import io.switchboard.internal.envelope.EnvelopeHeaders;
import io.switchboard.spi.Capabilities;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/** A message's checks against its broker's limits before {@link DefaultPublisher} sends it: its size, its delay. */
final class PublishLimits {

    /** Room for the envelope's own headers (names and values, trace headers included). */
    private static final int ENVELOPE_ALLOWANCE = 512;

    private PublishLimits() {}

    /** Throws when the payload, the application's headers and room for the envelope's exceed the broker's limit. */
    static void checkSize(EnvelopeHeaders headers, byte[] bytes, Map<String, String> userHeaders, Capabilities capabilities,
            String destination, String instance) {
        int headerBytes = ENVELOPE_ALLOWANCE;
        if (!userHeaders.isEmpty()) {
            for (Map.Entry<String, String> e : userHeaders.entrySet()) {
                headerBytes += e.getKey().length() + e.getValue().length();
            }
        }
        long total = (long) bytes.length + headerBytes;
        if (total > capabilities.maxMessageSize()) {
            throw new MessageTooLargeException("Message " + headers.id() + " to '" + destination + "' is " + total
                    + " bytes (payload " + bytes.length + " + headers " + headerBytes + ") but broker '" + instance + "' ("
                    + capabilities.brokerId() + ") accepts at most " + capabilities.maxMessageSize() + " bytes; send a "
                    + "reference to the data (claim check) or raise the broker's limit");
        }
    }

    /** {@return the delivery time in epoch milliseconds, 0 for now; throws where the broker cannot delay} */
    static long deliverAt(Duration delay, Instant at, Capabilities capabilities, String destination, String instance) {
        if ((delay == null || delay.isZero()) && at == null) {
            return 0;
        }
        if (!capabilities.delayedDelivery()) {
            throw new UnsupportedCapabilityException("Broker '" + instance + "' (" + capabilities.brokerId()
                    + ") has no delayed delivery for message to '" + destination + "'; alternative: a broker with "
                    + "delayed delivery (every built-in adapter has it), or schedule the publish in the application");
        }
        long now = System.currentTimeMillis();
        long due = at != null ? at.toEpochMilli() : now + delay.toMillis();
        return due > now ? due : 0;
    }
}
