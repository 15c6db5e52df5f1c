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

    public RoutingMode getMode() {
        return mode;
    }

    public void setMode(RoutingMode mode) {
        this.mode = mode;
    }

    public String getInstance() {
        return instance;
    }

    public void setInstance(String instance) {
        this.instance = instance;
    }

    public Map<String, Integer> getWeights() {
        return weights;
    }

    public void setWeights(Map<String, Integer> weights) {
        this.weights = weights;
    }

    public String getPrimary() {
        return primary;
    }

    public void setPrimary(String primary) {
        this.primary = primary;
    }

    public String getShadow() {
        return shadow;
    }

    public void setShadow(String shadow) {
        this.shadow = shadow;
    }

    public Boolean getObserveOnly() {
        return observeOnly;
    }

    public void setObserveOnly(Boolean observeOnly) {
        this.observeOnly = observeOnly;
    }

    public String getSecondary() {
        return secondary;
    }

    public void setSecondary(String secondary) {
        this.secondary = secondary;
    }

    public String getFrom() {
        return from;
    }

    public void setFrom(String from) {
        this.from = from;
    }

    public String getTo() {
        return to;
    }

    public void setTo(String to) {
        this.to = to;
    }

    public Gate getGate() {
        return gate;
    }

    /** True when nothing of the route is set. */
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

        public String getFrom() {
            return from;
        }

        public void setFrom(String from) {
            this.from = from;
        }

        public String getTo() {
            return to;
        }

        public void setTo(String to) {
            this.to = to;
        }

        public List<Integer> getSteps() {
            return steps;
        }

        public void setSteps(List<Integer> steps) {
            this.steps = steps;
        }

        public Duration getHold() {
            return hold;
        }

        public void setHold(Duration hold) {
            this.hold = hold;
        }

        public Double getMaxP99Ratio() {
            return maxP99Ratio;
        }

        public void setMaxP99Ratio(Double maxP99Ratio) {
            this.maxP99Ratio = maxP99Ratio;
        }

        public Duration getP99Slack() {
            return p99Slack;
        }

        public void setP99Slack(Duration p99Slack) {
            this.p99Slack = p99Slack;
        }

        public Double getMaxErrorRateIncrease() {
            return maxErrorRateIncrease;
        }

        public void setMaxErrorRateIncrease(Double maxErrorRateIncrease) {
            this.maxErrorRateIncrease = maxErrorRateIncrease;
        }

        public Long getMinSamples() {
            return minSamples;
        }

        public void setMinSamples(Long minSamples) {
            this.minSamples = minSamples;
        }
    }
}
