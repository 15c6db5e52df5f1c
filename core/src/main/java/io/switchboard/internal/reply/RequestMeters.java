package io.switchboard.internal.reply;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.switchboard.internal.metrics.Meters;
import io.switchboard.internal.metrics.RequestRecorder;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A requester's meters and the comparison's request statistics, resolved once per instance when it starts: a request's
 * end looks up its instance's recorder and hands it the one duration the requester measured.
 */
final class RequestMeters {

    static final int SUCCESS = RequestRecorder.SUCCESS;
    static final int TIMEOUT = RequestRecorder.TIMEOUT;
    static final int FAILURE = RequestRecorder.FAILURE;
    private static final String[] OUTCOMES = {"success", "timeout", "failure"};
    /** The instance tag of a request whose carrier is not known (its publish never completed). */
    static final String UNKNOWN = "unknown";

    private final Map<String, RequestRecorder> recorders = new HashMap<>();
    private final Map<String, Counter> dropped = new HashMap<>();

    RequestMeters(ReplyTransport transport, String destination) {
        MeterRegistry registry = transport.meters();
        for (String instance : transport.instances()) {
            RequestRecorder timers = registry == null ? null : add(registry, transport.brokerIdOf(instance), instance,
                    destination);
            RequestRecorder r = RequestRecorder.both(timers, transport.comparison(instance, destination));
            if (r != null) {
                recorders.put(instance, r);
            }
        }
        if (registry != null) { // the comparison knows no instance of its own for these
            recorders.put(UNKNOWN, add(registry, UNKNOWN, UNKNOWN, destination));
        }
    }

    private RequestRecorder add(MeterRegistry registry, String broker, String instance, String destination) {
        Timer[] byOutcome = new Timer[OUTCOMES.length];
        for (int i = 0; i < OUTCOMES.length; i++) {
            byOutcome[i] = Timer.builder(Meters.REQUEST).description("request published to its reply received, or its end")
                    .tags(Meters.base(broker, instance, destination)).tag("outcome", OUTCOMES[i]).register(registry);
        }
        dropped.put(instance, Counter.builder(Meters.REPLIES_DROPPED)
                .description("replies no pending request of this requester awaited (another requester's, or late)")
                .tags(Meters.base(broker, instance, destination)).register(registry));
        return (outcome, nanos) -> byOutcome[outcome].record(nanos, TimeUnit.NANOSECONDS);
    }

    /** Records a request's end on the instance that carried it (null: not known) with its one measured duration. */
    void record(String instance, int outcome, long nanos) {
        RequestRecorder r = recorders.get(instance == null ? UNKNOWN : instance);
        if (r != null) {
            r.requested(outcome, nanos);
        }
    }

    void dropped(String instance) {
        Counter c = dropped.get(instance == null ? UNKNOWN : instance);
        if (c != null) {
            c.increment();
        }
    }
}
