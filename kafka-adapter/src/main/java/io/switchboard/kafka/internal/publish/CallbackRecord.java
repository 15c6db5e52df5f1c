package io.switchboard.kafka.internal.publish;

import io.switchboard.kafka.internal.mapping.KafkaRecords;
import io.switchboard.spi.KeyFormat;
import io.switchboard.spi.OutboundRecord;
import io.switchboard.spi.SendResult;
import java.util.function.BiConsumer;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * One record sent to its own topic, and the producer callback of that send: one object where a record and a
 * {@link SendCallback} were two. The producer reads the record while {@code send} serializes it and then holds only
 * the callback, so the record's key and value bytes stay reachable until the acknowledgement (a window's worth of
 * small arrays); in exchange a send allocates one object fewer on the sender's thread. The I/O thread follows as many
 * references for each acknowledgement as before (this object, then core's pending publish), which is where seed 001's
 * many-topics run found the adapter's remaining cost over plain kafka-clients (bench/README.md).
 * Callbacks run on the producer's I/O thread, holding no lock, and do nothing else.
 */
final class CallbackRecord extends ProducerRecord<byte[], byte[]> implements Callback {

    private final BiConsumer<SendResult, Throwable> done;

    private CallbackRecord(OutboundRecord record, KeyFormat keys, BiConsumer<SendResult, Throwable> done) {
        super(record.destination(), null, null, KafkaRecords.key(record, keys), record.payload());
        this.done = done;
    }

    /** The Kafka record of {@code record}, key per {@code keys}, headers written, whose callback hands the outcome to {@code done}. */
    static CallbackRecord of(OutboundRecord record, KeyFormat keys, BiConsumer<SendResult, Throwable> done) {
        return KafkaRecords.withHeaders(record, new CallbackRecord(record, keys, done));
    }

    @Override
    public void onCompletion(RecordMetadata metadata, Exception exception) {
        SendCallback.complete(metadata, exception, topic(), done);
    }
}
