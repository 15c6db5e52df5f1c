package io.switchboard.spring.internal;

import io.switchboard.Requester;
import io.switchboard.RequesterBuilder;
import io.switchboard.Switchboard;
import io.switchboard.spring.CodecResolver;
import io.switchboard.spring.DestinationProperties;
import io.switchboard.spring.Requesters;
import io.switchboard.spring.SwitchboardProperties;
import java.util.Objects;

/** The {@link Requesters} registry: requesters made on first use, closed with the Switchboard. */
public final class DefaultRequesters extends MadeOnFirstUse implements Requesters {

    /**
     * Creates the registry.
     *
     * @param switchboard the application's Switchboard
     * @param properties the starter's properties
     * @param codecs the codec resolver
     */
    public DefaultRequesters(Switchboard switchboard, SwitchboardProperties properties, CodecResolver codecs) {
        super(switchboard, properties, codecs);
    }

    @Override
    public <Q, R> Requester<Q, R> get(String destination, Class<Q> requestType, Class<R> replyType) {
        Objects.requireNonNull(destination, "destination");
        Objects.requireNonNull(requestType, "requestType");
        Objects.requireNonNull(replyType, "replyType");
        return once(() -> create(destination, requestType, replyType), destination, requestType, replyType);
    }

    private <Q, R> Requester<Q, R> create(String destination, Class<Q> requestType, Class<R> replyType) {
        DestinationProperties settings = properties.destination(destination);
        String replyTo = settings.getReplyTo() != null && !settings.getReplyTo().isBlank() ? settings.getReplyTo().trim()
                : destination + io.switchboard.RequesterBuilder.REPLIES_SUFFIX;
        RequesterBuilder<Q, R> builder = switchboard.requester(destination, codecs.codec(destination, requestType),
                codecs.codec(destination, replyType)).replyTo(replyTo); // replies read with the codec a listener on
        // the destination writes them with: the destination's settings, for the reply's type
        if (settings.getReplyTimeout() != null) {
            builder.timeout(settings.getReplyTimeout());
        }
        if (settings.getDelivery() != null) {
            builder.delivery(settings.getDelivery());
        }
        settings.getProperties().forEach(builder::property);
        return builder.build();
    }
}
