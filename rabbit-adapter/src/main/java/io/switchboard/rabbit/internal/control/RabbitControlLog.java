package io.switchboard.rabbit.internal.control;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.AlreadyClosedException;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.ShutdownSignalException;
import io.switchboard.PublishException;
import io.switchboard.SwitchboardException;
import io.switchboard.rabbit.internal.AmqpErrors;
import io.switchboard.spi.ControlLog;
import io.switchboard.spi.DaemonThreads;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A control log on a RabbitMQ <b>stream queue</b> named as the log: durable, replicated as the
 * server's streams are, and read non-destructively from its first offset by every follower.
 *
 * <p>Appends go to the default exchange (routing key = the log's name) as persistent messages with
 * the key in header {@value #KEY_HEADER}, on a confirm-mode channel: an append completes on the
 * broker's confirm, exceptionally on a nack, on a lost connection or after
 * {@code rabbitmq.publish-timeout}. Appends are not retried (core re-appends its state).
 *
 * <p>Following consumes the stream with {@code x-stream-offset=first} on its own channel
 * ({@code basicQos} {@value #PREFETCH}, each delivery acked for credit), on one dispatch thread of
 * this log, so the listener always sees one thread, records in offset order. {@code follow()}
 * completes when the follower reads a sync marker it appended itself (key {@code "\0sync/..."},
 * never passed on): the marker lies after every record confirmed before the call, which holds
 * even when retention has removed the stream's head. (An offset or a message count would not tell
 * where the tail is: RabbitMQ 3.10 answers a passive declare of a stream with 0 messages.) After a lost connection the log reconnects every
 * {@code rabbitmq.recovery-interval} and resumes at the offset after the last one it passed
 * (header {@code x-stream-offset}); records below it, which a stream may send again from the start
 * of a chunk, are skipped.
 *
 * <p>Retention: the stream keeps at most {@value #MAX_BYTES} bytes in segments of
 * {@value #SEGMENT_BYTES} bytes and drops its oldest segments beyond that, keys or not. Core
 * re-appends its full state periodically, so a truncated head loses nothing that is still current.
 * A stream does not compact by key: a follower reads every record kept, old versions included.
 */
final class RabbitControlLog implements ControlLog {

    static final String KEY_HEADER = "sb-control-key";
    static final String SYNC_PREFIX = "\u0000sync/";
    static final long MAX_BYTES = 100L * 1024 * 1024;
    static final int SEGMENT_BYTES = 10 * 1024 * 1024;
    static final int PREFETCH = 200;
    private static final Logger log = LoggerFactory.getLogger(RabbitControlLog.class);

    private final RabbitControlSupport support;
    private final String name;
    private final String syncPrefix = SYNC_PREFIX + UUID.randomUUID() + "/";
    /** The listener's one thread: amqp-client dispatches this log's deliveries on it, across reconnections. */
    private final ExecutorService dispatch;
    private final ConcurrentSkipListMap<Long, CompletableFuture<Void>> unconfirmed = new ConcurrentSkipListMap<>();
    private final CompletableFuture<Void> caughtUp = new CompletableFuture<>();
    private final Object lock = new Object();
    private volatile Connection connection;
    private Channel publish;
    private volatile Channel follow;
    private volatile Listener listener;
    /** The offset of the next record to pass on; -1: from the first. Written on the dispatch thread. */
    private volatile long next = -1;
    private volatile boolean closed;
    /** Set while an outage is on (logged once). */
    private volatile String down;

    RabbitControlLog(RabbitControlSupport support, String name) {
        this.support = support;
        this.name = name;
        this.dispatch = Executors.newSingleThreadExecutor(DaemonThreads.numbered("switchboard-rabbit-control-log-" + name));
        connect();
    }

    /** Connects, declares the stream and (when following) consumes it; on failure, tries again later. */
    private void connect() {
        if (closed || connection != null) {
            return;
        }
        Connection c = null;
        try {
            c = support.connect("log-" + name, dispatch);
            Channel ch = c.createChannel();
            ch.queueDeclare(name, true, false, false, Map.of("x-queue-type", "stream", "x-max-length-bytes", MAX_BYTES,
                    "x-stream-max-segment-size-bytes", SEGMENT_BYTES));
            ch.confirmSelect();
            ch.addConfirmListener((seq, multiple) -> settle(seq, multiple, null), (seq, multiple) -> settle(seq, multiple,
                    new PublishException("RabbitMQ refused (nacked) a record of control log '" + name + "'; append it again")));
            Connection conn = c;
            c.addShutdownListener(cause -> support.later(() -> lost(conn, cause), Duration.ZERO));
            synchronized (lock) {
                if (closed || !c.isOpen()) {
                    throw new IOException(closed ? "closed" : "the connection closed as it opened");
                }
                connection = c;
                publish = ch;
                if (listener != null) {
                    consume(c);
                }
            }
            if (down != null) {
                log.info("Control log '{}' is connected to RabbitMQ at {} again", name, support.printableUri());
                down = null;
            }
        } catch (IOException | TimeoutException | RuntimeException e) {
            String why = "cannot connect: " + AmqpErrors.describe(e) + AmqpErrors.hint(e);
            if (c != null && !detach(c, new PublishException("Control log '" + name + "': " + why))) {
                c.abort(2_000);
            }
            if (!closed) {
                outage(why);
                support.later(this::connect, support.retry);
            }
        }
    }

    /** Under the lock: consumes the stream from the next offset and, until caught up, appends a sync marker. */
    private void consume(Connection c) throws IOException {
        Channel ch = c.createChannel();
        ch.basicQos(PREFETCH);
        ch.basicConsume(name, false, Map.of("x-stream-offset", next < 0 ? "first" : (Object) next), new Follower(ch));
        follow = ch;
        if (!caughtUp.isDone()) {
            publish(syncPrefix + UUID.randomUUID(), new byte[0]);
        }
    }

    private void outage(String why) {
        if (down == null) {
            log.warn("Control log '{}' on RabbitMQ at {}: {}; retrying every {}", name, support.printableUri(), why, support.retry);
        }
        down = why;
    }

    /** On the scheduler: forgets a lost connection (unless already forgotten) and reconnects. */
    private void lost(Connection conn, ShutdownSignalException cause) {
        String why = "connection lost (" + AmqpErrors.describe(cause) + ")";
        if (!closed && detach(conn, new PublishException("Control log '" + name + "': " + why + " before RabbitMQ "
                + "confirmed the record; append it again"))) {
            outage(why);
            support.later(this::connect, support.retry);
        }
    }

    /** Forgets {@code c} when it is the current connection, failing its unconfirmed appends, and aborts it. */
    private boolean detach(Connection c, RuntimeException error) {
        List<CompletableFuture<Void>> failed;
        synchronized (lock) {
            if (c == null || connection != c) {
                return false;
            }
            connection = null;
            publish = null;
            follow = null;
            failed = new ArrayList<>(unconfirmed.values());
            unconfirmed.clear();
        }
        failed.forEach(f -> f.completeExceptionally(error));
        c.abort(2_000);
        return true;
    }

    /** On the connection's thread: completes confirmed (or nacked) appends. */
    private void settle(long seq, boolean multiple, PublishException nack) {
        var settled = (multiple ? unconfirmed.headMap(seq, true) : unconfirmed.subMap(seq, true, seq, true)).values().iterator();
        while (settled.hasNext()) {
            CompletableFuture<Void> f = settled.next();
            settled.remove();
            if (nack == null) {
                f.complete(null);
            } else {
                f.completeExceptionally(nack);
            }
        }
    }

    @Override
    public CompletionStage<Void> append(String key, byte[] value) {
        Objects.requireNonNull(value, "value");
        if (key == null || key.startsWith(SYNC_PREFIX)) {
            throw new IllegalArgumentException("Control log key '" + key + "' is reserved or null; use a non-null key not "
                    + "starting with NUL");
        }
        return publish(key, value);
    }

    private CompletableFuture<Void> publish(String key, byte[] value) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        RuntimeException error = null;
        synchronized (lock) {
            if (closed) {
                error = support.adapter.closedError("control log '" + name + "'");
            } else if (publish == null) {
                error = new PublishException("Control log '" + name + "' is not connected to RabbitMQ at "
                        + support.printableUri() + " (" + down + "); it reconnects every " + support.retry + ", append again then");
            } else {
                long seq = publish.getNextPublishSeqNo();
                unconfirmed.put(seq, f);
                try {
                    publish.basicPublish("", name, new AMQP.BasicProperties.Builder().deliveryMode(2)
                            .headers(Map.of(KEY_HEADER, key)).build(), value);
                } catch (IOException | AlreadyClosedException e) {
                    unconfirmed.remove(seq);
                    error = new PublishException("Control log '" + name + "': RabbitMQ refused a record: "
                            + AmqpErrors.describe(e), e);
                }
            }
        }
        if (error != null) {
            f.completeExceptionally(error);
        } else {
            support.later(() -> f.completeExceptionally(new PublishException("Control log '" + name + "': RabbitMQ did "
                    + "not confirm a record within " + support.publishTimeout + " (rabbitmq.publish-timeout)")), support.publishTimeout);
        }
        return f;
    }

    @Override
    public CompletionStage<Void> follow(Listener l) {
        Objects.requireNonNull(l, "listener");
        synchronized (lock) {
            if (listener != null) {
                throw new IllegalStateException("follow() of control log '" + name + "' was called already; it is called once");
            }
            listener = l;
            if (connection != null) {
                try {
                    consume(connection);
                } catch (IOException | RuntimeException e) {
                    caughtUp.completeExceptionally(new SwitchboardException("Cannot follow control log '" + name + "': "
                            + AmqpErrors.describe(e) + AmqpErrors.hint(e) + "; retrying in the background", e));
                    Connection c = connection;
                    support.later(() -> c.abort(2_000), Duration.ZERO); // reconnects and follows again
                }
            } else {
                caughtUp.completeExceptionally(new SwitchboardException("Cannot follow control log '" + name
                        + "': not connected to RabbitMQ at " + support.printableUri() + " (" + down + "); retrying in the background"));
            }
        }
        return caughtUp.copy();
    }

    @Override
    public boolean connected() {
        Connection c = connection;
        Channel f = follow;
        return !closed && c != null && c.isOpen() && (listener == null || (f != null && f.isOpen()));
    }

    /** Stops following and closes the log's connection (the stream stays). Idempotent. */
    @Override
    public void close() {
        Connection c;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            c = connection;
        }
        SwitchboardException error = support.adapter.closedError("control log '" + name + "'");
        detach(c, error);
        caughtUp.completeExceptionally(error);
        dispatch.shutdown();
        support.forget(this);
    }

    @Override
    public String toString() {
        return "RabbitControlLog[" + name + " on " + support.printableUri() + "]";
    }

    /** Passes the stream's records on, on the dispatch thread, skipping what was passed before and sync markers. */
    private final class Follower extends DefaultConsumer {
        Follower(Channel channel) {
            super(channel);
        }

        @Override
        public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
            try {
                Map<String, Object> headers = properties.getHeaders();
                Object offset = headers == null ? null : headers.get("x-stream-offset");
                long at = offset instanceof Number n ? n.longValue() : -1;
                if (closed || (at >= 0 && at < next)) {
                    return;
                }
                if (at >= 0) {
                    next = at + 1;
                }
                Object key = headers == null ? null : headers.get(KEY_HEADER);
                if (key == null) {
                    log.debug("Control log '{}': skipped a message without header {}", name, KEY_HEADER);
                } else if (key.toString().startsWith(syncPrefix)) {
                    caughtUp.complete(null);
                } else if (!key.toString().startsWith(SYNC_PREFIX)) {
                    listener.onRecord(key.toString(), body);
                }
            } catch (RuntimeException e) {
                log.error("Control log '{}': the listener failed on a record; going on with the next", name, e);
            } finally {
                try {
                    getChannel().basicAck(envelope.getDeliveryTag(), false);
                } catch (IOException | AlreadyClosedException e) {
                    log.debug("Control log '{}': ack after the channel closed: {}", name, e.toString());
                }
            }
        }

        @Override
        public void handleCancel(String consumerTag) {
            reconnect("RabbitMQ cancelled the consumer (was the stream deleted?)");
        }

        @Override
        public void handleShutdownSignal(String consumerTag, ShutdownSignalException sig) {
            if (!sig.isHardError()) {
                reconnect("RabbitMQ closed the following channel: " + AmqpErrors.describe(sig));
            }
        }

        private void reconnect(String why) {
            Connection c = connection;
            if (!closed && c != null && follow == getChannel()) {
                log.warn("Control log '{}': {}; reconnecting", name, why);
                support.later(() -> c.abort(2_000), Duration.ZERO); // its shutdown makes the log reconnect
            }
        }
    }
}
