package io.switchboard.routing;

import io.switchboard.ConfigurationException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;

/**
 * A ramp of weights from one instance to another that advances only while the target stays
 * healthy against the source: its publish p99 within {@code maxP99Ratio} times the source's (or
 * within {@code p99Slack} above it, whichever is larger), and its publish error rate at most
 * {@code maxErrorRateIncrease} above the source's, for {@code hold} at each step.
 *
 * <p>Each second the gate judges the step's traffic so far by the comparison verdict's rule
 * (docs/verdict.md): a quantile is judged with at least 20 samples beyond it on each side (p99:
 * 2,000) in at least 5 seconds, by 99% intervals widened by how much the slow samples cluster in
 * time, and the gate's bound is the difference that counts; while the p99 lacks samples, p90 or
 * p50 is held to the same bound. The error rate is judged by the verdict's two-proportion test,
 * failures that come in bursts counting as fewer independent ones. A breach rolls the weights back
 * to the source only when it was significant at every judgement for {@code breachFor}; a step whose
 * p99 cannot be judged within {@code hold} is extended up to {@code maxHold} and then advances on
 * what could be judged (never before {@code minSamples} publishes on each side).
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
    private final Duration breachFor;
    private final Duration maxHold;

    private PromotionGate(Builder b) {
        this.from = b.from;
        this.to = b.to;
        this.steps = b.steps.clone();
        this.hold = b.hold;
        this.maxP99Ratio = b.maxP99Ratio;
        this.p99Slack = b.p99Slack;
        this.maxErrorRateIncrease = b.maxErrorRateIncrease;
        this.minSamples = b.minSamples;
        this.breachFor = b.breachFor;
        this.maxHold = b.maxHold != null ? b.maxHold : b.hold.multipliedBy(DEFAULT_MAX_HOLD_FACTOR);
    }

    /** {@code maxHold} is this many times {@code hold} unless set. */
    public static final int DEFAULT_MAX_HOLD_FACTOR = 3;

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

    /** {@return how long a breach must stay significant, judged every second, before the gate rolls back} */
    public Duration breachFor() {
        return breachFor;
    }

    /** {@return the longest a step is extended while its p99 has too few samples to be judged} */
    public Duration maxHold() {
        return maxHold;
    }

    @Override
    public String toString() {
        return "PromotionGate[" + from + " -> " + to + ", steps " + Arrays.toString(steps) + ", hold " + hold + ", p99 <= "
                + maxP99Ratio + "x (+" + p99Slack.toMillis() + " ms), error rate <= +" + maxErrorRateIncrease + ", min samples "
                + minSamples + ", breach for " + breachFor + ", max hold " + maxHold + "]";
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
        private Duration breachFor = Duration.ofSeconds(10);
        private Duration maxHold;

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

        /**
         * How long a breach must stay significant, at every judgement (one a second), before the gate rolls back;
         * default 10 s; {@code 0s} rolls back at the first significant judgement.
         *
         * @param duration how long a breach must hold
         * @return this builder
         */
        public Builder breachFor(Duration duration) {
            if (duration == null || duration.isNegative()) {
                throw new ConfigurationException("Promotion breach-for is " + duration + " but must be 0 or more, such as 10s");
            }
            this.breachFor = duration;
            return this;
        }

        /**
         * The longest a step is extended while its p99 has too few samples to be judged; default 3 times
         * {@link #hold(Duration) hold}; at least the hold.
         *
         * @param duration the longest a step lasts while its p99 is not yet decided
         * @return this builder
         */
        public Builder maxHold(Duration duration) {
            if (duration == null || duration.compareTo(Duration.ofSeconds(1)) < 0) {
                throw new ConfigurationException("Promotion max-hold is " + duration + " but must be at least 1s, such as 15m");
            }
            this.maxHold = duration;
            return this;
        }

        /** {@return the gate} */
        public PromotionGate build() {
            if (maxHold != null && maxHold.compareTo(hold) < 0) {
                throw new ConfigurationException("Promotion max-hold " + maxHold + " is shorter than its hold " + hold
                        + "; make it at least the hold, such as " + hold.multipliedBy(DEFAULT_MAX_HOLD_FACTOR));
            }
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
