package io.switchboard.routing;

import java.util.concurrent.CompletionStage;

/** A running (or finished) promotion gate on one destination. */
public interface Promotion {

    /** Where a promotion stands. */
    enum State {
        /** Holding a step, or waiting for enough samples. */
        RUNNING,
        /** The target carries 100%. */
        COMPLETED,
        /** A breach sent all traffic back to the source. */
        ROLLED_BACK,
        /** Cancelled, or replaced by a route change or another gate; weights left as they were. */
        CANCELLED
    }

    /** {@return the destination} */
    String destination();

    /** {@return the gate} */
    PromotionGate gate();

    /** {@return the target's current percentage} */
    int targetPercent();

    /** {@return the state} */
    State state();

    /** {@return why it rolled back or was cancelled, or what it is waiting for; never null} */
    String reason();

    /**
     * Completes with the final state once it is no longer running.
     *
     * @return completes with COMPLETED, ROLLED_BACK or CANCELLED
     */
    CompletionStage<State> finished();

    /** Stops advancing; the weights stay where they are. */
    void cancel();
}
