package io.switchboard.spi;

import io.switchboard.SwitchboardClosedException;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every adapter's {@link ControlSupport} shares: names checked with {@link ControlNames}, every
 * log and leadership opened tracked so that {@link #closeOpened()} closes them with the adapter, and
 * nothing opened once it is closed. An adapter supplies the broker's log and leadership.
 */
public abstract class ControlSupportBase implements ControlSupport {

    private static final Logger log = LoggerFactory.getLogger(ControlSupportBase.class);

    private final Set<AutoCloseable> open = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    @Override
    public final ControlLog openLog(String name) {
        return track(newLog(checked(name, "log")));
    }

    @Override
    public final Leadership campaign(String name, Leadership.Listener listener) {
        Objects.requireNonNull(listener, "listener");
        return started(track(newLeadership(checked(name, "leadership"), listener)));
    }

    /**
     * {@return the broker's control log {@code name} (a checked name)}
     *
     * @param name the log's name, checked
     */
    protected abstract ControlLog newLog(String name);

    /**
     * {@return the broker's leadership campaign for {@code name} (a checked name)}
     *
     * @param name the leadership's name, checked
     * @param listener told when elected and when the leadership is lost
     */
    protected abstract Leadership newLeadership(String name, Leadership.Listener listener);

    /**
     * Starts a leadership once it is tracked; the default does nothing (it started when made).
     *
     * @param leadership the leadership, tracked
     * @return the leadership, started
     */
    protected Leadership started(Leadership leadership) {
        return leadership;
    }

    /**
     * {@return the error for opening {@code what} on a closed adapter, naming the instance}
     *
     * @param what what was to be opened, for the message
     */
    protected abstract SwitchboardClosedException closedError(String what);

    /**
     * Forgets a log or leadership that closed by itself.
     *
     * @param closedByItself the log or leadership
     */
    public final void forget(AutoCloseable closedByItself) {
        open.remove(closedByItself);
    }

    /** {@return true once {@link #closeOpened()} ran} */
    public final boolean isClosed() {
        return closed;
    }

    /** Closes every log and leadership still open; nothing opens afterwards. Idempotent. */
    protected final void closeOpened() {
        closed = true;
        for (AutoCloseable c : List.copyOf(open)) {
            closeQuietly(c);
        }
    }

    private <C extends AutoCloseable> C track(C opened) {
        open.add(opened);
        if (closed) {
            closeQuietly(opened);
            throw closedError("control " + opened);
        }
        return opened;
    }

    private String checked(String name, String what) {
        if (closed) {
            throw closedError("control " + what + " '" + name + "'");
        }
        return ControlNames.check(name, what);
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            log.debug("Closing {}: {}", c, e.toString());
        }
    }
}
