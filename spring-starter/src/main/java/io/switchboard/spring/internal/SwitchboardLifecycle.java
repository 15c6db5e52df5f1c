package io.switchboard.spring.internal;

import io.switchboard.Codec;
import io.switchboard.ConfigurationException;
import io.switchboard.Delivery;
import io.switchboard.StartPosition;
import io.switchboard.SubscriberBuilder;
import io.switchboard.Subscription;
import io.switchboard.SubscriptionException;
import io.switchboard.Switchboard;
import io.switchboard.SwitchboardException;
import io.switchboard.TypeDispatch;
import io.switchboard.routing.PromotionGate;
import io.switchboard.spring.CodecResolver;
import io.switchboard.spring.DestinationProperties;
import io.switchboard.spring.SwitchboardProperties;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Subscribes the {@link io.switchboard.spring.SwitchboardListener} methods once the application
 * context is refreshed, and waits until every one is ready, so that the application reports
 * ready only when its listeners are; a listener that cannot subscribe fails startup. On shutdown
 * it drains every subscription at once (handlers in flight finish, nothing new is taken) in the
 * graceful-shutdown phase, before the {@link Switchboard} bean itself is closed.
 */
public final class SwitchboardLifecycle implements SmartLifecycle {

    /** The phase: that of Spring Boot's graceful shutdown of the web server; stops before ordinary beans go away. */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 1024;

    private static final Logger log = LoggerFactory.getLogger(SwitchboardLifecycle.class);

    private final Switchboard switchboard;
    private final ListenerCollector collector;
    private final SwitchboardProperties properties;
    private final CodecResolver codecs;
    private final Map<String, PromotionGate> gates;
    private final List<Subscription> subscriptions = new ArrayList<>();
    private volatile boolean running;

    /**
     * Creates the lifecycle.
     *
     * @param gates promotion gates to start, by destination, once the listeners are ready
     */
    public SwitchboardLifecycle(Switchboard switchboard, ListenerCollector collector, SwitchboardProperties properties,
            CodecResolver codecs, Map<String, PromotionGate> gates) {
        this.switchboard = switchboard;
        this.collector = collector;
        this.properties = properties;
        this.codecs = codecs;
        this.gates = Map.copyOf(gates);
    }

    @Override
    public synchronized void start() {
        if (running) {
            return;
        }
        List<CompletableFuture<Void>> ready = new ArrayList<>();
        List<ListenerEndpoint> endpoints = collector.endpoints();
        for (ListenerEndpoint endpoint : endpoints) {
            Subscription subscription;
            try {
                subscription = subscribe(endpoint);
            } catch (SwitchboardException | IllegalArgumentException e) {
                closeAll();
                throw new SubscriptionException("Listener " + endpoint.description() + " could not subscribe to '"
                        + endpoint.destination() + "': " + e.getMessage(), e);
            }
            subscriptions.add(subscription);
            subscription.terminated().whenComplete((ignored, error) -> {
                if (error != null && running) {
                    log.error("Listener {} on '{}' was stopped by the broker", endpoint.description(),
                            endpoint.destination(), error);
                }
            });
            ready.add(subscription.ready().toCompletableFuture());
        }
        awaitReady(endpoints, ready);
        running = true;
        if (!endpoints.isEmpty()) {
            log.info("{} Switchboard listener(s) ready", endpoints.size());
        }
        gates.forEach((destination, gate) -> {
            switchboard.routing().promote(destination, gate);
            log.info("Promotion gate started on '{}': {}", destination, gate);
        });
    }

    private <T> Subscription subscribe(ListenerEndpoint endpoint) {
        if (endpoint.dispatchesByType()) {
            TypeDispatch dispatch = dispatch(endpoint);
            return configured(switchboard.subscriber(endpoint.destination(), dispatch.codec()), endpoint).subscribe(dispatch);
        }
        @SuppressWarnings("unchecked")
        Class<T> type = (Class<T>) endpoint.payloadType();
        SubscriberBuilder<T> builder = switchboard.subscriber(endpoint.destination(), readCodec(endpoint.destination(), type));
        if (endpoint.completesLater()) {
            return configured(builder, endpoint).subscribeAsync(endpoint.asyncHandler());
        }
        if (endpoint.batches()) {
            return batched(configured(builder, endpoint), endpoint).subscribeBatch(endpoint.batchHandler());
        }
        if (endpoint.replyType() != null) {
            return configured(builder, endpoint).subscribeReplying(reply(endpoint), endpoint.replyingHandler());
        }
        return configured(builder, endpoint).subscribe(endpoint.handler());
    }

