package io.switchboard.kafka.internal.tx;

import io.switchboard.kafka.internal.delay.DelayTopics;
import org.apache.kafka.clients.producer.ProducerRecord;

import io.switchboard.PublishException;
import io.switchboard.kafka.internal.KafkaClientConfig;
import io.switchboard.kafka.internal.publish.SendFuture;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.KeyFormat;
import io.switchboard.spi.OutboundRecord;
import io.switchboard.spi.RawPublisher;
import io.switchboard.spi.SendResult;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.Producer;

/**
 * The Kafka transaction a pipeline has open on its thread. The pipeline publishes its outputs with
 * an ordinary Switchboard publisher (so they get the envelope, metrics and tracing) whose raw
 * publisher is an {@link OutputPublisher}: it sends into the transaction bound to the calling
 * thread, and refuses to send anywhere else.
 */
public final class PipelineTransaction {

    /** The publisher property that makes the adapter create an {@link OutputPublisher}. */
    public static final String OUTPUT_PROPERTY = KafkaClientConfig.PREFIX + "pipeline-output";

    private static final ThreadLocal<PipelineTransaction> CURRENT = new ThreadLocal<>();

    private final BrokerConfig owner;
    private final Producer<byte[], byte[]> producer;
    private int sends;

    private PipelineTransaction(BrokerConfig owner, Producer<byte[], byte[]> producer) {
        this.owner = owner;
        this.producer = producer;
    }

    /** Binds a transaction of this producer to the calling thread until {@link #unbind()}. */
    static PipelineTransaction bind(BrokerConfig owner, Producer<byte[], byte[]> producer) {
        PipelineTransaction transaction = new PipelineTransaction(owner, producer);
        CURRENT.set(transaction);
        return transaction;
    }

    void unbind() {
        CURRENT.remove();
    }

    /** How many records were sent into this transaction. */
    int sends() {
        return sends;
    }

    /** Sends pipeline outputs of one adapter into the transaction bound to the calling thread. */
    public static final class OutputPublisher implements RawPublisher {
        private final BrokerConfig owner;
        private final String destination;
        private final DelayTopics delays;
        private final KeyFormat keys;

        public OutputPublisher(BrokerConfig owner, String destination, DelayTopics delays, KeyFormat keys) {
            this.owner = owner;
            this.destination = destination;
            this.delays = delays;
            this.keys = keys;
        }

        @Override
        public CompletableFuture<SendResult> send(OutboundRecord record) {
            PipelineTransaction transaction = CURRENT.get();
            if (transaction == null || transaction.owner != owner) {
                return CompletableFuture.failedFuture(new PublishException("Pipeline output to '" + destination
                        + "' was published outside the pipeline's transaction (another thread, or after the batch); "
                        + "a resilience time limit, retry or bulkhead for '" + destination + "' does that: switch them "
                        + "off for this destination"));
            }
            SendFuture future = new SendFuture(record.destination());
            ProducerRecord<byte[], byte[]> kafkaRecord;
            try {
                kafkaRecord = delays.toKafka(record, keys);
            } catch (RuntimeException e) {
                return future.failed(e);
            }
            transaction.sends++;
            transaction.producer.send(kafkaRecord, future);
            return future;
        }

        @Override
        public void close() {
            // the producer belongs to the pipeline
        }
    }
}
