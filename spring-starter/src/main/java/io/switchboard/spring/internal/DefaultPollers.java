package io.switchboard.spring.internal;

import io.switchboard.Poller;
import io.switchboard.SubscriberBuilder;
import io.switchboard.Switchboard;
import io.switchboard.spring.CodecResolver;
import io.switchboard.spring.DestinationProperties;
import io.switchboard.spring.Pollers;
import io.switchboard.spring.SwitchboardProperties;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.springframework.beans.factory.DisposableBean;

/** The {@link Pollers} registry: pollers made on first use, their subscriptions ready, closed with the context. */
public final class DefaultPollers extends MadeOnFirstUse implements Pollers, DisposableBean {

    /**
     * Creates the registry.
     *
     * @param switchboard the application's Switchboard
     * @param properties the starter's properties
     * @param codecs the codec resolver
     */
    public DefaultPollers(Switchboard switchboard, SwitchboardProperties properties, CodecResolver codecs) {
        super(switchboard, properties, codecs);
    }

    @Override
    public <T> Poller<T> get(String destination, Class<T> payloadType) {
        Objects.requireNonNull(destination, "destination");
        Objects.requireNonNull(payloadType, "payloadType");
        return once(() -> create(destination, payloadType), destination, payloadType);
    }

    private <T> Poller<T> create(String destination, Class<T> payloadType) {
        DestinationProperties settings = properties.destination(destination);
        SubscriberBuilder<T> builder = switchboard.subscriber(destination, codecs.codec(destination, payloadType));
        SwitchboardLifecycle.configured(builder, destination, settings, null, false, null, null, null, null);
        Poller<T> poller = SwitchboardLifecycle.batched(builder, settings, false).poller();
        poller.subscription().ready().toCompletableFuture().orTimeout(properties.getListener().getReadyTimeout().toMillis(),
                TimeUnit.MILLISECONDS).join();
        return poller;
    }

    /** Closes every poller (its unsettled messages go back to the broker). */
    @Override
    public void destroy() {
        takeAll().forEach(p -> ((Poller<?>) p).close());
    }
}
