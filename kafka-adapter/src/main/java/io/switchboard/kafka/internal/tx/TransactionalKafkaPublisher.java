package io.switchboard.kafka.internal.tx;

import io.switchboard.BackPressureException;
import io.switchboard.PublishException;
import io.switchboard.SwitchboardClosedException;
import io.switchboard.kafka.internal.delay.DelayTopics;
import io.switchboard.kafka.internal.publish.SendFuture;
import io.switchboard.spi.DaemonThreads;
import io.switchboard.spi.KeyFormat;
import io.switchboard.spi.OutboundRecord;
import io.switchboard.spi.RawPublisher;
import io.switchboard.spi.SendResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes exactly-once with a transactional producer of its own (a unique {@code transactional.id}
 * per publisher). Records queue for one committer thread, which puts whatever has queued up (at most
 * {@code kafka.transaction-max-records}) into one transaction and commits it; a future completes
 * when its transaction committed, so a {@code read_committed} consumer sees the record from then on.
 * Alone, a record gets a transaction of its own; under load, transactions grow and their cost is
 * shared. If a transaction fails, every record in it fails and none is visible.
 */
public final class TransactionalKafkaPublisher implements RawPublisher {

    private static final Logger log = LoggerFactory.getLogger(TransactionalKafkaPublisher.class);

    private final Map<String, Object> config;
    private final String destination;
    private final int maxRecordsPerTransaction;
    private final long queueWaitMillis;
    private final Duration closeTimeout;
    private final Consumer<AutoCloseable> onClosed;
    private final BlockingQueue<Pending> queue;
    private final DelayTopics delays;
    /** The publisher's key format, resolved once. */
    private final KeyFormat keys;
    private final Thread committer;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile boolean finished;
    private Producer<byte[], byte[]> producer;

    public TransactionalKafkaPublisher(Map<String, Object> config, String destination, int maxRecordsPerTransaction,
            int queueCapacity, Duration closeTimeout, Consumer<AutoCloseable> onClosed, DelayTopics delays, KeyFormat keys) {
        this.delays = delays;
        this.keys = keys;
        this.config = config;
        this.destination = destination;
        this.maxRecordsPerTransaction = maxRecordsPerTransaction;
        this.queueWaitMillis = Long.parseLong(config.get(ProducerConfig.MAX_BLOCK_MS_CONFIG).toString());
        this.closeTimeout = closeTimeout;
        this.onClosed = onClosed;
        this.queue = new LinkedBlockingQueue<>(queueCapacity);
        this.committer = DaemonThreads.newThread("switchboard-kafka-tx-" + destination, this::run);
        this.committer.start();
    }

    @Override
    public CompletableFuture<SendResult> send(OutboundRecord record) {
        Pending pending;
        try {
            pending = new Pending(record.destination(), delays.toKafka(record, keys));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(SendFuture.translate(e, record.destination()));
        }
        enqueue(pending);
        return pending.future;
    }

    /**
     * Publishes the records in one transaction of their own, whatever their number: all of them become visible to
     * {@code read_committed} consumers at its commit, or none does.
     */
    @Override
    public void sendAll(List<OutboundRecord> records, List<? extends BiConsumer<SendResult, Throwable>> done) {
        List<Pending> members = new ArrayList<>(records.size());
        for (int i = 0; i < records.size(); i++) {
            OutboundRecord record = records.get(i);
            try {
                members.add(new Pending(record.destination(), delays.toKafka(record, keys)));
            } catch (RuntimeException e) {
                RuntimeException refused = SendFuture.translate(e, record.destination());
                PublishException notSent = new PublishException("Not published: record " + i + " of the same "
                        + "transaction to '" + destination + "' was refused (" + refused.getMessage() + ")", refused);
                for (int j = 0; j < records.size(); j++) {
                    done.get(j).accept(null, j == i ? refused : notSent);
                }
                return;
            }
        }
        for (int i = 0; i < members.size(); i++) {
            members.get(i).future.whenComplete(done.get(i));
        }
        enqueue(Pending.group(members));
    }

