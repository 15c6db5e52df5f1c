package io.switchboard.spi;

/**
 * Where an adapter (and core) reports the client-side events that shape latency and cost: consumer
 * group rebalances and assignment changes, connection loss and recovery, consumer cancellation and
 * recovery, leader changes the client sees, publisher back-pressure and retries. Core keeps them on a
 * bounded per-instance timeline that the comparison uses to explain tails.
 *
 * <p>Implementations are thread-safe, never block and never throw: an adapter may call them from a
 * broker client's callback thread. An adapter reads its sink from {@link BrokerConfig#events()}; it
 * is {@link #NONE} when nothing listens.
 */
public interface ClientEvents {

    /** A sink that drops every event. */
    ClientEvents NONE = new ClientEvents() {
        @Override
        public void instant(String kind, String subject, String detail) {
        }

        @Override
        public Span begin(String kind, String subject, String detail) {
            return Span.NONE;
        }
    };

    /**
     * Records an event that happened at one moment.
     *
     * @param kind one of {@link EventKinds}' names
     * @param subject what it happened to: a group, a queue, a topic-partition, a connection
     * @param detail a short human-readable detail (never a secret), or an empty string
     */
    void instant(String kind, String subject, String detail);

    /**
     * Records the start of an event that lasts; {@link Span#end()} closes it. A span never ended is
     * closed by core after a bound (and reported as still open).
     *
     * @param kind one of {@link EventKinds}' names
     * @param subject what it happens to
     * @param detail a short human-readable detail, or an empty string
     * @return the open span
     */
    Span begin(String kind, String subject, String detail);

    /** An event with a duration. */
    interface Span {
        /** A span that records nothing. */
        Span NONE = () -> { };

        /** Closes the span at the current time; later calls do nothing. */
        void end();
    }
}
