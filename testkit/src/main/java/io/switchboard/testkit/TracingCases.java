package io.switchboard.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.ReceiverContext;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import io.switchboard.Publisher;
import io.switchboard.Switchboard;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The contract's "Tracing" cases; {@link BrokerContract} runs them as a nested group. */
abstract class TracingCases extends ContractCases {

    TracingCases(ContractSupport contract) {
        super(contract);
    }

    @Test
    @DisplayName("carries one trace from the publisher to the handler")
    void oneTraceId() {
        SimpleTracer tracer = new SimpleTracer();
        W3cPropagator propagator = new W3cPropagator(tracer);
        ObservationRegistry observations = ObservationRegistry.create();
        observations.observationConfig().observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
                new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
                new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                new DefaultTracingObservationHandler(tracer)));
        Switchboard sb = newSwitchboard(b -> b.observationRegistry(observations));
        String dest = destination();
        AtomicReference<String> handlerTrace = new AtomicReference<>();
        AtomicReference<String> headerTrace = new AtomicReference<>();
        subscribe(sb, dest, TEXT, b -> b.group("g"), (m, c) -> {
            Span current = tracer.currentSpan();
            handlerTrace.set(current == null ? "none" : current.context().traceId());
            headerTrace.set(c.traceparent());
        });
        Publisher<String> pub = sb.publisher(dest, TEXT).build();
        String traceId = UUID.randomUUID().toString().replace("-", "");
        // an incoming request that carries a trace, as an HTTP server observation would
        ReceiverContext<Map<String, String>> incoming = new ReceiverContext<>(Map::get);
        incoming.setCarrier(Map.of("traceparent", "00-" + traceId + "-" + traceId.substring(0, 16) + "-01"));
        Observation request = Observation.createNotStarted("incoming request", () -> incoming, observations).start();
        try (Observation.Scope scope = request.openScope()) {
            join(pub.publish("traced"));
        } finally {
            request.stop();
        }
        await().atMost(timeout()).until(() -> handlerTrace.get() != null);

        SimpleSpan producer = tracer.getSpans().stream().filter(s -> s.getKind() == Span.Kind.PRODUCER).findFirst()
                .orElseThrow(() -> new AssertionError("no producer span in " + tracer.getSpans()));
        assertThat(producer.getTraceId()).isEqualTo(traceId);
        assertThat(headerTrace.get()).startsWith("00-" + traceId + "-");
        assertThat(handlerTrace.get()).as("trace id seen inside the handler").isEqualTo(traceId);
    }
}