    private void enqueue(Pending pending) {
        if (closed.get()) {
            pending.fail(new SwitchboardClosedException("Kafka publisher for '" + destination + "' is closed"));
            return;
        }
        try {
            if (!queue.offer(pending, queueWaitMillis, TimeUnit.MILLISECONDS)) {
                pending.fail(new BackPressureException("The transactional Kafka publisher for '" + destination + "' had "
                        + queue.size() + " records waiting for " + queueWaitMillis + " ms (kafka.max.block.ms); publish "
                        + "more slowly, or raise kafka.transaction-queue-capacity or kafka.transaction-max-records"));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            pending.fail(new PublishException("Interrupted while queueing a record for '" + destination + "'", e));
        }
        if (finished) {
            failQueued();
        }
    }

    private void run() {
        List<Pending> batch = new ArrayList<>();
        try {
            while (true) {
                Pending first = queue.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    if (closed.get()) {
                        break;
                    }
                    continue;
                }
                first.addTo(batch);
                Pending next;
                // a group is never split: it joins a transaction only whole (alone when bigger than the bound)
                while ((next = queue.peek()) != null && batch.size() + next.size() <= maxRecordsPerTransaction) {
                    queue.poll().addTo(batch);
                }
                commit(batch);
                batch.clear();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            finished = true;
            failQueued();
            closeProducer();
        }
    }

    private void commit(List<Pending> batch) {
        List<Future<RecordMetadata>> sent = new ArrayList<>(batch.size());
        try {
            Producer<byte[], byte[]> client = producer();
            client.beginTransaction();
            for (Pending pending : batch) {
                sent.add(client.send(pending.record));
            }
            client.commitTransaction();
        } catch (RuntimeException e) {
            abort(e);
            PublishException failure = new PublishException("The Kafka transaction carrying " + batch.size()
                    + " record(s) to '" + destination + "' failed and was aborted; none of them is visible to "
                    + "read_committed consumers: " + e, e);
            batch.forEach(pending -> pending.fail(failure));
            return;
        }
        for (int i = 0; i < batch.size(); i++) {
            batch.get(i).complete(sent.get(i));
        }
    }

    private void abort(RuntimeException cause) {
        if (producer == null) {
            return;
        }
        if (cause instanceof ProducerFencedException || cause instanceof OutOfOrderSequenceException
                || cause instanceof AuthorizationException || cause instanceof UnsupportedVersionException) {
            log.warn("Transactional producer for '{}' hit a fatal error; a new one takes over", destination, cause);
            closeProducer();
            return;
        }
        try {
            producer.abortTransaction();
        } catch (KafkaException | IllegalStateException e) {
            log.warn("Could not abort a transaction for '{}'; a new producer takes over", destination, e);
            closeProducer();
        }
    }

    private Producer<byte[], byte[]> producer() {
        if (producer == null) {
            Producer<byte[], byte[]> created = new KafkaProducer<>(config);
            try {
                created.initTransactions();
            } catch (RuntimeException e) {
                created.close(Duration.ZERO);
                throw e;
            }
            producer = created;
        }
        return producer;
    }

    private void closeProducer() {
        if (producer != null) {
            try {
                producer.close(closeTimeout);
            } catch (RuntimeException e) {
                log.warn("Closing the transactional producer for '{}' failed", destination, e);
            }
            producer = null;
        }
    }

    private void failQueued() {
        List<Pending> queued = new ArrayList<>();
        queue.drainTo(queued);
        List<Pending> left = new ArrayList<>();
        queued.forEach(pending -> pending.addTo(left));
        left.forEach(pending -> pending.fail(new SwitchboardClosedException("Kafka publisher for '" + destination
                + "' closed before the record was published")));
    }

    /** Publishes what is queued, then stops the committer and closes the producer. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            committer.join(closeTimeout.toMillis() + TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            onClosed.accept(this);
        }
    }

    @Override
    public String toString() {
        return "TransactionalKafkaPublisher[" + destination + ", " + config.get(ProducerConfig.TRANSACTIONAL_ID_CONFIG) + "]";
    }

    /** A record waiting for its transaction, or a group of them that must share one ({@link #sendAll}). */
    private static final class Pending {
        final String destination;
        final ProducerRecord<byte[], byte[]> record;
        final CompletableFuture<SendResult> future = new CompletableFuture<>();
        /** The group's records, for a group (whose own record and future are unused); null for one record. */
        private final List<Pending> members;

        Pending(String destination, ProducerRecord<byte[], byte[]> record) {
            this(destination, record, null);
        }

        private Pending(String destination, ProducerRecord<byte[], byte[]> record, List<Pending> members) {
            this.destination = destination;
            this.record = record;
            this.members = members;
        }

        static Pending group(List<Pending> members) {
            return new Pending(members.get(0).destination, null, members);
        }

        /** {@return the records this entry of the queue carries} */
        int size() {
            return members == null ? 1 : members.size();
        }

        void addTo(List<Pending> batch) {
            if (members == null) {
                batch.add(this);
            } else {
                batch.addAll(members);
            }
        }

        /** After the commit: the send's future is done, so get() does not wait. */
        void complete(Future<RecordMetadata> sent) {
            try {
                RecordMetadata metadata = sent.get();
                future.complete(new SendResult(metadata.partition(), metadata.offset()));
            } catch (ExecutionException e) {
                fail(SendFuture.translate(e.getCause(), destination));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail(new PublishException("Interrupted while completing a publish to '" + destination + "'", e));
            }
        }

        void fail(RuntimeException error) {
            if (members == null) {
                future.completeExceptionally(error);
            } else {
                members.forEach(m -> m.fail(error));
            }
        }
    }
}