    /**
     * A batch listener's bounds: {@code batch-size} and {@code batch-wait}; where no {@code max-in-flight} is set, twice
     * the batch size (at least the default 256), so that the next batch is fetched while one is handled.
     */
    private <T> SubscriberBuilder<T> batched(SubscriberBuilder<T> builder, ListenerEndpoint endpoint) {
        return batched(builder, properties.destination(endpoint.destination()), endpoint.maxInFlight() != null);
    }

    /** A batch consumer's bounds from a destination's settings; see {@link #batched(SubscriberBuilder, ListenerEndpoint)}. */
    static <T> SubscriberBuilder<T> batched(SubscriberBuilder<T> builder, DestinationProperties settings,
            boolean ownMaxInFlight) {
        int size = settings.getBatchSize() != null ? settings.getBatchSize() : SubscriberBuilder.DEFAULT_BATCH_SIZE;
        builder.batchSize(size);
        if (settings.getBatchWait() != null) {
            builder.batchWait(settings.getBatchWait());
        }
        if (!ownMaxInFlight && settings.getMaxInFlight() == null) {
            builder.maxInFlight(Math.max(256, 2 * size));
        }
        return builder;
    }

    /** The codec of a replying listener's replies: the resolver's for its return type on the listener's destination. */
    @SuppressWarnings("unchecked")
    private <R> Codec<R> reply(ListenerEndpoint endpoint) {
        return codecs.codec(endpoint.destination(), (Class<R>) endpoint.replyType());
    }

    /** A class listener's handler: its methods by type id, each type read with the destination's codec of its class. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private TypeDispatch dispatch(ListenerEndpoint endpoint) {
        TypeDispatch.Builder b = TypeDispatch.json();
        String header = endpoint.typeHeader() != null ? endpoint.typeHeader()
                : properties.destination(endpoint.destination()).getTypeHeader();
        if (header != null && !header.isBlank()) {
            b.typeHeader(header.trim());
        }
        for (ListenerEndpoint.Branch branch : endpoint.branches()) {
            ListenerEndpoint m = branch.method();
            if (branch.typeId() == null) {
                b.otherwise(m.handler());
            } else {
                Class type = m.payloadType();
                b.on(branch.typeId(), type, readCodec(endpoint.destination(), type), m.handler());
            }
        }
        return b.build();
    }

    /**
     * The codec a listener reads its payload type with: the resolver's, without the type id the starter's resolver
     * adds for publishers where {@code type-header} is set (a method listener reads its one type whatever the header).
     */
    private <T> Codec<T> readCodec(String destination, Class<T> type) {
        return codecs instanceof DefaultCodecResolver own ? own.payloadCodec(destination, type) : codecs.codec(destination, type);
    }

    /** The builder with the listener's and the destination's settings. */
    private <T> SubscriberBuilder<T> configured(SubscriberBuilder<T> builder, ListenerEndpoint endpoint) {
        return configured(builder, endpoint.destination(), properties.destination(endpoint.destination()), endpoint.group(),
                endpoint.broadcast(), endpoint.delivery(), endpoint.concurrency(), endpoint.maxInFlight(), endpoint.startFrom());
    }

