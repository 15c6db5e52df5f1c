package io.switchboard.routing;

import io.switchboard.ConfigurationException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;

/**
 * A ramp of weights from one instance to another that advances only while the target stays
 * healthy against the source: its publish p99 within {@code maxP99Ratio} times the source's (or
 * within {@code p99Slack} above it, whichever is larger), and its publish error rate at most
 * {@code maxErrorRateIncrease} above the source's, for {@code hold} at each step, judged on at
 * least {@code minSamples} publishes per instance. A breach rolls the weights back to the source
 * at once and ends the promotion.
 *
 * <pre>{@code
 * PromotionGate.from("a").to("b").steps(1, 5, 25, 50, 100).hold(Duration.ofMinutes(5))
 *         .maxP99Ratio(1.2).maxErrorRateIncrease(0.001).build();
 * }</pre>
 */
public final class PromotionGate {

    private final String from;
    private final String to;
    private final int[] steps;
    private final Duration hold;
    private final double maxP99Ratio;
    private final Duration p99Slack;
    private final double maxErrorRateIncrease;
    private final long minSamples;

    private PromotionGate(Builder b) {
        this.from = b.from;
        this.to = b.to;
        this.steps = b.steps.clone();
        this.hold = b.hold;
        this.maxP99Ratio = b.maxP99Ratio;
        this.p99Slack = b.p99Slack;
        this.maxErrorRateIncrease = b.maxErrorRateIncrease;
        this.minSamples = b.minSamples;
    }

    /**
     * Starts a gate that moves traffic away from {@code instance}.
     *
     * @param instance the source instance
     * @return a builder of the gate
     */
    public static Builder from(String instance) {
        return new Builder(instance);
    }

    /** {@return the instance traffic moves away from} */
    public String source() {
        return from;
    }

    /** {@return the instance traffic moves to} */
    public String target() {
        return to;
    }

    /** {@return the target's percentage at each step, ascending, the last one 100} */
    public int[] steps() {
        return steps.clone();
    }

    /** {@return how long each step must stay healthy before the next} */
    public Duration hold() {
        return hold;
    }

    /** {@return the largest target p99 / source p99 allowed} */
    public double maxP99Ratio() {
        return maxP99Ratio;
    }

    /** {@return the target p99 may always be this much above the source's (noise floor for fast brokers)} */
    public Duration p99Slack() {
        return p99Slack;
    }

    /** {@return the largest target error rate minus source error rate allowed (0.01 = one percentage point)} */
    public double maxErrorRateIncrease() {
        return maxErrorRateIncrease;
    }

    /** {@return the publishes per instance a judgement needs} */
    public long minSamples() {
        return minSamples;
    }

    @Override
    public String toString() {
        return "PromotionGate[" + from + " -> " + to + ", steps " + Arrays.toString(steps) + ", hold " + hold + ", p99 <= "
                + maxP99Ratio + "x (+" + p99Slack.toMillis() + " ms), error rate <= +" + maxErrorRateIncrease + ", min samples "
                + minSamples + "]";
    }

    /** Builds a {@link PromotionGate}; each setter checks its value at once. */
    public static final class Builder {
        private final String from;
        private String to;
        private int[] steps = {1, 5, 25, 50, 100};
        private Duration hold = Duration.ofMinutes(1);
        private double maxP99Ratio = 1.5;
        private Duration p99Slack = Duration.ofMillis(5);
        private double maxErrorRateIncrease = 0.01;
        private long minSamples = 100;

        private Builder(String from) {
            this.from = require(from, "from");
        }

        private static String require(String instance, String role) {
            if (instance == null || instance.isBlank()) {
                throw new ConfigurationException("Promotion gate '" + role + "' instance is missing; name a broker instance");
            }
            return instance;
        }

        /**
         * The instance traffic moves to.
         *
         * @param instance the target instance
         * @return this builder
         */
        public Builder to(String instance) {
            this.to = require(instance, "to");
            return this;
        }

        /**
         * The target's percentage at each step: ascending, each 1..100, the last 100; default 1, 5, 25, 50, 100.
         *
         * @param percentages the percentages
         * @return this builder
         */
        public Builder steps(int... percentages) {
            Objects.requireNonNull(percentages, "percentages");
            if (percentages.length == 0 || percentages[percentages.length - 1] != 100) {
                throw new ConfigurationException("Promotion steps " + Arrays.toString(percentages)
                        + " must end at 100, such as 1, 5, 25, 50, 100");
            }
            for (int i = 0; i < percentages.length; i++) {
                if (percentages[i] < 1 || percentages[i] > 100 || (i > 0 && percentages[i] <= percentages[i - 1])) {
                    throw new ConfigurationException("Promotion steps " + Arrays.toString(percentages)
                            + " must be ascending percentages between 1 and 100, such as 1, 5, 25, 50, 100");
                }
            }
            this.steps = percentages.clone();
            return this;
        }

        /**
         * How long each step must stay healthy; default 1 minute; at least 1 s.
         *
         * @param duration the hold of each step
         * @return this builder
         */
        public Builder hold(Duration duration) {
            if (duration == null || duration.compareTo(Duration.ofSeconds(1)) < 0) {
                throw new ConfigurationException("Promotion hold is " + duration + " but must be at least 1s, such as 5m");
            }
            this.hold = duration;
            return this;
        }

        /**
         * The largest target p99 / source p99; default 1.5; at least 1.
         *
         * @param ratio the ratio
         * @return this builder
         */
        public Builder maxP99Ratio(double ratio) {
            if (!(ratio >= 1.0)) {
                throw new ConfigurationException("Promotion max-p99-ratio is " + ratio + " but must be 1.0 or more, such as 1.2");
            }
            this.maxP99Ratio = ratio;
            return this;
        }

        /**
         * The target's p99 may always be this much above the source's; default 5 ms.
         *
         * @param slack the slack
         * @return this builder
         */
        public Builder p99Slack(Duration slack) {
            if (slack == null || slack.isNegative()) {
                throw new ConfigurationException("Promotion p99-slack is " + slack + " but must be 0 or more, such as 5ms");
            }
            this.p99Slack = slack;
            return this;
        }

        /**
         * The largest error-rate increase (fraction); default 0.01.
         *
         * @param increase the increase, as a fraction
         * @return this builder
         */
        public Builder maxErrorRateIncrease(double increase) {
            if (!(increase >= 0 && increase <= 1)) {
                throw new ConfigurationException("Promotion max-error-rate-increase is " + increase
                        + " but must be between 0 and 1, such as 0.01 (one percentage point)");
            }
            this.maxErrorRateIncrease = increase;
            return this;
        }

        /**
         * Publishes per instance before judging; default 100.
         *
         * @param samples publishes per instance
         * @return this builder
         */
        public Builder minSamples(long samples) {
            if (samples < 1) {
                throw new ConfigurationException("Promotion min-samples is " + samples + " but must be at least 1, such as 100");
            }
            this.minSamples = samples;
            return this;
        }

        /** {@return the gate} */
        public PromotionGate build() {
            if (to == null) {
                throw new ConfigurationException("Promotion gate from '" + from + "' has no target; call to(instance)");
            }
            if (to.equals(from)) {
                throw new ConfigurationException("Promotion gate moves from '" + from + "' to itself; name another instance in to(..)");
            }
            return new PromotionGate(this);
        }
    }
}
