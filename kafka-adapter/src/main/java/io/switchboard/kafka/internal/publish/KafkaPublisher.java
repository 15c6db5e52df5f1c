package io.switchboard.kafka.internal.publish;

import io.switchboard.SwitchboardClosedException;
import io.switchboard.kafka.internal.delay.DelayTopics;
import io.switchboard.spi.KeyFormat;
import io.switchboard.spi.OutboundRecord;
import io.switchboard.spi.RawPublisher;
import io.switchboard.spi.SendResult;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * Publishes at-most-once (acks=1, no retries) or at-least-once (acks=all, idempotent producer): one
 * {@code send} per record, whose callback completes the returned future. Nothing else runs per
 * record: no flush, no lookup. A delayed record goes to its delay topic ({@link DelayTopics}).
 */
public final class KafkaPublisher implements RawPublisher {

    private final ProducerPool.Lease lease;
    private final String destination;
    private final Duration closeTimeout;
    private final Consumer<AutoCloseable> onClosed;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final DelayTopics delays;
    /** The publisher's key format, resolved once. */
    private final KeyFormat keys;

    public KafkaPublisher(ProducerPool.Lease lease, String destination, Duration closeTimeout, Consumer<AutoCloseable> onClosed,
            DelayTopics delays, KeyFormat keys) {
        this.lease = lease;
        this.delays = delays;
        this.keys = keys;
        this.destination = destination;
        this.closeTimeout = closeTimeout;
        this.onClosed = onClosed;
    }

    @Override
    public CompletableFuture<SendResult> send(OutboundRecord record) {
        return RawPublisher.sendViaCallback(this, record);
    }

    /** Core's path: the producer's callback calls {@code done}, no future per record. */
    @Override
    public void send(OutboundRecord record, BiConsumer<SendResult, Throwable> done) {
        if (closed.get()) {
            done.accept(null, new SwitchboardClosedException("Kafka publisher for '" + destination + "' is closed"));
            return;
        }
        try {
            if (record.deliverAtEpochMillis() == 0) {
                CallbackRecord kafka = CallbackRecord.of(record, keys, done);
                lease.producer().send(kafka, kafka);
            } else {
                lease.producer().send(delays.toKafka(record, keys), new SendCallback(record.destination(), done));
            }
        } catch (RuntimeException e) {
            done.accept(null, SendFuture.translate(e, record.destination()));
        }
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            try {
                lease.release(closeTimeout);
            } finally {
                onClosed.accept(this);
            }
        }
    }

    @Override
    public String toString() {
        return "KafkaPublisher[" + destination + "]";
    }
}
