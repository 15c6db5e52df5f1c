package io.switchboard.kafka.internal.consume;

import io.switchboard.spi.ClientEvents;
import io.switchboard.spi.EventKinds;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A group consumer's loss of every broker connection, as a {@link EventKinds#CONNECTION_LOST} span: kafka-clients has
 * no connection callback, so the poll thread reads the client's own {@code connection-count} metric (its open or
 * opening connections to brokers) at most every {@value #EVERY_MILLIS} ms. Two readings in a row at zero open the
 * span, two above zero end it (a reconnect attempt to a stopped broker is refused at once, so a reading seldom sees
 * one). A member of a group always holds its coordinator's connection, so zero means the cluster is unreachable from
 * this client; losing some brokers of several is not reported. Poll thread only; nothing per record.
 */
final class ConnectionWatch {

    private static final Logger log = LoggerFactory.getLogger(ConnectionWatch.class);
    static final long EVERY_MILLIS = 500;
    private static final long EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(EVERY_MILLIS);

    private final Consumer<?, ?> consumer;
    private final ClientEvents events;
    private final String group;
    private Metric connections;
    private long next;
    /** Readings in a row that disagree with the current state. */
    private int against;
    private ClientEvents.Span lost;

    ConnectionWatch(Consumer<?, ?> consumer, ClientEvents events, String group) {
        this.consumer = consumer;
        this.events = events;
        this.group = group;
    }

    /** After a poll: reads the metric when it is time. */
    void check() {
        if (events == ClientEvents.NONE) {
            return;
        }
        long now = System.nanoTime();
        if (now - next < 0) {
            return;
        }
        next = now + EVERY_NANOS;
        try {
            Metric metric = metric();
            if (metric == null || !(metric.metricValue() instanceof Number value)) {
                return;
            }
            boolean none = value.doubleValue() < 1;
            if (none == (lost != null)) {
                against = 0;
                return;
            }
            if (++against < 2) {
                return;
            }
            against = 0;
            if (none) {
                lost = events.begin(EventKinds.CONNECTION_LOST, group,
                        "the consumer holds no connection to any broker; kafka-clients reconnects");
            } else {
                end();
            }
        } catch (RuntimeException e) {
            log.debug("Reading the connections of a consumer of group '{}' failed", group, e);
        }
    }

    /** Ends an open span (the consumer closes). */
    void end() {
        ClientEvents.Span span = lost;
        lost = null;
        if (span != null) {
            span.end();
        }
    }

    private Metric metric() {
        if (connections == null) {
            for (var entry : consumer.metrics().entrySet()) {
                MetricName name = entry.getKey();
                if (name.name().equals("connection-count") && name.group().equals("consumer-metrics")) {
                    connections = entry.getValue();
                    break;
                }
            }
        }
        return connections;
    }
}
