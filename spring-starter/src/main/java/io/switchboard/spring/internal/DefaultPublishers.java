package io.switchboard.spring.internal;

import io.switchboard.Publisher;
import io.switchboard.PublisherBuilder;
import io.switchboard.Switchboard;
import io.switchboard.spring.CodecResolver;
import io.switchboard.spring.DestinationProperties;
import io.switchboard.spring.Publishers;
import io.switchboard.spring.SwitchboardProperties;
import java.util.Objects;

/** Creates each (destination, payload type) publisher once, with the destination's settings. */
public final class DefaultPublishers extends MadeOnFirstUse implements Publishers {

    /** Creates the registry. */
    public DefaultPublishers(Switchboard switchboard, SwitchboardProperties properties, CodecResolver codecs) {
        super(switchboard, properties, codecs);
    }

    @Override
    public <T> Publisher<T> get(String destination, Class<T> payloadType) {
        Objects.requireNonNull(destination, "destination");
        Objects.requireNonNull(payloadType, "payloadType");
        return once(() -> create(destination, payloadType), destination, payloadType);
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
}
