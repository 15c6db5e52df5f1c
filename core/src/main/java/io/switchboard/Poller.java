package io.switchboard;

import java.time.Duration;
import java.util.List;

/**
 * A pull consumer: the application asks for messages when it wants them ({@link #poll}) and settles each
 * ({@link Polled#ack()}, {@link Polled#nack(Throwable)}), as RocketMQ's pull consumer, Spring Cloud Stream's
 * {@code PollableMessageSource} or Spring AMQP's {@code receive}. Obtain one from {@link SubscriberBuilder#poller()};
 * the subscription's group, guarantee, retry policy and dead letters apply: a nacked message comes back in a later poll
 * (its {@link DeliveryContext#attempt()} one higher) until its attempts are spent, then is dead-lettered. A message
 * neither acked nor nacked within the subscription's {@linkplain SubscriberBuilder#handlerTimeout handler timeout}
 * counts as failed. Messages are fetched ahead up to the subscription's {@code maxInFlight} and handed out in arrival
 * order. Thread-safe; closing it closes its subscription (unsettled messages go back to the broker).
 *
 * @param <T> payload type
 */
public interface Poller<T> extends AutoCloseable {

    /** One message handed out by {@link Poller#poll}, to settle once. */
    interface Polled<T> {

        /** {@return the message} */
        Message<T> message();

        /** {@return where it came from and which attempt this is} */
        DeliveryContext context();

        /** Acknowledges the message. A second settlement is ignored. */
        void ack();

        /**
         * Fails this attempt: the message is retried (in a later poll) or dead-lettered, per the retry policy. A second
         * settlement is ignored.
         *
         * @param error why, not null
         */
        void nack(Throwable error);
    }

    /**
     * Waits up to {@code timeout} for a message, then returns it with any others ready, at most {@code max}.
     *
     * @param max the most messages to return, at least 1
     * @param timeout how long to wait for the first; zero returns what is ready
     * @return the messages, in arrival order; empty when none came in time
     * @throws SwitchboardClosedException when the poller is closed
     */
    List<Polled<T>> poll(int max, Duration timeout);

    /** {@return the subscription behind the poller} */
    Subscription subscription();

    /** Closes the subscription; messages handed out and not settled go back to the broker. Idempotent. */
    @Override
    void close();
}
