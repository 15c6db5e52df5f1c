package io.switchboard.internal.provision;

import io.switchboard.PublishException;
import io.switchboard.spi.OutboundRecord;
import io.switchboard.spi.RawPublisher;
import io.switchboard.spi.SendResult;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;

/**
 * A publisher whose destination a {@link ProvisionQueue} is still making: a send waits for it on the caller's thread
 * (as kafka-clients' {@code send} waits for a new topic's metadata), at most {@code wait}, so sends keep their order;
 * once the destination is made every send goes straight to the adapter's publisher (one volatile read). When it could
 * not be made, each send's stage fails with the provisioning error, naming the destination; nothing is sent.
 */
public final class AwaitingDestination implements RawPublisher {

    private final RawPublisher raw;
    private final CompletableFuture<Void> provisioned;
    private final String destination;
    private final String instance;
    private final Duration wait;
    private volatile boolean open;

    /**
     * @param raw the adapter's publisher
     * @param provisioned completes when the destination is made
     * @param destination the destination, for errors
     * @param instance the broker instance's name, for errors
     * @param wait the longest a send waits for the destination
     */
    public AwaitingDestination(RawPublisher raw, CompletableFuture<Void> provisioned, String destination, String instance,
            Duration wait) {
        this.raw = raw;
        this.provisioned = provisioned;
        this.destination = destination;
        this.instance = instance;
        this.wait = wait;
    }

    @Override
    public CompletableFuture<SendResult> send(OutboundRecord record) {
        PublishException error = opened();
        return error != null ? CompletableFuture.failedFuture(error) : raw.send(record);
    }

    @Override
    public void send(OutboundRecord record, BiConsumer<SendResult, Throwable> done) {
        PublishException error = opened();
        if (error != null) {
            done.accept(null, error);
        } else {
            raw.send(record, done);
        }
    }

    @Override
    public void sendAll(List<OutboundRecord> records, List<? extends BiConsumer<SendResult, Throwable>> done) {
        PublishException error = opened();
        if (error != null) {
            done.forEach(d -> d.accept(null, error));
        } else {
            raw.sendAll(records, done);
        }
    }

    /** {@return null once the destination is made (waiting for it the first time), else why a send fails} */
    private PublishException opened() {
        if (!open) {
            PublishException error = await();
            if (error != null) {
                return error;
            }
            open = true;
        }
        return null;
    }

    private PublishException await() {
        try {
            provisioned.get(wait.toMillis(), TimeUnit.MILLISECONDS);
            return null;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            return new PublishException("Destination '" + destination + "' could not be provisioned on broker instance '"
                    + instance + "', so nothing was sent: " + cause.getMessage(), cause);
        } catch (TimeoutException e) {
            return new PublishException("Destination '" + destination + "' was still being provisioned on broker instance '"
                    + instance + "' after " + wait + ", so nothing was sent; check the broker's health, or provision the "
                    + "destination before publishing (Switchboard.provisioning())", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new PublishException("Interrupted while destination '" + destination + "' was being provisioned on "
                    + "broker instance '" + instance + "'; nothing was sent", e);
        }
    }

    @Override
    public void close() {
        raw.close();
    }
}
