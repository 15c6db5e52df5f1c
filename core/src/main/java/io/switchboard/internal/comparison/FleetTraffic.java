package io.switchboard.internal.comparison;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * The other replicas' traffic figures, one second at a time, as they share them on the fleet bus:
 * per (instance, destination) the counts and the publish and end-to-end latency histograms of
 * that second, and after them the requests' counts and request-to-reply histograms. Histograms are
 * merged, never percentiles, so a fleet window's p99 is the p99 of every replica's samples together.
 * Kept for the comparison window; read on report, never per message.
 */
public final class FleetTraffic {

    /** One replica's second of one (instance, destination); a null destination: the instance's client cost. */
    private record Slice(long second, String instance, String destination, TrafficStats.Window window) {}

    /** The first int of an encoding that carries the instances' client cost after each second's traffic. */
    private static final int VERSION_2 = -2;
    /**
     * The int that opens the requests' section, after every second's block: a replica of before it stops reading at the
     * end of the blocks, so it takes the traffic and leaves the requests.
     */
    private static final int REQUESTS = 0x52455153;

    private final int seconds;
    private final Map<String, List<Slice>> byReplica = new ConcurrentHashMap<>();
    /** Per instance and destination, the first second any other replica shared traffic of. */
    private final Map<String, Long> firstTraffic = new ConcurrentHashMap<>();

    public FleetTraffic(int seconds) {
        this.seconds = seconds;
    }

