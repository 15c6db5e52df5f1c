package io.switchboard.routing;

import java.time.Duration;

/**
 * Compares a Switchboard's broker instances on the application's own traffic, over a sliding
 * window (property {@code switchboard.comparison.window}, default 60s). Obtain it from
 * {@code Switchboard.comparison()}. Every publish and every handled record of a multi-instance
 * Switchboard is counted and its latency recorded in per-instance, per-destination windows at
 * the same points where the Micrometer meters record (wait-free, no allocation per message), so
 * the comparison works with any meter registry or none. See {@link ComparisonReport} for the
 * figures and the statistical rule of the verdict.
 */
public interface BrokerComparison {

    /** {@return the report of all destinations over the configured window} */
    ComparisonReport report();

    /**
     * {@return the report of one destination (null for all) over the configured window}
     *
     * @param destination the destination's name, or null for every destination
     */
    ComparisonReport report(String destination);

    /**
     * {@return the report of one destination (null for all) over the last {@code window} (at most the configured
     * window)}
     *
     * @param destination the destination's name, or null for every destination
     * @param window the span of time the figures cover, ending now
     */
    ComparisonReport report(String destination, Duration window);

    /**
     * {@return the comparison of every replica's traffic together (histograms merged), when the routes are shared
     * by a fleet ({@code switchboard.control.*}); otherwise this one. {@code Switchboard.comparison()} is the
     * fleet's when there is one}
     */
    default BrokerComparison fleet() {
        return this;
    }

    /** {@return the comparison of this replica's traffic alone} */
    default BrokerComparison local() {
        return this;
    }
}
