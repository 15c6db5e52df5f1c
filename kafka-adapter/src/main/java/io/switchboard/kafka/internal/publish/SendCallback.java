package io.switchboard.kafka.internal.publish;

import io.switchboard.spi.SendResult;
import java.util.function.BiConsumer;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * The producer callback of one send made with {@link KafkaPublisher#send(io.switchboard.spi.OutboundRecord, BiConsumer)}:
 * it hands the acknowledgement, or the error as {@link SendFuture#translate} words it, to core's callback. Runs on the
 * producer's I/O thread, holding no lock; does nothing else.
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
        if (exception == null) {
            done.accept(new SendResult(metadata.partition(), metadata.hasOffset() ? metadata.offset() : -1), null);
        } else {
            done.accept(null, SendFuture.translate(exception, topic));
        }
    }
}
