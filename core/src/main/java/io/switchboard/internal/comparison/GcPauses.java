package io.switchboard.internal.comparison;

import com.sun.management.GarbageCollectionNotificationInfo;
import io.switchboard.spi.EventKinds;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JVM's garbage-collection pauses longer than a threshold, put on every registered {@link Timeline} as
 * {@link EventKinds#GC_PAUSE} spans on each of its instances (a pause stops every client of the process). One listener
 * per collector for the whole process, installed on the first registration; concurrent cycles (G1's and ZGC's
 * concurrent work, which does not stop the application) are left out.
 */
public final class GcPauses {

    private static final Logger log = LoggerFactory.getLogger(GcPauses.class);

    private record Registration(Timeline timeline, long thresholdMillis) {}

    private static final List<Registration> registrations = new CopyOnWriteArrayList<>();
    private static boolean installed;

    private GcPauses() {}

    /** Puts pauses of at least {@code thresholdMillis} on {@code timeline} until {@link #unregister}. */
    public static void register(Timeline timeline, long thresholdMillis) {
        registrations.add(new Registration(timeline, thresholdMillis));
        install();
    }

    /** Stops putting pauses on {@code timeline}. */
    public static void unregister(Timeline timeline) {
        registrations.removeIf(r -> r.timeline == timeline);
    }

    private static synchronized void install() {
        if (installed) {
            return;
        }
        installed = true;
        long jvmStart = ManagementFactory.getRuntimeMXBean().getStartTime();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter emitter) {
                emitter.addNotificationListener((n, handback) -> notified(n, jvmStart), null, null);
            }
        }
    }

    private static void notified(Notification n, long jvmStart) {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType()) || registrations.isEmpty()) {
            return;
        }
        try {
            GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
            String name = info.getGcName();
            String action = info.getGcAction();
            if (name.contains("Concurrent") || name.contains("Cycles") || action.toLowerCase(Locale.ROOT).contains("concurrent")) {
                return;
            }
            long duration = info.getGcInfo().getDuration();
            long start = jvmStart + info.getGcInfo().getStartTime();
            String detail = String.format(Locale.ROOT, "%s, %s (%s), %d ms", name, action, info.getGcCause(), duration);
            for (Registration r : registrations) {
                if (duration >= r.thresholdMillis) {
                    r.timeline.spanEverywhere(EventKinds.GC_PAUSE, "jvm", detail, start, start + duration);
                }
            }
        } catch (RuntimeException e) {
            log.debug("A garbage collection notification could not be read: {}", e.toString());
        }
    }
}
