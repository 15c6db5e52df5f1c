package io.switchboard.spring.internal;

import io.switchboard.outbox.Outbox;
import org.springframework.context.SmartLifecycle;

/**
 * Runs the outbox's relay with the application context: it starts once the listeners are ready (the phase right after
 * {@link SwitchboardLifecycle#PHASE}) and stops before they drain; rows it has not sent by then stay in the table for
 * the next start, or for another replica's relay. The {@code Outbox} bean itself is closed with the context.
 */
public final class OutboxLifecycle implements SmartLifecycle {

    /** The phase: right after the listeners' on start, right before them on stop. */
    public static final int PHASE = SwitchboardLifecycle.PHASE + 1;

    private final Outbox outbox;
    private final boolean autoStartup;

    /**
     * Creates the lifecycle.
     *
     * @param outbox the outbox whose relay it runs
     * @param autoStartup whether the relay starts with the context ({@code switchboard.outbox.auto-startup})
     */
    public OutboxLifecycle(Outbox outbox, boolean autoStartup) {
        this.outbox = outbox;
        this.autoStartup = autoStartup;
    }

    @Override
    public void start() {
        outbox.start();
    }

    @Override
    public void stop() {
        outbox.stop();
    }

    @Override
    public boolean isRunning() {
        return outbox.isRunning();
    }

    @Override
    public boolean isAutoStartup() {
        return autoStartup;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