    /**
     * Encodes this replica's traffic of the seconds after {@code afterSecond} up to {@code second}
     * (at most 5): every (instance, destination) that had any, a block per second.
     */
    public static byte[] encode(TrafficBook book, long afterSecond, long second) {
        long first = Math.max(afterSecond + 1, second - 4);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        ByteArrayOutputStream requestBytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes);
                DataOutputStream requests = new DataOutputStream(requestBytes)) {
            out.writeInt(VERSION_2); // a replica of before the client cost reads a negative count: no block, nothing wrong
            out.writeInt((int) Math.max(0, second - first + 1));
            int requested = 0;
            for (long s = first; s <= second; s++) {
                requested += encodeSecond(book, s, out, requests);
            }
            if (requested > 0) {
                requests.flush();
                out.writeInt(REQUESTS);
                out.writeInt(requested);
                requestBytes.writeTo(out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** Writes one second's block to {@code out} and its requests to {@code requests}; returns how many of those. */
    private static int encodeSecond(TrafficBook book, long second, DataOutputStream out, DataOutputStream requests)
            throws IOException {
        List<TrafficStats> all = book.all();
        List<TrafficStats.Window> windows = new ArrayList<>();
        List<TrafficStats> used = new ArrayList<>();
        int requested = 0;
        for (TrafficStats s : all) {
            TrafficStats.Window w = new TrafficStats.Window();
            s.addTo(w, second, second);
            if (w.published + w.publishFailed + w.consumed + w.redeliveries > 0) {
                windows.add(w);
                used.add(s);
            }
            if (w.requests() > 0) {
                requests.writeLong(second);
                requests.writeUTF(s.instance);
                requests.writeUTF(s.destination);
                requests.writeLong(w.replies);
                requests.writeLong(w.requestTimeouts);
                requests.writeLong(w.requestFailed);
                histogram(requests, w.requestLatency);
                requested++;
            }
        }
        out.writeLong(second);
        out.writeInt(windows.size());
        for (int i = 0; i < windows.size(); i++) {
            TrafficStats.Window w = windows.get(i);
            out.writeUTF(used.get(i).instance);
            out.writeUTF(used.get(i).destination);
            for (long c : new long[] {w.published, w.publishFailed, w.consumed, w.handleFailed, w.deadLetters, w.redeliveries}) {
                out.writeLong(c);
            }
            histogram(out, w.publishLatency);
            histogram(out, w.endToEnd);
        }
        Map<String, long[]> costs = book.cost().ofSecond(second);
        out.writeInt(costs.size());
        for (Map.Entry<String, long[]> c : costs.entrySet()) {
            out.writeUTF(c.getKey());
            for (long v : c.getValue()) {
                out.writeLong(v);
            }
        }
        return requested;
    }

    private static void histogram(DataOutputStream out, Histogram h) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        int n = h.encodeIntoCompressedByteBuffer(buffer);
        out.writeInt(n);
        out.write(buffer.array(), 0, n);
    }

    private static void readHistogram(DataInputStream in, Histogram into) throws IOException, DataFormatException {
        byte[] b = new byte[in.readInt()];
        in.readFully(b);
        into.add(Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(b), 0));
    }

    /**
     * Takes a replica's shared seconds; a second it shares again replaces the first copy, so
     * nothing counts twice. Malformed input is reported as an exception to the caller.
     */
    public void received(String replica, DataInputStream in) throws IOException, DataFormatException {
        int blocks = in.readInt();
        boolean costs = blocks == VERSION_2;
        if (costs) {
            blocks = in.readInt();
        }
        for (int b = 0; b < blocks; b++) {
            receivedSecond(replica, in, costs);
        }
        if (in.available() >= 4 && in.readInt() == REQUESTS) {
            receivedRequests(replica, in);
        }
    }

    /** The requests of the seconds whose blocks came just before (which replaced what those seconds held). */
    private void receivedRequests(String replica, DataInputStream in) throws IOException, DataFormatException {
        int n = in.readInt();
        List<Slice> slices = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long second = in.readLong();
            String instance = in.readUTF();
            String destination = in.readUTF();
            TrafficStats.Window w = new TrafficStats.Window();
            w.replies = in.readLong();
            w.requestTimeouts = in.readLong();
            w.requestFailed = in.readLong();
            readHistogram(in, w.requestLatency);
            slices.add(new Slice(second, instance, destination, w));
        }
        List<Slice> kept = byReplica.computeIfAbsent(replica, r -> new ArrayList<>());
        synchronized (kept) {
            kept.addAll(slices);
        }
    }

    private void receivedSecond(String replica, DataInputStream in, boolean costs) throws IOException, DataFormatException {
        long second = in.readLong();
        int n = in.readInt();
        List<Slice> slices = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String instance = in.readUTF();
            String destination = in.readUTF();
            TrafficStats.Window w = new TrafficStats.Window();
            w.published = in.readLong();
            w.publishFailed = in.readLong();
            w.consumed = in.readLong();
            w.handleFailed = in.readLong();
            w.deadLetters = in.readLong();
            w.redeliveries = in.readLong();
            readHistogram(in, w.publishLatency);
            readHistogram(in, w.endToEnd);
            slices.add(new Slice(second, instance, destination, w));
            if (w.published + w.publishFailed + w.consumed > 0) {
                firstTraffic.merge(instance + '\u0000' + destination, second, Math::min);
            }
        }
        int n2 = costs ? in.readInt() : 0;
        for (int i = 0; i < n2; i++) {
            String instance = in.readUTF();
            TrafficStats.Window w = new TrafficStats.Window();
            w.cpuNanos = in.readLong();
            w.wireBytes = in.readLong();
            w.wireSamples = in.readLong();
            slices.add(new Slice(second, instance, null, w));
        }
        List<Slice> kept = byReplica.computeIfAbsent(replica, r -> new ArrayList<>());
        synchronized (kept) {
            kept.removeIf(s -> s.second == second);
            kept.addAll(slices);
            kept.removeIf(s -> s.second < second - seconds);
        }
    }

    /** {@return the first second another replica shared traffic of {@code instance} and {@code destination}, or Long.MAX_VALUE} */
    long firstTraffic(String instance, String destination) {
        return firstTraffic.getOrDefault(instance + '\u0000' + destination, Long.MAX_VALUE);
    }

    /**
     * Adds the other replicas' traffic of {@code destination} (null: all) in seconds {@code from..to} into {@code out},
     * leaving out the first {@code warmUp} seconds of an instance and destination's traffic in the fleet ({@code
     * firstTraffic}: per instance and destination, the first second of any replica, this one's included). A replica
     * that joins later is not warming the instance up: its first seconds (a rebalance's backlog) are judged.
     */
    void addTo(Map<String, TrafficStats.Window> out, String destination, long from, long to, long warmUp,
            java.util.function.BiFunction<String, String, Long> firstTraffic) {
        for (List<Slice> slices : byReplica.values()) {
            synchronized (slices) {
                for (Slice s : slices) {
                    TrafficStats.Window w = out.get(s.instance);
                    if (w == null || s.second < from || s.second > to) {
                        continue;
                    }
                    Long first = s.destination == null ? null : firstTraffic.apply(s.instance, s.destination);
                    first = first == null || first == Long.MAX_VALUE ? null : first;
                    if (first != null && warmUp > 0) {
                        if (s.second < first + warmUp) {
                            if (destination == null || destination.equals(s.destination)) {
                                w.leftOut += s.window.published + s.window.consumed;
                            }
                            w.warmUpUntil = Math.max(w.warmUpUntil, first + warmUp - 1);
                            continue;
                        }
                    }
                    if (s.destination == null) { // the instance's client cost in that second
                        w.cpuNanos += s.window.cpuNanos;
                        w.wireBytes += s.window.wireBytes;
                        w.wireSamples += s.window.wireSamples;
                        continue;
                    }
                    w.costMessages += s.window.published + s.window.consumed;
                    if (destination == null || destination.equals(s.destination)) {
                        w.fromSecond = Math.min(w.fromSecond, Math.max(from, first == null ? s.second : first + warmUp));
                        w.add(s.window);
                    }
                }
            }
        }
    }

    /** Forgets replicas that are gone (their figures stay until they age out of the window). */
    public void forgetOlderThan(long second) {
        for (Iterator<Map.Entry<String, List<Slice>>> it = byReplica.entrySet().iterator(); it.hasNext(); ) {
            List<Slice> slices = it.next().getValue();
            synchronized (slices) {
                slices.removeIf(s -> s.second < second);
                if (slices.isEmpty()) {
                    it.remove();
                }
            }
        }
    }
}
