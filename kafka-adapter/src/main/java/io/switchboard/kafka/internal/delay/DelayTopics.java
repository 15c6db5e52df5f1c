package io.switchboard.kafka.internal.delay;

import io.switchboard.InvalidMessageException;
import io.switchboard.kafka.internal.mapping.KafkaRecords;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.spi.KeyFormat;
import io.switchboard.spi.OutboundRecord;
import io.switchboard.spi.Provisioner;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Routes delayed records into the delay tier their remaining time calls for ({@link DelayTiers}), creating each
 * delay topic when first needed: the destination's partition count, the adapter's replication, {@code LogAppendTime}
 * (so that a tier's partitions are in the order records entered them, whatever the publishers' clocks) and a week's
 * retention. Thread-safe; one per adapter.
 */
public final class DelayTopics {

    private static final Map<String, String> TOPIC_SETTINGS = Map.of(
            "message.timestamp.type", "LogAppendTime",
            "retention.ms", Long.toString(DelayTiers.RETENTION_MILLIS));

    private final Provisioner provisioner;
    private final IntSupplier partitions;
    private final Consumer<String> onCreated;
    private final Set<String> ensured = ConcurrentHashMap.newKeySet();

    /**
     * @param provisioner creates the delay topics
     * @param partitions the partitions of a delay topic, read when one is first made (a malformed setting fails that use)
     * @param onCreated told the destination whose delay topic this adapter made or found first, so that its
     *     forwarders here see the topic at once
     */
    public DelayTopics(Provisioner provisioner, IntSupplier partitions, Consumer<String> onCreated) {
        this.provisioner = provisioner;
        this.partitions = partitions;
        this.onCreated = onCreated;
    }

    /**
     * The Kafka record for a record core publishes: to its destination when it is due, else to the delay tier
     * for its remaining time, with the destination, the due time and the publish time in headers; the key's bytes
     * are those of {@code keys}, and the delay tiers pass them on unchanged.
     *
     * @throws InvalidMessageException when the delay is longer than {@link DelayTiers#MAX_DELAY}
     */
    public ProducerRecord<byte[], byte[]> toKafka(OutboundRecord record, KeyFormat keys) {
        long due = record.deliverAtEpochMillis();
        long now = due == 0 ? 0 : System.currentTimeMillis();
        if (due <= now) {
            return KafkaRecords.toKafka(record, record.destination(), keys);
        }
        if (due - now > DelayTiers.MAX_DELAY.toMillis()) {
            throw new InvalidMessageException("Message to '" + record.destination() + "' is due in " + (due - now)
                    + " ms, but Kafka's delay topics hold a message for at most " + DelayTiers.MAX_DELAY
                    + "; publish it nearer its time, or store the schedule in a database");
        }
        ProducerRecord<byte[], byte[]> delayed = KafkaRecords.toKafka(record,
                ensure(record.destination(), DelayTiers.tierFor(due - now)), keys);
        delayed.headers()
                .add(DelayTiers.DESTINATION_HEADER, record.destination().getBytes(StandardCharsets.UTF_8))
                .add(DelayTiers.DUE_HEADER, DelayTiers.ascii(due))
                .add(DelayTiers.TIME_HEADER, DelayTiers.ascii(now));
        return delayed;
    }

    /** A record leaving a tier before it is due: the same record, into the tier for what is left. */
    ProducerRecord<byte[], byte[]> hop(String destination, ConsumerRecord<byte[], byte[]> record, long remainingMillis) {
        String topic = ensure(destination, DelayTiers.tierFor(remainingMillis));
        return new ProducerRecord<>(topic, null, null, record.key(), record.value(), new RecordHeaders(record.headers().toArray()));
    }

    /** A due record: to its destination, without the delay headers, stamped with the time it was published. */
    static ProducerRecord<byte[], byte[]> release(String destination, ConsumerRecord<byte[], byte[]> record) {
        RecordHeaders headers = new RecordHeaders();
        for (Header header : record.headers()) {
            String name = header.key();
            if (!name.equals(DelayTiers.DESTINATION_HEADER) && !name.equals(DelayTiers.DUE_HEADER)
                    && !name.equals(DelayTiers.TIME_HEADER)) {
                headers.add(header);
            }
        }
        long published = DelayTiers.longHeader(record.headers(), DelayTiers.TIME_HEADER, -1);
        return new ProducerRecord<>(destination, null, published < 0 ? null : published, record.key(), record.value(), headers);
    }

    /** {@return true when this adapter made or found a delay topic of the destination} */
    boolean knows(String destination) {
        return DelayTiers.anyTopic(destination, ensured);
    }

    private String ensure(String destination, int tier) {
        String topic = DelayTiers.topic(destination, tier);
        if (!ensured.contains(topic)) {
            DelayTiers.checkName(destination);
            provisioner.ensureDestination(new DestinationSpec(topic, partitions.getAsInt(), TOPIC_SETTINGS));
            if (ensured.add(topic)) {
                onCreated.accept(destination);
            }
        }
        return topic;
    }
}
