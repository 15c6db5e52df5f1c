package io.switchboard.routing;

/** How a destination's messages are spread over broker instances. */
public enum RoutingMode {
    /** Every message to one instance. */
    SINGLE,
    /** Weighted split, sticky by key hash; keyless messages weighted at random. */
    SPLIT,
    /** Every message to the primary and, best effort, to the shadow; the caller sees the primary only. */
    MIRROR,
    /** The primary while its circuit breaker lets calls through, else the secondary. */
    FAILOVER,
    /** Publishers on the new instance; subscribers read both, deduplicating, until the old one is drained. */
    MIGRATE;

    /**
     * {@return the mode named {@code text}, case and dashes ignored, or null}
     *
     * @param text the name
     */
    public static RoutingMode parse(String text) {
        if (text == null) {
            return null;
        }
        String t = text.trim().replace('-', '_').toUpperCase(java.util.Locale.ROOT);
        for (RoutingMode m : values()) {
            if (m.name().equals(t)) {
                return m;
            }
        }
        return null;
    }
}
