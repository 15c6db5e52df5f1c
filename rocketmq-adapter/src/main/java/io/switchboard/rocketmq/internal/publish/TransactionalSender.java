package io.switchboard.rocketmq.internal.publish;

import io.switchboard.PublishException;
import io.switchboard.rocketmq.internal.client.Producers;
import io.switchboard.spi.DaemonThreads;
import io.switchboard.spi.SendResult;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
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

    void send(Message message, CompletableFuture<SendResult> future) {
        try {
            thread.execute(() -> sendNow(message, future));
        } catch (RejectedExecutionException e) {
            future.completeExceptionally(new PublishException("Transactional publisher for '" + destination
                    + "' is closed", e));
        }
    }

    private void sendNow(Message message, CompletableFuture<SendResult> future) {
        if (message.getDeliverTimeMs() > 0) {
            future.completeExceptionally(new PublishException("Message to '" + destination + "' asks for delayed "
                    + "delivery, which RocketMQ does not offer for transactional messages; publish it without a delay, "
                    + "or with Delivery.AT_LEAST_ONCE"));
            return;
        }
        try {
            TransactionSendResult result = producers.transactional().sendMessageInTransaction(message, null);
            LocalTransactionState state = result.getLocalTransactionState();
            if (state == LocalTransactionState.ROLLBACK_MESSAGE) {
                future.completeExceptionally(new PublishException("Message " + result.getMsgId() + " to '" + destination
                        + "' was rolled back by the TransactionHandler's local transaction; the broker discards it"));
            } else {
                RocketMqPublisher.complete(future, result, destination);
            }
        } catch (Exception e) {
            future.completeExceptionally(SendFailures.of(e, destination, "see rocketmq.namesrv-addr"));
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
