package io.switchboard.testkit;

import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.MessageHandler;
import io.switchboard.Publisher;
import io.switchboard.RetryPolicy;
import io.switchboard.SubscriberBuilder;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.spi.Capabilities;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plumbing for {@link BrokerContract}: a fresh {@link Switchboard} per test, unique destination
 * names, subscriptions that wait until ready, and clean-up of every destination a test created.
 */
public abstract class ContractSupport {

    private static final Logger log = LoggerFactory.getLogger(ContractSupport.class);

    /** The Switchboard of the running test. */
    protected Switchboard switchboard;

    private final List<String> destinations = new ArrayList<>();
    private final List<Switchboard> extraSwitchboards = new ArrayList<>();
    private String testName;

    /** {@return the adapter id under test} */
    protected abstract String brokerId();

    /**
     * {@return the properties for the adapter, e.g. bootstrap servers of an embedded broker} Called before each
     * test; a subclass whose broker is missing throws here with how to start it.
     */
    protected abstract Map<String, String> brokerProperties();

    /** {@return how long to wait for deliveries; generous, never asserted as a timing} */
    protected Duration timeout() {
        return Duration.ofSeconds(60);
    }

    /**
     * {@return the threads alive before a test starts a Switchboard of its own, to check that closing it ends
     * every thread it started} An adapter's test whose in-process broker starts threads of its own later (for a
     * new topic, say) ignores those here with {@link ThreadLeaks#ignoring}.
     */
    protected ThreadLeaks threadsBefore() {
        return ThreadLeaks.snapshot();
    }

    /**
     * {@return the names of threads that bounded pools of the client library's still open clients start on their
     * own, when they need them, up to their size} The closing case ignores them while the Switchboard is open (they
     * do not grow with the subscriptions that come and go), never once it closed. Default: none.
     */
    protected String poolThreadsOfOpenClients() {
        return "$^";
    }

    @BeforeEach
    void openSwitchboard(TestInfo info) {
        testName = info.getTestMethod().map(m -> m.getName()).orElse("test");
        switchboard = newSwitchboard();
    }

    @AfterEach
    void closeSwitchboard() {
        Switchboard cleaner = switchboard;
        extraSwitchboards.forEach(Switchboard::close);
        try {
            cleaner.close();
        } finally {
            try (Switchboard admin = newSwitchboardUntracked()) {
                for (String destination : destinations) {
                    try {
                        admin.provisioning().deleteDestination(destination);
                    } catch (RuntimeException e) {
                        log.warn("Could not delete test destination {}: {}", destination, e.toString());
                    }
                }
            }
        }
    }

    /** {@return another Switchboard on the same broker (another application), closed after the test} */
    protected Switchboard newSwitchboard() {
        Switchboard sb = newSwitchboardUntracked();
        if (switchboard != null) {
            extraSwitchboards.add(sb);
        }
        return sb;
    }

    /**
     * {@return another Switchboard with extra builder settings (a meter registry, properties), closed after the
     * test}
     *
     * @param settings adds settings to the builder
     */
    protected Switchboard newSwitchboard(UnaryOperator<Switchboard.Builder> settings) {
        Switchboard sb = settings.apply(Switchboard.builder().broker(brokerId()).properties(brokerProperties())).build();
        extraSwitchboards.add(sb);
        return sb;
    }

    private Switchboard newSwitchboardUntracked() {
        return Switchboard.builder().broker(brokerId()).properties(brokerProperties()).build();
    }

    /** {@return the broker's capabilities} */
    protected Capabilities capabilities() {
        return switchboard.capabilities();
    }

    /** {@return a unique destination name, deleted (with its dead-letter destination) after the test} */
    protected String destination() {
        String hint = testName.replaceAll("[^A-Za-z0-9]", "").toLowerCase(Locale.ROOT);
        String name = "sb-" + hint.substring(0, Math.min(24, hint.length())) + "-" + UUID.randomUUID().toString().substring(0, 8);
        destinations.add(name);
        destinations.add(capabilities().deadLetterDestination(name));
        return name;
    }

    /**
     * {@return the default dead-letter destination of a destination}
     *
     * @param destination the destination's name
     */
    protected String deadLetterOf(String destination) {
        return capabilities().deadLetterDestination(destination);
    }

    /**
     * {@return a publisher}
     *
     * @param <T> the payload type
     * @param destination the destination's name
     * @param codec the codec of its payloads
     * @param delivery the delivery guarantee
     */
    protected <T> Publisher<T> publisher(String destination, Codec<T> codec, Delivery delivery) {
        return switchboard.publisher(destination, codec).delivery(delivery).build();
    }

    /**
     * {@return a subscription, waited on until ready}
     *
     * @param <T> the payload type
     * @param destination the destination's name
     * @param codec the codec of its payloads
     * @param group the consumer group
     * @param delivery the delivery guarantee
     * @param handler called with each message
     */
    protected <T> Subscription subscribe(String destination, Codec<T> codec, String group, Delivery delivery,
            MessageHandler<T> handler) {
        return subscribe(switchboard, destination, codec, b -> b.group(group).delivery(delivery)
                .retry(RetryPolicy.fixed(3, Duration.ofMillis(20))), handler);
    }

    /**
     * {@return a subscription built with extra settings, waited on until ready}
     *
     * @param <T> the payload type
     * @param sb the Switchboard to subscribe on
     * @param destination the destination's name
     * @param codec the codec of its payloads
     * @param settings adds settings to the subscriber builder
     * @param handler called with each message
     */
    protected <T> Subscription subscribe(Switchboard sb, String destination, Codec<T> codec,
            UnaryOperator<SubscriberBuilder<T>> settings, MessageHandler<T> handler) {
        Subscription subscription = settings.apply(sb.subscriber(destination, codec)).subscribe(handler);
        join(subscription.ready());
        return subscription;
    }

    /**
     * {@return a recorder with this contract's timeout}
     *
     * @param <T> the payload type
     */
    protected <T> Recorder<T> recorder() {
        return new Recorder<>(timeout());
    }

    /**
     * Waits for a stage and returns its value, failing the test after the timeout.
     *
     * @param <T> the stage's value type
     * @param stage the stage
     * @return the stage's value
     */
    protected <T> T join(CompletionStage<T> stage) {
        try {
            return stage.toCompletableFuture().get(timeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (Exception e) {
            throw new AssertionError("stage did not complete normally within " + timeout() + ": " + e, e);
        }
    }
}
