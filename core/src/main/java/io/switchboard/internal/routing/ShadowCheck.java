package io.switchboard.internal.routing;

import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Compares, per key, what a mirror's shadow delivered against what its primary delivered:
 * missing (the primary delivered it, the shadow not within the grace period), duplicated (the
 * shadow delivered it twice) and reordered (the shadow delivered it after a later message of the
 * same key). Bounded: at most {@value #MAX_TRACKED} ids are tracked; beyond that the oldest primary
 * ids are settled (counted missing when the shadow never delivered them). Runs only in mirror mode.
 */
final class ShadowCheck {

    static final int MAX_TRACKED = 200_000;

    private final long graceMillis;
    private final Map<String, Entry> ids = new ConcurrentHashMap<>();
    private final Map<String, KeyOrder> keys = new ConcurrentHashMap<>();
    private final AtomicLong sequence = new AtomicLong();
    final LongAdder shadowOffered = new LongAdder();
    final LongAdder shadowSent = new LongAdder();
    final LongAdder shadowFailed = new LongAdder();
    final LongAdder shadowDropped = new LongAdder();
    private final LongAdder primarySeen = new LongAdder();
    private final LongAdder shadowSeen = new LongAdder();
    private final LongAdder duplicated = new LongAdder();
    private final LongAdder reordered = new LongAdder();
    private final LongAdder missingSettled = new LongAdder();

    ShadowCheck(long graceMillis) {
        this.graceMillis = graceMillis;
    }

    /** One id's sightings. */
    private static final class Entry {
        final String key;
        long primarySeq = -1;
        long primaryAtMillis;
        int shadowCount;

        Entry(String key) {
            this.key = key;
        }
    }

    /** The primary order position of the last shadow delivery of a key. */
    private static final class KeyOrder {
        long lastShadowPrimarySeq = -1;
    }

    void primary(String key, String id) {
        Entry e = ids.computeIfAbsent(id, i -> new Entry(key));
        synchronized (e) {
            if (e.primarySeq >= 0) {
                return; // a retry of the same delivery, or a primary redelivery: not the shadow's concern
            }
            e.primarySeq = sequence.incrementAndGet();
            e.primaryAtMillis = System.currentTimeMillis();
        }
        primarySeen.increment();
        trim();
    }

    void shadow(String key, String id) {
        shadowSeen.increment();
        Entry e = ids.computeIfAbsent(id, i -> new Entry(key));
        long seq;
        synchronized (e) {
            e.shadowCount++;
            if (e.shadowCount > 1) {
                duplicated.increment();
                return;
            }
            seq = e.primarySeq;
        }
        if (seq < 0 || key == null) {
            return; // the shadow was first: order is judged against primary sightings only
        }
        KeyOrder order = keys.computeIfAbsent(key, k -> new KeyOrder());
        synchronized (order) {
            if (seq < order.lastShadowPrimarySeq) {
                reordered.increment();
            } else {
                order.lastShadowPrimarySeq = seq;
            }
        }
    }

    private void trim() {
        if (ids.size() <= MAX_TRACKED) {
            return;
        }
        Iterator<Entry> it = ids.values().iterator();
        int drop = ids.size() - MAX_TRACKED + MAX_TRACKED / 10;
        while (it.hasNext() && drop-- > 0) {
            Entry e = it.next();
            synchronized (e) {
                if (e.primarySeq >= 0 && e.shadowCount == 0) {
                    missingSettled.increment();
                }
            }
            it.remove();
        }
    }

    /** Counts as of now. */
    long[] counts() {
        long now = System.currentTimeMillis();
        long missing = missingSettled.sum();
        for (Entry e : ids.values()) {
            synchronized (e) {
                if (e.primarySeq >= 0 && e.shadowCount == 0 && now - e.primaryAtMillis > graceMillis) {
                    missing++;
                }
            }
        }
        long sent = shadowSent.sum();
        long failed = shadowFailed.sum();
        long dropped = shadowDropped.sum();
        return new long[] {sent, failed, dropped, Math.max(0, shadowOffered.sum() - sent - failed - dropped), primarySeen.sum(),
            shadowSeen.sum(), missing, duplicated.sum(), reordered.sum(), keys.size()};
    }
}
