package io.switchboard.internal.comparison;

import io.switchboard.spi.ClientEvents;
import io.switchboard.spi.EventKinds;
import io.switchboard.spi.PerformanceSetting;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Two instances' traffic fed second by second into a traffic book on a clock of its own, judged by the comparison's
 * engine: the verdict's code on samples whose truth is known.
 */
final class SimulatedTraffic {

    final AtomicLong millis = new AtomicLong(1_700_000_000_000L);
    final Clock clock = new Clock() {
        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis.get());
        }
    };
    final TrafficBook book;
    final Timeline timeline = new Timeline(clock, Duration.ofMinutes(10));
    final ComparisonEngine engine;

    SimulatedTraffic(int windowSeconds, long warmUp, Map<String, List<PerformanceSetting>> settings) {
        book = new TrafficBook(windowSeconds, clock);
        timeline.register("a", "kafka");
        timeline.register("b", "rabbitmq");
        engine = new ComparisonEngine(book, List.of("a", "b"), Map.of("a", "kafka", "b", "rabbitmq"), settings, Map.of(), 200,
                0.10, timeline, warmUp);
    }

    /** Tells the engine how the route assigned the traffic, as a router would. */
    void design(io.switchboard.routing.ComparisonReport.Design design, boolean keyed) {
        engine.designs(new ComparisonEngine.Designs() {
            @Override
            public io.switchboard.routing.ComparisonReport.Design design(String destination) {
                return design;
            }

            @Override
            public boolean keyed(String destination) {
                return keyed;
            }
        });
    }

    /**
     * Keyed traffic whose keys differ in cost: {@code count} keys with Zipf frequencies (key k, from 1, has weight 1/k^s)
     * and each key a latency multiplier drawn once, log-normal with median 1 ({@code sigma}): the payload size of a
     * tenant, say, which makes all of its messages slower or faster on any broker.
     */
    static final class Keys {

        private final double[] cumulative;
        final double[] multiplier;

        Keys(java.util.Random random, int count, double s, double sigma) {
            cumulative = new double[count];
            multiplier = new double[count];
            double sum = 0;
            for (int k = 0; k < count; k++) {
                sum += 1 / Math.pow(k + 1, s);
                cumulative[k] = sum;
                multiplier[k] = Math.exp(sigma * random.nextGaussian());
            }
            for (int k = 0; k < count; k++) {
                cumulative[k] /= sum;
            }
        }

        /** {@return a key drawn by its frequency} */
        int draw(java.util.Random random) {
            int i = java.util.Arrays.binarySearch(cumulative, random.nextDouble());
            return Math.min(cumulative.length - 1, i >= 0 ? i : -i - 1);
        }

        /** {@return the keys' count} */
        int count() {
            return multiplier.length;
        }
    }

    /** Records a publish and a delivery of {@code micros} each on {@code instance}, in the current second. */
    void sample(String instance, long publishMicros, long e2eMicros) {
        TrafficStats s = stats(instance);
        s.published(0, publishMicros * 1000, 100, true);
        s.endToEnd(Instant.EPOCH, e2eMicros);
    }

    /** Records a publish the broker confirmed {@code micros} after it began on {@code instance}, in the current second. */
    void publish(String instance, long micros) {
        stats(instance).published(0, micros * 1000, 100, true);
    }

    /** Records a publish that failed on {@code instance}, in the current second. */
    void publishFailed(String instance) {
        stats(instance).published(0, 0, 100, false);
    }

    /** Records, on {@code instance}, a request to "orders" whose reply came {@code micros} after it was made. */
    void reply(String instance, long micros) {
        stats(instance).requested(TrafficStats.SUCCESS, micros * 1000);
    }

    /** Records, on {@code instance}, a request to "orders" whose time-out passed. */
    void timeout(String instance) {
        stats(instance).requested(TrafficStats.TIMEOUT, 5_000_000_000L);
    }

    private TrafficStats stats(String instance) {
        return book.stats(instance, instance.equals("a") ? "kafka" : "rabbitmq", "orders");
    }

    /**
     * Called at the start of each second {@code s}: a rebalance of {@code group} on {@code instance} that begins 300 ms
     * into second {@code from} and ends 700 ms into second {@code to}.
     */
    void rebalance(int s, String instance, String group, int from, int to) {
        span(s, instance, EventKinds.REBALANCE, group, "after replica-2 joined", from, to);
    }

    /**
     * Called at the start of each second {@code s}: a span of {@code kind} on {@code instance} that begins 300 ms into
     * second {@code from} and ends 700 ms into second {@code to}.
     */
    void span(int s, String instance, String kind, String subject, String detail, int from, int to) {
        if (s == from) {
            millis.set(at(300));
            span = timeline.of(instance).begin(kind, subject, detail);
        }
        if (s == to) {
            millis.set(at(700));
            span.end();
        }
    }

    private ClientEvents.Span span;

    /** Closes the current second and moves the clock to the next one. */
    void nextSecond() {
        long second = millis.get() / 1000;
        book.roll(second);
        millis.set((second + 1) * 1000);
    }

    /** The epoch millisecond {@code ms} into the current second. */
    long at(long ms) {
        return millis.get() / 1000 * 1000 + ms;
    }

    /**
     * Records one second of a client's CPU on {@code instance}: {@code cpuMicrosPerMessage} for each of the {@code messages}
     * the instance published and consumed in it (the traffic itself is recorded by {@link #sample}).
     */
    void cpu(String instance, double cpuMicrosPerMessage, long messages) {
        ClientCost.Account account = book.cost().account(instance, io.switchboard.spi.ClientThreads.NONE);
        account.publishSampled(Math.round(cpuMicrosPerMessage * 1000 * messages / ClientCost.SAMPLE_EVERY), 0);
    }

    /**
     * One instance's process as slow noise and stalls shape it, second by second: a latency factor whose logarithm is
     * an AR(1) series (correlation time {@code tau} seconds, stationary standard deviation {@code sigma}), and stalls
     * that begin at random (a Poisson process of {@code stallsPerSecond}) and last {@code stallMinMs} to
     * {@code stallMaxMs}: a sample that begins during a stall waits until it ends, one in flight when it begins waits as
     * long as it lasts. Each instance has its own, drawn from its own random numbers.
     */
    static final class Process {
        private final Random random;
        private final double rho;
        private final double sigma;
        private final double stallsPerSecond;
        private final long stallMinMicros;
        private final long stallMaxMicros;
        private double log;
        private int second = -1;
        /** Stalls as {start, end} in microseconds from the run's start, oldest first. */
        private final List<long[]> stalls = new ArrayList<>();

        /**
         * @param tau correlation time of the slow factor in seconds (0: none)
         * @param sigma the slow factor's stationary standard deviation, of its logarithm
         * @param stallsPerSecond mean stalls a second (0: none)
         */
        Process(Random random, double tau, double sigma, double stallsPerSecond, long stallMinMs, long stallMaxMs) {
            this.random = random;
            this.rho = tau > 0 ? Math.exp(-1 / tau) : 0;
            this.sigma = tau > 0 ? sigma : 0;
            this.stallsPerSecond = stallsPerSecond;
            this.stallMinMicros = stallMinMs * 1000;
            this.stallMaxMicros = stallMaxMs * 1000;
            this.log = this.sigma * random.nextGaussian(); // stationary from the start
        }

        /** Moves to the next second (the first call: second 0); returns its slow factor. */
        double nextSecond() {
            second++;
            if (second > 0) {
                log = rho * log + sigma * Math.sqrt(1 - rho * rho) * random.nextGaussian();
            }
            int n = poisson(stallsPerSecond);
            for (int i = 0; i < n; i++) {
                long start = second * 1_000_000L + random.nextInt(1_000_000);
                long length = stallMinMicros + (stallMaxMicros > stallMinMicros
                        ? (long) (random.nextDouble() * (stallMaxMicros - stallMinMicros)) : 0);
                stalls.add(new long[] {start, start + length});
            }
            stalls.sort((x, y) -> Long.compare(x[0], y[0]));
            return Math.exp(log);
        }

        /** {@return the latency of a sample that began {@code atMicros} from the run's start and took {@code micros}, with the stalls it met} */
        long stalled(long atMicros, long micros) {
            long end = atMicros + micros;
            for (long[] stall : stalls) {
                if (stall[0] > end) {
                    break;
                }
                if (stall[1] <= atMicros) {
                    continue;
                }
                if (stall[0] <= atMicros) {
                    end = Math.max(end, stall[1] + micros); // began during it: waits for its end, then takes its time
                } else {
                    end += stall[1] - stall[0]; // in flight when it began
                }
            }
            return end - atMicros;
        }

        /** {@return the stalls so far} */
        int stalls() {
            return stalls.size();
        }

        private int poisson(double mean) {
            if (mean <= 0) {
                return 0;
            }
            double l = Math.exp(-mean);
            int k = 0;
            for (double p = random.nextDouble(); p > l; p *= random.nextDouble()) {
                k++;
            }
            return k;
        }
    }

    /**
     * A client's CPU per message, second by second: its logarithm an AR(1) series with lag-1 autocorrelation {@code rho}
     * and stationary standard deviation {@code sigma}, around {@code micros}.
     */
    static final class Cpu {
        private final Random random;
        private final double rho;
        private final double sigma;
        private final double micros;
        private double log;
        private boolean started;

        Cpu(Random random, double micros, double rho, double sigma) {
            this.random = random;
            this.micros = micros;
            this.rho = rho;
            this.sigma = sigma;
            this.log = sigma * random.nextGaussian();
        }

        /** {@return the next second's CPU per message, in microseconds} */
        double next() {
            if (started) {
                log = rho * log + sigma * Math.sqrt(1 - rho * rho) * random.nextGaussian();
            }
            started = true;
            return micros * Math.exp(log);
        }
    }
}
