package io.switchboard.spi;

/**
 * One campaign for the leadership of a name (see {@link ControlSupport#campaign}). Thread-safe.
 */
public interface Leadership extends AutoCloseable {

    /** Told when this campaigner becomes, or stops being, the leader. */
    interface Listener {
        /** This campaigner is now the leader. Called on an adapter thread; must not block. */
        void elected();

        /**
         * This campaigner is no longer the leader (another may be elected at once): stop acting
         * as leader now. Called on an adapter thread; must not block.
         */
        void revoked();
    }

    /** {@return true while this campaigner holds the leadership, as far as it knows} */
    boolean isLeader();

    /** Resigns (if leader) and stops campaigning. Idempotent. */
    @Override
    void close();
}
