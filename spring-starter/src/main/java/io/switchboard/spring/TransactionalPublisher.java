package io.switchboard.spring;

import io.switchboard.Message;
import java.util.List;

/**
 * Writes typed messages for one destination to the outbox, in the current Spring-managed transaction; made by
 * {@link SwitchboardOutbox#publisher(String, Class)}. Nothing reaches a broker unless the transaction commits; then
 * the relay sends each message at least once, with the id returned here. Thread-safe. For injection by qualifier,
 * declare a bean:
 *
 * <pre>{@code
 * @Bean
 * TransactionalPublisher<OrderPlaced> orderEvents(SwitchboardOutbox outbox) {
 *     return outbox.publisher("orders", OrderPlaced.class);
 * }
 * }</pre>
 *
 * @param <T> the payload type
 */
public interface TransactionalPublisher<T> {

    /**
     * Writes a message with this payload and no key.
     *
     * @param payload the payload
     * @return the message's id
     * @throws io.switchboard.outbox.OutboxException when no transaction is active (call it inside {@code @Transactional}
     *     or {@code TransactionTemplate}), the transaction is read-only, or the row could not be written
     */
    String publish(T payload);

    /**
     * Writes a message; the key keeps one key's messages in commit order.
     *
     * @param message the message; an id is given to it here when it has none
     * @return the message's id
     * @throws io.switchboard.outbox.OutboxException as {@link #publish(Object)}
     * @throws io.switchboard.MessageTooLargeException when a broker instance its route may name would refuse it
     */
    String publish(Message<T> message);

    /**
     * Writes several messages in one batch of statements, in this order per key.
     *
     * @param messages the messages
     * @return their ids, in order
     * @throws io.switchboard.outbox.OutboxException as {@link #publish(Object)}
     */
    List<String> publishAll(List<Message<T>> messages);

    /** {@return the destination} */
    String destination();
}
