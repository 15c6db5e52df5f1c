package io.switchboard.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Message;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import io.switchboard.RetryPolicy;
import io.switchboard.Switchboard;
import java.time.Duration;
import io.micrometer.observation.Observation;
import io.micrometer.observation.transport.ReceiverContext;
import java.util.Map;
import java.util.ArrayList;
import java.util.UUID;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The metrics and tracing part of the contract: one meter vocabulary and one trace across
 * publisher and subscriber, whatever the broker. {@link BrokerContract} extends it.
 */
public abstract class ObservabilityContract extends ContractSupport {

    private static final Codec<String> TEXT = Codec.utf8();

    @Nested
    @DisplayName("Metrics")
    class Metrics {

        @Test
        @DisplayName("count exactly what happened: 1,000 published, 999 acked, 3 retried, 1 dead-lettered")
        void exactCounts() {
            MeterRegistry registry = new SimpleMeterRegistry();
            Switchboard sb = newSwitchboard(b -> b.meterRegistry(registry));
            String dest = destination();
            Recorder<String> dead = recorder();
            subscribe(sb, deadLetterOf(dest), TEXT, b -> b.group("dlq-reader"), dead);
            Recorder<String> rec = new Recorder<>(timeout(), r -> r.message().payload().equals("m7")
                    || (r.message().payload().equals("m8") && r.context().attempt() == 1));
            subscribe(sb, dest, TEXT, b -> b.group("g").concurrency(2).retry(RetryPolicy.fixed(3, Duration.ofMillis(5))), rec);
            Publisher<String> pub = sb.publisher(dest, TEXT).delivery(Delivery.AT_LEAST_ONCE).build();
            List<CompletableFuture<PublishReceipt>> sent = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                sent.add(pub.publish(Message.of("k" + (i % 10), "m" + i)).toCompletableFuture());
            }
            join(CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)));
            rec.awaitCount(999);
            dead.awaitCount(1);

            String broker = sb.brokerId();
            await().atMost(timeout()).untilAsserted(() -> {
                assertThat(registry.get("switchboard.publish").tags("broker", broker, "destination", dest, "outcome", "success")
                        .timer().count()).isEqualTo(1000);
                assertThat(registry.get("switchboard.publish.size").tags("destination", dest).summary().count()).isEqualTo(1000);
                assertThat(registry.get("switchboard.handle").tags("destination", dest, "group", "g", "outcome", "ack")
                        .timer().count()).isEqualTo(999);
                assertThat(registry.get("switchboard.handle").tags("destination", dest, "group", "g", "outcome", "retry")
                        .timer().count()).isEqualTo(3);
                assertThat(registry.get("switchboard.handle").tags("destination", dest, "group", "g", "outcome", "dead_letter")
                        .timer().count()).isEqualTo(1);
                assertThat(registry.get("switchboard.dead.letters").tags("destination", dest, "group", "g", "reason", "handler-failed")
                        .counter().count()).isEqualTo(1.0);
                assertThat(registry.get("switchboard.consume.latency").tags("destination", dest, "group", "g")
                        .timer().count()).isEqualTo(1000);
                assertThat(registry.get("switchboard.inflight").tags("destination", dest, "group", "g").gauge().value())
                        .isZero();
            });
            assertThat(registry.get("switchboard.publish").tags("destination", dest).timer().getId().getTag("instance"))
                    .isEqualTo(sb.instanceName());
        }
    }

    @Nested
    @DisplayName("Tracing")
    class TracingAcrossBrokers {

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
}
