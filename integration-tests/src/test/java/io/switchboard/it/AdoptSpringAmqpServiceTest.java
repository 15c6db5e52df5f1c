package io.switchboard.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Message;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.TypeDispatch;
import io.switchboard.TypedCodec;
import io.switchboard.routing.Route;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.amqp.core.Binding;
import org.springframework.amqp.core.BindingBuilder;
import org.springframework.amqp.core.DirectExchange;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.core.QueueBuilder;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.support.converter.DefaultJacksonJavaTypeMapper;
import org.springframework.amqp.support.converter.JacksonJsonMessageConverter;

/**
 * An order service written after a Spring AMQP application's patterns moves to Switchboard alone: the Spring side
 * declared a direct exchange, named queues with {@code x-message-ttl} and a dead-letter exchange, and bindings with
 * routing keys; its neighbours keep {@code RabbitTemplate} with Spring's JSON converter ({@code __TypeId__}). The
 * moved service takes the exchange, routing key and its queue over without declaring anything, reads the
 * neighbours' typed JSON and writes JSON they read; then it mirrors the destination to Kafka and migrates it there,
 * while the neighbour's queue keeps getting the neighbours' messages until the cutover.
 */
@DisplayName("Adopting a Spring AMQP service: direct exchange, named queues, TTL and DLX, then mirror and migrate")
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class AdoptSpringAmqpServiceTest extends RoutingTestSupport {

    /** One payload type. */
    public record OrderCreated(String order, long cents) {}

    /** The other. */
    public record OrderPaid(String order, String method) {}

    private CachingConnectionFactory connections;

    @AfterEach
    void closeSpring() {
        if (connections != null) {
            connections.destroy();
        }
    }

    private RabbitTemplate template() {
        RabbitTemplate template = new RabbitTemplate(connections);
        JacksonJsonMessageConverter converter = new JacksonJsonMessageConverter();
        DefaultJacksonJavaTypeMapper types = new DefaultJacksonJavaTypeMapper();
        types.setTrustedPackages(OrderCreated.class.getPackageName());
        converter.setJavaTypeMapper(types);
        template.setMessageConverter(converter);
        return template;
    }

    @Test
    @DisplayName("the ported service takes over the Spring side's exchange and queue, then mirrors and migrates to Kafka")
    void adoptMirrorMigrate() throws Exception {
        String base = destination("shop");
        String exchange = base + ".orders";
        String billingQueue = base + ".billing.orders";
        String auditQueue = base + ".audit.orders";
        String routingKey = "order.created";
        connections = new CachingConnectionFactory(RABBIT.host(), RABBIT.port());
        connections.setUsername("guest");
        connections.setPassword("guest");
        RabbitAdmin admin = new RabbitAdmin(connections);
        // the Spring side's topology, declared before the service moves
        DirectExchange orders = new DirectExchange(exchange, true, false);
        DirectExchange dlx = new DirectExchange(base + ".dlx", true, false);
        Queue billing = QueueBuilder.durable(billingQueue).ttl(600_000).deadLetterExchange(dlx.getName())
                .deadLetterRoutingKey("dead").build();
        Queue audit = QueueBuilder.durable(auditQueue).ttl(600_000).deadLetterExchange(dlx.getName())
                .deadLetterRoutingKey("dead").build();
        Queue dead = QueueBuilder.durable(base + ".dead").build();
        admin.declareExchange(orders);
        admin.declareExchange(dlx);
        admin.declareQueue(billing);
        admin.declareQueue(audit);
        admin.declareQueue(dead);
        admin.declareBinding(BindingBuilder.bind(billing).to(orders).with(routingKey));
        admin.declareBinding(BindingBuilder.bind(audit).to(orders).with(routingKey));
        admin.declareBinding(BindingBuilder.bind(dead).to(dlx).with("dead"));
        Map<String, Object> billingArguments = Map.copyOf(billing.getArguments());
        RabbitTemplate checkout = template();

        String dest = destination("orders"); // the service's name for it; the properties say what it is on RabbitMQ
        Switchboard sb = closeAfter(builder().instance("rabbit", "rabbitmq", rabbit()).instance("kafka", "kafka", kafka())
                .route(dest, Route.single("rabbit")).build());
        Map<String, Integer> handled = new ConcurrentHashMap<>();
        AtomicInteger typeErrors = new AtomicInteger();
        TypeDispatch dispatch = TypeDispatch.json()
                .on(OrderCreated.class, (m, c) -> note(handled, m.payload().order(), "created", typeErrors))
                .on(OrderPaid.class, (m, c) -> note(handled, m.payload().order(), "paid", typeErrors))
                .build();
        Subscription subscription = sb.subscriber(dest, dispatch.codec()).group("billing")
                .property("rabbitmq.declare", "passive")
                .property("rabbitmq.exchange", exchange)
                .property("rabbitmq.queue", billingQueue)
                .subscribe(dispatch);
        subscription.ready().toCompletableFuture().get(60, TimeUnit.SECONDS);
        Publisher<Object> publisher = sb.publisher(dest, TypedCodec.json().build())
                .property("rabbitmq.declare", "passive")
                .property("rabbitmq.exchange", exchange)
                .property("rabbitmq.routing-key", routingKey)
                .build();
        int n = 200;

        // 1. the Spring producer's typed JSON reaches the ported consumer through the queue it took over
        for (int i = 0; i < n; i++) {
            checkout.convertAndSend(exchange, routingKey, payload("spring", i));
        }
        await().atMost(TIMEOUT).until(() -> count(handled, "spring-") == n);
        // 2. the ported producer's JSON reaches the Spring consumer of the other named queue, as its classes
        publish(publisher, "ported", n, "rabbit");
        List<Object> auditGot = drain(checkout, auditQueue, 2 * n);
        long auditTypeErrors = auditGot.stream().filter(o -> !(o instanceof OrderCreated || o instanceof OrderPaid)).count();
        typeErrors.addAndGet((int) auditTypeErrors);
        await().atMost(TIMEOUT).until(() -> count(handled, "ported-") == n);
        assertThat(queueArguments(billingQueue)).as("the queue Switchboard took over keeps its owner's arguments")
                .containsAllEntriesOf(stringValues(billingArguments));
        report("adopt", 2 * n, ids(auditGot, "spring-") + ids(auditGot, "ported-"), 2 * n, handled, 2 * n, typeErrors);

        // 3. mirror to Kafka: the neighbour's queue still gets everything; the service handles each once
        sb.routing().update(dest, Route.mirror("rabbit", "kafka"));
        publish(publisher, "mirror", n, "rabbit");
        List<Object> mirrored = drain(checkout, auditQueue, n);
        await().atMost(TIMEOUT).until(() -> count(handled, "mirror-") == n);
        await().atMost(TIMEOUT).until(() -> sb.routing().shadowReport(dest).shadowSeen() >= n);
        System.out.println(sb.routing().shadowReport(dest).summary());
        assertThat(sb.routing().shadowReport(dest).clean()).isTrue();
        report("mirror", n, ids(mirrored, "mirror-"), n, handled, 3 * n, typeErrors);

        // 4. migrate: the service publishes to Kafka and reads both; the Spring producer still writes RabbitMQ
        sb.routing().update(dest, Route.migrate("rabbit", "kafka"));
        publish(publisher, "migrated", n, "kafka");
        for (int i = 0; i < n; i++) {
            checkout.convertAndSend(exchange, routingKey, payload("late", i));
        }
        List<Object> late = drain(checkout, auditQueue, n);
        await().atMost(TIMEOUT).until(() -> count(handled, "migrated-") == n && count(handled, "late-") == n);
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
                .until(() -> handled.values().stream().allMatch(c -> c == 1));
        assertThat(ids(late, "migrated-")).as("after the cutover the neighbour's queue gets none of the service's").isZero();
        report("migrate", 2 * n, ids(late, "late-"), n, handled, 5 * n, typeErrors);
    }

    static Object payload(String phase, int i) {
        String order = phase + "-" + i;
        return i % 2 == 0 ? new OrderCreated(order, i) : new OrderPaid(order, "card");
    }

    private static void note(Map<String, Integer> handled, String order, String type, AtomicInteger typeErrors) {
        int i = Integer.parseInt(order.substring(order.lastIndexOf('-') + 1));
        if ((i % 2 == 0) != type.equals("created")) {
            typeErrors.incrementAndGet();
        }
        handled.merge(order, 1, Integer::sum);
    }

    private static void publish(Publisher<Object> publisher, String phase, int n, String instance) throws Exception {
        List<CompletableFuture<PublishReceipt>> sent = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            sent.add(publisher.publish(Message.builder(payload(phase, i)).key("k" + i % 10).build()).toCompletableFuture());
        }
        for (CompletableFuture<PublishReceipt> f : sent) {
            assertThat(f.get(60, TimeUnit.SECONDS).instance()).isEqualTo(instance);
        }
    }

    /** What the Spring consumer reads from its queue: {@code expected} messages, then whatever else comes within 1 s. */
    private static List<Object> drain(RabbitTemplate template, String queue, int expected) {
        List<Object> got = new ArrayList<>();
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (got.size() < expected && System.nanoTime() < deadline) {
            Object o = template.receiveAndConvert(queue, 1_000);
            if (o != null) {
                got.add(o);
            }
        }
        Object extra;
        while ((extra = template.receiveAndConvert(queue, 1_000)) != null) {
            got.add(extra);
        }
        return got;
    }

    private static long ids(List<Object> got, String prefix) {
        return got.stream().map(o -> o instanceof OrderCreated c ? c.order() : o instanceof OrderPaid p ? p.order() : "")
                .filter(o -> o.startsWith(prefix)).distinct().count();
    }

    private static long count(Map<String, Integer> handled, String prefix) {
        return handled.keySet().stream().filter(o -> o.startsWith(prefix)).count();
    }

    private static Map<String, String> stringValues(Map<String, Object> arguments) {
        Map<String, String> text = new java.util.TreeMap<>();
        arguments.forEach((k, v) -> text.put(k, String.valueOf(v)));
        return text;
    }

    /** The queue's arguments as the broker holds them ({@code rabbitmqctl list_queues name arguments}). */
    private static Map<String, String> queueArguments(String queue) throws Exception {
        Process p = new ProcessBuilder("rabbitmqctl", "-q", "list_queues", "name", "arguments", "--formatter", "json")
                .redirectErrorStream(true).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("rabbitmqctl list_queues did not answer within 60 s");
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        var json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(out.substring(out.indexOf('[')));
        for (var q : json) {
            if (q.path("name").asText().equals(queue)) {
                Map<String, String> arguments = new java.util.TreeMap<>();
                for (var argument : q.path("arguments")) { // [name, type, value]
                    arguments.put(argument.get(0).asText(), argument.get(2).asText());
                }
                return arguments;
            }
        }
        throw new AssertionError("queue " + queue + " not in rabbitmqctl list_queues: " + out);
    }

    private void report(String phase, int sent, long neighbourGot, long neighbourExpected, Map<String, Integer> handled,
            long portedExpected, AtomicInteger typeErrors) {
        long lost = Math.max(0, neighbourExpected - neighbourGot) + Math.max(0, portedExpected - handled.size());
        long duplicates = handled.values().stream().filter(c -> c > 1).count();
        long errors = typeErrors.get() + (long) counter("switchboard.dead.letters");
        System.out.printf("adopt=spring-amqp-orders broker=rabbitmq phase=%s layout=direct+named-queues+ttl+dlx declare=passive "
                + "sent=%d neighbour_received=%d/%d ported_handled=%d/%d duplicates=%d lost=%d type_errors=%d%n", phase, sent,
                neighbourGot, neighbourExpected, handled.size(), portedExpected, duplicates, lost, errors);
        assertThat(lost).isZero();
        assertThat(errors).isZero();
        assertThat(duplicates).isZero();
    }
}
