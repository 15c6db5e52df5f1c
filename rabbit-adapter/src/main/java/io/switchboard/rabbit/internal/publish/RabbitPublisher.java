package io.switchboard.rabbit.internal.publish;

import io.switchboard.BackPressureException;
import io.switchboard.Delivery;
import io.switchboard.InvalidMessageException;
import io.switchboard.PublishException;
import io.switchboard.SwitchboardException;
import io.switchboard.UnsupportedCapabilityException;
import io.switchboard.rabbit.internal.RabbitAdapter;
import io.switchboard.rabbit.internal.RabbitSettings;
import io.switchboard.rabbit.internal.mapping.AmqpHeaders;
import io.switchboard.rabbit.internal.mapping.DelayLevels;
import io.switchboard.rabbit.internal.provision.Adoption;
import io.switchboard.rabbit.internal.provision.RabbitTopology;
import io.switchboard.spi.OutboundRecord;
import io.switchboard.spi.PublisherSpec;
import io.switchboard.spi.RawPublisher;
import io.switchboard.spi.SendResult;
import io.switchboard.spi.TagFilter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes to one destination exchange over a few {@link PublishChannel}s (a thread always uses
 * the same one, so one thread's records keep their order).
 *
 * <p>At-least-once and exactly-once: persistent records, publisher confirms tracked
 * asynchronously, at most {@code rabbitmq.max-outstanding-confirms} unconfirmed records per
 * publisher ({@link #send} waits up to {@code rabbitmq.publish-timeout} for room, then fails with
 * {@link BackPressureException}), {@code mandatory} so an unroutable record fails its future.
 * At-most-once: transient records, no confirms; the future completes when the client wrote it.
 * A record with a tag goes with routing key {@code "<partition>.<tag>"}, so that filtered groups' bindings
 * select it. A delayed record goes to the delay level of its delay's highest bit instead (persistent, and
 * with confirms "stored in that level's queue"), see {@link io.switchboard.rabbit.internal.provision.DelayChain}.
 * While the broker blocks publishers (a memory or disk alarm anywhere in the cluster), {@link #send}
 * waits for it to unblock, within the same {@code rabbitmq.publish-timeout}, as a native client's
 * write would, instead of failing records over an alarm that passes in seconds.
 */
public final class RabbitPublisher implements RawPublisher {

    private static final Logger log = LoggerFactory.getLogger(RabbitPublisher.class);

    private final RabbitAdapter adapter;
    private final String destination;
    private final boolean confirms;
    private final int partitions;
    /** rabbitmq.exchange-type=direct: the routing key is the partition alone. */
    private final boolean direct;
    private final SendResult[] results;
    private final PublishChannel[] channels;
    private final ConfirmWindow window;
    private final int windowSize;
    private final long publishTimeoutNanos;
    private final AtomicInteger roundRobin = new AtomicInteger();
    /** The exchange this publisher's own records go to: {@code rabbitmq.exchange}, else the destination. */
    private final String exchange;
    /** {@code rabbitmq.routing-key}: every record's routing key, or null to route by partition. */
    private final String fixedRoutingKey;
    /** Why delayed records cannot go (the layout gives up the delay levels), or null. */
    private final String noDelays;
    private volatile boolean closed;

    public RabbitPublisher(RabbitAdapter adapter, PublisherSpec spec, RabbitSettings settings) {
        this.adapter = adapter;
        this.destination = spec.destination();
        this.confirms = spec.delivery() != Delivery.AT_MOST_ONCE;
        this.partitions = adapter.partitions(destination, spec.properties(), settings);
        this.direct = settings.directExchanges;
        this.exchange = Adoption.publisher(adapter, destination, settings, partitions);
        this.fixedRoutingKey = settings.routingKey;
        this.noDelays = !exchange.equals(destination) || settings.declare != RabbitSettings.Declare.CREATE
                ? "Delayed delivery is not available to the publisher of '" + destination + "' on RabbitMQ: it publishes to "
                        + (exchange.isEmpty() ? "the default exchange" : "exchange '" + exchange + "'") + " with "
                        + RabbitSettings.DECLARE + "=" + settings.declare.name().toLowerCase(java.util.Locale.ROOT)
                        + ", and delayed records wait in Switchboard's delay levels, which reach only a destination's own "
                        + "exchange bound to them. Publish delayed records with a publisher that keeps Switchboard's layout ("
                        + RabbitSettings.EXCHANGE + " unset, " + RabbitSettings.DECLARE + "=create), or without a delay"
                : null;
        this.results = new SendResult[partitions];
        for (int p = 0; p < partitions; p++) {
            results[p] = new SendResult(p, -1);
        }
        this.channels = new PublishChannel[settings.publisherChannels];
        for (int i = 0; i < channels.length; i++) {
            channels[i] = new PublishChannel(adapter, destination, confirms, !settings.nackMeansFull(),
                    settings.publishTimeout.toNanos());
        }
        this.windowSize = settings.maxOutstandingConfirms;
        this.window = confirms ? new ConfirmWindow(windowSize, adapter.clientEvents(), destination) : null;
        this.publishTimeoutNanos = settings.publishTimeout.toNanos();
    }

    @Override
    public CompletableFuture<SendResult> send(OutboundRecord record) {
        return RawPublisher.sendViaCallback(this, record);
    }

    /** Core's way in: {@code done} is called once, on the connection's thread for a confirmed record; no future per record. */
    @Override
    public void send(OutboundRecord record, BiConsumer<SendResult, Throwable> done) {
        if (closed) {
            done.accept(null, adapter.closedError(destination));
            return;
        }
        String target = record.destination();
        boolean own = target.equals(destination);
        String exchange = own ? this.exchange : target;
        long delayUnits = 0;
        if (record.deliverAtEpochMillis() != 0) {
            try {
                delayUnits = DelayLevels.units(record.deliverAtEpochMillis(), System.currentTimeMillis());
                if (delayUnits > 0 && own && noDelays != null) {
                    done.accept(null, new UnsupportedCapabilityException(noDelays));
                    return;
                }
                if (delayUnits > 0) {
                    adapter.topology().delays().ensure(exchange);
                }
            } catch (IllegalArgumentException e) {
                done.accept(null, new InvalidMessageException("Message to '" + exchange + "': " + e.getMessage()));
                return;
            } catch (SwitchboardException e) {
                done.accept(null, new PublishException("Cannot publish a delayed message to '" + exchange + "': "
                        + e.getMessage(), e));
                return;
            }
        }
        Pending pending;
        try {
            int count = own ? partitions : adapter.partitions(target);
            int partition = partition(record.key(), count);
            String refused = admit();
            if (refused != null) {
                done.accept(null, new BackPressureException(refused));
                return;
            }
            try {
                SendResult result = count == partitions ? results[partition] : new SendResult(partition, -1);
                String routingKey = own && fixedRoutingKey != null ? fixedRoutingKey
                        : direct ? RabbitTopology.routingKey(partition)
                        : RabbitTopology.routingKey(partition, record.headers().get(TagFilter.TAG_HEADER));
                pending = delayUnits == 0
                        ? new Pending(exchange, routingKey, AmqpHeaders.properties(record, confirms), record.payload(), done,
                                result, window)
                        : new Pending(adapter.topology().delays().entry(delayUnits), routingKey,
                                AmqpHeaders.properties(record, confirms, delayUnits), record.payload(), done, result, window);
            } catch (RuntimeException e) {
                if (confirms) {
                    window.release(); // admitted, never handed to a channel
                }
                throw e;
            }
        } catch (RuntimeException e) {
            done.accept(null, e);
            return;
        }
        channels[(int) (Thread.currentThread().getId() % channels.length)].publish(pending); // never throws
    }

    private int partition(String key, int count) {
        if (count == 1) {
            return 0;
        }
        if (key != null) {
            return RabbitTopology.partitionOf(key, count);
        }
        return (roundRobin.getAndIncrement() & 0x7fffffff) % count;
    }

    /**
     * Waits, up to the publish timeout in all, while the broker blocks publishers (a resource alarm)
     * and, with confirms, for room in the window of unconfirmed records.
     *
     * @return null when the record may go, or why it may not
     */
    private String admit() {
        boolean held = confirms && window.tryAcquire();
        boolean room = !confirms || held;
        if (room && adapter.publishingBlocked() == null) {
            return null; // the fast path: neither blocked nor full, no clock read
        }
        long deadline = System.nanoTime() + publishTimeoutNanos;
        try {
            String blocked = adapter.awaitPublishing(deadline);
            if (blocked != null) {
                if (held) {
                    window.release();
                }
                return "RabbitMQ at " + adapter.printableUri() + " has blocked publishers for " + millis()
                        + " ms (" + blocked + "): a memory or disk alarm on a node of the cluster; free memory or disk on "
                        + "the server, publish again once it clears, or raise rabbitmq.publish-timeout to wait longer";
            }
            if (!room) {
                window.waitBegins();
            }
            if (!room && !window.tryAcquire(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                return "RabbitMQ has not confirmed " + windowSize + " records published to '" + destination + "' within "
                        + millis() + " ms; publish more slowly, or raise rabbitmq.max-outstanding-confirms or "
                        + "rabbitmq.publish-timeout";
            }
            return null;
        } catch (InterruptedException e) {
            if (held) {
                window.release();
            }
            Thread.currentThread().interrupt();
            throw new PublishException("Interrupted while waiting to publish to RabbitMQ ('" + destination + "')", e);
        }
    }

    private long millis() {
        return TimeUnit.NANOSECONDS.toMillis(publishTimeoutNanos);
    }

    /** Waits until every record sent so far is settled (up to the publish timeout), then closes the channels. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (confirms) {
            try {
                if (window.tryAcquire(windowSize, publishTimeoutNanos, TimeUnit.NANOSECONDS)) {
                    window.release(windowSize);
                } else {
                    log.warn("Closing the publisher for '{}' with {} record(s) RabbitMQ has not confirmed after {} ms; they "
                            + "fail with SwitchboardClosedException", destination, windowSize - window.availablePermits(),
                            TimeUnit.NANOSECONDS.toMillis(publishTimeoutNanos));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            window.end();
        }
        for (PublishChannel channel : channels) {
            channel.close();
        }
    }

    @Override
    public String toString() {
        return "RabbitPublisher[" + destination + ", " + (confirms ? "confirms" : "no confirms") + "]";
    }
}
