package io.switchboard.internal;

import io.switchboard.Envelope;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * The headers of an outbound record: the envelope's attributes in fields plus the application's
 * headers by reference, instead of a hash map filled per message. Read-only for adapters, which
 * should iterate with {@link #forEach} (no entry objects); core sets the trace headers before
 * handing the record over.
 */
final class EnvelopeHeaders extends AbstractMap<String, String> {

    private static final String[] FIXED = {
        Envelope.SPEC_VERSION, Envelope.ID, Envelope.SOURCE, Envelope.TYPE, Envelope.TIME, Envelope.CONTENT_TYPE,
        Envelope.ATTEMPT, Envelope.SUBJECT, Envelope.TRACEPARENT, "ce_tracestate"
    };

    private final String[] values = new String[FIXED.length];
    private Map<String, String> user;
    private boolean userCopied;

    EnvelopeHeaders(Map<String, String> user, String id, String source, String type, String time, String contentType,
            String subject) {
        this.user = user;
        values[0] = Envelope.SPEC_VERSION_VALUE;
        values[1] = id;
        values[2] = source;
        values[3] = type;
        values[4] = time;
        values[5] = contentType;
        values[6] = "1";
        values[7] = subject;
    }

    private static int slot(Object key) {
        if (!(key instanceof String k) || !Envelope.isCloudEventsHeader(k)) {
            return -1;
        }
        for (int i = 0; i < FIXED.length; i++) {
            if (FIXED[i].equals(k)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Core's write of propagation fields while the publish observation starts: trace headers go to
     * their slots, any other field (B3, baggage) to a private copy of the application headers.
     */
    @Override
    public String put(String key, String value) {
        int slot = slot(key);
        if (slot >= 0) {
            String old = values[slot];
            values[slot] = value;
            return old;
        }
        if (!userCopied) {
            user = new java.util.HashMap<>(user);
            userCopied = true;
        }
        return user.put(key, value);
    }

    @Override
    public String get(Object key) {
        int slot = slot(key);
        return slot >= 0 ? values[slot] : user.get(key);
    }

    @Override
    public boolean containsKey(Object key) {
        return get(key) != null;
    }

    @Override
    public int size() {
        int n = user.size();
        for (String v : values) {
            if (v != null) {
                n++;
            }
        }
        return n;
    }

    @Override
    public void forEach(BiConsumer<? super String, ? super String> action) {
        for (int i = 0; i < FIXED.length; i++) {
            if (values[i] != null) {
                action.accept(FIXED[i], values[i]);
            }
        }
        user.forEach(action);
    }

    @Override
    public Set<Entry<String, String>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Entry<String, String>> iterator() {
                Iterator<Entry<String, String>> userEntries = user.entrySet().iterator();
                return new Iterator<>() {
                    private int next = advance(0);

                    private int advance(int from) {
                        int i = from;
                        while (i < FIXED.length && values[i] == null) {
                            i++;
                        }
                        return i;
                    }

                    @Override
                    public boolean hasNext() {
                        return next < FIXED.length || userEntries.hasNext();
                    }

                    @Override
                    public Entry<String, String> next() {
                        if (next < FIXED.length) {
                            Entry<String, String> e = Map.entry(FIXED[next], values[next]);
                            next = advance(next + 1);
                            return e;
                        }
                        if (!userEntries.hasNext()) {
                            throw new NoSuchElementException();
                        }
                        return userEntries.next();
                    }
                };
            }

            @Override
            public int size() {
                return EnvelopeHeaders.this.size();
            }
        };
    }
}
