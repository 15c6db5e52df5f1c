package io.switchboard.kafka;

import io.switchboard.kafka.internal.KafkaAdapter;
import io.switchboard.spi.BrokerAdapter;
import io.switchboard.spi.BrokerAdapterFactory;
import io.switchboard.spi.BrokerConfig;

/**
 * The Kafka adapter, id {@code kafka}, on {@code org.apache.kafka:kafka-clients}.
 *
 * <p>Properties of the broker instance (per publisher or subscription too, where they apply):
 * <ul>
 *   <li>{@code kafka.bootstrap.servers} (required) and every other kafka-clients property as
 *       {@code kafka.<name>}: {@code kafka.linger.ms}, {@code kafka.batch.size},
 *       {@code kafka.compression.type}, {@code kafka.buffer.memory}, {@code kafka.fetch.min.bytes},
 *       {@code kafka.security.protocol}, ... Each goes to the clients that know it;
 *       {@code kafka.producer.<name>}, {@code kafka.consumer.<name>} and {@code kafka.admin.<name>}
 *       reach one kind of client only and win. Serializers are always byte arrays, and a property
 *       that would weaken the delivery guarantee asked for is refused with the fix
 *       ({@code kafka.acks=1} on an at-least-once publisher, {@code kafka.retries} on an at-most-once
 *       one, {@code kafka.isolation.level=read_uncommitted} on an exactly-once subscription).</li>
 *   <li>The adapter's own settings, hyphenated so that they never clash with Kafka's names:
 *       {@code kafka.replication-factor} (of provisioned topics; default the broker's),
 *       {@code kafka.commit-interval} (how often acked offsets are committed, default 100ms),
 *       {@code kafka.poll-timeout} (100ms), {@code kafka.close-timeout} (30s),
 *       {@code kafka.fetch-linger} (2ms) and {@code kafka.fetch-linger-records} (16: after a poll that brought at
 *       least that many records, the next poll waits until the linger has passed, so that fetches carry more records
 *       at full speed; 0ms polls again at once),
 *       {@code kafka.share-consumer} (true: the subscriptions of one group with the same delivery and client
 *       settings share one {@code KafkaConsumer} and poll thread; false: a client and a thread per subscription),
 *       {@code kafka.admin-timeout} (30s), {@code kafka.connect-timeout} (5s: a broker must answer at the
 *       bootstrap address within it before the first provisioning call, else a clear error), {@code kafka.transactional-id-prefix} (default
 *       {@code switchboard}), {@code kafka.transaction-max-records} (records per transaction at
 *       most, default 1000), {@code kafka.transaction-queue-capacity} (10000) and
 *       {@code kafka.max-message-size} (default {@code max.request.size} less 16 KiB for framing).</li>
 * </ul>
 *
 * <p>Delivery: at-most-once publishes with {@code acks=1} (or {@code 0} when configured) and no
 * retries, and commits offsets before the handler runs; at-least-once publishes with
 * {@code acks=all} and the idempotent producer, and commits an offset once it and every earlier
 * offset of its partition were handled; exactly-once publishes in transactions (a unique
 * {@code transactional.id} per publisher), consumes {@code read_committed}, and deduplicates side
 * effects in core. For consume-transform-publish with the input offsets inside the output
 * transaction, see {@link KafkaPipeline}.
 */
public final class KafkaAdapterFactory implements BrokerAdapterFactory {

    /** The adapter id, {@value}. */
    public static final String ID = KafkaAdapter.ID;

    @Override
    public String id() {
        return ID;
    }

    @Override
    public BrokerAdapter create(BrokerConfig config) {
        return new KafkaAdapter(config);
    }
}
