package io.switchboard.spi;

import java.util.Objects;

/**
 * A setting of a broker instance's client that shapes its latency or throughput, as the adapter applies it, so that a
 * comparison can say when a difference comes from a setting rather than from the broker.
 *
 * @param name the setting as the broker's client spells it, e.g. {@code linger.ms}
 * @param value its effective value (the client's own default where the application set none)
 * @param effect what it does to a figure
 * @param waitMs for {@link Effect#BATCHING_WAIT}, the longest a record may wait before it is sent, in ms; else 0
 * @param property the Switchboard property that changes it, e.g. {@code kafka.linger.ms}
 */
public record PerformanceSetting(String name, String value, Effect effect, double waitMs, String property) {

    /** What a setting does to the figures a comparison judges. */
    public enum Effect {
        /** A record may wait up to {@link #waitMs()} to fill a batch before it is sent: adds to publish and e2e latency. */
        BATCHING_WAIT,
        /** A publish completes only once the broker confirms it: adds a round trip (and a flush) to publish latency. */
        CONFIRM_WAIT,
        /** Shapes throughput or cost, not a latency the verdict judges. */
        OTHER
    }

    /**
     * Validates the components.
     *
     * @param name the client's name of the setting
     * @param value the effective value
     * @param effect its effect
     * @param waitMs the batching wait in ms (0 unless a batching wait)
     * @param property the Switchboard property that sets it
     */
    public PerformanceSetting {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(effect, "effect");
        Objects.requireNonNull(property, "property");
    }

    /**
     * {@return a batching wait of up to {@code waitMs}}
     *
     * @param name the client's name
     * @param waitMs the longest wait, in ms
     * @param property the Switchboard property that sets it
     */
    public static PerformanceSetting batchingWait(String name, double waitMs, String property) {
        return new PerformanceSetting(name, waitMs == Math.rint(waitMs) ? Long.toString((long) waitMs) : Double.toString(waitMs),
                Effect.BATCHING_WAIT, waitMs, property);
    }

    /**
     * {@return a setting that makes publishes wait for the broker's confirm when {@code on}, else one of no latency effect}
     *
     * @param name the client's name
     * @param value the effective value
     * @param on whether publishes wait for the confirm
     * @param property the Switchboard property that sets it
     */
    public static PerformanceSetting confirmWait(String name, String value, boolean on, String property) {
        return new PerformanceSetting(name, value, on ? Effect.CONFIRM_WAIT : Effect.OTHER, 0, property);
    }

    /**
     * {@return a setting that shapes throughput or cost}
     *
     * @param name the client's name
     * @param value the effective value
     * @param property the Switchboard property that sets it
     */
    public static PerformanceSetting other(String name, String value, String property) {
        return new PerformanceSetting(name, value, Effect.OTHER, 0, property);
    }

    /** {@return {@code name=value}} */
    public String text() {
        return name + "=" + value;
    }
}
