package io.switchboard.testkit;

import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Message;
import io.switchboard.MessageHandler;
import io.switchboard.Publisher;
import io.switchboard.SubscriberBuilder;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.spi.Capabilities;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.UnaryOperator;

/**
 * The base of one group of contract cases (one file per group). {@link BrokerContract} runs each
 * group as a {@code @Nested} class bound to the adapter's test, so every helper here delegates to
 * that test's {@link ContractSupport}: its Switchboard, its destinations (cleaned up after each
 * test) and any overrides the adapter's test makes.
 */
abstract class ContractCases {

    /** The text codec most cases use. */
    protected static final Codec<String> TEXT = Codec.utf8();
    /**
     * A generated message id: a UUID version 7 in 22 characters of a sortable base-64 alphabet (the
     * version's 4 bits lead the ninth character, 2 bits and 4 zero bits make the last).
     */
    protected static final String GENERATED_ID = "[-0-9A-Z_a-z]{8}[RSTU][-0-9A-Z_a-z]{12}[-FVk]";

    private final ContractSupport contract;

    ContractCases(ContractSupport contract) {
        this.contract = contract;
    }

    /** The adapter's test this group runs in. */
    protected ContractSupport contract() {
        return contract;
    }

    /** The Switchboard of the running test. */
    protected Switchboard switchboard() {
        return contract.switchboard;
    }

    protected String brokerId() {
        return contract.brokerId();
    }

    protected Map<String, String> brokerProperties() {
        return contract.brokerProperties();
    }

    protected Duration timeout() {
        return contract.timeout();
    }

    protected Capabilities capabilities() {
        return contract.capabilities();
    }

    protected String destination() {
        return contract.destination();
    }

    protected String deadLetterOf(String destination) {
        return contract.deadLetterOf(destination);
    }

    protected Switchboard newSwitchboard() {
        return contract.newSwitchboard();
    }

    protected Switchboard newSwitchboard(UnaryOperator<Switchboard.Builder> settings) {
        return contract.newSwitchboard(settings);
    }

    protected <T> Publisher<T> publisher(String destination, Codec<T> codec, Delivery delivery) {
        return contract.publisher(destination, codec, delivery);
    }

    protected <T> Subscription subscribe(String destination, Codec<T> codec, String group, Delivery delivery,
            MessageHandler<T> handler) {
        return contract.subscribe(destination, codec, group, delivery, handler);
    }

    protected <T> Subscription subscribe(Switchboard sb, String destination, Codec<T> codec,
            UnaryOperator<SubscriberBuilder<T>> settings, MessageHandler<T> handler) {
        return contract.subscribe(sb, destination, codec, settings, handler);
    }

    protected <T> Recorder<T> recorder() {
        return contract.recorder();
    }

    /** A recorder subscribed, as group {@code dlq-reader}, to the dead-letter destination of {@code destination}. */
    protected <T> Recorder<T> deadLetterReader(String destination, Codec<T> codec) {
        Recorder<T> dead = recorder();
        subscribe(deadLetterOf(destination), codec, "dlq-reader", Delivery.AT_LEAST_ONCE, dead);
        return dead;
    }

    protected <T> T join(CompletionStage<T> stage) {
        return contract.join(stage);
    }

    /** A message with a key. */
    protected static Message<String> keyed(String key, String payload) {
        return Message.builder(payload).key(key).build();
    }
}
