package io.switchboard.rocketmq;

import io.switchboard.rocketmq.internal.client.TransactionHandlers;
import java.util.Objects;

/**
 * Registers the {@link TransactionHandler} of a Switchboard on RocketMQ.
 *
 * <pre>{@code
 * Switchboard sb = Switchboard.builder().broker("rocketmq").instanceName("orders-db")
 *         .property("rocketmq.namesrv-addr", "127.0.0.1:9876").build();
 * RocketMqTransactions.register("orders-db", new TransactionHandler() {
 *     public TransactionOutcome execute(TransactionalMessage m) {
 *         return orders.insert(m.headers().get("order-id")) ? TransactionOutcome.COMMIT : TransactionOutcome.ROLLBACK;
 *     }
 *     public TransactionOutcome check(TransactionalMessage m) {
 *         return orders.exists(m.headers().get("order-id")) ? TransactionOutcome.COMMIT : TransactionOutcome.ROLLBACK;
 *     }
 * });
 * Publisher<Order> out = sb.publisher("orders", Codec.json(Order.class)).delivery(Delivery.EXACTLY_ONCE).build();
 * }</pre>
 *
 * <p>Without a handler, {@code EXACTLY_ONCE} publishing on RocketMQ is an acknowledged send like
 * {@code AT_LEAST_ONCE} (a transaction without local work adds nothing), and exactly-once
 * handling comes from the subscriber's deduplication on the message id. With a handler, messages
 * are RocketMQ transactional messages; RocketMQ's transactional send has no queue selector, so
 * they are spread over the destination's queues and per-key order is not kept for them.
 */
public final class RocketMqTransactions {

    private RocketMqTransactions() {}

    /** Undoes a registration. */
    public interface Registration extends AutoCloseable {
        /** Removes the handler; later transactional sends and check-backs commit by default. */
        @Override
        void close();
    }

    /**
     * Sets the handler for a broker instance, replacing any earlier one. Register it before
     * publishing: a message published without a handler is committed at once.
     *
     * @param instanceName the Switchboard's broker instance name ({@code Switchboard.instanceName()})
     * @param handler runs local transactions and answers check-backs
     * @return a registration whose {@code close()} removes this handler
     */
    public static Registration register(String instanceName, TransactionHandler handler) {
        Objects.requireNonNull(instanceName, "instanceName");
        Objects.requireNonNull(handler, "handler");
        TransactionHandlers.slot(instanceName).set(handler);
        return () -> TransactionHandlers.slot(instanceName).clear(handler);
    }
}
