package io.switchboard.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.switchboard.Codec;
import io.switchboard.ConfigurationException;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.RetryPolicy;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.UnsupportedCapabilityException;
import io.switchboard.spi.TagFilter;
import io.switchboard.testkit.Received;
import io.switchboard.testkit.Recorder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.amqp.core.Binding;
import org.springframework.amqp.core.BindingBuilder;
import org.springframework.amqp.core.DirectExchange;
import org.springframework.amqp.core.FanoutExchange;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.core.QueueBuilder;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;

/**
 * Adopt, don't impose: one service moves onto Switchboard while its Spring AMQP neighbours keep their direct
 * exchange, named queues, message TTL and dead-letter exchange. The Spring side declares the topology first
 * ({@link RabbitAdmin}); Switchboard publishes into it and consumes from it without changing it.
 */
@DisplayName("RabbitMQ: adopting a Spring AMQP service's exchanges and queues")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RabbitAdoptTest extends RabbitTestSupport {

    private static final int N = 50;
    private static final long RECEIVE_MILLIS = 10_000;
    private static final String CREATED = "order.created";
    private static final String AUDIT = "order.audit";

    private CachingConnectionFactory springConnections;
    private RabbitAdmin admin;
    private RabbitTemplate template;
    /** The Spring side's names: a direct exchange, its named queues, and a dead-letter exchange with its queue. */
    private String exchange;
    private String billing;
    private String audit;
    private String deadLetterExchange;
    private String deadLetters;

    @BeforeEach
    void springSide() {
        springConnections = new CachingConnectionFactory(SERVER.host(), SERVER.port());
        springConnections.setUsername("guest");
        springConnections.setPassword("guest");
        springConnections.setVirtualHost(SERVER.virtualHost());
        admin = new RabbitAdmin(springConnections);
        template = new RabbitTemplate(springConnections);
        exchange = scratch.exchange("shop.orders");
        deadLetterExchange = scratch.exchange("shop.dlx");
        billing = scratch.queue("shop.billing");
        audit = scratch.queue("shop.audit");
        deadLetters = scratch.queue("shop.dead");
        DirectExchange orders = new DirectExchange(exchange, true, false);
        FanoutExchange dlx = new FanoutExchange(deadLetterExchange, true, false);
        admin.declareExchange(orders);
        admin.declareExchange(dlx);
        Queue dead = QueueBuilder.durable(deadLetters).build();
        Queue billingQueue = QueueBuilder.durable(billing).ttl(60_000).deadLetterExchange(deadLetterExchange).build();
        Queue auditQueue = QueueBuilder.durable(audit).ttl(300).deadLetterExchange(deadLetterExchange).build();
        admin.declareQueue(dead);
        admin.declareQueue(billingQueue);
        admin.declareQueue(auditQueue);
        admin.declareBinding(BindingBuilder.bind(dead).to(dlx));
        admin.declareBinding(BindingBuilder.bind(billingQueue).to(orders).with(CREATED));
        admin.declareBinding(BindingBuilder.bind(auditQueue).to(orders).with(AUDIT));
    }

    /**
     * Closes the Spring side's connections. Its exchanges and queues are the scratch's names: the scratch deletes them
     * after the Switchboards are closed (RabbitTestSupport's own @AfterEach, which runs after this one), so no
     * consumer sees its queue deleted under it.
     */
    @AfterEach
    void closeSpringSide() {
        if (springConnections != null) {
            springConnections.destroy();
        }
    }

    @Test
    @DisplayName("1. a passive publisher with the neighbours' exchange and routing key: a RabbitTemplate reads every message")
    void publisherIntoSpringTopology() throws Exception {
        Switchboard sb = switchboard();
        Publisher<String> publisher = sb.publisher(scratch.name("orders-out"), Codec.utf8())
                .property("rabbitmq.declare", "passive")
                .property("rabbitmq.exchange", exchange)
                .property("rabbitmq.routing-key", CREATED)
                .build();
        List<String> sent = publishAll(publisher, "order-");

        List<String> received = springReceive(billing, N);

        assertThat(received).containsExactlyElementsOf(sent);
        report("publisher-passive", N, received.size());
    }

    @Test
    @DisplayName("2. a subscription to a named queue, passive: a RabbitTemplate's messages arrive with payload and headers as text")
    void subscriptionOfNamedQueue() throws Exception {
        Switchboard sb = switchboard();
        Recorder<String> recorder = recorded(sb.subscriber(scratch.name("orders-in"), Codec.utf8()).group("billing")
                .property("rabbitmq.queue", billing)
                .property("rabbitmq.declare", "passive"));

        List<String> sent = springSend(CREATED, N);

        List<Received<String>> received = recorder.awaitCount(N).received();
        assertThat(received).extracting(r -> r.message().payload()).containsExactlyInAnyOrderElementsOf(sent);
        assertThat(received).allSatisfy(r -> {
            int n = Integer.parseInt(r.message().payload().substring("spring-".length()));
            assertThat(r.message().headers()).containsEntry("__TypeId__", "com.example.shop.OrderCreated")
                    .containsEntry("attempt", Integer.toString(n))
                    .containsEntry("priority-customer", Boolean.toString(n % 2 == 0));
        });
        report("subscription-named-queue", N, received.size());
    }

    @Test
    @DisplayName("3. the neighbours' queues keep their arguments, and their TTL still dead-letters into their DLX")
    void argumentsUnchangedAndTtlStillWorks() throws Exception {
        Map<String, String> before = Rabbitmq.queueArguments(billing, audit, deadLetters);
        Switchboard sb = switchboard();
        // declare=create with arguments of its own: the queues exist, so they are used as they are
        Recorder<String> recorder = recorded(sb.subscriber(scratch.name("orders-in"), Codec.utf8()).group("billing")
                .property("rabbitmq.queue", billing)
                .property("rabbitmq.exchange", exchange)
                .property("rabbitmq.binding-keys", CREATED)
                .property("rabbitmq.queue-arguments.x-message-ttl", "1000")
                .property("rabbitmq.queue-arguments.x-max-length", "5"));
        Publisher<String> toBilling = sb.publisher(scratch.name("orders-out"), Codec.utf8())
                .property("rabbitmq.exchange", exchange).property("rabbitmq.routing-key", CREATED).build();
        Publisher<String> toAudit = sb.publisher(scratch.name("audit-out"), Codec.utf8())
                .property("rabbitmq.declare", "passive")
                .property("rabbitmq.exchange", exchange).property("rabbitmq.routing-key", AUDIT).build();
        List<String> sent = publishAll(toBilling, "kept-");
        assertThat(recorder.awaitCount(N).payloads()).containsExactlyInAnyOrderElementsOf(sent);
        report("queue-arguments-kept", N, recorder.received().size());

        join(toAudit.publish(Message.of("left-unread")));
        List<String> expired = springReceive(deadLetters, 1);

        assertThat(expired).containsExactly("left-unread");
        assertThat(Rabbitmq.queueArguments(billing, audit, deadLetters)).isEqualTo(before);
        report("ttl-dead-letter", 1, expired.size());
    }

    @Test
    @DisplayName("4. an existing <destination>.<group> queue with foreign arguments is taken over, not refused")
    void foreignGroupQueueTakenOver() throws Exception {
        String destination = scratch.name("payments");
        String groupQueue = foreignGroupQueue(destination, "ledger");
        Map<String, String> before = Rabbitmq.queueArguments(groupQueue);
        Switchboard sb = switchboard();
        Recorder<String> recorder = recorded(sb.subscriber(destination, Codec.utf8()).group("ledger"));

        List<String> sent = publishAll(sb.publisher(destination, Codec.utf8()).build(), "payment-");

        assertThat(recorder.awaitCount(N).payloads()).containsExactlyInAnyOrderElementsOf(sent);
        assertThat(Rabbitmq.queueArguments(groupQueue)).isEqualTo(before);
        assertThat(before.get(groupQueue)).contains("x-message-ttl").doesNotContain("x-dead-letter-exchange");
        report("group-queue-taken-over", N, recorder.received().size());
    }

    @Test
    @DisplayName("4b. after a connection loss, recovery does not declare adopted queues again with Switchboard's arguments")
    void recoveryKeepsAdoptedQueues() throws Exception {
        String destination = scratch.name("payments");
        String ledger = foreignGroupQueue(destination, "ledger");
        Map<String, String> before = Rabbitmq.queueArguments(billing, ledger);
        Switchboard sb = switchboard("rabbitmq.recovery-interval", "300ms");
        Recorder<String> fromNamed = new Recorder<>(TIMEOUT);
        Recorder<String> fromGroup = new Recorder<>(TIMEOUT);
        Subscription named = sb.subscriber(scratch.name("orders-in"), Codec.utf8()).group("billing")
                .property("rabbitmq.queue", billing).property("rabbitmq.exchange", exchange)
                .property("rabbitmq.binding-keys", CREATED)
                .property("rabbitmq.queue-arguments.x-message-ttl", "1000").subscribe(fromNamed);
        join(named.ready());
        Subscription group = sb.subscriber(destination, Codec.utf8()).group("ledger").subscribe(fromGroup);
        join(group.ready());

        assertThat(SERVER.closeConnectionsNamed(connectionName())).as("the consuming connection").isPositive();
        List<String> sent = springSend(CREATED, N);
        for (String payload : sent) {
            template.send("", ledger, springMessage(payload, 0, Map.of()));
        }

        assertThat(fromNamed.awaitCount(N).payloads()).containsExactlyInAnyOrderElementsOf(sent);
        assertThat(fromGroup.awaitCount(N).payloads()).containsExactlyInAnyOrderElementsOf(sent);
        assertThat(named.isActive()).isTrue();
        assertThat(group.isActive()).isTrue();
        assertThat(Rabbitmq.queueArguments(billing, ledger)).isEqualTo(before);
        report("recovery-keeps-adopted-queues", 2 * N, fromNamed.received().size() + fromGroup.received().size());
    }

    @Test
    @DisplayName("5. passive with a missing exchange or queue fails at start, naming it and rabbitmq.declare=create")
    void passiveWithMissingNamesFails() throws Exception {
        Switchboard sb = switchboard();
        String missingExchange = scratch.name("no-such-exchange");
        assertThatThrownBy(() -> sb.publisher(scratch.name("out"), Codec.utf8())
                .property("rabbitmq.declare", "passive").property("rabbitmq.exchange", missingExchange)
                .property("rabbitmq.routing-key", CREATED).build())
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("exchange '" + missingExchange + "'")
                .hasMessageContaining("rabbitmq.declare=create");

        String missingQueue = scratch.name("no-such-queue");
        var subscription = sb.subscriber(scratch.name("in"), Codec.utf8()).group("g")
                .property("rabbitmq.declare", "passive").property("rabbitmq.queue", missingQueue)
                .subscribe((m, c) -> { });
        assertThatThrownBy(() -> join(subscription.ready()))
                .isInstanceOf(ExecutionException.class).cause()
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("queue '" + missingQueue + "'")
                .hasMessageContaining("rabbitmq.declare=create");
        report("passive-missing-refused", 0, 0);
    }

    @Test
    @DisplayName("5b. declare=none checks nothing: the subscription reads the named queue, a publish to a missing exchange fails")
    void declareNoneChecksNothing() throws Exception {
        Switchboard sb = switchboard();
        Recorder<String> recorder = recorded(sb.subscriber(scratch.name("orders-in"), Codec.utf8()).group("billing")
                .property("rabbitmq.queue", billing).property("rabbitmq.declare", "none"));
        List<String> sent = springSend(CREATED, N);
        assertThat(recorder.awaitCount(N).payloads()).containsExactlyInAnyOrderElementsOf(sent);

        String missingExchange = scratch.name("no-such-exchange");
        Publisher<String> unchecked = sb.publisher(scratch.name("out"), Codec.utf8())
                .property("rabbitmq.declare", "none").property("rabbitmq.exchange", missingExchange)
                .property("rabbitmq.routing-key", CREATED).build();
        assertThatThrownBy(() -> join(unchecked.publish(Message.of("nowhere"))))
                .hasMessageContaining(missingExchange);
        report("declare-none", N, recorder.received().size());
    }

    @Test
    @DisplayName("6a. a named queue gives partitions up: a partitioned subscription to one is refused, naming both")
    void namedQueueWithPartitionsRefused() {
        var subscription = switchboard().subscriber(scratch.name("in"), Codec.utf8()).group("g")
                .property("rabbitmq.queue", billing).property("switchboard.partitions", "3")
                .subscribe((m, c) -> { });
        assertThatThrownBy(() -> join(subscription.ready())).cause()
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("switchboard.partitions").hasMessageContaining("rabbitmq.queue=" + billing);
        report("partitions-with-named-queue-refused", 0, 0);
    }

    @Test
    @DisplayName("6b. a fixed routing key gives partitions up: a partitioned publisher with one is refused, naming both")
    void fixedRoutingKeyWithPartitionsRefused() {
        assertThatThrownBy(() -> switchboard().publisher(scratch.name("out"), Codec.utf8())
                .property("rabbitmq.exchange", exchange).property("rabbitmq.routing-key", CREATED)
                .property("switchboard.partitions", "2").build())
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("switchboard.partitions").hasMessageContaining("rabbitmq.routing-key=" + CREATED);
        report("partitions-with-routing-key-refused", 0, 0);
    }

    @Test
    @DisplayName("6c. a delayed message to an adopted exchange fails, naming delayed delivery and the setting that keeps it")
    void delayToAdoptedExchangeRefused() throws Exception {
        Publisher<String> publisher = switchboard().publisher(scratch.name("out"), Codec.utf8())
                .property("rabbitmq.exchange", exchange).property("rabbitmq.routing-key", CREATED).build();
        assertThatThrownBy(() -> join(publisher.publish(Message.builder("later").delay(Duration.ofSeconds(1)).build())))
                .cause().isInstanceOf(UnsupportedCapabilityException.class)
                .hasMessageContaining("Delayed delivery").hasMessageContaining("rabbitmq.exchange");
        join(publisher.publish(Message.of("now")));
        assertThat(springReceive(billing, 1)).containsExactly("now");
        report("delay-to-adopted-exchange-refused", 1, 1);
    }

    @Test
    @DisplayName("6d. a broadcast subscription cannot share a named queue: refused, naming rabbitmq.queue")
    void broadcastWithNamedQueueRefused() {
        var subscription = switchboard().subscriber(scratch.name("in"), Codec.utf8()).broadcast()
                .property("rabbitmq.queue", billing).subscribe((m, c) -> { });
        assertThatThrownBy(() -> join(subscription.ready())).cause()
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("rabbitmq.queue")
                .hasMessageContaining("broadcast");
        report("broadcast-with-named-queue-refused", 0, 0);
    }

    @Test
    @DisplayName("6e. the default exchange needs a routing key (the queue's name): a publisher without one is refused")
    void defaultExchangeWithoutRoutingKeyRefused() throws Exception {
        assertThatThrownBy(() -> switchboard().publisher(scratch.name("out"), Codec.utf8())
                .property("rabbitmq.exchange", "").build())
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("rabbitmq.routing-key");
        Publisher<String> direct = switchboard().publisher(scratch.name("out"), Codec.utf8())
                .property("rabbitmq.exchange", "").property("rabbitmq.routing-key", audit)
                .property("rabbitmq.declare", "passive").build();
        join(direct.publish(Message.of("by-queue-name")));
        assertThat(springReceive(deadLetters, 1)).as("expired from the audit queue into the DLX").containsExactly("by-queue-name");
        report("default-exchange", 1, 1);
    }

    @Test
    @DisplayName("6f. a tag filter on a named queue applies in the client: other tags are acknowledged and dropped")
    void tagFilterOnNamedQueueInClient() throws Exception {
        Recorder<String> paid = recorded(switchboard().subscriber(scratch.name("in"), Codec.utf8()).group("billing")
                .filter("paid").property("rabbitmq.queue", billing).property("rabbitmq.declare", "passive"));
        List<String> sent = new ArrayList<>();
        for (int i = 0; i < N; i++) {
            String tag = i % 2 == 0 ? "paid" : "shipped";
            template.send(exchange, CREATED, springMessage("tagged-" + i, i, Map.of(TagFilter.TAG_HEADER, tag)));
            if (tag.equals("paid")) {
                sent.add("tagged-" + i);
            }
        }
        assertThat(paid.awaitCount(sent.size()).payloads()).containsExactlyInAnyOrderElementsOf(sent);
        awaitEmpty(billing);
        assertThat(paid.received()).hasSize(sent.size());
        report("tag-filter-in-client", sent.size(), paid.received().size());
    }

    @Test
    @DisplayName("6g. core's dead letters from an adopted queue still reach the subscription's dead-letter destination")
    void deadLettersFromAdoptedQueue() throws Exception {
        Switchboard sb = switchboard();
        String destination = scratch.name("orders-in");
        Recorder<String> failing = new Recorder<>(TIMEOUT, r -> r.message().payload().equals("spring-3"));
        join(sb.subscriber(destination, Codec.utf8()).group("billing").retry(RetryPolicy.NONE)
                .property("rabbitmq.queue", billing).property("rabbitmq.declare", "passive").subscribe(failing).ready());
        Recorder<String> dead = recorded(sb.subscriber(destination + ".dlq", Codec.utf8()).group("default"));

        springSend(CREATED, 5);

        assertThat(dead.awaitCount(1).payloads()).containsExactly("spring-3");
        assertThat(failing.awaitCount(4).payloads()).hasSize(4).doesNotContain("spring-3");
        report("core-dead-letter", 5, failing.received().size() + dead.received().size());
    }

    @Test
    @DisplayName("6h. a destination adopted by one subscription still serves its other groups and publishers in Switchboard's layout")
    void adoptedDestinationKeepsOwnLayoutForOthers() throws Exception {
        Switchboard sb = switchboard();
        String destination = scratch.name("orders-in");
        recorded(sb.subscriber(destination, Codec.utf8()).group("billing")
                .property("rabbitmq.queue", billing).property("rabbitmq.declare", "passive"));
        Recorder<String> ledger = recorded(sb.subscriber(destination, Codec.utf8()).group("ledger"));

        List<String> sent = publishAll(sb.publisher(destination, Codec.utf8()).build(), "own-");

        assertThat(ledger.awaitCount(N).payloads()).containsExactlyInAnyOrderElementsOf(sent);
        report("own-layout-beside-adopted", N, ledger.received().size());
    }

    @Test
    @DisplayName("6i. a broadcast subscriber of an adopted exchange gets its own queue, bound with the binding keys")
    void broadcastFromAdoptedExchange() throws Exception {
        Recorder<String> everyone = recorded(switchboard().subscriber(scratch.name("orders-in"), Codec.utf8()).broadcast()
                .property("rabbitmq.exchange", exchange).property("rabbitmq.binding-keys", CREATED));

        List<String> sent = springSend(CREATED, N);

        assertThat(everyone.awaitCount(N).payloads()).containsExactlyInAnyOrderElementsOf(sent);
        assertThat(springReceive(billing, N)).as("the neighbours' queue still gets its copy").hasSize(N);
        report("broadcast-from-adopted-exchange", N, everyone.received().size());
    }

    /** Declares {@code <destination>.<group>} as a neighbour would: a message TTL and no dead-letter exchange. */
    private String foreignGroupQueue(String destination, String group) {
        String queue = destination + "." + group;
        admin.declareQueue(QueueBuilder.durable(queue).ttl(60_000).build());
        return queue;
    }

    private static List<String> publishAll(Publisher<String> publisher, String prefix) throws Exception {
        List<String> sent = IntStream.range(0, N).mapToObj(i -> prefix + i).toList();
        List<CompletableFuture<?>> receipts = new ArrayList<>();
        for (String payload : sent) {
            receipts.add(publisher.publish(Message.of(payload)).toCompletableFuture());
        }
        join(CompletableFuture.allOf(receipts.toArray(CompletableFuture[]::new)));
        return sent;
    }

    /** Sends {@code count} messages as a Spring AMQP service does: a type id header and typed header values. */
    private List<String> springSend(String routingKey, int count) {
        List<String> sent = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            template.send(exchange, routingKey, springMessage("spring-" + i, i, Map.of()));
            sent.add("spring-" + i);
        }
        return sent;
    }

    private static org.springframework.amqp.core.Message springMessage(String payload, int n, Map<String, String> more) {
        MessageProperties properties = new MessageProperties();
        properties.setContentType(MessageProperties.CONTENT_TYPE_TEXT_PLAIN);
        properties.setHeader("__TypeId__", "com.example.shop.OrderCreated");
        properties.setHeader("attempt", n);
        properties.setHeader("priority-customer", n % 2 == 0);
        more.forEach(properties::setHeader);
        return new org.springframework.amqp.core.Message(payload.getBytes(StandardCharsets.UTF_8), properties);
    }

    /** Reads {@code count} messages from the queue as a Spring AMQP consumer does, each within the receive time-out. */
    private List<String> springReceive(String queue, int count) {
        List<String> received = new ArrayList<>();
        while (received.size() < count) {
            org.springframework.amqp.core.Message message = template.receive(queue, RECEIVE_MILLIS);
            if (message == null) {
                break; // nothing within the time-out: the assertion shows what is missing
            }
            received.add(new String(message.getBody(), StandardCharsets.UTF_8));
        }
        return received;
    }

    /** Waits until the queue holds no ready message (within the receive time-out). */
    private void awaitEmpty(String queue) {
        org.awaitility.Awaitility.await().atMost(Duration.ofMillis(RECEIVE_MILLIS))
                .until(() -> admin.getQueueInfo(queue).getMessageCount() == 0);
    }

    private static void report(String scenario, int sent, int received) {
        System.out.println("adopt=spring-amqp broker=rabbitmq scenario=" + scenario + " sent=" + sent + " received=" + received
                + " lost=" + (sent - received));
    }

    /** The broker's own view of queue arguments: {@code rabbitmqctl list_queues name arguments --formatter json}. */
    static final class Rabbitmq {

        /** {@return each queue's arguments as rabbitmqctl prints them (JSON), by queue name} */
        static Map<String, String> queueArguments(String... queues) throws Exception {
            Process process = new ProcessBuilder("rabbitmqctl", "-q", "list_queues", "name", "arguments", "--formatter", "json")
                    .redirectErrorStream(true).start();
            CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
                try {
                    return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("rabbitmqctl list_queues did not finish within 30 s");
            }
            String json = output.get(5, TimeUnit.SECONDS);
            Map<String, String> arguments = new java.util.TreeMap<>();
            for (String queue : queues) {
                String marker = "{\"name\":\"" + queue + "\",\"arguments\":";
                int at = json.indexOf(marker);
                assertThat(at).as("queue %s in rabbitmqctl's list: %s", queue, json).isNotNegative();
                int start = at + marker.length();
                int end = start;
                for (int depth = 0; end == start || depth > 0; end++) {
                    depth += json.charAt(end) == '[' ? 1 : json.charAt(end) == ']' ? -1 : 0;
                }
                arguments.put(queue, json.substring(start, end));
            }
            return arguments;
        }
    }
}
