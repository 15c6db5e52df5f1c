package io.switchboard.internal.comparison;

import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The records per request each instance's client sent, second by second: when the traffic book rolls a second, each
 * instance's adapter is asked for its client's current figure ({@link io.switchboard.spi.BrokerAdapter#recordsPerRequest()})
 * and the second keeps the messages the instance published in it and the requests they took at that figure. Over a
 * window the figure is the records over the requests: a mean weighted by the messages of each second. Nothing on the
 * publish path; one reading per instance and second.
 */
public final class BatchSizes {

    private final int ringSize;
    private final Map<String, Source> sources = new ConcurrentHashMap<>();

    BatchSizes(int seconds) {
        this.ringSize = seconds + 2;
    }

    /**
     * Reads {@code instance}'s figure from {@code reading} from now on.
     *
     * @param instance the instance's name
     * @param reading its adapter's records per request, at once
     */
    public void register(String instance, Supplier<OptionalDouble> reading) {
        sources.putIfAbsent(instance, new Source(reading, ringSize));
    }

    /** Closes second {@code closing} of every instance with the messages each published in it. */
    void roll(long closing, List<TrafficStats> all) {
        for (Map.Entry<String, Source> e : sources.entrySet()) {
            Source source = e.getValue();
            synchronized (source) {
                if (closing <= source.lastRolled) {
                    continue;
                }
                source.lastRolled = closing;
            }
            long published = 0;
            for (TrafficStats t : all) {
                published += t.instance.equals(e.getKey()) ? t.published(closing, closing) : 0;
            }
            OptionalDouble figure = OptionalDouble.empty();
            try {
                figure = source.reading.get();
            } catch (RuntimeException ex) {
                // an adapter that cannot tell leaves the second unknown
            }
            source.record(closing, published, figure.isPresent() ? figure.getAsDouble() : Double.NaN);
        }
    }

    /**
     * {@return the records per request of {@code instance} over seconds {@code from..to}, NaN when its adapter told none
     * for a second that carried messages}
     */
    double recordsPerRequest(String instance, long from, long to) {
        Source source = sources.get(instance);
        return source == null ? Double.NaN : source.over(from, to);
    }

    /** One instance's reading and its seconds. */
    private static final class Source {
        final Supplier<OptionalDouble> reading;
        final long[] second;
        final double[] records;
        final double[] requests;
        long lastRolled = Long.MIN_VALUE;

        Source(Supplier<OptionalDouble> reading, int ringSize) {
            this.reading = reading;
            this.second = new long[ringSize];
            this.records = new double[ringSize];
            this.requests = new double[ringSize];
            java.util.Arrays.fill(second, Long.MIN_VALUE);
        }

        synchronized void record(long s, long published, double perRequest) {
            int i = (int) Math.floorMod(s, (long) second.length);
            second[i] = s;
            boolean known = perRequest > 0 && !Double.isInfinite(perRequest);
            records[i] = known ? published : 0;
            requests[i] = known ? published / perRequest : 0;
        }

        synchronized double over(long from, long to) {
            double r = 0;
            double q = 0;
            for (int i = 0; i < second.length; i++) {
                if (second[i] >= from && second[i] <= to) {
                    r += records[i];
                    q += requests[i];
                }
            }
            return q > 0 ? r / q : Double.NaN;
        }
    }
}
