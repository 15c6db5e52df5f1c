package io.switchboard.kafka.internal.control;

import io.switchboard.SwitchboardClosedException;
import io.switchboard.SwitchboardException;
import io.switchboard.spi.ControlLog;
import io.switchboard.spi.DaemonThreads;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A control log on Kafka: topic {@code name}, <b>compacted</b>, with one partition, so the broker
 * keeps the records in one total order and, for each key, at least the newest record (compaction
 * drops only records superseded by a later one with the same key; retention by time does not
 * apply). An append is a send with {@code acks=all} from an idempotent producer, done when the
 * broker acknowledges it. A follower is a {@link KafkaConsumer} without a consumer group, assigned
 * partition 0 and started at its beginning, on a daemon thread of its own that passes every record
 * to the listener in partition order; it stores no offsets, so a follower always starts from the
 * beginning, and kafka-clients reconnects it after a lost connection at its position.
 *
 * <p>Catching up: {@code follow()} completes once the follower's position reaches the partition's
 * end offset read when it started. Connected: the follower asks the broker for the end offset
 * every {@link KafkaControlSupport#PROBE_INTERVAL}; {@link #connected()} is whether the last probe
 * was answered within {@link KafkaControlSupport#PROBE_TIMEOUT}.
 */
final class KafkaControlLog implements ControlLog {

    private static final Logger log = LoggerFactory.getLogger(KafkaControlLog.class);

    private final KafkaControlSupport support;
    private final String name;
    private final TopicPartition partition;
    private final CompletableFuture<Void> ready = new CompletableFuture<>();
    private final CompletableFuture<Listener> listener = new CompletableFuture<>();
    private final CompletableFuture<Void> caughtUp = new CompletableFuture<>();
    private final AtomicBoolean following = new AtomicBoolean();
    private final Thread thread;
    private volatile KafkaConsumer<byte[], byte[]> consumer;
    private volatile boolean connected;
    private volatile boolean closed;
    /** An outage is on and was logged; the log's thread only. */
    private boolean down;

    KafkaControlLog(KafkaControlSupport support, String name) {
        this.support = support;
        this.name = name;
        this.partition = new TopicPartition(name, 0);
        this.thread = DaemonThreads.newThread(support.threadName("control-" + name), this::run);
        thread.start();
    }

    @Override
    public CompletionStage<Void> append(String key, byte[] value) {
        if (closed) {
            return CompletableFuture.failedFuture(new SwitchboardClosedException("Control log '" + name + "' is closed"));
        }
        if (ready.isDone()) {
            return send(key, value);
        }
        // the topic is being created: send once it exists (on the log's thread, which then goes on)
        return ready.thenCompose(v -> send(key, value));
    }

    private CompletableFuture<Void> send(String key, byte[] value) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        try {
            support.producer().send(new ProducerRecord<>(name, 0, key.getBytes(StandardCharsets.UTF_8), value), (metadata, error) -> {
                if (error == null) {
                    done.complete(null);
                } else {
                    done.completeExceptionally(new SwitchboardException("Kafka did not store the control record '" + key
                            + "' in topic '" + name + "' at " + support.servers() + ": " + error, error));
                }
            });
        } catch (KafkaException | SwitchboardException e) {
            done.completeExceptionally(e);
        }
        return done;
    }

    @Override
    public CompletionStage<Void> follow(Listener records) {
        if (!following.compareAndSet(false, true)) {
            throw new IllegalStateException("Control log '" + name + "' is already followed");
        }
        listener.complete(java.util.Objects.requireNonNull(records, "listener"));
        return caughtUp.minimalCompletionStage();
    }

    @Override
    public boolean connected() {
        return connected;
    }

    /** On the log's thread: creates the topic, then, once follow() is called, follows it until closed. */
    private void run() {
        while (!closed && !ready.isDone()) {
            try {
                support.ensureTopic(name, true);
                ready.complete(null);
                recovered();
            } catch (RuntimeException e) {
                outage("cannot create its topic", e);
                pause();
            }
        }
        Listener records = null;
        while (!closed && records == null) {
            try {
                records = listener.get(200, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                // not followed yet
            } catch (InterruptedException | java.util.concurrent.ExecutionException e) {
                return;
            }
        }
        while (!closed) {
            try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(support.consumer(null))) {
                consumer = c;
                if (closed) {
                    return;
                }
                follow(c, records);
            } catch (WakeupException e) {
                return; // closing
            } catch (KafkaException e) {
                connected = false;
                outage("cannot read it", e);
                pause();
            } finally {
                consumer = null;
            }
        }
    }

    private void follow(KafkaConsumer<byte[], byte[]> c, Listener records) {
        List<TopicPartition> assigned = List.of(partition);
        c.assign(assigned);
        c.seekToBeginning(assigned);
        long target = -1;
        long nextProbe = 0;
        while (!closed) {
            long now = System.nanoTime();
            if (now - nextProbe >= 0) {
                nextProbe = now + KafkaControlSupport.PROBE_INTERVAL.toNanos();
                try {
                    long end = c.endOffsets(assigned, KafkaControlSupport.PROBE_TIMEOUT).get(partition);
                    if (target < 0) {
                        target = end;
                    }
                    connected = true;
                    recovered();
                } catch (org.apache.kafka.common.errors.TimeoutException e) {
                    connected = false;
                    outage("no answer within " + KafkaControlSupport.PROBE_TIMEOUT.toMillis() + " ms", e);
                }
            }
            for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                if (r.key() != null && r.value() != null) {
                    try {
                        records.onRecord(new String(r.key(), StandardCharsets.UTF_8), r.value());
                    } catch (RuntimeException e) {
                        log.error("Control log '{}': the listener failed on the record at offset {}", name, r.offset(), e);
                    }
                }
            }
            if (target >= 0 && !caughtUp.isDone() && c.position(partition, KafkaControlSupport.PROBE_TIMEOUT) >= target) {
                caughtUp.complete(null);
            }
        }
    }

    private void outage(String what, RuntimeException e) {
        if (!caughtUp.isDone() && following.get()) {
            caughtUp.completeExceptionally(new SwitchboardException("Control log '" + name + "' on Kafka at " + support.servers()
                    + ": " + what + ": " + e.getMessage() + "; check that the control instance's brokers run", e));
        }
        if (!down) {
            down = true;
            log.warn("Control log '{}' on Kafka at {}: {}: {}; retrying every {} ms", name, support.servers(), what, e.toString(),
                    KafkaControlSupport.RETRY.toMillis());
        }
    }

    private void recovered() {
        if (down) {
            down = false;
            log.info("Control log '{}' reaches Kafka at {} again", name, support.servers());
        }
    }

    private void pause() {
        java.util.concurrent.locks.LockSupport.parkNanos(KafkaControlSupport.RETRY.toNanos());
    }

    /** Stops following (waiting up to 5 s for the follower's thread) and fails appends still waiting for the topic. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        connected = false;
        KafkaConsumer<byte[], byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
        SwitchboardClosedException gone = new SwitchboardClosedException("Control log '" + name + "' is closed");
        ready.completeExceptionally(gone);
        caughtUp.completeExceptionally(gone);
        listener.completeExceptionally(gone);
        if (Thread.currentThread() != thread) {
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        support.forget(this);
    }

    @Override
    public String toString() {
        return "KafkaControlLog[" + name + " at " + support.servers() + (connected ? ", connected" : "") + "]";
    }
}
