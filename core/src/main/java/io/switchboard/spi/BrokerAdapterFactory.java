package io.switchboard.spi;

/**
 * Entry point of an adapter, registered in
 * {@code META-INF/services/io.switchboard.spi.BrokerAdapterFactory}.
 *
 * <p>Implementations must have a public no-argument constructor and be cheap to instantiate:
 * {@link java.util.ServiceLoader} instantiates every factory on the classpath to read its id.
 * No connection may be opened before {@link #create(BrokerConfig)}.
 */
public interface BrokerAdapterFactory {

    /**
     * {@return the adapter id users name in configuration, for example {@code "kafka"}} Lower case, stable across
     * versions, unique on a classpath.
     */
    String id();

    /**
     * Creates an adapter for one named broker instance.
     *
     * @param config the instance's name and properties; never null
     * @return a ready adapter; connections may be opened lazily
     * @throws io.switchboard.ConfigurationException when a property is missing or malformed; the
     *     message names the property, the value (unless secret) and the fix
     */
    BrokerAdapter create(BrokerConfig config);
}
