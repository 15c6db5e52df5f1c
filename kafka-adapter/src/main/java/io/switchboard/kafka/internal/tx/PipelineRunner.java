package io.switchboard.kafka.internal.tx;

import io.switchboard.Codec;
import io.switchboard.ConfigurationException;
import io.switchboard.Delivery;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.PublisherBuilder;
import io.switchboard.SubscriptionException;
import io.switchboard.Switchboard;
import io.switchboard.internal.Validation;
import io.switchboard.internal.envelope.Envelopes;
import io.switchboard.kafka.internal.KafkaAdapter;
import io.switchboard.kafka.internal.KafkaClientConfig;
import io.switchboard.kafka.internal.consume.KafkaInboundRecord;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.DaemonThreads;
import io.switchboard.spi.KeyFormat;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a consume-transform-publish pipeline exactly once: one thread polls the input, transforms
 * each batch, publishes the outputs and commits the batch's input offsets in the same Kafka
 * transaction ({@code sendOffsetsToTransaction} with the consumer's group metadata, so a zombie
 * instance is fenced). A failed batch is aborted and the input rewound; after
 * {@code maxAttempts} failures in a row the pipeline stops with the error. Public only for
 * {@link io.switchboard.kafka.KafkaPipeline}; not API.
 *
 * @param <I> input payload type
 * @param <O> output payload type
 */
public final class PipelineRunner<I, O> implements ConsumerRebalanceListener {

    private static final Logger log = LoggerFactory.getLogger(PipelineRunner.class);

    /** Turns one input message into the messages to publish. */
    @FunctionalInterface
    public interface Transform<I, O> {
        /** The outputs for one input; throwing fails the batch, which is then retried. */
        List<Message<O>> apply(Message<I> input) throws Exception;
    }

    private final String input;
    private final String output;
    private final Codec<I> inputCodec;
    private final Transform<I, O> transform;
    private final int maxAttempts;
    private final Duration pollTimeout;
    private final Duration closeTimeout;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Producer<byte[], byte[]> producer;
    private final Publisher<O> publisher;
    private final BrokerConfig owner;
    /** The input's key format: the pipeline's properties, then the Switchboard's. */
    private final KeyFormat inputKeys;
    private final CompletableFuture<Void> ready = new CompletableFuture<>();
    private final CompletableFuture<Void> terminated = new CompletableFuture<>();
    private final Thread thread;
    private volatile boolean closing;
    private volatile boolean started;

