package io.switchboard.internal.memory;

import io.switchboard.spi.ControlLog;
import io.switchboard.spi.ControlSupport;
import io.switchboard.spi.DaemonThreads;
import io.switchboard.spi.Leadership;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The in-memory broker's control primitives, shared by every adapter on the same named broker in
 * this JVM: logs kept whole, and leadership given to the longest-waiting campaigner. For tests of
 * the fleet control plane with several Switchboards in one JVM.
 */
final class MemoryControl {

    private final Map<String, Log> logs = new ConcurrentHashMap<>();
    private final Map<String, List<Campaign>> campaigns = new LinkedHashMap<>();
    /**
     * Tells campaigners they were elected, in order. The broker lives as long as the JVM, so its
     * thread ends when idle for a second: a closed Switchboard leaves no thread of it.
     */
    private final ThreadPoolExecutor events = new ThreadPoolExecutor(1, 1, 1, TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(), DaemonThreads.named("switchboard-memory-control"));

    MemoryControl() {
        events.allowCoreThreadTimeOut(true);
    }

    /** One adapter's view: what it opened is closed with it. */
    ControlSupport support(List<AutoCloseable> owned) {
        return new ControlSupport() {
            @Override
            public ControlLog openLog(String name) {
                Follower f = new Follower(logs.computeIfAbsent(name, n -> new Log()));
                owned.add(f);
                return f;
            }

            @Override
            public Leadership campaign(String name, Leadership.Listener listener) {
                Campaign c = new Campaign(name, listener);
                owned.add(c);
                synchronized (campaigns) {
                    List<Campaign> line = campaigns.computeIfAbsent(name, n -> new ArrayList<>());
                    line.add(c);
                    if (line.size() == 1) {
                        c.leader = true;
                        events.execute(listener::elected);
                    }
                }
                return c;
            }
        };
    }

    private static final class Log {
        final List<Map.Entry<String, byte[]>> entries = new ArrayList<>();
        final List<Follower> followers = new CopyOnWriteArrayList<>();
    }

    private static final class Follower implements ControlLog {
        private final Log log;
        private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "switchboard-memory-control-log");
            t.setDaemon(true);
            return t;
        });
        private volatile Listener listener;
        private volatile boolean closed;

        Follower(Log log) {
            this.log = log;
        }

        @Override
        public CompletionStage<Void> append(String key, byte[] value) {
            if (closed) {
                return CompletableFuture.failedFuture(new IllegalStateException("control log closed"));
            }
            synchronized (log) {
                log.entries.add(Map.entry(key, value.clone()));
                for (Follower f : log.followers) {
                    f.deliver(key, value.clone());
                }
            }
            return CompletableFuture.completedFuture(null);
        }

        private void deliver(String key, byte[] value) {
            thread.execute(() -> listener.onRecord(key, value));
        }

        @Override
        public CompletionStage<Void> follow(Listener l) {
            this.listener = l;
            synchronized (log) {
                for (Map.Entry<String, byte[]> e : log.entries) {
                    deliver(e.getKey(), e.getValue().clone());
                }
                log.followers.add(this);
            }
            CompletableFuture<Void> caught = new CompletableFuture<>();
            thread.execute(() -> caught.complete(null));
            return caught;
        }

        @Override
        public boolean connected() {
            return !closed;
        }

        @Override
        public void close() {
            closed = true;
            log.followers.remove(this);
            thread.shutdownNow();
        }
    }

    private final class Campaign implements Leadership {
        private final String name;
        private final Listener listener;
        private volatile boolean leader;

        Campaign(String name, Listener listener) {
            this.name = name;
            this.listener = listener;
        }

        @Override
        public boolean isLeader() {
            return leader;
        }

        @Override
        public void close() {
            synchronized (campaigns) {
                List<Campaign> line = campaigns.get(name);
                if (line == null || !line.remove(this)) {
                    return;
                }
                if (leader) {
                    leader = false;
                    events.execute(listener::revoked);
                    if (!line.isEmpty()) {
                        Campaign next = line.get(0);
                        next.leader = true;
                        events.execute(next.listener::elected);
                    }
                }
            }
        }
    }
}
