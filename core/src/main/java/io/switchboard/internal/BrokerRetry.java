package io.switchboard.internal;

import io.switchboard.Delivery;
import io.switchboard.Envelope;
import io.switchboard.internal.envelope.Envelopes;
import io.switchboard.internal.envelope.MessageIds;
import io.switchboard.spi.BrokerAdapter;
import io.switchboard.spi.ConsumerSpec;
import io.switchboard.spi.InboundRecord;
import io.switchboard.spi.OutboundRecord;
import io.switchboard.spi.PublisherSpec;
import io.switchboard.spi.RawConsumer;
import io.switchboard.spi.RawPublisher;
import io.switchboard.spi.RecordListener;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A subscription's non-blocking retry through the broker ({@link io.switchboard.RetryPolicy#viaBroker}): a failed
 * message whose next wait is long enough is published to the group's retry destination
 * ({@code <destination>_retry_<group>}), delayed by the wait with the broker's delayed delivery, and the original is
 * acknowledged once that publish is; the same subscription reads the retry destination in the same group, and the
 * failed attempts so far travel in header {@value Envelope#RETRY_ATTEMPTS}. Nothing waits in the application.
 */
final class BrokerRetry implements AutoCloseable {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(BrokerRetry.class);

    private final String destination;
    private final RawPublisher publisher;
    private final RawConsumer consumer;

    private BrokerRetry(String destination, RawPublisher publisher, RawConsumer consumer) {
        this.destination = destination;
        this.publisher = publisher;
        this.consumer = consumer;
    }

    /** {@return the retry destination of a group} */
    static String destinationOf(String destination, String group) {
        return destination + "_retry_" + group;
    }

    /** Makes the publisher and the consumer of {@code spec}'s retry destination (provisioned by the instance). */
    static BrokerRetry open(Instance instance, ConsumerSpec spec) {
        BrokerAdapter adapter = instance.adapter();
        String retry = destinationOf(spec.destination(), spec.group());
        RawPublisher publisher = instance.created("a retry publisher", retry,
                () -> adapter.createPublisher(new PublisherSpec(retry, Delivery.AT_LEAST_ONCE, spec.properties())));
        try {
            RawConsumer consumer = instance.created("a retry consumer", retry, () -> adapter.createConsumer(new ConsumerSpec(
                    retry, spec.group(), spec.broadcast(), spec.delivery(), spec.maxInFlight(), null, spec.properties())));
            return new BrokerRetry(retry, publisher, consumer);
        } catch (RuntimeException e) {
            publisher.close();
            throw e;
        }
    }

    CompletionStage<Void> start(RecordListener listener) {
        return consumer.start(listener);
    }

    /** {@return the attempts that failed before this delivery: 0 unless the record came through a broker retry} */
    static int failedBefore(InboundRecord record) {
        String attempts = record.headers().get(Envelope.RETRY_ATTEMPTS);
        if (attempts == null) {
            return 0;
        }
        try {
            return Math.max(0, Integer.parseInt(attempts));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /**
     * Publishes the record again to the retry destination, due after {@code wait}, then settles the original: acked
     * once the broker has the copy, else returned for redelivery. Never blocks.
     */
    void retry(InboundRecord record, String id, int failedAttempts, Duration wait, java.util.function.Consumer<Boolean> settle) {
        log.debug("Attempt {} of message {} failed; retrying in {} through '{}'", failedAttempts, id, wait, destination);
        send(record, id, failedAttempts, wait).whenComplete((r, failure) -> {
            if (failure != null) {
                log.warn("Could not hand message {} to the broker for its retry through '{}'; returning it for redelivery", id,
                        destination, failure);
            }
            settle.accept(failure == null);
        });
    }

    private CompletableFuture<?> send(InboundRecord record, String id, int failedAttempts, Duration wait) {
        Map<String, String> headers = republished(record, id);
        headers.put(Envelope.RETRY_ATTEMPTS, Integer.toString(failedAttempts));
        try {
            return publisher.send(new OutboundRecord(destination, record.key(), headers, record.payload(),
                    System.currentTimeMillis() + Math.max(1, wait.toMillis())));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * The headers of a record sent on (retry, dead letter) so that it keeps its id and time: a compact envelope keeps
     * them in {@code ce_sb}; a lean one took its time from the broker's timestamp, which the new record would not keep.
     */
    static Map<String, String> republished(InboundRecord record, String id) {
        Map<String, String> headers = new HashMap<>(record.headers());
        if (Envelope.id(headers) == null) {
            headers.put(Envelope.ID, id);
        }
        String compact = headers.get(Envelope.COMPACT);
        if (headers.get(Envelope.TIME) == null && (compact == null || MessageIds.compactTime(compact) == null)) {
            Instant time = Envelopes.time(record);
            if (time != null) {
                headers.put(Envelope.TIME, MessageIds.formatMicros(time.getEpochSecond(), time.getNano()));
            }
        }
        return headers;
    }

    void stop() {
        consumer.stop();
    }

    @Override
    public void close() {
        try {
            consumer.close();
        } finally {
            publisher.close();
        }
    }
}
