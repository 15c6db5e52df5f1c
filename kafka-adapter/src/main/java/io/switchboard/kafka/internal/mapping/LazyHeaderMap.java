package io.switchboard.kafka.internal.mapping;

import java.nio.charset.StandardCharsets;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.header.Header;

/**
 * A consumed record's headers as strings, decoded only when read. Core reads a few envelope
 * headers by name and copies only the application's headers, so the constant envelope attributes
 * (spec version, source, type, content type, subject) are never turned into strings. A header a
 * plain producer repeated keeps its last value, as Kafka's {@code lastHeader} does. Read-only;
 * used by one thread at a time (the thread handling the record).
 */
public final class LazyHeaderMap extends AbstractMap<String, String> {

    /** Up to this many headers, repeated names are found by a scan rather than a hash set. */
    private static final int SCAN_LIMIT = 16;

    private final Header[] headers;
    private Set<Entry<String, String>> entries;

    LazyHeaderMap(Header[] headers) {
        this.headers = headers;
    }

    private static String text(byte[] value) {
        return value == null ? "" : new String(value, StandardCharsets.UTF_8);
    }

    @Override
    public String get(Object key) {
        for (int i = headers.length - 1; i >= 0; i--) {
            if (headers[i].key().equals(key)) {
                return text(headers[i].value());
            }
        }
        return null;
    }

    @Override
    public boolean containsKey(Object key) {
        for (int i = headers.length - 1; i >= 0; i--) {
            if (headers[i].key().equals(key)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public int size() {
        return entrySet().size();
    }

    @Override
    public boolean isEmpty() {
        return headers.length == 0;
    }

    @Override
    public Set<Entry<String, String>> entrySet() {
        Set<Entry<String, String>> result = entries;
        if (result == null) {
            // the last header of each name, in record order; a scan of the few later keys costs less than
            // hashing every key into a set (which records of foreign producers with many headers still get)
            List<Entry<String, String>> last = new ArrayList<>(headers.length);
            Set<String> seen = headers.length > SCAN_LIMIT ? new HashSet<>() : null;
            for (int i = headers.length - 1; i >= 0; i--) {
                if (seen != null ? seen.add(headers[i].key()) : !repeatedLater(i)) {
                    last.add(new LazyEntry(headers[i]));
                }
            }
            Collections.reverse(last);
            result = new ListSet(last);
            entries = result;
        }
        return result;
    }

    private boolean repeatedLater(int index) {
        String key = headers[index].key();
        for (int j = index + 1; j < headers.length; j++) {
            if (headers[j].key().equals(key)) {
                return true;
            }
        }
        return false;
    }

    /** An entry whose value is decoded when asked for. */
    private static final class LazyEntry implements Map.Entry<String, String> {
        private final Header header;

        LazyEntry(Header header) {
            this.header = header;
        }

        @Override
        public String getKey() {
            return header.key();
        }

        @Override
        public String getValue() {
            return text(header.value());
        }

        @Override
        public String setValue(String value) {
            throw new UnsupportedOperationException("consumed headers are read-only");
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Map.Entry<?, ?> e && getKey().equals(e.getKey()) && getValue().equals(e.getValue());
        }

        @Override
        public int hashCode() {
            return getKey().hashCode() ^ getValue().hashCode();
        }

        @Override
        public String toString() {
            return getKey() + "=" + getValue();
        }
    }

    /** The distinct entries, in record order. */
    private static final class ListSet extends java.util.AbstractSet<Entry<String, String>> {
        private final List<Entry<String, String>> list;

        ListSet(List<Entry<String, String>> list) {
            this.list = list;
        }

        @Override
        public java.util.Iterator<Entry<String, String>> iterator() {
            return Collections.unmodifiableList(list).iterator();
        }

        @Override
        public int size() {
            return list.size();
        }
    }
}
