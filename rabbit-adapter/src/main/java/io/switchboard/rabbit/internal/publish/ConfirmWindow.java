package io.switchboard.rabbit.internal.publish;

import io.switchboard.spi.ClientEvents;
import io.switchboard.spi.EventKinds;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A publisher's window of unconfirmed records ({@code rabbitmq.max-outstanding-confirms}) that reports a full spell as
 * a {@link EventKinds#BACK_PRESSURE} span: a publish that finds no room opens it ({@link #waitBegins}); it stays open
 * while publishes keep waiting and ends when a confirm frees room that no publish waits for. A release reads one
 * field, null unless publishes wait.
 */
final class ConfirmWindow extends Semaphore {

    private static final long serialVersionUID = 1L;
    private static final Logger log = LoggerFactory.getLogger(ConfirmWindow.class);

    private final transient ClientEvents events;
    private final String destination;
    private final int size;
    private final transient AtomicReference<ClientEvents.Span> waiting = new AtomicReference<>();

    ConfirmWindow(int size, ClientEvents events, String destination) {
        super(size);
        this.size = size;
        this.events = events;
        this.destination = destination;
    }

    /** A publish found the window full: opens the span unless one is open. */
    void waitBegins() {
        if (events == ClientEvents.NONE || waiting.get() != null) {
            return;
        }
        try {
            ClientEvents.Span span = events.begin(EventKinds.BACK_PRESSURE, destination, size + " records unconfirmed "
                    + "(rabbitmq.max-outstanding-confirms): publishes wait for the broker's confirms");
            if (!waiting.compareAndSet(null, span)) {
                span.end();
            }
        } catch (RuntimeException e) {
            log.debug("Reporting back-pressure on '{}' failed", destination, e);
        }
    }

    @Override
    public void release() {
        super.release();
        if (waiting.get() != null && !hasQueuedThreads()) {
            end();
        }
    }

    @Override
    public void release(int permits) {
        super.release(permits);
        if (waiting.get() != null && !hasQueuedThreads()) {
            end();
        }
    }

    /** Ends the open span, if any (also when the publisher closes). */
    void end() {
        ClientEvents.Span span = waiting.getAndSet(null);
        if (span != null) {
            span.end();
        }
    }
}
