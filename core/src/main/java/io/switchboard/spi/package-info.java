/**
 * The service-provider interface a broker adapter implements.
 *
 * <p>An adapter only moves bytes plus string headers. Everything that is not specific to one
 * broker (codecs, the envelope, retries, dead-lettering, deduplication, metrics, resilience,
 * routing) is done once in core around what the adapter returns. An adapter is found at run time
 * by its id through {@link java.util.ServiceLoader} on {@link io.switchboard.spi.BrokerAdapterFactory}.
 *
 * <p>The interfaces are small on purpose: {@link io.switchboard.spi.BrokerAdapterFactory} (id,
 * creates an adapter), {@link io.switchboard.spi.BrokerAdapter} (capabilities, creates the rest),
 * {@link io.switchboard.spi.RawPublisher} (async send), {@link io.switchboard.spi.RawConsumer}
 * (delivers {@link io.switchboard.spi.InboundRecord}s with an ack/nack handle) and
 * {@link io.switchboard.spi.Provisioner} (creates destinations), kept apart from send and receive.
 */
package io.switchboard.spi;
