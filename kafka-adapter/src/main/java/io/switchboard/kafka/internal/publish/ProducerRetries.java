package io.switchboard.kafka.internal.publish;

import io.switchboard.spi.ClientEvents;
import io.switchboard.spi.DaemonThreads;
import io.switchboard.spi.EventKinds;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.clients.producer.Producer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reports the retries inside an adapter's kafka-clients producers as {@link EventKinds#PUBLISH_RETRY} instants: the
 * producer retries a failed produce request itself (a leader gone, a connection lost with requests in flight) and tells
 * nobody, so one thread per adapter reads each producer's {@code record-retry-total} (group
 * {@code producer-topic-metrics}, tag {@code topic}) every {@value #EVERY_MILLIS} ms and reports a topic whose count
 * grew: subject the topic, detail how many records were retried since the last reading. At most one event a second
 * per producer and topic, whatever the storm; nothing per record.
 *
 * <p>The same reading takes the records per produce request the producers sent ({@code records-per-request-avg},
 * group {@code producer-metrics}, kafka-clients' own average over its metrics window, 30 s samples by default), each
 * producer weighted by its requests ({@code record-send-rate} over that average), for the comparison's
 * {@link #recordsPerRequest()}.
 *
 * <p>Runs only while something listens ({@link ClientEvents#NONE} starts no thread). {@link #close()} stops it.
 */
public final class ProducerRetries implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ProducerRetries.class);
    /** How often the producers' metrics are read, in milliseconds. */
    public static final long EVERY_MILLIS = 1000;
    private static final String GROUP = "producer-topic-metrics";
    private static final String NAME = "record-retry-total";
    private static final String PRODUCER_GROUP = "producer-metrics";
    private static final String PER_REQUEST = "records-per-request-avg";
    private static final String SEND_RATE = "record-send-rate";

    private final ClientEvents events;
    private final Supplier<List<Producer<byte[], byte[]>>> producers;
    private final ScheduledExecutorService thread;
    /** The last reading by producer and topic; the thread's only. */
    private final Map<Producer<byte[], byte[]>, Map<String, Double>> seen = new IdentityHashMap<>();
    /** The producers' records per request at the last reading; NaN when none sent lately. */
    private volatile double recordsPerRequest = Double.NaN;

    private ProducerRetries(String threadName, ClientEvents events, Supplier<List<Producer<byte[], byte[]>>> producers) {
        this.events = events;
        this.producers = producers;
        this.thread = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named(threadName));
    }

    /**
     * Starts reading the producers' retries, or nothing when nobody listens.
     *
     * @param threadName the thread's name
     * @param events where the instants go
     * @param producers the adapter's open producers
     * @return the running reader, to close with the adapter; null when {@code events} is {@link ClientEvents#NONE}
     */
    public static ProducerRetries start(String threadName, ClientEvents events,
            Supplier<List<Producer<byte[], byte[]>>> producers) {
        if (events == ClientEvents.NONE) {
            return null;
        }
        ProducerRetries retries = new ProducerRetries(threadName, events, producers);
        retries.thread.scheduleWithFixedDelay(retries::read, EVERY_MILLIS, EVERY_MILLIS, TimeUnit.MILLISECONDS);
        return retries;
    }

    private void read() {
        try {
            readOnce();
        } catch (RuntimeException e) {
            log.debug("Reading the Kafka producers' retries failed", e);
        }
    }

    private void readOnce() {
        List<Producer<byte[], byte[]>> open = producers.get();
        seen.keySet().retainAll(open);
        double records = 0;
        double requests = 0;
        for (Producer<byte[], byte[]> producer : open) {
            Map<String, Double> topics = seen.computeIfAbsent(producer, p -> new HashMap<>());
            double perRequest = Double.NaN;
            double rate = Double.NaN;
            for (Map.Entry<MetricName, ? extends Metric> metric : producer.metrics().entrySet()) {
                MetricName name = metric.getKey();
                if (PRODUCER_GROUP.equals(name.group()) && metric.getValue().metricValue() instanceof Double v) {
                    if (PER_REQUEST.equals(name.name())) {
                        perRequest = v;
                    } else if (SEND_RATE.equals(name.name())) {
                        rate = v;
                    }
                    continue;
                }
                if (!NAME.equals(name.name()) || !GROUP.equals(name.group())) {
                    continue;
                }
                String topic = name.tags().get("topic");
                if (!(metric.getValue().metricValue() instanceof Double total) || topic == null) {
                    continue;
                }
                Double before = topics.put(topic, total);
                double grew = total - (before == null ? 0 : before);
                if (grew >= 1) {
                    long count = (long) grew;
                    events.instant(EventKinds.PUBLISH_RETRY, topic, count + (count == 1 ? " record" : " records")
                            + " retried by the producer (kafka-clients' record-retry-total, " + (long) (double) total
                            + " in all)");
                }
            }
            if (perRequest > 0 && rate > 0 && Double.isFinite(perRequest) && Double.isFinite(rate)) {
                records += rate;
                requests += rate / perRequest;
            }
        }
        recordsPerRequest = requests > 0 ? records / requests : Double.NaN;
    }

    /**
     * {@return the records per produce request the adapter's producers sent lately (kafka-clients' metrics window),
     * as of the last reading; NaN when none sent}
     */
    public double recordsPerRequest() {
        return recordsPerRequest;
    }

    /** Stops the thread, waiting for a reading under way. */
    @Override
    public void close() {
        thread.shutdownNow();
        try {
            if (!thread.awaitTermination(EVERY_MILLIS * 5, TimeUnit.MILLISECONDS)) {
                log.warn("The Kafka producers' retry reader did not stop within {} ms", EVERY_MILLIS * 5);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
