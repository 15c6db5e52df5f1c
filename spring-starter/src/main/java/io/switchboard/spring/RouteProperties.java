package io.switchboard.spring;

import io.switchboard.routing.RoutingMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where one destination's messages go, {@code switchboard.routes.<destination>.*} (or the default
 * route, {@code switchboard.default-route.*}): a {@link RoutingMode} over named instances, and
 * optionally a promotion gate that ramps traffic from one instance to another at startup.
 *
 * <pre>{@code
 * switchboard:
 *   routes:
 *     orders:
 *       mode: split
 *       weights: {a: 90, b: 10}
 *     payments:
 *       weights: {a: 50, b: 50}
 *       per-message: true     # every message at random by weight: compares like with like
 * }</pre>
 */
public class RouteProperties {

    /**
     * The mode: single (instance), split (weights), mirror (primary, shadow), failover (primary,
     * secondary) or migrate (from, to) [inferred from which of those are set].
     */
    private RoutingMode mode;

    /** single: the instance that gets every message. */
    private String instance;

    /** split: weight per instance, relative (90/10 is 9/1); sticky by message key. */
    private Map<String, Integer> weights = new LinkedHashMap<>();

    /**
     * split: every message, keyed or not, goes to an instance drawn at random by weight, so the instances carry the same
     * mix of keys (a like-for-like comparison), and a key's order across them is given up [false: a key sticks to one
     * instance].
     */
    private Boolean perMessage;

    /** mirror and failover: the instance that carries the traffic. */
    private String primary;

    /** mirror: the instance that gets a copy of every message, best effort. */
    private String shadow;

    /** mirror: listeners on the shadow only count and compare, their handler is not called [true]. */
    private Boolean observeOnly;

    /** failover: the instance used while the primary's circuit breaker is open. */
    private String secondary;

    /** migrate: the instance traffic moves away from; listeners read it until it is drained. */
    private String from;

    /** migrate: the instance publishers move to. */
    private String to;

    /** A promotion gate started with the application: ramps weights from gate.from to gate.to while the target stays healthy. */
    private final Gate gate = new Gate();

    /** {@return the mode: single (instance), split (weights), mirror (primary, shadow), failover (primary, secondary) or migrate (from, to) [inferred from which of those are set]} */
    public RoutingMode getMode() {
        return mode;
    }

    /**
     * Sets {@link #getMode()}.
     *
     * @param mode the value to set
     */
    public void setMode(RoutingMode mode) {
        this.mode = mode;
    }

    /** {@return single: the instance that gets every message} */
    public String getInstance() {
        return instance;
    }

    /**
     * Sets {@link #getInstance()}.
     *
     * @param instance the value to set
     */
    public void setInstance(String instance) {
        this.instance = instance;
    }

    /** {@return split: weight per instance, relative (90/10 is 9/1); sticky by message key} */
    public Map<String, Integer> getWeights() {
        return weights;
    }

    /**
     * Sets {@link #getWeights()}.
     *
     * @param weights the value to set
     */
    public void setWeights(Map<String, Integer> weights) {
        this.weights = weights;
    }

    /**
     * {@return split: whether every message goes to an instance drawn at random by weight, keyed or not [false: a key
     * sticks to one instance]}
     */
    public Boolean getPerMessage() {
        return perMessage;
    }

    /**
     * Sets {@link #getPerMessage()}.
     *
     * @param perMessage the value to set
     */
    public void setPerMessage(Boolean perMessage) {
        this.perMessage = perMessage;
    }

    /** {@return mirror and failover: the instance that carries the traffic} */
    public String getPrimary() {
        return primary;
    }

    /**
     * Sets {@link #getPrimary()}.
     *
     * @param primary the value to set
     */
    public void setPrimary(String primary) {
        this.primary = primary;
    }

    /** {@return mirror: the instance that gets a copy of every message, best effort} */
    public String getShadow() {
        return shadow;
    }

    /**
     * Sets {@link #getShadow()}.
     *
     * @param shadow the value to set
     */
    public void setShadow(String shadow) {
        this.shadow = shadow;
    }

    /** {@return whether, on a mirror, listeners on the shadow only count and compare, their handler not called [true]} */
    public Boolean getObserveOnly() {
        return observeOnly;
    }

    /**
     * Sets {@link #getObserveOnly()}.
     *
     * @param observeOnly the value to set
     */
    public void setObserveOnly(Boolean observeOnly) {
        this.observeOnly = observeOnly;
    }

    /** {@return failover: the instance used while the primary's circuit breaker is open} */
    public String getSecondary() {
        return secondary;
    }

    /**
     * Sets {@link #getSecondary()}.
     *
     * @param secondary the value to set
     */
    public void setSecondary(String secondary) {
        this.secondary = secondary;
    }

    /** {@return the instance traffic moves away from} */
    public String getFrom() {
        return from;
    }

    /**
     * Sets {@link #getFrom()}.
     *
     * @param from the value to set
     */
    public void setFrom(String from) {
        this.from = from;
    }

