package io.switchboard;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The publishers and subscriptions a {@link Switchboard} created and closes, and whether it is closed. */
final class OwnedResources {

    private static final Logger log = LoggerFactory.getLogger(Switchboard.class);

    private final List<AutoCloseable> owned = new CopyOnWriteArrayList<>();
    private final AtomicBoolean closed = new AtomicBoolean();

    <C extends AutoCloseable> C own(C closeable) {
        owned.add(closeable);
        return closeable;
    }

    void disown(AutoCloseable closeable) {
        owned.remove(closeable);
    }

    boolean isClosed() {
        return closed.get();
    }

    /** Marks the owner closed; true only the first time. */
    boolean markClosed() {
        return closed.compareAndSet(false, true);
    }

    /** Closes the subscriptions first (draining them), then the rest (publishers flush), logging failures. */
    void closeAll() {
        List<AutoCloseable> subscriptionsFirst = new ArrayList<>();
        owned.stream().filter(c -> c instanceof Subscription).forEach(subscriptionsFirst::add);
        owned.stream().filter(c -> !(c instanceof Subscription)).forEach(subscriptionsFirst::add);
        for (AutoCloseable c : subscriptionsFirst) {
            try {
                c.close();
            } catch (Exception e) {
                log.warn("Closing {} failed", c, e);
            }
        }
        owned.clear();
    }
}
