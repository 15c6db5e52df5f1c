package io.switchboard.internal.metrics;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.ReceiverContext;
import io.micrometer.observation.transport.SenderContext;
import io.switchboard.Envelope;
import java.util.Map;

/**
 * Micrometer Observations around publishing and handling. Trace context travels in the envelope:
 * a tracer's {@code traceparent}/{@code tracestate} fields are written as {@code ce_traceparent}/
 * {@code ce_tracestate} (the CloudEvents distributed-tracing extension) and read back on receipt.
 */
public final class Tracing {

    /** Observation name for publishing. */
    public static final String PUBLISH_OBSERVATION = "switchboard.publish";
    /** Observation name for handling. */
    public static final String HANDLE_OBSERVATION = "switchboard.handle";

    private Tracing() {}

    /** The envelope header a propagation field travels in. */
    public static String headerFor(String field) {
        return switch (field) {
            case "traceparent" -> Envelope.TRACEPARENT;
            case "tracestate" -> "ce_tracestate";
            default -> field;
        };
    }

    /** Starts a producer observation whose tracing handler injects into {@code headers}. */
    public static Observation startPublish(ObservationRegistry registry, Map<String, String> headers, String broker,
            String instance, String destination) {
        SenderContext<Map<String, String>> context =
                new SenderContext<>((carrier, key, value) -> carrier.put(headerFor(key), value));
        context.setCarrier(headers);
        context.setRemoteServiceName(broker);
        return Observation.createNotStarted(PUBLISH_OBSERVATION, () -> context, registry)
                .contextualName(destination + " send")
                .lowCardinalityKeyValue("broker", broker)
                .lowCardinalityKeyValue("instance", instance)
                .lowCardinalityKeyValue("destination", destination)
                .start();
    }

    /** Creates (not starts) a consumer observation that continues the trace found in {@code headers}. */
    public static Observation handle(ObservationRegistry registry, Map<String, String> headers, String broker,
            String instance, String destination, String group) {
        ReceiverContext<Map<String, String>> context = new ReceiverContext<>((carrier, key) -> carrier.get(headerFor(key)));
        context.setCarrier(headers);
        context.setRemoteServiceName(broker);
        return Observation.createNotStarted(HANDLE_OBSERVATION, () -> context, registry)
                .contextualName(destination + " process")
                .lowCardinalityKeyValue("broker", broker)
                .lowCardinalityKeyValue("instance", instance)
                .lowCardinalityKeyValue("destination", destination)
                .lowCardinalityKeyValue("group", group);
    }
}
