package io.switchboard;

import io.switchboard.internal.AwaitingHandler;
import io.switchboard.internal.SubscriptionRequest;
import io.switchboard.spi.IdempotencyStore;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Builds a {@link Subscription}. Obtain one from {@link Switchboard#subscriber(String, Codec)}.
 * Defaults: consumer group {@code default}, at-least-once, concurrency 1, {@link RetryPolicy#DEFAULT},
 * dead-letter destination {@code <destination>.dlq}, 256 messages in flight, 30 s drain on close, 5 minutes for the
 * stage of an {@linkplain #subscribeAsync(AsyncMessageHandler) asynchronous handler}.
 *
 * @param <T> payload type
 */
public final class SubscriberBuilder<T> {

    /** The most handler threads one subscription may have. */
    public static final int MAX_CONCURRENCY = 1024;
    /** The most messages one subscription may hold fetched and unacknowledged. */
    public static final int MAX_IN_FLIGHT = 1_000_000;
    /** How long the stage of an {@link AsyncMessageHandler} may take by default: 5 minutes. */
    public static final Duration DEFAULT_HANDLER_TIMEOUT = Duration.ofMinutes(5);

    /** The most messages in a batch by default: 100. */
    public static final int DEFAULT_BATCH_SIZE = 100;
    /** How long a batch waits for more messages by default, once it holds one: 50 ms. */
    public static final Duration DEFAULT_BATCH_WAIT = Duration.ofMillis(50);
    /** The most messages one batch may hold. */
    public static final int MAX_BATCH_SIZE = 10_000;

    private final Switchboard switchboard;
    private final String destination;
    private final Codec<T> codec;
    private String group = "default";
    private boolean broadcast;
    private Delivery delivery = Delivery.AT_LEAST_ONCE;
    private int concurrency = 1;
    private int maxInFlight = 256;
    private RetryPolicy retry = RetryPolicy.DEFAULT;
    private String deadLetter;
    private String filter;
    private Duration drainTimeout = Duration.ofSeconds(30);
    private Duration handlerTimeout = DEFAULT_HANDLER_TIMEOUT;
    private IdempotencyStore idempotencyStore;
    private int batchSize = DEFAULT_BATCH_SIZE;
    private Duration batchWait = DEFAULT_BATCH_WAIT;
    private final Map<String, String> properties = new LinkedHashMap<>();
    private StartPosition startFrom;

    SubscriberBuilder(Switchboard switchboard, String destination, Codec<T> codec) {
        this.switchboard = switchboard;
        this.destination = destination;
        this.codec = Objects.requireNonNull(codec, "codec");
    }

    /**
     * Joins a consumer group: each message goes to one member of the group.
     *
     * @param group the group's name
     * @return this builder
     */
    public SubscriberBuilder<T> group(String group) {
        this.group = Objects.requireNonNull(group, "group");
        this.broadcast = false;
        return this;
    }

    /**
     * Every broadcast subscriber receives every message published after it became ready.
     *
     * @return this builder
     */
    public SubscriberBuilder<T> broadcast() {
        this.broadcast = true;
        return this;
    }

    /**
     * The guarantee; default {@link Delivery#AT_LEAST_ONCE}.
     *
     * @param delivery the delivery guarantee
     * @return this builder
     */
    public SubscriberBuilder<T> delivery(Delivery delivery) {
        this.delivery = Objects.requireNonNull(delivery, "delivery");
        return this;
    }

    /**
     * Handler threads; messages of one partition (or key) stay on one thread, in order.
     *
     * @param threads handler threads, at least 1
     * @return this builder
     */
    public SubscriberBuilder<T> concurrency(int threads) {
        if (threads < 1 || threads > MAX_CONCURRENCY) {
            throw new ConfigurationException("concurrency must be between 1 and " + MAX_CONCURRENCY + " but was " + threads
                    + "; handler threads beyond the cores only help a blocking handler, such as 8 to 64 for I/O");
        }
        this.concurrency = threads;
        return this;
    }

    /**
     * Messages fetched and not yet acknowledged, at most (prefetch); default 256.
     *
     * @param messages the most messages in flight
     * @return this builder
     */
    public SubscriberBuilder<T> maxInFlight(int messages) {
        if (messages < 1 || messages > MAX_IN_FLIGHT) {
            throw new ConfigurationException("maxInFlight must be between 1 and " + MAX_IN_FLIGHT + " but was " + messages
                    + "; it bounds the messages held in memory, such as 256 (the default) to 10000");
        }
        this.maxInFlight = messages;
        return this;
    }

    /**
     * Retries before dead-lettering (at-least-once and exactly-once).
     *
     * @param policy the retry policy
     * @return this builder
     */
    public SubscriberBuilder<T> retry(RetryPolicy policy) {
        this.retry = Objects.requireNonNull(policy, "policy");
        return this;
    }

    /**
     * The dead-letter destination; default {@code <destination>.dlq} (or the broker's equivalent).
     *
     * @param destination the dead-letter destination's name
     * @return this builder
     */
    public SubscriberBuilder<T> deadLetter(String destination) {
        this.deadLetter = destination;
        return this;
    }

    /**
     * A tag filter: only messages whose tag ({@link Message.Builder#tag(String)}) is one of these reach the handler
     * ({@code "paid"}, {@code "paid || shipped"}; {@code "*"} or null means every message). Applied broker-side where
     * the broker can (RocketMQ tags, RabbitMQ bindings), else in the client before decoding (Kafka, memory); a
     * filtered-out message is never handled nor dead-lettered, and counted in {@code switchboard.filtered} when it
     * reached the client.
     *
     * @param expression the filter expression
     * @return this builder
     * @throws ConfigurationException naming the expression when it is malformed
     */
    public SubscriberBuilder<T> filter(String expression) {
        io.switchboard.spi.TagFilter parsed = io.switchboard.spi.TagFilter.parse(expression);
        this.filter = parsed.matchesAll() ? null : parsed.expression();
        return this;
    }

    /**
     * Where the subscription starts reading when its group has no position on the broker yet: the earliest record
     * held, the latest (only what is published once it is ready), an offset, or a time; see {@link StartPosition}.
     * Without it, a new group starts at the earliest record and a broadcast subscriber at the latest.
     *
     * <p>As Kafka's {@code auto.offset.reset} (not its {@code seek}): the position applies to the partitions (queues)
     * for which the group has committed nothing, that is a new group and every broadcast subscriber. A group with
     * committed positions resumes from them, so restarting an application with {@code startFrom} neither replays nor
     * skips anything; to move such a group, reset it with the broker's tools while it is stopped, or subscribe as a
     * new group. A broker that cannot start from the position refuses the subscription when it is built (RabbitMQ
     * queues, for example, keep no offsets); {@link io.switchboard.spi.Capabilities#startPositions(boolean)} says what
     * each accepts. On a routed Switchboard every broker instance the destination's route reaches must accept it, and
     * each starts from it on its own log (an offset means each instance's own offsets).
     *
     * @param position where a group without committed positions starts; null for the default
     * @return this builder
     */
    public SubscriberBuilder<T> startFrom(StartPosition position) {
        this.startFrom = position;
        return this;
    }

    /**
     * How long {@link Subscription#close()} waits for handlers in flight; default 30 s.
     *
     * @param timeout the longest wait
     * @return this builder
     */
    public SubscriberBuilder<T> drainTimeout(Duration timeout) {
        if (timeout == null || timeout.isNegative()) {
            throw new ConfigurationException("drainTimeout must be zero or positive but was " + timeout
                    + "; such as Duration.ofSeconds(30)");
        }
        this.drainTimeout = timeout;
        return this;
    }

    /**
     * How long the stage an {@linkplain #subscribeAsync(AsyncMessageHandler) asynchronous handler} returns may take
     * to complete; default {@link #DEFAULT_HANDLER_TIMEOUT} (5 minutes). A stage still incomplete then fails the
     * attempt with a {@link java.util.concurrent.TimeoutException} (retried, then dead-lettered, as any failure), so a
     * completion that never comes does not hold its partition or key forever. Does not apply to a
     * {@link MessageHandler}, whose thread is its own to block.
     *
     * @param timeout the longest a stage may take; positive
     * @return this builder
     * @throws ConfigurationException naming the value when it is null, zero or negative
     */
    public SubscriberBuilder<T> handlerTimeout(Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new ConfigurationException("handlerTimeout must be positive but was " + timeout
                    + "; the longest the stage of an asynchronous handler may take, such as Duration.ofMinutes(5) (the default)");
        }
        this.handlerTimeout = timeout;
        return this;
    }

    /**
     * The most messages a {@linkplain #subscribeBatch(BatchHandler) batch handler} gets at once; default
     * {@link #DEFAULT_BATCH_SIZE} (100). At most {@link #maxInFlight(int)}, which bounds what is fetched.
     *
     * @param messages at least 1, at most {@link #MAX_BATCH_SIZE}
     * @return this builder
     * @throws ConfigurationException naming the value when it is out of range
     */
    public SubscriberBuilder<T> batchSize(int messages) {
        if (messages < 1 || messages > MAX_BATCH_SIZE) {
            throw new ConfigurationException("batchSize must be between 1 and " + MAX_BATCH_SIZE + " but was " + messages
                    + "; such as 100 (the default) to 500 (Kafka's max.poll.records)");
        }
        this.batchSize = messages;
        return this;
    }

    /**
     * How long a batch stays open for more messages once it holds one, before it goes to the handler smaller than
     * {@link #batchSize(int)}; default {@link #DEFAULT_BATCH_WAIT} (50 ms). Messages that keep coming join it until
     * it is full or this time is up; a pause of a millisecond with none coming ends it sooner (as a Kafka poll or a
     * RocketMQ consume call hands over what is there). Zero hands over what has arrived.
     *
     * @param wait zero or positive
     * @return this builder
     * @throws ConfigurationException naming the value when it is null or negative
     */
    public SubscriberBuilder<T> batchWait(Duration wait) {
        if (wait == null || wait.isNegative()) {
            throw new ConfigurationException("batchWait must be zero or positive but was " + wait
                    + "; such as Duration.ofMillis(50) (the default)");
        }
        this.batchWait = wait;
        return this;
    }

    /**
     * The store for exactly-once deduplication; default the Switchboard's.
     *
     * @param store the store
     * @return this builder
     */
    public SubscriberBuilder<T> idempotencyStore(IdempotencyStore store) {
        this.idempotencyStore = store;
        return this;
    }

    /**
     * A broker property for this subscription only.
     *
     * @param key the property name
     * @param value its value
     * @return this builder
     */
    public SubscriberBuilder<T> property(String key, String value) {
        properties.put(key, value);
        return this;
    }

    /**
     * Validates, provisions the destination and its dead-letter destination when auto-provisioning
     * is on, and starts consuming, on every broker instance the destination's route can send to.
     * Wait on {@link Subscription#ready()} before relying on delivery of messages published
     * afterwards.
     *
     * @param handler called with each message
     * @return the subscription, starting
     * @throws InvalidDestinationException when a name breaks a broker's rule
     * @throws UnsupportedCapabilityException when broadcast, filtering or a start position is asked of a broker without it
     */
    public Subscription subscribe(MessageHandler<T> handler) {
        Objects.requireNonNull(handler, "handler");
        return switchboard.newSubscription(request(), handler);
    }

    /**
     * As {@link #subscribe(MessageHandler)}, with a handler that completes later: each message is acknowledged when
     * the stage its handler returned completes normally, and fails the attempt when it completes exceptionally, is
     * null, or does not complete within {@link #handlerTimeout(Duration)}; see {@link AsyncMessageHandler}.
     *
     * <p>The next message of the same partition or key reaches the handler only after the previous one's stage
     * completed: the handler thread of that partition or key (one of {@link #concurrency(int)}) waits for the stage,
     * at most the handler timeout, while the other threads go on with their partitions and keys. So per-key order and
     * {@link #maxInFlight(int)} hold as for a synchronous handler; to have more stages pending at once, raise the
     * concurrency (threads that mostly wait cost little). {@link Subscription#close()} waits up to
     * {@link #drainTimeout(Duration)} for pending stages as for running handlers; a stage still pending then is given
     * up (the broker delivers its message again) and its thread ends at the handler timeout at the latest.
     *
     * @param handler called with each message; returns the stage of its completion
     * @return the subscription, starting
     * @throws InvalidDestinationException when a name breaks a broker's rule
     * @throws UnsupportedCapabilityException when broadcast, filtering or a start position is asked of a broker without it
     */
    public Subscription subscribeAsync(AsyncMessageHandler<T> handler) {
        Objects.requireNonNull(handler, "handler");
        return switchboard.newSubscription(request(), new AwaitingHandler<>(handler, handlerTimeout));
    }

    /**
     * As {@link #subscribe(MessageHandler)}, with a handler whose return value is the reply to a request made by a
     * {@link Requester}: the reply is sent to the request's {@link Envelope#REPLY_TO} destination with its
     * {@link Envelope#CORRELATION_ID}, through the broker instance that carried the request, and the request is
     * acknowledged when the handler returned, without waiting for the broker to acknowledge the reply (as Spring's
     * {@code @SendTo}; a reply the broker refuses is logged at ERROR and its requester's stage ends at its time-out).
     * A null return sends no reply; a request without those headers is handled and its reply not sent (logged once). A
     * handler that throws is retried, then dead-lettered, as any handler, and sends no reply.
     *
     * @param <R> the reply's payload type
     * @param replyCodec the codec of the replies' payloads
     * @param handler called with each request; returns its reply
     * @return the subscription, starting
     * @throws InvalidDestinationException when a name breaks a broker's rule
     * @throws UnsupportedCapabilityException when broadcast, filtering or a start position is asked of a broker without it
     */
    public <R> Subscription subscribeReplying(Codec<R> replyCodec, ReplyingHandler<T, R> handler) {
        Objects.requireNonNull(replyCodec, "replyCodec");
        Objects.requireNonNull(handler, "handler");
        return switchboard.newReplyingSubscription(request(), replyCodec, handler);
    }

    /**
     * As {@link #subscribe(MessageHandler)}, with a handler that takes up to {@link #batchSize(int)} messages at once,
     * collected for at most {@link #batchWait(Duration)}, as Spring Kafka's batch listener; see {@link Batch} for what
     * succeeds and what fails. Each of the {@link #concurrency(int)} handler threads makes its own batches from its
     * partitions or keys, in arrival order, one batch at a time; a message that failed is retried after its batch-mates
     * that succeeded were acknowledged (so behind a failure, a key's later messages may be handled before it).
     *
     * <p>At-least-once and at-most-once only, with in-process retries, on a Switchboard of one broker instance; the
     * rest is refused here, naming what to change.
     *
     * @param handler called with each batch
     * @return the subscription, starting
     * @throws ConfigurationException when the subscription asks for exactly-once, retries through the broker, or a
     *     batch larger than its in-flight bound
     * @throws UnsupportedCapabilityException when the Switchboard routes between several broker instances
     */
    public Subscription subscribeBatch(BatchHandler<T> handler) {
        Objects.requireNonNull(handler, "handler");
        if (delivery == Delivery.EXACTLY_ONCE) {
            throw new ConfigurationException("A batch subscription to '" + destination + "' cannot be exactly-once: "
                    + "use at-least-once with an idempotent handler (or JdbcIdempotencyStore in the handler's own "
                    + "transaction), or subscribe(MessageHandler) for exactly-once");
        }
        if (retry.brokerSideFrom() != null) {
            throw new ConfigurationException("A batch subscription to '" + destination + "' retries in-process only, but "
                    + "its retry policy retries through the broker (RetryPolicy.viaBroker); drop viaBroker, or use "
                    + "subscribe(MessageHandler)");
        }
        if (batchSize > maxInFlight) {
            throw new ConfigurationException("batchSize " + batchSize + " of the subscription to '" + destination
                    + "' is above its maxInFlight " + maxInFlight + ", which bounds the messages fetched: raise maxInFlight "
                    + "to at least " + batchSize + " (twice that keeps the next batch arriving), or lower batchSize");
        }
        return switchboard.newSubscription(request(), new io.switchboard.internal.BatchingHandler<>(handler, batchSize,
                batchWait));
    }

    /**
     * Starts a pull consumer on this subscription's settings: the application polls for messages and settles each;
     * see {@link Poller}. Messages are fetched ahead in batches of up to {@link #batchSize(int)} per handler thread, and
     * a message not settled within {@link #handlerTimeout(Duration)} counts as failed. The same refusals as
     * {@link #subscribeBatch(BatchHandler)}.
     *
     * @return the poller, its subscription starting (wait on {@code subscription().ready()} before relying on messages
     *     published afterwards)
     * @throws ConfigurationException as {@link #subscribeBatch(BatchHandler)}
     * @throws UnsupportedCapabilityException as {@link #subscribeBatch(BatchHandler)}
     */
    public Poller<T> poller() {
        io.switchboard.internal.DefaultPoller<T> poller = new io.switchboard.internal.DefaultPoller<>(destination,
                handlerTimeout);
        poller.attach(subscribeBatch(poller));
        return poller;
    }

    private SubscriptionRequest<T> request() {
        return SubscriptionRequest.of(destination, codec, group, broadcast, delivery, concurrency, maxInFlight, retry,
                deadLetter, filter, drainTimeout, idempotencyStore, properties, startFrom);
    }
}
