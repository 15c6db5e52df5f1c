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
 * handing the record over. Two layouts: the CloudEvents attributes (those not written are null), or the compact envelope
 * ({@link Envelope#COMPACT} and the trace headers only); the length of the value array tells which.
 */
final class EnvelopeHeaders extends AbstractMap<String, String> {

    private static final String TRACESTATE = "ce_tracestate";
    private static final String[] CLOUD_EVENTS = {
        Envelope.SPEC_VERSION, Envelope.ID, Envelope.SOURCE, Envelope.TYPE, Envelope.TIME, Envelope.CONTENT_TYPE,
        Envelope.ATTEMPT, Envelope.SUBJECT, Envelope.TRACEPARENT, TRACESTATE
    };
    private static final String[] COMPACT = {Envelope.COMPACT, Envelope.TRACEPARENT, TRACESTATE};

    private final String[] values;
    private Map<String, String> user;
    private boolean userCopied;

    private EnvelopeHeaders(Map<String, String> user, String[] values) {
        this.user = user;
        this.values = values;
    }

    /**
     * The CloudEvents layout: each attribute its own header; {@code time}, {@code attempt} and
     * {@code subject} (the key) are left out when null.
     */
    static EnvelopeHeaders cloudEvents(Map<String, String> user, String id, String source, String type, String time,
            String contentType, String attempt, String subject) {
        String[] values = new String[CLOUD_EVENTS.length];
        values[0] = Envelope.SPEC_VERSION_VALUE;
        values[1] = id;
        values[2] = source;
        values[3] = type;
        values[4] = time;
        values[5] = contentType;
        values[6] = attempt;
        values[7] = subject;
        return new EnvelopeHeaders(user, values);
    }

    /** The compact layout: one {@link Envelope#COMPACT} header with {@code value}, and room for the trace headers. */
    static EnvelopeHeaders compact(Map<String, String> user, String value) {
        String[] values = new String[COMPACT.length];
        values[0] = value;
        return new EnvelopeHeaders(user, values);
    }

    /** The header names of this layout, slot by slot. */
    private String[] names() {
        return values.length == COMPACT.length ? COMPACT : CLOUD_EVENTS;
    }

    private int slot(Object key) {
        if (!(key instanceof String k) || !Envelope.isCloudEventsHeader(k)) {
            return -1;
        }
        String[] names = names();
        for (int i = 0; i < names.length; i++) {
            if (names[i].equals(k)) {
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
        String[] names = names();
        for (int i = 0; i < names.length; i++) {
            if (values[i] != null) {
                action.accept(names[i], values[i]);
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
                String[] names = names();
                return new Iterator<>() {
                    private int next = advance(0);

                    private int advance(int from) {
                        int i = from;
                        while (i < names.length && values[i] == null) {
                            i++;
                        }
                        return i;
                    }

                    @Override
                    public boolean hasNext() {
                        return next < names.length || userEntries.hasNext();
                    }

                    @Override
                    public Entry<String, String> next() {
                        if (next < names.length) {
                            Entry<String, String> e = Map.entry(names[next], values[next]);
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
