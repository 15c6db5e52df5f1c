package io.switchboard;

import io.switchboard.internal.DefaultPublisher;
import io.switchboard.internal.Validation;
import io.switchboard.internal.resilience.ResilienceSettings;
import io.switchboard.internal.resilience.ResilientPublisher;
import io.switchboard.spi.RawPublisher;
import io.switchboard.spi.PublisherSpec;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Builds a {@link Publisher}. Obtain one from {@link Switchboard#publisher(String, Codec)}.
 *
 * @param <T> payload type
 */
public final class PublisherBuilder<T> {

    private final Switchboard switchboard;
    private final String destination;
    private final Codec<T> codec;
    private Delivery delivery = Delivery.AT_LEAST_ONCE;
    private final Map<String, String> properties = new LinkedHashMap<>();

    PublisherBuilder(Switchboard switchboard, String destination, Codec<T> codec) {
        this.switchboard = switchboard;
        this.destination = destination;
        this.codec = Objects.requireNonNull(codec, "codec");
    }

    /** The guarantee; default {@link Delivery#AT_LEAST_ONCE}. */
    public PublisherBuilder<T> delivery(Delivery delivery) {
        this.delivery = Objects.requireNonNull(delivery, "delivery");
        return this;
    }

    /** A broker property for this publisher only (for example {@code kafka.linger.ms}). */
    public PublisherBuilder<T> property(String key, String value) {
        properties.put(key, value);
        return this;
    }

    /**
     * Validates the destination, provisions it when auto-provisioning is on, and creates the
     * publisher.
     *
     * @throws InvalidDestinationException when the name breaks the broker's rule
     */
    public Publisher<T> build() {
        switchboard.ensureOpen();
        Validation.destination(switchboard.capabilities(), switchboard.instanceName(), destination);
        Validation.autoProvision(switchboard.config(), switchboard.adapter().provisioner(), destination);
        PublisherSpec spec = new PublisherSpec(destination, delivery, properties);
        RawPublisher raw = ResilientPublisher.wrap(switchboard.adapter().createPublisher(spec),
                ResilienceSettings.forDestination(switchboard.config(), destination), switchboard.resilience(),
                switchboard.instanceName(), destination);
        DefaultPublisher<T> publisher = new DefaultPublisher<>(raw, spec, codec, switchboard.capabilities(),
                switchboard.config(), switchboard.telemetry(), switchboard::disown);
        return switchboard.own(publisher);
    }
}
