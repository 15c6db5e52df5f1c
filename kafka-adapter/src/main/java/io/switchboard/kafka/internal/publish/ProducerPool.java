package io.switchboard.kafka.internal.publish;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;

/**
 * Shares one {@link KafkaProducer} among the publishers of an adapter whose client settings are
 * equal (a producer is thread-safe and batches better when shared). The producer closes when its
 * last publisher releases it.
 */
public final class ProducerPool {

    private final Map<Map<String, Object>, Shared> producers = new HashMap<>();
    /** Told of each producer made (the adapter counts its network thread as the instance's client). */
    private final java.util.function.Consumer<Producer<byte[], byte[]>> made;

    /** A pool that tells {@code made} of each producer it makes. */
    public ProducerPool(java.util.function.Consumer<Producer<byte[], byte[]>> made) {
        this.made = made;
    }

    /** A lease on the producer for these settings, created on first use. */
    public synchronized Lease acquire(Map<String, Object> config) {
        Shared shared = producers.get(config);
        if (shared == null) {
            shared = new Shared(config, new KafkaProducer<>(config));
            made.accept(shared.producer);
            producers.put(config, shared);
        }
        shared.leases++;
        return new Lease(shared);
    }

    private void release(Shared shared, Duration timeout) {
        boolean last;
        synchronized (this) {
            last = --shared.leases == 0;
            if (last) {
                producers.remove(shared.config);
            }
        }
        if (last) {
            shared.producer.close(timeout);
        } else {
            shared.producer.flush();
        }
    }

    /** {@return the producers open now} */
    public synchronized java.util.List<Producer<byte[], byte[]>> open() {
        return producers.values().stream().map(shared -> shared.producer).toList();
    }

    /** Closes every producer still open (publishers that were never closed). */
    public void closeAll(Duration timeout) {
        Map<Map<String, Object>, Shared> open;
        synchronized (this) {
            open = new HashMap<>(producers);
            producers.clear();
        }
        open.values().forEach(shared -> shared.producer.close(timeout));
    }

    private static final class Shared {
        final Map<String, Object> config;
        final Producer<byte[], byte[]> producer;
        int leases;

        Shared(Map<String, Object> config, Producer<byte[], byte[]> producer) {
            this.config = config;
            this.producer = producer;
        }
    }

    /** One publisher's use of a shared producer. */
    final class Lease {
        private final Shared shared;

        private Lease(Shared shared) {
            this.shared = shared;
        }

        Producer<byte[], byte[]> producer() {
            return shared.producer;
        }

        /** Flushes what was sent, then gives the producer back (closing it when this was the last lease). */
        void release(Duration timeout) {
            ProducerPool.this.release(shared, timeout);
        }
    }
}
