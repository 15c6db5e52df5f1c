package io.switchboard.kafka.internal.publish;

import io.switchboard.BackPressureException;
import io.switchboard.PublishException;
import io.switchboard.SwitchboardClosedException;
import io.switchboard.SwitchboardException;
import io.switchboard.spi.SendResult;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.BufferExhaustedException;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * The future of one send, and the producer callback that completes it: one object per record. It
 * completes on the producer's I/O thread, holding no lock; the callback does nothing else.
 */
public final class SendFuture extends CompletableFuture<SendResult> implements Callback {

    private final String topic;

    public SendFuture(String topic) {
        this.topic = topic;
    }

    @Override
    public void onCompletion(RecordMetadata metadata, Exception exception) {
        if (exception == null) {
            complete(new SendResult(metadata.partition(), metadata.hasOffset() ? metadata.offset() : -1));
        } else {
            completeExceptionally(translate(exception, topic));
        }
    }

    /** Fails the future with what send() threw. */
    public SendFuture failed(RuntimeException exception) {
        completeExceptionally(translate(exception, topic));
        return this;
    }

    public static RuntimeException translate(Throwable error, String topic) {
        if (error instanceof SwitchboardException own) {
            return own; // the adapter's own refusal (a delay too long, a name too long for a delay topic), as it is
        }
        if (error instanceof BufferExhaustedException) {
            return new BackPressureException("The Kafka producer's buffer stayed full for max.block.ms while publishing to '"
                    + topic + "'; publish more slowly, or raise kafka.buffer.memory or kafka.max.block.ms", error);
        }
        if (error instanceof TimeoutException) {
            return new PublishException("Kafka did not take a record for topic '" + topic + "' in time: "
                    + error.getMessage() + "; check that the topic exists and the brokers are reachable, or raise "
                    + "kafka.max.block.ms / kafka.delivery.timeout.ms", error);
        }
        if (error instanceof RecordTooLargeException) {
            return new io.switchboard.MessageTooLargeException("Kafka refused a record for topic '" + topic + "' as too large: "
                    + error.getMessage() + "; raise kafka.max.request.size and the topic's max.message.bytes, or send "
                    + "a reference to the data", error);
        }
        if (error instanceof IllegalStateException && String.valueOf(error.getMessage()).contains("closed")) {
            return new SwitchboardClosedException("The Kafka producer for '" + topic + "' is closed", error);
        }
        return new PublishException("Kafka did not accept a record for topic '" + topic + "': " + error, error);
    }
}
