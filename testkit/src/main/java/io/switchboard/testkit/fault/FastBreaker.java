package io.switchboard.testkit.fault;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Circuit-breaker settings for fault tests, the same on every broker: the breaker opens once two of
 * the last four publishes failed, lets two probes through after 1 s open, and a publish that gets
 * no acknowledgement within 1 s counts as failed.
 */
public final class FastBreaker {

    private FastBreaker() {}

    /** {@return the Switchboard properties, in a new mutable map (add the broker's own)} */
    public static Map<String, String> properties() {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("switchboard.resilience.circuit-breaker.enabled", "true");
        p.put("switchboard.resilience.circuit-breaker.sliding-window-size", "4");
        p.put("switchboard.resilience.circuit-breaker.minimum-number-of-calls", "2");
        p.put("switchboard.resilience.circuit-breaker.wait-duration-in-open-state", "1s");
        p.put("switchboard.resilience.circuit-breaker.permitted-calls-in-half-open-state", "2");
        p.put("switchboard.resilience.timeout", "1s");
        return p;
    }
}
