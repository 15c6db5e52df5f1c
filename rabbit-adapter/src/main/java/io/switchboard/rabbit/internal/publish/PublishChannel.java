package io.switchboard.rabbit.internal.publish;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.AlreadyClosedException;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.RecoveryListener;
import com.rabbitmq.client.ReturnListener;
import com.rabbitmq.client.ShutdownListener;
import com.rabbitmq.client.ShutdownSignalException;
import io.switchboard.PublishException;
import io.switchboard.SwitchboardException;
import io.switchboard.rabbit.internal.AmqpErrors;
import io.switchboard.rabbit.internal.RabbitAdapter;
import io.switchboard.spi.ClientEvents;
import io.switchboard.spi.EventKinds;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One AMQP channel of a {@link RabbitPublisher}, used by one publishing thread at a time (the
 * lock), with its confirms tracked asynchronously.
 *
 * <p>With confirms, each record waits in {@code outstanding} under its publish sequence number
 * until the broker acks or nacks it (on the connection's I/O thread). A record the broker returns
 * as unroutable ({@code mandatory}) fails when its confirm arrives, which RabbitMQ sends after the
 * return.
 *
 * <p>When the connection is lost, nothing is lost with it: the records not yet confirmed, and those
 * sent while the connection is down, wait in {@code resend} and are published again, in order, once
 * amqp-client has recovered the channel (a record may so reach the broker twice: at-least-once).
 * Shutdown and recovery are handled on the adapter's event thread, never on the connection's
 * thread. A channel the broker closed on its own (an error such as a missing exchange) fails its
 * unconfirmed records with the broker's reason; the next record opens a new channel. Futures are
 * always completed outside the lock.
 *
 * <p>A nack retires the channel (RabbitMQ 3.10 nacks every record of a channel that first published
 * to a quorum queue while its leader's node was down, for as long as it is down), its unconfirmed
 * records go back in front of {@code resend}, in order, and a new channel publishes them after a
 * backoff (100 ms doubling to 1 s); a record nacked for {@code rabbitmq.publish-timeout} fails. Where
 * the queues may be full with {@code x-overflow=reject-publish}, a nack means "full": it fails at once.
 */
final class PublishChannel implements ReturnListener, ShutdownListener, RecoveryListener {

    private static final Logger log = LoggerFactory.getLogger(PublishChannel.class);

    private final RabbitAdapter adapter;
    private final String destination;
    private final boolean confirms;
    private final boolean retryNacks;
    private final long retryNanos;
    private final AtomicBoolean nackQueued = new AtomicBoolean();
    private int nackStreak; // nacks in a row without an ack between them: the backoff's exponent
    private long retireBy; // event thread: until when a nacking channel's other confirms are awaited
    private final ReentrantLock lock = new ReentrantLock();
    private final ConcurrentSkipListMap<Long, Pending> outstanding = new ConcurrentSkipListMap<>();
    private final ArrayDeque<Pending> resend = new ArrayDeque<>();
    /** Written under the lock; read by the confirm listener to ignore a retired channel's confirms. */
    private volatile Channel channel;
    private boolean closed;
    /** Set as soon as the connection is lost, so that no record goes to a channel that is being recovered. */
    private volatile boolean broken;

    PublishChannel(RabbitAdapter adapter, String destination, boolean confirms, boolean retryNacks, long retryNanos) {
        this.adapter = adapter;
        this.destination = destination;
        this.confirms = confirms;
        this.retryNacks = retryNacks;
        this.retryNanos = retryNanos;
    }

    /** Publishes the record, or keeps it for after recovery. Never throws; failures go to the record's future. */
    void publish(Pending record) {
        Throwable failure = null;
        boolean sent = false;
        lock.lock();
        try {
            if (closed) {
                failure = adapter.closedError(destination);
            } else if (confirms && (broken || !resend.isEmpty())) {
                resend.addLast(record);
            } else {
                sent = tryPublish(record);
                if (!sent && confirms) {
                    resend.addLast(record);
                } else if (!sent) {
                    failure = new PublishException("The connection to RabbitMQ at " + adapter.printableUri()
                            + " is down (recovering); the at-most-once record to '" + destination + "' was dropped");
                }
            }
        } catch (RuntimeException e) {
            failure = e instanceof PublishException || e instanceof SwitchboardException ? e
                    : new PublishException("The RabbitMQ client refused a record for '" + destination + "': " + e, e);
        } finally {
            lock.unlock();
        }
        if (failure != null) {
            record.fail(failure);
        } else if (sent && !confirms) {
            record.sent();
        }
    }

    /**
     * Under the lock: publishes on the channel, opening one if needed.
     *
     * @return false when the connection is down and will be recovered (the record was not taken)
     * @throws PublishException when the channel cannot be opened or was closed by the broker
     */
    private boolean tryPublish(Pending record) {
        Channel ch = channel != null ? channel : open();
        long seq = confirms ? ch.getNextPublishSeqNo() : 0;
        if (confirms && seq == 0) {
            broken = true; // amqp-client swapped in a recovered channel that is not in confirm mode yet
            return false;
        }
        if (confirms) {
            record.returned = null;
            outstanding.put(seq, record);
        }
        try {
            ch.basicPublish(record.exchange, record.routingKey, confirms, record.properties, record.body);
            return true;
        } catch (IOException | RuntimeException e) {
            if (confirms) {
                outstanding.remove(seq);
            }
            if (!(e instanceof IOException || e instanceof ShutdownSignalException)) {
                throw (RuntimeException) e; // not a connection or channel failure: publish() fails this record only
            }
            ShutdownSignalException reason = ch.getCloseReason();
            if (willRecover(reason)) {
                broken = true;
                return false;
            }
            discard(ch);
            throw new PublishException("RabbitMQ refused a record for '" + record.exchange + "': "
                    + AmqpErrors.describe(reason != null ? reason : e)
                    + AmqpErrors.hint(reason != null ? reason : e), e);
        }
    }

    private Channel open() {
        try {
            if (!adapter.publishConnection().isOpen()) {
                throw new PublishException("The connection to RabbitMQ at " + adapter.printableUri() + " is down and "
                        + "recovering; publish to '" + destination + "' again later");
            }
            Channel ch = adapter.publishConnection().createChannel();
            if (ch == null) {
                throw new PublishException("RabbitMQ at " + adapter.printableUri() + " has no free channel for publishing"
                        + " to '" + destination + "'; close unused publishers or raise the server's channel_max");
            }
            if (confirms) {
                ch.confirmSelect();
                ch.addConfirmListener(new ChannelConfirms(this, ch));
                ch.addReturnListener(this);
            }
            ch.addShutdownListener(this);
            ((Recoverable) ch).addRecoveryListener(this);
            channel = ch;
            return ch;
        } catch (IOException e) {
            throw new PublishException("Cannot open a publishing channel on RabbitMQ at " + adapter.printableUri() + ": "
                    + AmqpErrors.describe(e), e);
        }
    }

    // ---- confirms and returns: on the connection's I/O thread, never blocking ----

    /** From the confirm listener of {@code ch}: settles the records unless {@code ch} was retired. */
    void acked(Channel ch, long seq, boolean multiple) {
        if (ch == channel) {
            if (nackStreak != 0) {
                nackStreak = 0;
            }
            settle(seq, multiple, null);
        }
    }

    /** From the confirm listener of {@code ch}: fails the records, or marks them and has the event thread retry. */
    void nacked(Channel ch, long seq, boolean multiple) {
        if (ch != channel) {
            return;
        }
        if (!retryNacks) {
            settle(seq, multiple, AmqpErrors.nackedFull(destination));
            return;
        }
        for (Pending record : multiple ? outstanding.headMap(seq, true).values()
                : java.util.Collections.singleton(outstanding.get(seq))) {
            if (record != null) {
                record.nacked = true;
            }
        }
        if (nackQueued.compareAndSet(false, true)) {
            adapter.onEventThread(() -> afterNack(ch));
        }
    }

    private void settle(long seq, boolean multiple, PublishException nack) {
        if (multiple) {
            Iterator<Pending> settled = outstanding.headMap(seq, true).values().iterator();
            while (settled.hasNext()) {
                Pending record = settled.next();
                settled.remove();
                record.settle(nack);
            }
        } else {
            Pending record = outstanding.remove(seq);
            if (record != null) {
                record.settle(nack);
            }
        }
    }

    @Override
    public void handleReturn(int replyCode, String replyText, String exchange, String routingKey,
            AMQP.BasicProperties properties, byte[] body) {
        String id = properties.getMessageId();
        for (Pending record : outstanding.values()) {
            if (record.returned == null && record.exchange.equals(exchange) && record.routingKey.equals(routingKey)
                    && (id != null ? id.equals(record.properties.getMessageId()) : Arrays.equals(body, record.body))) {
                record.returned = replyCode + " " + replyText;
                return;
            }
        }
    }

    // ---- connection loss and recovery ----

    @Override
    public void shutdownCompleted(ShutdownSignalException cause) {
        if (willRecover(cause)) {
            broken = true;
        }
        adapter.onEventThread(() -> afterShutdown(cause));
    }

    @Override
    public void handleRecovery(Recoverable recoverable) {
        adapter.onEventThread(() -> republish(true));
    }

    @Override
    public void handleRecoveryStarted(Recoverable recoverable) {
        // nothing to do before the channel is back
    }

    private void afterShutdown(ShutdownSignalException cause) {
        List<Pending> failed = new ArrayList<>();
        Throwable error;
        lock.lock();
        try {
            List<Pending> unconfirmed = new ArrayList<>(outstanding.values());
            outstanding.clear();
            if (!closed && willRecover(cause)) {
                for (int i = unconfirmed.size() - 1; i >= 0; i--) {
                    resend.addFirst(unconfirmed.get(i));
                }
                if (!resend.isEmpty()) {
                    log.warn("Connection to RabbitMQ at {} lost ({}); {} record(s) for '{}' will be published again after "
                            + "recovery", adapter.printableUri(), cause == null ? "I/O error" : AmqpErrors.describe(cause),
                            resend.size(), destination);
                }
                return;
            }
            if (channel != null) {
                discard(channel);
            }
            failed.addAll(unconfirmed);
            failed.addAll(resend);
            resend.clear();
            error = closed ? adapter.closedError(destination)
                    : new PublishException("RabbitMQ closed the channel publishing to '" + destination + "' before it "
                            + "confirmed " + failed.size() + " record(s): " + AmqpErrors.describe(cause)
                            + AmqpErrors.hint(cause), cause);
        } finally {
            lock.unlock();
        }
        failed.forEach(record -> record.fail(error));
    }

    /** Event thread: holds records back, awaits the nacking channel's other confirms (1 s), retires it, resends. */
    private void afterNack(Channel nacking) {
        List<Pending> expired = new ArrayList<>();
        long delay;
        lock.lock();
        try {
            if (closed || channel != nacking) {
                nackQueued.set(false);
                return;
            }
            broken = true;
            long now = System.nanoTime();
            if (retireBy == 0) {
                retireBy = now + TimeUnit.SECONDS.toNanos(1);
            }
            if (now - retireBy < 0 && outstanding.values().stream().anyMatch(record -> !record.nacked)) {
                adapter.onEventThreadLater(() -> afterNack(nacking), 10);
                return;
            }
            retireBy = 0;
            nackQueued.set(false);
            retire(nacking);
            List<Pending> unconfirmed = new ArrayList<>(outstanding.values());
            outstanding.clear();
            for (int i = unconfirmed.size() - 1; i >= 0; i--) {
                Pending record = unconfirmed.get(i);
                if (record.retryAfterNack(now, retryNanos)) {
                    resend.addFirst(record);
                } else {
                    expired.add(record);
                }
            }
            delay = Math.min(1000L, 100L << Math.min(nackStreak++, 4));
            log.warn("RabbitMQ nacked record(s) for '{}'; {} record(s) will be published again on a new channel in {} ms",
                    destination, resend.size(), delay);
        } finally {
            lock.unlock();
        }
        adapter.onEventThreadLater(this::resendAfterNack, delay);
        PublishException error = AmqpErrors.nackedTooLong(destination, TimeUnit.NANOSECONDS.toMillis(retryNanos));
        expired.forEach(record -> record.fail(error));
    }

    /** Reports that the records held back by a loss or a nack went out again (once per batch, never per record). */
    private void retried(String detail) {
        ClientEvents events = adapter.clientEvents();
        if (events != ClientEvents.NONE) {
            try {
                events.instant(EventKinds.PUBLISH_RETRY, destination, detail);
            } catch (RuntimeException e) {
                log.debug("Reporting a publish retry for '{}' failed", destination, e);
            }
        }
    }

    /** Under the lock: forgets a channel that is still open, without its listeners, and aborts it. */
    private void retire(Channel ch) {
        ch.removeShutdownListener(this);
        ((Recoverable) ch).removeRecoveryListener(this);
        ch.clearConfirmListeners();
        ch.clearReturnListeners();
        discard(ch);
    }

    /** On the event thread, after the backoff: a new channel publishes what waits, or waits for the connection. */
    private void resendAfterNack() {
        lock.lock();
        try {
            if (closed || channel != null || !broken) {
                return; // closed, or a publish or recovery has taken over
            }
            if (!adapter.publishConnection().isOpen()) {
                adapter.onEventThreadLater(this::resendAfterNack, 1000L);
                return;
            }
        } finally {
            lock.unlock();
        }
        republish(false);
    }

    /** Publishes the resend queue in order; with {@code recovered}, only onto the channel amqp-client recovered. */
    private void republish(boolean recovered) {
        int published = 0;
        List<Pending> failed = new ArrayList<>();
        List<PublishException> errors = new ArrayList<>();
        lock.lock();
        try {
            if (closed || (recovered && channel == null)) {
                return;
            }
            broken = false;
            while (!resend.isEmpty()) {
                Pending record = resend.peekFirst();
                try {
                    if (!tryPublish(record)) {
                        return; // lost again: the next recovery carries on
                    }
                    published++;
                } catch (PublishException e) {
                    failed.add(record); // refused by the broker (the next record opens a new channel)
                    errors.add(e);
                }
                resend.pollFirst();
            }
        } finally {
            lock.unlock();
            for (int i = 0; i < failed.size(); i++) {
                failed.get(i).fail(errors.get(i));
            }
            if (published > 0) {
                String after = recovered ? "the connection to RabbitMQ recovered" : "RabbitMQ nacked them";
                log.info("Published {} record(s) for '{}' again after {}", published, destination, after);
                retried("published " + published + " record(s) again after " + after);
            }
        }
    }

    /** Closes the channel; what it still holds fails with the adapter's closed error. Idempotent. */
    void close() {
        List<Pending> left;
        Channel ch;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            ch = channel;
            left = new ArrayList<>(resend);
            resend.clear();
            if (ch == null) {
                left.addAll(outstanding.values());
                outstanding.clear();
            }
        } finally {
            lock.unlock();
        }
        left.forEach(record -> record.fail(adapter.closedError(destination)));
        if (ch != null) {
            try {
                ch.close(); // its shutdown listener fails what is still unconfirmed
            } catch (IOException | AlreadyClosedException | java.util.concurrent.TimeoutException e) {
                log.debug("Closing the publishing channel for '{}': {}", destination, e.toString());
                adapter.onEventThread(() -> afterShutdown(ch.getCloseReason()));
            }
        }
    }

    /**
     * Under the lock: forgets a channel the broker closed; aborting it also unregisters it from
     * amqp-client's recovery, which would otherwise reopen it unused. The next record opens a new one.
     */
    private void discard(Channel ch) {
        channel = null;
        try {
            ch.abort();
        } catch (IOException | RuntimeException e) {
            log.debug("Aborting a closed publishing channel for '{}': {}", destination, e.toString());
        }
    }

    private boolean willRecover(ShutdownSignalException cause) {
        if (adapter.isClosing()) {
            return false;
        }
        return cause == null || (cause.isHardError() && !cause.isInitiatedByApplication());
    }
}