    /**
     * The builder with a destination's settings, where a listener's own attributes (each null or false when it has
     * none) do not say otherwise.
     */
    static <T> SubscriberBuilder<T> configured(SubscriberBuilder<T> builder, String destination, DestinationProperties settings,
            String ownGroup, boolean ownBroadcast, Delivery ownDelivery, Integer ownConcurrency, Integer ownMaxInFlight,
            StartPosition ownStartFrom) {
        String group = ownGroup != null ? ownGroup : settings.getGroup();
        if (group != null) {
            builder.group(group);
        }
        if (ownBroadcast || settings.isBroadcast()) {
            builder.broadcast();
        }
        if (ownDelivery != null || settings.getDelivery() != null) {
            builder.delivery(ownDelivery != null ? ownDelivery : settings.getDelivery());
        }
        if (ownConcurrency != null || settings.getConcurrency() != null) {
            builder.concurrency(ownConcurrency != null ? ownConcurrency : settings.getConcurrency());
        }
        if (ownMaxInFlight != null || settings.getMaxInFlight() != null) {
            builder.maxInFlight(ownMaxInFlight != null ? ownMaxInFlight : settings.getMaxInFlight());
        }
        if (ownStartFrom != null) {
            builder.startFrom(ownStartFrom);
        } else if (settings.getStartFrom() != null && !settings.getStartFrom().isBlank()) {
            try {
                builder.startFrom(StartPosition.parse(settings.getStartFrom()));
            } catch (ConfigurationException e) {
                throw new ConfigurationException("switchboard.destinations." + destination + ".start-from: " + e.getMessage(), e);
            }
        }
        if (settings.getRetry().isSet()) {
            builder.retry(settings.getRetry().toPolicy());
        }
        if (settings.getDeadLetter() != null) {
            builder.deadLetter(settings.getDeadLetter());
        }
        if (settings.getFilter() != null) {
            builder.filter(settings.getFilter());
        }
        if (settings.getDrainTimeout() != null) {
            builder.drainTimeout(settings.getDrainTimeout());
        }
        if (settings.getHandlerTimeout() != null) {
            builder.handlerTimeout(settings.getHandlerTimeout());
        }
        settings.getProperties().forEach(builder::property);
        return builder;
    }

    private void awaitReady(List<ListenerEndpoint> endpoints, List<CompletableFuture<Void>> ready) {
        long deadline = System.nanoTime() + properties.getListener().getReadyTimeout().toNanos();
        for (int i = 0; i < ready.size(); i++) {
            ListenerEndpoint endpoint = endpoints.get(i);
            try {
                ready.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException e) {
                closeAll();
                throw new SubscriptionException("Listener " + endpoint.description() + " on '" + endpoint.destination()
                        + "' could not start: " + e.getCause().getMessage(), e.getCause());
            } catch (TimeoutException e) {
                closeAll();
                throw new SubscriptionException("Listener " + endpoint.description() + " on '" + endpoint.destination()
                        + "' was not ready within " + properties.getListener().getReadyTimeout()
                        + "; check that the broker is reachable, or raise switchboard.listener.ready-timeout", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                closeAll();
                throw new SubscriptionException("Interrupted while waiting for listener " + endpoint.description(), e);
            }
        }
    }

    @Override
    public void stop() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        stop(() -> done.complete(null));
        done.join();
    }

    /** Drains every subscription in parallel, then runs the callback. */
    @Override
    public synchronized void stop(Runnable callback) {
        running = false;
        List<Subscription> draining = new ArrayList<>(subscriptions);
        subscriptions.clear();
        if (draining.isEmpty()) {
            callback.run();
            return;
        }
        log.info("Draining {} Switchboard listener(s)", draining.size());
        CompletableFuture<?>[] closed = draining.stream()
                .map(s -> CompletableFuture.runAsync(() -> closeQuietly(s), runnable -> daemon(runnable, s).start()))
                .toArray(CompletableFuture[]::new);
        CompletableFuture.allOf(closed).whenComplete((ignored, error) -> callback.run());
    }

    private static Thread daemon(Runnable runnable, Subscription subscription) {
        Thread thread = new Thread(runnable, "switchboard-drain-" + subscription.destination());
        thread.setDaemon(true);
        return thread;
    }

    private void closeAll() {
        subscriptions.forEach(SwitchboardLifecycle::closeQuietly);
        subscriptions.clear();
    }

    private static void closeQuietly(Subscription subscription) {
        try {
            subscription.close();
        } catch (RuntimeException e) {
            log.warn("Closing the subscription to '{}' failed", subscription.destination(), e);
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public boolean isAutoStartup() {
        return properties.getListener().isAutoStartup();
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
