package io.switchboard.internal.envelope;

import io.switchboard.Envelope;
import io.switchboard.spi.OutboundRecord;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * The headers of an outbound record: a publisher's {@link Layout} (the header names and the
 * attribute values that are the same on every message), the values of this message, and the
 * application's headers by reference, instead of a hash map filled per message. A generated id is
 * kept as its 128 bits and the publish time as epoch microseconds: their text is written only when
 * something reads it ({@link #get}, {@link #forEach}, the entries, {@link #id()}), once, while an
 * adapter that writes bytes gets their ASCII characters straight from the numbers
 * ({@link #forEachHeader}). Read-only for adapters; core sets the trace headers before handing the
 * record over. As a {@link Supplier} it gives the id's text ({@link #id()}), so that a
 * {@link io.switchboard.PublishReceipt} can write it only when read.
 */
public final class EnvelopeHeaders extends AbstractMap<String, String> implements Supplier<String>, OutboundRecord.GeneratedHeaders {

    private static final String TRACESTATE = "ce_tracestate";

    /** A slot's value is the layout's constant. */
    private static final byte CONSTANT = 0;
    /** A slot's value is the id. */
    private static final byte ID = 1;
    /** A slot's value is the publish time. */
    private static final byte TIME = 2;
    /** A slot's value is the compact envelope value: time and id. */
    private static final byte COMPACT = 3;
    /** A slot's value is set per message ({@link #put}): subject, trace headers. */
    private static final byte SET = 4;

    /** The id is a string given by the application, or none. */
    private static final byte ID_GIVEN = 0;
    /** The id is {@link #high} and {@link #low} as {@link MessageIds#shortId}. */
    private static final byte ID_SHORT = 1;
    /** The id is {@link #high} and {@link #low} as {@link MessageIds#uuid}. */
    private static final byte ID_UUID = 2;
    /** No id yet: it is made, as {@link #ID_SHORT}, when something reads it ({@link #deferredId()}). */
    private static final byte ID_DEFERRED = 3;
    /** No id held: {@link #shared}'s, a fresh one on each {@link #id()}. */
    private static final byte ID_FRESH = 4;

    /** A publisher's header names and constant values; made once per publisher. */
    public static final class Layout {
        private final String[] names;
        private final byte[] kinds;
        private final String[] constants;

        private Layout(String[] names, byte[] kinds, String[] constants) {
            this.names = names;
            this.kinds = kinds;
            this.constants = constants;
        }

        /** The CloudEvents attributes, each its own header; a null constant is left out. */
        public static Layout cloudEvents(String source, String type, String contentType, String attempt) {
            return new Layout(
                    new String[] {Envelope.SPEC_VERSION, Envelope.ID, Envelope.SOURCE, Envelope.TYPE, Envelope.TIME,
                        Envelope.CONTENT_TYPE, Envelope.ATTEMPT, Envelope.SUBJECT, Envelope.TRACEPARENT, TRACESTATE},
                    new byte[] {CONSTANT, ID, CONSTANT, CONSTANT, TIME, CONSTANT, CONSTANT, SET, SET, SET},
                    new String[] {Envelope.SPEC_VERSION_VALUE, null, source, type, null, contentType, attempt, null, null, null});
        }

        /** No envelope header: only room for the trace headers. */
        public static Layout none() {
            return new Layout(new String[] {Envelope.TRACEPARENT, TRACESTATE}, new byte[] {SET, SET}, new String[2]);
        }

        /** One {@link Envelope#COMPACT} header, and room for the trace headers. */
        public static Layout compact() {
            return new Layout(new String[] {Envelope.COMPACT, Envelope.TRACEPARENT, TRACESTATE},
                    new byte[] {COMPACT, SET, SET}, new String[3]);
        }
    }

    private final Layout layout;
    private Map<String, String> user;
    private boolean userCopied;
    private byte idForm;
    /** A deferred id's bits were made (under the lock). */
    private boolean deferredMade;
    private long high;
    private long low;
    /** The given id, or the generated one once written as text. */
    private String id;
    private long micros = OutboundRecord.NO_TIME;
    /** The time given as text, or the generated one once written as text. */
    private String time;
    /** Values set per message, by slot; made on the first. */
    private String[] set;

    /** A message's headers in {@code layout}, its id and time still to be given. */
    public EnvelopeHeaders(Layout layout, Map<String, String> user) {
        this.layout = layout;
        this.user = user;
    }

    /**
     * The headers of every message of a {@code none} publisher on a broker whose record position is the consumer's id,
     * when the message has no application header, given id or time, and nothing traces it: nothing to write, so one
     * read-only instance serves them all, and no object is made per message. It holds no id: {@link #id()} makes a
     * fresh one on each call, so whoever needs one id per message (a receipt without a position) reads it once.
     */
    public static EnvelopeHeaders shared(Layout none) {
        EnvelopeHeaders headers = new EnvelopeHeaders(none, Map.of());
        headers.idForm = ID_FRESH;
        return headers;
    }

    /** {@return whether these are {@link #shared} headers} */
    public boolean isShared() {
        return idForm == ID_FRESH;
    }

    /** The id: a generated UUID version 7, written as 22 characters ({@code shortForm}) or as a UUID. */
    public void generatedId(long high, long low, boolean shortForm) {
        this.high = high;
        this.low = low;
        this.idForm = shortForm ? ID_SHORT : ID_UUID;
    }

    /**
     * No id now: the envelope {@code none} on a broker whose record position is the consumer's id writes none, so one
     * is made from the clock and random bits only when something reads it (a receipt without a position, a log line
     * about a lost message). Every read of such headers goes through a lock; others take none.
     */
    public void deferredId() {
        this.idForm = ID_DEFERRED;
    }

    /** Makes a deferred id on its first read; the lock makes its bits visible to every thread that reads them. */
    private void ensureId() {
        if (idForm == ID_DEFERRED) {
            makeDeferredId();
        }
    }

    private synchronized void makeDeferredId() {
        if (!deferredMade) {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            high = MessageIds.idHigh(System.currentTimeMillis(), random);
            low = MessageIds.idLow(random);
            deferredMade = true;
        }
    }

    /** The id: the application's. */
    public void givenId(String id) {
        this.id = id;
    }

    /** The publish time in epoch microseconds. */
    public void timeMicros(long micros) {
        this.micros = micros;
    }

    /** The publish time as text, for a time whose microseconds do not fit in a long. */
    public void timeText(String time) {
        this.time = time;
    }

    /** {@return true when the id is generated and held as its 128 bits} */
    @Override
    public boolean hasIdBits() {
        return idForm != ID_GIVEN && idForm != ID_FRESH;
    }

    /** {@return the most significant 64 bits of a generated id, 0 for a given one} */
    @Override
    public long idHigh() {
        ensureId();
        return hasIdBits() ? high : 0;
    }

    /** {@return the least significant 64 bits of a generated id, 0 for a given one} */
    @Override
    public long idLow() {
        ensureId();
        return hasIdBits() ? low : 0;
    }

    /** {@return the publish time in epoch microseconds, or {@link OutboundRecord#NO_TIME}} */
    @Override
    public long timeMicros() {
        return micros;
    }

    /** {@return the id as text, written from its bits on the first call} */
    public String id() {
        if (idForm == ID_FRESH) {
            return MessageIds.nextShort();
        }
        ensureId();
        String s = id;
        if (s == null && idForm != ID_GIVEN) {
            s = MessageIds.ascii(idBytes());
            id = s; // racy but benign: every thread writes the same characters
        }
        return s;
    }

    /** {@return the id as text, as {@link #id()}: what a receipt made with this as its id source reads} */
    @Override
    public String get() {
        return id();
    }

    private byte[] idBytes() {
        ensureId();
        return idForm != ID_UUID ? MessageIds.shortId(high, low) : MessageIds.uuid(high, low);
    }

    private String time() {
        String s = time;
        if (s == null && micros != OutboundRecord.NO_TIME) {
            s = MessageIds.ascii(MessageIds.micros(micros));
            time = s;
        }
        return s;
    }

    private String compactValue() {
        return micros + ";" + id();
    }

    private String value(int slot) {
        return switch (layout.kinds[slot]) {
            case ID -> id();
            case TIME -> time();
            case COMPACT -> compactValue();
            case SET -> set == null ? null : set[slot];
            default -> set != null && set[slot] != null ? set[slot] : layout.constants[slot];
        };
    }

    /**
     * Every header as {@link #forEach} hands them over, except that the values core generated from
     * numbers (the id, the time, the compact value of a generated id) go to
     * {@link OutboundRecord.HeaderWriter#ascii} as new arrays written straight from those numbers.
     */
    @Override
    public void forEachHeader(OutboundRecord.HeaderWriter writer) {
        String[] names = layout.names;
        for (int i = 0; i < names.length; i++) {
            byte kind = layout.kinds[i];
            if (kind == ID && idForm != ID_GIVEN) {
                writer.ascii(names[i], idBytes());
            } else if (kind == TIME && micros != OutboundRecord.NO_TIME) {
                writer.ascii(names[i], MessageIds.micros(micros));
            } else if (kind == COMPACT && idForm != ID_GIVEN) {
                writer.ascii(names[i], MessageIds.compact(micros, idBytes()));
            } else if (kind == CONSTANT && (set == null || set[i] == null)) {
                String constant = layout.constants[i];
                if (constant != null) { // none for a slot this message's payload leaves out (content type of bytes)
                    writer.constant(names[i], constant);
                }
            } else {
                String v = value(i);
                if (v != null) {
                    writer.text(names[i], v);
                }
            }
        }
        if (!user.isEmpty()) {
            user.forEach(writer::text);
        }
    }

    private int slot(Object key) {
        if (!(key instanceof String k) || !Envelope.isCloudEventsHeader(k)) {
            return -1;
        }
        String[] names = layout.names;
        for (int i = 0; i < names.length; i++) {
            if (names[i].equals(k)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Core's write of the subject and, while the publish observation starts, of propagation
     * fields: envelope headers go to their slots, any other field (B3, baggage) to a private copy of
     * the application headers.
     */
    @Override
    public String put(String key, String value) {
        if (idForm == ID_FRESH) {
            throw new UnsupportedOperationException("shared headers of messages without an envelope are read-only");
        }
        int slot = slot(key);
        if (slot < 0) {
            if (!userCopied) {
                user = new HashMap<>(user);
                userCopied = true;
            }
            return user.put(key, value);
        }
        String old = value(slot);
        switch (layout.kinds[slot]) {
            case ID -> {
                id = value;
                idForm = ID_GIVEN;
            }
            case TIME -> {
                time = value;
                micros = OutboundRecord.NO_TIME;
            }
            case COMPACT -> throw new UnsupportedOperationException("the compact envelope value is made from the id and time");
            default -> {
                if (set == null) {
                    set = new String[layout.names.length];
                }
                set[slot] = value;
            }
        }
        return old;
    }

    @Override
    public String get(Object key) {
        int slot = slot(key);
        return slot >= 0 ? value(slot) : user.get(key);
    }

    @Override
    public boolean containsKey(Object key) {
        return get(key) != null;
    }

    @Override
    public int size() {
        int n = user.size();
        for (int i = 0; i < layout.names.length; i++) {
            if (present(i)) {
                n++;
            }
        }
        return n;
    }

    /** Without counting: {@code none} with no trace and no application header has nothing to write, per message. */
    @Override
    public boolean isEmpty() {
        if (!user.isEmpty()) {
            return false;
        }
        for (int i = 0; i < layout.names.length; i++) {
            if (present(i)) {
                return false;
            }
        }
        return true;
    }

    /** Whether a slot has a value, without writing a generated one as text. */
    private boolean present(int slot) {
        return switch (layout.kinds[slot]) {
            case ID, COMPACT -> idForm != ID_GIVEN || id != null;
            case TIME -> micros != OutboundRecord.NO_TIME || time != null;
            default -> value(slot) != null;
        };
    }

    @Override
    public void forEach(BiConsumer<? super String, ? super String> action) {
        String[] names = layout.names;
        for (int i = 0; i < names.length; i++) {
            String v = value(i);
            if (v != null) {
                action.accept(names[i], v);
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
                String[] names = layout.names;
                return new Iterator<>() {
                    private int next = advance(0);

                    private int advance(int from) {
                        int i = from;
                        while (i < names.length && !present(i)) {
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
                            Entry<String, String> e = Map.entry(names[next], value(next));
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
