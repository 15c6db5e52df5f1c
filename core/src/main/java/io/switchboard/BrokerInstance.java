package io.switchboard;

import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.BrokerHealth;
import io.switchboard.spi.Capabilities;
import io.switchboard.spi.Provisioner;
import java.time.Duration;

/**
 * One named broker instance of a {@link Switchboard}: an adapter with its own properties, circuit
 * breaker and {@code instance} metrics tag. A Switchboard built with {@code broker(id)} has one;
 * one built with {@code instance(name, broker, properties)} calls has several, and its routes
 * decide which carries what.
 */
public interface BrokerInstance {

    /** {@return the instance name, the {@code instance} tag of its meters} */
    String name();

    /** {@return the adapter id, e.g. {@code kafka}} */
    String brokerId();

    /** {@return what the broker can do} */
    Capabilities capabilities();

    /** {@return the instance's configuration; secrets masked in its {@code toString()}} */
    BrokerConfig config();

    /**
     * Creates and deletes destinations on this instance.
     *
     * @return the provisioner of this instance's broker
     */
    Provisioner provisioning();

    /**
     * {@return whether the broker is reachable, checked within about {@code timeout}}
     *
     * @param timeout how long the check may take, about
     */
    BrokerHealth health(Duration timeout);
}