    /** {@return the instance traffic moves to; setting it turns the gate on} */
    public String getTo() {
        return to;
    }

    /**
     * Sets {@link #getTo()}.
     *
     * @param to the value to set
     */
    public void setTo(String to) {
        this.to = to;
    }

    /** {@return a promotion gate started with the application: ramps weights from gate.from to gate.to while the target stays healthy} */
    public Gate getGate() {
        return gate;
    }

    /** {@return true when nothing of the route is set} */
    public boolean isEmpty() {
        return mode == null && instance == null && weights.isEmpty() && primary == null && shadow == null
                && secondary == null && from == null && to == null;
    }

    /** A promotion gate; on when {@code to} is set. Unset values keep core's defaults. */
    public static class Gate {
        /** The instance traffic moves away from. */
        private String from;
        /** The instance traffic moves to; setting it turns the gate on. */
        private String to;
        /** The target's percentages, step by step [1, 5, 25, 50, 100]. */
        private List<Integer> steps = new ArrayList<>();
        /** How long each step must stay healthy before the next [1m]. */
        private Duration hold;
        /** Largest target publish p99 as a multiple of the source's [1.5]. */
        private Double maxP99Ratio;
        /** Target p99 may exceed the source's by this much regardless of the ratio [5ms]. */
        private Duration p99Slack;
        /** Largest increase of the target's publish error rate over the source's [0.01]. */
        private Double maxErrorRateIncrease;
        /** Publishes per instance needed before a step is judged [100]. */
        private Long minSamples;
        /** How long a breach must stay significant before a rollback [10s]. */
        private Duration breachFor;
        /** The longest a step is extended while its p99 is not yet decided [3 x hold]. */
        private Duration maxHold;

        /** {@return the instance traffic moves away from} */
        public String getFrom() {
            return from;
        }

        /**
         * Sets {@link #getFrom()}.
         *
         * @param from the value to set
         */
        public void setFrom(String from) {
            this.from = from;
        }

        /** {@return the instance traffic moves to; setting it turns the gate on} */
        public String getTo() {
            return to;
        }

        /**
         * Sets {@link #getTo()}.
         *
         * @param to the value to set
         */
        public void setTo(String to) {
            this.to = to;
        }

        /** {@return the target's percentages, step by step [1, 5, 25, 50, 100]} */
        public List<Integer> getSteps() {
            return steps;
        }

        /**
         * Sets {@link #getSteps()}.
         *
         * @param steps the value to set
         */
        public void setSteps(List<Integer> steps) {
            this.steps = steps;
        }

        /** {@return how long each step must stay healthy before the next [1m]} */
        public Duration getHold() {
            return hold;
        }

        /**
         * Sets {@link #getHold()}.
         *
         * @param hold the value to set
         */
        public void setHold(Duration hold) {
            this.hold = hold;
        }

        /** {@return largest target publish p99 as a multiple of the source's [1.5]} */
        public Double getMaxP99Ratio() {
            return maxP99Ratio;
        }

        /**
         * Sets {@link #getMaxP99Ratio()}.
         *
         * @param maxP99Ratio the value to set
         */
        public void setMaxP99Ratio(Double maxP99Ratio) {
            this.maxP99Ratio = maxP99Ratio;
        }

        /** {@return target p99 may exceed the source's by this much regardless of the ratio [5ms]} */
        public Duration getP99Slack() {
            return p99Slack;
        }

        /**
         * Sets {@link #getP99Slack()}.
         *
         * @param p99Slack the value to set
         */
        public void setP99Slack(Duration p99Slack) {
            this.p99Slack = p99Slack;
        }

        /** {@return largest increase of the target's publish error rate over the source's [0.01]} */
        public Double getMaxErrorRateIncrease() {
            return maxErrorRateIncrease;
        }

        /**
         * Sets {@link #getMaxErrorRateIncrease()}.
         *
         * @param maxErrorRateIncrease the value to set
         */
        public void setMaxErrorRateIncrease(Double maxErrorRateIncrease) {
            this.maxErrorRateIncrease = maxErrorRateIncrease;
        }

        /** {@return publishes per instance needed before a step is judged [100]} */
        public Long getMinSamples() {
            return minSamples;
        }

        /**
         * Sets {@link #getMinSamples()}.
         *
         * @param minSamples the value to set
         */
        public void setMinSamples(Long minSamples) {
            this.minSamples = minSamples;
        }

        /** {@return how long a breach must stay significant before a rollback [10s]} */
        public Duration getBreachFor() {
            return breachFor;
        }

        /**
         * Sets {@link #getBreachFor()}.
         *
         * @param breachFor the value to set
         */
        public void setBreachFor(Duration breachFor) {
            this.breachFor = breachFor;
        }

        /** {@return the longest a step is extended while its p99 is not yet decided [3 x hold]} */
        public Duration getMaxHold() {
            return maxHold;
        }

        /**
         * Sets {@link #getMaxHold()}.
         *
         * @param maxHold the value to set
         */
        public void setMaxHold(Duration maxHold) {
            this.maxHold = maxHold;
        }
    }
}
