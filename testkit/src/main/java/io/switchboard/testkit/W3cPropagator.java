package io.switchboard.testkit;

import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import java.util.List;

/**
 * A minimal W3C Trace Context propagator ({@code traceparent} only) for tests with Micrometer's
 * {@code SimpleTracer}, which ships without one.
 */
public final class W3cPropagator implements Propagator {

    private final Tracer tracer;

    /**
     * A propagator building extracted spans with {@code tracer}.
     *
     * @param tracer the tracer
     */
    public W3cPropagator(Tracer tracer) {
        this.tracer = tracer;
    }

    @Override
    public List<String> fields() {
        return List.of("traceparent");
    }

    @Override
    public <C> void inject(TraceContext context, C carrier, Setter<C> setter) {
        String traceId = pad(context.traceId(), 32);
        String spanId = pad(context.spanId(), 16);
        setter.set(carrier, "traceparent", "00-" + traceId + "-" + spanId + "-01");
    }

    @Override
    public <C> Span.Builder extract(C carrier, Getter<C> getter) {
        String header = getter.get(carrier, "traceparent");
        if (header == null || header.length() < 55) {
            return tracer.spanBuilder();
        }
        TraceContext parent = tracer.traceContextBuilder()
                .traceId(header.substring(3, 35))
                .spanId(header.substring(36, 52))
                .sampled(true)
                .build();
        return tracer.spanBuilder().setParent(parent);
    }

    private static String pad(String id, int length) {
        StringBuilder b = new StringBuilder(length);
        for (int i = id.length(); i < length; i++) {
            b.append('0');
        }
        return b.append(id).toString();
    }
}
