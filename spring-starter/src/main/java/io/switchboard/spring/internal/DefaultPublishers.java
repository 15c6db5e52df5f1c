package io.switchboard.spring.internal;

import io.switchboard.Publisher;
import io.switchboard.PublisherBuilder;
import io.switchboard.Switchboard;
import io.switchboard.spring.CodecResolver;
import io.switchboard.spring.DestinationProperties;
import io.switchboard.spring.Publishers;
import io.switchboard.spring.SwitchboardProperties;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/** Creates each (destination, payload type) publisher once, with the destination's settings. */
public final class DefaultPublishers implements Publishers {

    private final Switchboard switchboard;
    private final SwitchboardProperties properties;
    private final CodecResolver codecs;
    private final Map<Key, Publisher<?>> publishers = new ConcurrentHashMap<>();

    /** Creates the registry. */
    public DefaultPublishers(Switchboard switchboard, SwitchboardProperties properties, CodecResolver codecs) {
        this.switchboard = switchboard;
        this.properties = properties;
        this.codecs = codecs;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> Publisher<T> get(String destination, Class<T> payloadType) {
        Objects.requireNonNull(destination, "destination");
        Objects.requireNonNull(payloadType, "payloadType");
        return (Publisher<T>) publishers.computeIfAbsent(new Key(destination, payloadType), k -> create(destination, payloadType));
    }

    private <T> Publisher<T> create(String destination, Class<T> payloadType) {
        DestinationProperties settings = properties.destination(destination);
        PublisherBuilder<T> builder = switchboard.publisher(destination, codecs.codec(destination, payloadType));
        if (settings.getDelivery() != null) {
            builder.delivery(settings.getDelivery());
        }
        settings.getProperties().forEach(builder::property);
        return builder.build();
    }

    private record Key(String destination, Class<?> type) {}
}
