package io.switchboard.rocketmq.internal.publish;

import io.switchboard.PublishException;
import io.switchboard.rocketmq.internal.client.Producers;
import io.switchboard.spi.DaemonThreads;
import io.switchboard.spi.SendResult;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.apache.rocketmq.client.producer.LocalTransactionState;
import org.apache.rocketmq.client.producer.TransactionSendResult;
import org.apache.rocketmq.common.message.Message;

/**
 * Sends one publisher's transactional messages, one at a time in publish order, on its own
 * thread: RocketMQ's transactional send blocks until the half message is stored and the local
 * transaction has run, and the publishing thread must not wait for that.
 */
final class TransactionalSender {

    private final Producers producers;
    private final String destination;
    private final ExecutorService thread;

    TransactionalSender(Producers producers, String destination) {
        this.producers = producers;
        this.destination = destination;
        this.thread = Executors.newSingleThreadExecutor(DaemonThreads.named("switchboard-rocketmq-tx-" + destination));
    }

    /** Sends on the sender's thread; {@code done} gets the answer once, on that thread (or here when closed). */
    void send(Message message, BiConsumer<SendResult, Throwable> done) {
        try {
            thread.execute(() -> sendNow(message, done));
        } catch (RejectedExecutionException e) {
            done.accept(null, new PublishException("Transactional publisher for '" + destination + "' is closed", e));
        }
    }

    private void sendNow(Message message, BiConsumer<SendResult, Throwable> done) {
        if (message.getDeliverTimeMs() > 0) {
            done.accept(null, new PublishException("Message to '" + destination + "' asks for delayed "
                    + "delivery, which RocketMQ does not offer for transactional messages; publish it without a delay, "
                    + "or with Delivery.AT_LEAST_ONCE"));
            return;
        }
        TransactionSendResult result;
        try {
            result = producers.transactional().sendMessageInTransaction(message, null);
        } catch (Exception e) {
            done.accept(null, SendFailures.of(e, destination, "see rocketmq.namesrv-addr", producers.credentials()));
            return;
        }
        if (result.getLocalTransactionState() == LocalTransactionState.ROLLBACK_MESSAGE) {
            done.accept(null, new PublishException("Message " + result.getMsgId() + " to '" + destination
                    + "' was rolled back by the TransactionHandler's local transaction; the broker discards it"));
        } else {
            RocketMqPublisher.complete(done, result, 0, destination);
        }
    }

    void close() {
        thread.shutdown();
        try {
            thread.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
