package io.switchboard.testkit;

import io.switchboard.spi.ClientEvents;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A {@link ClientEvents} for adapter tests: keeps every event an adapter reports, in order, with whether its span
 * ended. Pass it through {@code new BrokerConfig(instance, adapter, properties, events)}.
 */
public final class RecordingEvents implements ClientEvents {

    /**
     * One reported event.
     *
     * @param kind its kind
     * @param subject what it happened to
     * @param detail its detail
     * @param span true when it was begun as a span, false for an instant
     */
    public record Event(String kind, String subject, String detail, boolean span, AtomicBoolean ended) {

        /** {@return true for an instant, or a span that was ended} */
        public boolean closed() {
            return !span || ended.get();
        }

        @Override
        public String toString() {
            return kind + (span ? (ended.get() ? " span (ended)" : " span (open)") : "") + " " + subject + ": " + detail;
        }
    }

    private final List<Event> events = new CopyOnWriteArrayList<>();

    @Override
    public void instant(String kind, String subject, String detail) {
        events.add(new Event(kind, subject, detail, false, new AtomicBoolean(true)));
    }

    @Override
    public Span begin(String kind, String subject, String detail) {
        Event event = new Event(kind, subject, detail, true, new AtomicBoolean());
        events.add(event);
        return () -> event.ended().set(true);
    }

    /** {@return every event so far, in the order reported} */
    public List<Event> all() {
        return List.copyOf(events);
    }

    /**
     * The events of a kind so far.
     *
     * @param kind the event kind, one of {@code EventKinds}
     * @return the events of that kind, in the order reported
     */
    public List<Event> of(String kind) {
        return events.stream().filter(e -> e.kind().equals(kind)).toList();
    }

    /**
     * Waits for an event of the kind that matches.
     *
     * @param kind the event kind, one of {@code EventKinds}
     * @param matching what the event must satisfy
     * @param timeout how long to wait before failing
     * @return the first such event
     * @throws AssertionError naming the kind and listing what was reported when none came within the timeout
     */
    public Event await(String kind, Predicate<Event> matching, Duration timeout) {
        try {
            Awaitility.await().atMost(timeout).until(() -> of(kind).stream().anyMatch(matching));
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("no matching '" + kind + "' event within " + timeout + "; reported: " + all(), e);
        }
        return of(kind).stream().filter(matching).findFirst().orElseThrow();
    }

    @Override
    public String toString() {
        return "RecordingEvents" + all();
    }
}
