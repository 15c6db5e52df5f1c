package io.switchboard.internal.reply;

import io.micrometer.core.instrument.MeterRegistry;
import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.MessageHandler;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.internal.SubscriptionRequest;
import io.switchboard.internal.metrics.RequestRecorder;
import java.util.Map;
import java.util.Set;

/** What request/reply needs of its Switchboard: publishers, a publisher on one instance, subscriptions on each. */
public interface ReplyTransport {

    /** A publisher following the destination's route. */
    <T> Publisher<T> publisher(String destination, Codec<T> codec, Delivery delivery, Map<String, String> properties);

    /** A publisher on the named instance only, or null when the Switchboard has no instance of that name. */
    <T> Publisher<T> publisherOn(String instance, String destination, Codec<T> codec);

    /** A subscription on the named instance only. */
    <T> Subscription subscribeOn(String instance, SubscriptionRequest<T> request, MessageHandler<T> handler);

    /** The names of the Switchboard's instances. */
    Set<String> instances();

    /** The adapter id of the named instance. */
    String brokerIdOf(String instance);

    /** The registry meters are recorded in, or null when metrics are off. */
    MeterRegistry meters();

    /**
     * Where the broker comparison takes the requests to {@code destination} that the named instance carried, or null
     * when there is no comparison (one instance, or {@code switchboard.comparison.enabled=false}).
     */
    RequestRecorder comparison(String instance, String destination);
}
