package io.switchboard.internal.idempotency;

import io.switchboard.spi.IdempotencyStore;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A bounded in-memory {@link IdempotencyStore}: remembers the most recent {@code capacity}
 * completed ids per scope (least recently completed evicted first). Claims in progress are kept
 * apart and never evicted (a claim of this process ends with its delivery, so none is left stale).
 * Suited to deduplicating redeliveries within one process; use a durable
 * store to deduplicate across restarts.
 */
public final class InMemoryIdempotencyStore implements IdempotencyStore {

    private final int capacity;
    private final Map<String, Scope> scopes = new HashMap<>();

    /** A store remembering up to {@code capacity} ids per scope. */
    public InMemoryIdempotencyStore(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1 but was " + capacity);
        }
        this.capacity = capacity;
    }

    @Override
    public Claim claim(String scope, String messageId) {
        Scope s = scope(scope);
        synchronized (s) {
            if (s.completed.containsKey(messageId)) {
                return Claim.DONE;
            }
            return s.claimed.putIfAbsent(messageId, Boolean.TRUE) == null ? Claim.CLAIMED : Claim.BUSY;
        }
    }

    @Override
    public void complete(String scope, String messageId) {
        Scope s = scope(scope);
        synchronized (s) {
            s.claimed.remove(messageId);
            s.completed.put(messageId, Boolean.TRUE);
        }
    }

    @Override
    public void release(String scope, String messageId) {
        Scope s = scope(scope);
        synchronized (s) {
            s.claimed.remove(messageId);
        }
    }

    private synchronized Scope scope(String name) {
        return scopes.computeIfAbsent(name, n -> new Scope(capacity));
    }

    private static final class Scope {
        final Map<String, Boolean> claimed = new HashMap<>();
        final LinkedHashMap<String, Boolean> completed;

        Scope(int capacity) {
            this.completed = new LinkedHashMap<>(16, 0.75f, false) {
                private static final long serialVersionUID = 1L;

                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                    return size() > capacity;
                }
            };
        }
    }
}
