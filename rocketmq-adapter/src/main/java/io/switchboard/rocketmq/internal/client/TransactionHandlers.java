package io.switchboard.rocketmq.internal.client;

import io.switchboard.rocketmq.TransactionHandler;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The transaction handlers registered per broker instance name. An adapter holds its instance's
 * slot, so reading the current handler costs one volatile read, not a lookup.
 */
public final class TransactionHandlers {

    private static final Map<String, Slot> SLOTS = new ConcurrentHashMap<>();

    private TransactionHandlers() {}

    /** The slot of a broker instance, created empty on first use. */
    public static Slot slot(String instanceName) {
        return SLOTS.computeIfAbsent(instanceName, name -> new Slot());
    }

    /** Holds the handler of one broker instance. */
    public static final class Slot {
        private final AtomicReference<TransactionHandler> handler = new AtomicReference<>();

        /** Sets the handler. */
        public void set(TransactionHandler value) {
            handler.set(value);
        }

        /** Removes the handler if it is still {@code expected}. */
        public void clear(TransactionHandler expected) {
            handler.compareAndSet(expected, null);
        }

        /** The handler, or null. */
        public TransactionHandler get() {
            return handler.get();
        }
    }
}
