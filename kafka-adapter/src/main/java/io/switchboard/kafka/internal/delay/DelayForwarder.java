package io.switchboard.kafka.internal.delay;

import io.switchboard.spi.DaemonThreads;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves one destination's due delayed records on, on a thread of its own: a consumer in the destination's forwarder
 * group ({@link DelayTiers#forwarderGroup}) reads every delay topic of the destination, so the replicas of every
 * subscribing application share the partitions and a dead replica's move to the others. Per partition it waits for
 * the head: while the head is not due the partition is paused (the poll sleeps until the earliest head is), then the
 * due records go to the destination (or to a shorter tier) through an idempotent producer, and their offsets are
 * committed once the sends are acknowledged: at least once, so a crash between the two forwards them again. With
 * {@code transactional} the sends and the offsets commit in one transaction instead (exactly once for
 * {@code read_committed} readers).
 */
final class DelayForwarder {

    private static final Logger log = LoggerFactory.getLogger(DelayForwarder.class);
    private static final long MAX_SLEEP_MILLIS = 500;
    private static final long RETRY_MILLIS = 1_000;

    private final String destination;
    private final DelayTopics topics;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Map<String, Object> producerConfig;
    /** Told of the producer's metrics when it is made (its network thread is the instance's client). */
    private final java.util.function.Consumer<Map<org.apache.kafka.common.MetricName, ? extends org.apache.kafka.common.Metric>> made;
    private final boolean transactional;
    private final Duration closeTimeout;
    private final Thread thread;
    private final AtomicBoolean rediscover = new AtomicBoolean();
    private volatile boolean closing;

    // forwarder thread only
    private final Map<TopicPartition, Lane> lanes = new HashMap<>();
    private final List<Sent> sent = new ArrayList<>();
    private Producer<byte[], byte[]> producer;
    private boolean inTransaction;

    DelayForwarder(String threadName, String destination, DelayTopics topics, Map<String, Object> consumerConfig,
            Map<String, Object> producerConfig, boolean transactional, Duration closeTimeout,
            java.util.function.Consumer<Map<org.apache.kafka.common.MetricName, ? extends org.apache.kafka.common.Metric>> made) {
        this.made = made;
        this.destination = destination;
        this.topics = topics;
        this.producerConfig = producerConfig;
        this.transactional = transactional;
        this.closeTimeout = closeTimeout;
        this.consumer = new KafkaConsumer<>(consumerConfig);
        this.thread = DaemonThreads.newThread(threadName, this::run);
    }

    void start() {
        thread.start();
    }

    /** A delay topic of the destination appeared: subscribe again, so the consumer sees it now, not at the next metadata refresh. */
    void rediscover() {
        rediscover.set(true);
        consumer.wakeup();
    }

    /** Stops the thread, leaving the group; what was forwarded and not yet committed is forwarded again elsewhere. */
    void close() {
        closing = true;
        consumer.wakeup();
        try {
            thread.join(closeTimeout.toMillis() + TimeUnit.SECONDS.toMillis(5));
            if (thread.isAlive()) {
                log.warn("The delay forwarder of '{}' did not stop within {}", destination, closeTimeout);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        try {
            consumer.subscribe(DelayTiers.pattern(destination), new Rebalance());
            while (!closing) {
                if (rediscover.getAndSet(false)) {
                    consumer.subscribe(DelayTiers.pattern(destination), new Rebalance());
                }
                long wake = forwardDue(System.currentTimeMillis());
                flowControl();
                long sleep = Math.max(0, Math.min(MAX_SLEEP_MILLIS, wake - System.currentTimeMillis()));
                poll(sleep);
            }
        } catch (RuntimeException e) {
            if (!closing) {
                log.error("The delay forwarder of '{}' failed; delayed messages wait for another replica's forwarder "
                        + "or the next subscription", destination, e);
            }
        } finally {
            lanes.clear();
            closeClients();
        }
    }

    private void poll(long millis) {
        try {
            ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(millis));
            for (TopicPartition partition : records.partitions()) {
                Lane lane = lanes.get(partition);
                if (lane != null) {
                    lane.buffer.addAll(records.records(partition));
                }
            }
        } catch (WakeupException e) {
            // to rediscover or close
        }
    }

    /**
     * Forwards the heads that are due, then commits.
     *
     * @return when the earliest head that is not due yet will be (or a retry may start)
     */
    private long forwardDue(long now) {
        long wake = Long.MAX_VALUE;
        for (Map.Entry<TopicPartition, Lane> entry : lanes.entrySet()) {
            Lane lane = entry.getValue();
            if (lane.notBefore > now) {
                wake = Math.min(wake, lane.notBefore);
                continue;
            }
            ConsumerRecord<byte[], byte[]> head;
            while ((head = lane.buffer.peekFirst()) != null) {
                long due = DelayTiers.longHeader(head.headers(), DelayTiers.DUE_HEADER, 0);
                long release = Math.min(due, head.timestamp() + DelayTiers.TIER_MILLIS[lane.tier]);
                if (release > now) {
                    wake = Math.min(wake, release);
                    break;
                }
                try {
                    ProducerRecord<byte[], byte[]> out = due <= now ? DelayTopics.release(destination, head)
                            : topics.hop(destination, head, due - now);
                    if (transactional && !inTransaction) {
                        producer().beginTransaction();
                        inTransaction = true;
                    }
                    sent.add(new Sent(entry.getKey(), lane, head.offset(), producer().send(out)));
                } catch (RuntimeException e) {
                    log.warn("The delay forwarder of '{}' could not forward {}@{}; trying again in {} ms: {}", destination,
                            entry.getKey(), head.offset(), RETRY_MILLIS, e.toString());
                    retry(entry.getKey(), lane, head.offset(), now);
                    wake = Math.min(wake, lane.notBefore);
                    break;
                }
                lane.buffer.pollFirst();
            }
        }
        if (!sent.isEmpty() || inTransaction) {
            try {
                settle(now);
            } finally {
                sent.clear();
                inTransaction = false;
            }
        }
        return wake;
    }

    private void settle(long now) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        Map<TopicPartition, Long> firsts = new HashMap<>();
        Set<TopicPartition> failed = new HashSet<>();
        if (!transactional) {
            producer.flush();
        }
        for (Sent s : sent) {
            firsts.putIfAbsent(s.partition, s.offset);
            if (failed.contains(s.partition)) {
                continue;
            }
            if (transactional || s.future.isDone() && succeeded(s)) {
                offsets.put(s.partition, new OffsetAndMetadata(s.offset + 1));
            } else {
                failed.add(s.partition);
                retry(s.partition, s.lane, s.offset, now);
            }
        }
        if (transactional) {
            try {
                if (!offsets.isEmpty()) {
                    producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
                }
                producer.commitTransaction();
            } catch (KafkaException e) {
                log.warn("The delay forwarder of '{}' could not commit its transaction; forwarding again: {}", destination,
                        e.toString());
                abort();
                firsts.forEach((partition, offset) -> {
                    Lane lane = lanes.get(partition);
                    if (lane != null) {
                        retry(partition, lane, offset, now);
                    }
                });
            }
            return;
        }
        commit(offsets);
    }

    private boolean succeeded(Sent s) {
        try {
            s.future.get();
            return true;
        } catch (ExecutionException e) {
            log.warn("The delay forwarder of '{}' could not forward {}@{}; trying again in {} ms: {}", destination,
                    s.partition, s.offset, RETRY_MILLIS, e.getCause().toString());
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Rewinds a partition to a record that was not forwarded, to try it again after a pause. */
    private void retry(TopicPartition partition, Lane lane, long offset, long now) {
        lane.buffer.clear();
        lane.notBefore = now + RETRY_MILLIS;
        consumer.seek(partition, offset);
    }

    private void commit(Map<TopicPartition, OffsetAndMetadata> offsets) {
        if (offsets.isEmpty()) {
            return;
        }
        while (true) {
            try {
                consumer.commitSync(offsets, closeTimeout);
                return;
            } catch (WakeupException e) {
                // woken to rediscover or close: the commit has not happened yet
            } catch (KafkaException e) {
                log.warn("The delay forwarder of '{}' could not commit {}; those records will be forwarded again: {}",
                        destination, offsets, e.toString());
                return;
            }
        }
    }

    /** Pauses the partitions whose head waits (or whose retry does), resumes those with nothing buffered. */
    private void flowControl() {
        long now = System.currentTimeMillis();
        List<TopicPartition> pause = new ArrayList<>();
        List<TopicPartition> resume = new ArrayList<>();
        Set<TopicPartition> paused = consumer.paused();
        lanes.forEach((partition, lane) -> {
            boolean hold = !lane.buffer.isEmpty() || lane.notBefore > now;
            if (hold && !paused.contains(partition)) {
                pause.add(partition);
            } else if (!hold && paused.contains(partition)) {
                resume.add(partition);
            }
        });
        if (!pause.isEmpty()) {
            consumer.pause(pause);
        }
        if (!resume.isEmpty()) {
            consumer.resume(resume);
        }
    }

    private Producer<byte[], byte[]> producer() {
        if (producer == null) {
            producer = new KafkaProducer<>(producerConfig);
            made.accept(producer.metrics());
            if (transactional) {
                producer.initTransactions();
            }
        }
        return producer;
    }

    private void abort() {
        if (producer == null) {
            return;
        }
        try {
            producer.abortTransaction();
        } catch (KafkaException e) {
            log.warn("The delay forwarder of '{}' could not abort; making a new producer: {}", destination, e.toString());
            producer.close(Duration.ZERO);
            producer = null;
        }
    }

    private void closeClients() {
        try {
            if (producer != null) {
                producer.close(closeTimeout);
            }
        } catch (RuntimeException e) {
            log.warn("Closing the delay forwarder's producer of '{}' failed", destination, e);
        }
        try {
            consumer.close(CloseOptions.timeout(closeTimeout));
        } catch (RuntimeException e) {
            log.warn("Closing the delay forwarder's consumer of '{}' failed", destination, e);
        }
    }

    /** One assigned partition of a delay topic. */
    private static final class Lane {
        final int tier;
        final ArrayDeque<ConsumerRecord<byte[], byte[]>> buffer = new ArrayDeque<>();
        /** After a failed send: no new attempt before this time. */
        long notBefore;

        Lane(int tier) {
            this.tier = tier;
        }
    }

    private record Sent(TopicPartition partition, Lane lane, long offset, Future<RecordMetadata> future) {}

    /** Partitions come and go on the forwarder thread, inside poll; nothing sent is left uncommitted at that point. */
    private final class Rebalance implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
            for (TopicPartition partition : assigned) {
                int tier = DelayTiers.tierOf(destination, partition.topic());
                if (tier >= 0) {
                    lanes.put(partition, new Lane(tier));
                }
            }
            log.debug("Delay forwarder of '{}' got {}", destination, assigned);
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
            revoked.forEach(lanes::remove);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> lost) {
            lost.forEach(lanes::remove);
        }
    }
}
