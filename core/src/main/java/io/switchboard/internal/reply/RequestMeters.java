package io.switchboard.internal.reply;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.switchboard.internal.metrics.Meters;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A requester's meters, resolved once per instance and outcome when it starts. */
final class RequestMeters {

    static final int SUCCESS = 0;
    static final int TIMEOUT = 1;
    static final int FAILURE = 2;
    private static final String[] OUTCOMES = {"success", "timeout", "failure"};
    /** The instance tag of a request whose carrier is not known (its publish never completed). */
    static final String UNKNOWN = "unknown";

    private final Map<String, Timer[]> timers = new HashMap<>();
    private final Map<String, Counter> dropped = new HashMap<>();

    RequestMeters(ReplyTransport transport, String destination) {
        MeterRegistry registry = transport.meters();
        if (registry == null) {
            return;
        }
        for (String instance : transport.instances()) {
            add(registry, transport.brokerIdOf(instance), instance, destination);
        }
        add(registry, UNKNOWN, UNKNOWN, destination);
    }

    private void add(MeterRegistry registry, String broker, String instance, String destination) {
        Timer[] byOutcome = new Timer[OUTCOMES.length];
        for (int i = 0; i < OUTCOMES.length; i++) {
            byOutcome[i] = Timer.builder(Meters.REQUEST).description("request published to its reply received, or its end")
                    .tags(Meters.base(broker, instance, destination)).tag("outcome", OUTCOMES[i]).register(registry);
        }
        timers.put(instance, byOutcome);
        dropped.put(instance, Counter.builder(Meters.REPLIES_DROPPED)
                .description("replies no pending request of this requester awaited (another requester's, or late)")
                .tags(Meters.base(broker, instance, destination)).register(registry));
    }

    void record(String instance, int outcome, long nanos) {
        Timer[] t = timers.get(instance == null ? UNKNOWN : instance);
        if (t != null) {
            t[outcome].record(nanos, TimeUnit.NANOSECONDS);
        }
    }

    void dropped(String instance) {
        Counter c = dropped.get(instance == null ? UNKNOWN : instance);
        if (c != null) {
            c.increment();
        }
    }
}
