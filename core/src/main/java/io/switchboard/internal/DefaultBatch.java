package io.switchboard.internal;

import io.switchboard.Batch;
import io.switchboard.DeliveryContext;
import io.switchboard.Message;
import java.util.List;
import java.util.Objects;

/** A batch as its handler sees it, and the failures the handler marked. */
final class DefaultBatch<T> implements Batch<T> {

    private final List<Message<T>> messages;
    private final List<DeliveryContext> contexts;
    private final Throwable[] failures;
    private boolean failedAny;

    DefaultBatch(List<Message<T>> messages, List<DeliveryContext> contexts) {
        this.messages = List.copyOf(messages);
        this.contexts = contexts;
        this.failures = new Throwable[messages.size()];
    }

    @Override
    public List<Message<T>> messages() {
        return messages;
    }

    @Override
    public int size() {
        return failures.length;
    }

    @Override
    public DeliveryContext context(int index) {
        return contexts.get(index);
    }

    @Override
    public void fail(int index, Throwable error) {
        Objects.checkIndex(index, failures.length);
        failures[index] = Objects.requireNonNull(error, "error");
        failedAny = true;
    }

    /** {@return true when the handler marked at least one message failed} */
    boolean failedAny() {
        return failedAny;
    }

    /** The failure marked for a message, or null. */
    Throwable failure(int index) {
        return failures[index];
    }

    @Override
    public String toString() {
        return "Batch[" + failures.length + " messages]";
    }
}
