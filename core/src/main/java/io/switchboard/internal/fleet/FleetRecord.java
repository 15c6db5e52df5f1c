package io.switchboard.internal.fleet;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One record of the fleet's route log: a version stamp and fields, as {@code name=value} lines
 * (values without line breaks). Keys of the log: {@code default}, {@code route/<destination>},
 * {@code gate/<destination>}.
 *
 * <p>Order: a record supersedes another of the same key when its version is higher; at equal
 * versions (two replicas wrote at once) the later write time wins, and at equal times the greater
 * replica id. Every replica compares the same two records the same way, so all end on one value
 * whatever order the records arrived in.
 *
 * @param version the key's version, from 1 (0 is the application's configuration)
 * @param writtenAt epoch milliseconds of the write
 * @param writer the replica that wrote it
 * @param fields the record's content
 */
record FleetRecord(long version, long writtenAt, String writer, Map<String, String> fields) {

    static final String DEFAULT_KEY = "default";
    static final String ROUTE_PREFIX = "route/";
    static final String GATE_PREFIX = "gate/";

    /** True when this record supersedes {@code other} (null: nothing yet). */
    boolean supersedes(FleetRecord other) {
        if (other == null) {
            return true;
        }
        if (version != other.version) {
            return version > other.version;
        }
        if (writtenAt != other.writtenAt) {
            return writtenAt > other.writtenAt;
        }
        return writer.compareTo(other.writer) > 0;
    }

    /** True when both are the same write. */
    boolean sameStamp(FleetRecord other) {
        return other != null && version == other.version && writtenAt == other.writtenAt && writer.equals(other.writer);
    }

    String field(String name) {
        return fields.get(name);
    }

    byte[] encode() {
        StringBuilder b = new StringBuilder();
        b.append("v=").append(version).append('\n').append("t=").append(writtenAt).append('\n').append("by=").append(writer).append('\n');
        fields.forEach((k, v) -> b.append(k).append('=').append(v.replace('\n', ' ')).append('\n'));
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Parses a record; null when the bytes are not one (logged by the caller). */
    static FleetRecord decode(byte[] bytes) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (String line : new String(bytes, StandardCharsets.UTF_8).split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                fields.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        String v = fields.remove("v");
        String t = fields.remove("t");
        String by = fields.remove("by");
        if (v == null || t == null || by == null) {
            return null;
        }
        try {
            return new FleetRecord(Long.parseLong(v), Long.parseLong(t), by, fields);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
