package io.switchboard.kafka.internal.publish;

import io.switchboard.spi.SendResult;
import java.util.function.BiConsumer;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * The producer callback of one send made with {@link KafkaPublisher#send(io.switchboard.spi.OutboundRecord, BiConsumer)}
 * to a delay topic: it hands the acknowledgement, or the error as {@link SendFuture#translate} words it, to core's
 * callback. Runs on the producer's I/O thread, holding no lock; does nothing else. A send to the record's own topic
 * uses {@link CallbackRecord}, which is its own callback.
 */
final class SendCallback implements Callback {

    private final String topic;
    private final BiConsumer<SendResult, Throwable> done;

    SendCallback(String topic, BiConsumer<SendResult, Throwable> done) {
        this.topic = topic;
        this.done = done;
    }

    @Override
    public void onCompletion(RecordMetadata metadata, Exception exception) {
        complete(metadata, exception, topic, done);
    }

    /** Hands one send's outcome to {@code done}; {@code topic} names the destination in the error. */
    static void complete(RecordMetadata metadata, Exception exception, String topic, BiConsumer<SendResult, Throwable> done) {
        if (exception == null) {
            done.accept(new SendResult(metadata.partition(), metadata.hasOffset() ? metadata.offset() : -1), null);
        } else {
            done.accept(null, SendFuture.translate(exception, topic));
        }
    }
}