    /**
     * Prepares a pipeline; {@link #start()} runs it.
     *
     * @param switchboard a Switchboard on the kafka adapter, for its properties and capabilities
     * @param properties pipeline properties overriding the Switchboard's ({@code kafka.*})
     */
    public PipelineRunner(Switchboard switchboard, String input, Codec<I> inputCodec, String output, Codec<O> outputCodec,
            String group, String transactionalId, int maxAttempts, Map<String, String> properties, Transform<I, O> transform) {
        if (!KafkaAdapter.ID.equals(switchboard.brokerId())) {
            throw new ConfigurationException("A Kafka pipeline needs a Switchboard on the kafka adapter, but broker '"
                    + switchboard.instanceName() + "' is '" + switchboard.brokerId() + "'; build the Switchboard with broker(\"kafka\")");
        }
        if (maxAttempts < 1) {
            throw new ConfigurationException("maxAttempts must be at least 1 but was " + maxAttempts);
        }
        Validation.destination(switchboard.capabilities(), switchboard.instanceName(), input);
        Validation.autoProvision(switchboard.config(), switchboard.capabilities(), switchboard.provisioning(), input);
        this.input = input;
        this.output = output;
        this.inputCodec = inputCodec;
        this.transform = transform;
        this.maxAttempts = maxAttempts;
        this.inputKeys = KeyFormat.of(properties, switchboard.config());
        KafkaClientConfig config = new KafkaClientConfig(switchboard.config());
        Map<String, String> overrides = transactionalId == null ? properties
                : merge(properties, KafkaClientConfig.PREFIX + ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        this.pollTimeout = config.duration("poll-timeout", Duration.ofMillis(100), overrides);
        this.closeTimeout = config.duration("close-timeout", Duration.ofSeconds(30), overrides);
        try {
            this.consumer = new KafkaConsumer<>(config.consumer(group, Delivery.EXACTLY_ONCE, false, 500, overrides));
            this.producer = new KafkaProducer<>(config.producer(Delivery.EXACTLY_ONCE, output, overrides));
        } catch (KafkaException e) {
            throw new ConfigurationException("Cannot create the Kafka clients of the pipeline from '" + input + "' to '"
                    + output + "': " + e.getMessage() + "; check the kafka.* properties", e);
        }
        PublisherBuilder<O> outputs = switchboard.publisher(output, outputCodec).delivery(Delivery.EXACTLY_ONCE)
                .property(PipelineTransaction.OUTPUT_PROPERTY, "true");
        overrides.forEach(outputs::property);
        this.publisher = outputs.build();
        this.owner = switchboard.config();
        this.thread = DaemonThreads.newThread(config.threadName("pipeline-" + input + "-" + output), this::run);
    }

    private static Map<String, String> merge(Map<String, String> properties, String key, String value) {
        Map<String, String> merged = new HashMap<>(properties);
        merged.put(key, value);
        return merged;
    }

    /** Starts the pipeline thread. */
    public synchronized void start() {
        if (closing) {
            throw new IllegalStateException("The pipeline from '" + input + "' to '" + output + "' is closed");
        }
        if (!started) {
            started = true;
            thread.start();
        }
    }

    /** Completes when the pipeline has its input partitions. */
    public CompletionStage<Void> ready() {
        return ready;
    }

    /** Completes when the pipeline stopped: normally after {@link #close()}, exceptionally after a failure. */
    public CompletionStage<Void> terminated() {
        return terminated;
    }

    private void run() {
        try {
            producer.initTransactions();
            consumer.subscribe(List.of(input), this);
            int failures = 0;
            while (!closing) {
                ConsumerRecords<byte[], byte[]> records;
                try {
                    records = consumer.poll(pollTimeout);
                } catch (WakeupException e) {
                    continue;
                }
                if (records.isEmpty()) {
                    continue;
                }
                if (process(records)) {
                    failures = 0;
                } else if (++failures >= maxAttempts) {
                    throw new SubscriptionException("The pipeline from '" + input + "' to '" + output + "' failed "
                            + failures + " time(s) in a row on the same input and stopped; see the errors logged before");
                } else {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100L * failures));
                }
            }
            terminated.complete(null);
        } catch (RuntimeException e) {
            if (closing) {
                terminated.complete(null);
            } else {
                log.error("Pipeline from '{}' to '{}' stopped", input, output, e);
                ready.completeExceptionally(e);
                terminated.completeExceptionally(e);
            }
        } finally {
            closeQuietly(() -> consumer.close(CloseOptions.timeout(closeTimeout)));
            closeQuietly(() -> producer.close(closeTimeout));
            closeQuietly(publisher::close);
        }
    }

    /** One batch in one transaction; false when it was aborted (the input is rewound to be processed again). */
    private boolean process(ConsumerRecords<byte[], byte[]> records) {
        producer.beginTransaction();
        PipelineTransaction transaction = PipelineTransaction.bind(owner, producer);
        try {
            int outputs = 0;
            for (ConsumerRecord<byte[], byte[]> record : records) {
                KafkaInboundRecord inbound = new KafkaInboundRecord(record, 1, (r, ack) -> { }, true, inputKeys);
                Message<I> message = Envelopes.toMessage(inputCodec.decode(inbound.payload()), inbound,
                        Envelopes.envelopeTime(inbound));
                for (Message<O> out : transform.apply(message)) {
                    publisher.publish(out);
                    outputs++;
                }
            }
            if (transaction.sends() != outputs) {
                throw new IllegalStateException(outputs + " output(s) were published but " + transaction.sends()
                        + " went into the transaction; a resilience setting for '" + output + "' moves publishing to "
                        + "another thread: switch it off for this destination");
            }
            producer.sendOffsetsToTransaction(records.nextOffsets(), consumer.groupMetadata());
            producer.commitTransaction();
            return true;
        } catch (ProducerFencedException | InvalidProducerEpochException | OutOfOrderSequenceException
                | AuthorizationException | UnsupportedVersionException e) {
            throw new SubscriptionException("The pipeline's transactional producer for '" + output + "' was fenced or "
                    + "hit a fatal error (another instance with the same transactional.id, or a rebalance moved the input "
                    + "elsewhere): " + e.getMessage() + "; start the pipeline again", e);
        } catch (Exception e) {
            log.warn("Pipeline from '{}' to '{}' aborted a batch of {} record(s); it is processed again", input, output,
                    records.count(), e);
            producer.abortTransaction();
            rewind(records);
            return false;
        } finally {
            transaction.unbind();
        }
    }

    private void rewind(ConsumerRecords<byte[], byte[]> records) {
        for (TopicPartition partition : records.partitions()) {
            if (consumer.assignment().contains(partition)) {
                consumer.seek(partition, records.records(partition).get(0).offset());
            }
        }
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        for (TopicPartition partition : partitions) {
            consumer.position(partition);
        }
        ready.complete(null);
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        // nothing to commit: every batch committed its offsets in its own transaction before the next poll
    }

    /** Stops polling, lets the batch in hand finish its transaction, and closes the clients. Idempotent. */
    public void close() {
        synchronized (this) {
            closing = true;
            if (!started) {
                closeQuietly(() -> consumer.close(CloseOptions.timeout(Duration.ZERO)));
                closeQuietly(() -> producer.close(Duration.ZERO));
                closeQuietly(publisher::close);
                terminated.complete(null);
                return;
            }
        }
        consumer.wakeup();
        if (thread.isAlive() && thread != Thread.currentThread()) {
            try {
                thread.join(closeTimeout.toMillis() + TimeUnit.SECONDS.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (!thread.isAlive()) {
            terminated.complete(null);
        }
    }

    private void closeQuietly(Runnable close) {
        try {
            close.run();
        } catch (RuntimeException e) {
            log.warn("Closing a client of the pipeline from '{}' to '{}' failed", input, output, e);
        }
    }
}
