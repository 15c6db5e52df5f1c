package io.switchboard;

import java.util.List;

/**
 * The messages a {@link BatchHandler} handles in one call, in the order they arrived, with a context each. By default
 * every message of the batch succeeds when the handler returns and fails when it throws; {@link #fail(int, Throwable)}
 * marks one message failed while the others succeed: the failed one is retried alone (with the batch-mates that failed
 * with it) and dead-lettered when its attempts are spent or its failure is not retryable, the others are acknowledged.
 *
 * @param <T> payload type
 */
public interface Batch<T> {

    /** {@return the messages, in arrival order} */
    List<Message<T>> messages();

    /** {@return how many messages the batch holds} */
    default int size() {
        return messages().size();
    }

    /**
     * {@return the context of a message: where it came from, which attempt this is}
     *
     * @param index the message's index in {@link #messages()}
     */
    DeliveryContext context(int index);

    /**
     * Marks one message failed: it is retried per the subscription's {@link RetryPolicy} (or dead-lettered at once
     * when the policy does not retry {@code error}), while the messages not marked succeed when the handler returns.
     * The last mark of a message wins.
     *
     * @param index the message's index in {@link #messages()}
     * @param error why it failed, not null
     * @throws IndexOutOfBoundsException when the index is not one of the batch's
     */
    void fail(int index, Throwable error);
}
