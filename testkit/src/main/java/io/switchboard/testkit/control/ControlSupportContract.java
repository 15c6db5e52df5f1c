package io.switchboard.testkit.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.spi.BrokerAdapter;
import io.switchboard.spi.ControlLog;
import io.switchboard.spi.ControlSupport;
import io.switchboard.spi.Leadership;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * What every adapter's {@link ControlSupport} must do on its real broker: a durable keyed log read
 * whole by every follower, and leader election with at most one leader at a time. An adapter's
 * test is a subclass that makes fresh adapters connected to the test broker:
 *
 * <pre>{@code
 * class KafkaControlSupportTest extends ControlSupportContract {
 *     protected BrokerAdapter newAdapter() { ... }
 * }
 * }</pre>
 *
 * Each adapter made is closed after the test; each case uses names of its own.
 */
public abstract class ControlSupportContract {

    /** How long a case waits for the broker. */
    protected static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final List<AutoCloseable> opened = new CopyOnWriteArrayList<>();

    /** {@return a new adapter connected to the test broker, as a replica of an application would have} */
    protected abstract BrokerAdapter newAdapter();

    /** {@return the control support of a new adapter, closed after the test} */
    protected ControlSupport support() {
        BrokerAdapter adapter = newAdapter();
        opened.add(0, adapter);
        return adapter.control().orElseThrow(() -> new AssertionError("adapter '" + adapter.id() + "' offers no ControlSupport"));
    }

    /**
     * {@return a name of the case's own, valid on every broker}
     *
     * @param hint a word for what the name is for; it becomes part of the name
     */
    protected static String name(String hint) {
        return "ctl-" + hint + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private <C extends AutoCloseable> C own(C c) {
        opened.add(0, c);
        return c;
    }

    @AfterEach
    void closeAll() {
        for (AutoCloseable c : opened) {
            try {
                c.close();
            } catch (Exception e) {
                // the next case must still run
            }
        }
        opened.clear();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Records what a follower read, as key=value strings in order. */
    private static final class Reader implements ControlLog.Listener {
        final List<String> records = new CopyOnWriteArrayList<>();
        final Map<String, String> latest = new ConcurrentHashMap<>();
        final List<String> threads = new CopyOnWriteArrayList<>();

        @Override
        public void onRecord(String key, byte[] value) {
            String v = new String(value, StandardCharsets.UTF_8);
            records.add(key + "=" + v);
            latest.put(key, v);
            String t = Thread.currentThread().getName();
            if (!threads.contains(t)) {
                threads.add(t);
            }
        }
    }

    @Test
    @DisplayName("a follower reads the log from its beginning and has caught up when follow() completes")
    void followReadsFromTheBeginning() throws Exception {
        String name = name("log");
        ControlLog writer = own(support().openLog(name));
        writer.append("orders", bytes("v1")).toCompletableFuture().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        writer.append("payments", bytes("v1")).toCompletableFuture().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        writer.append("orders", bytes("v2")).toCompletableFuture().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);

        ControlLog log = own(support().openLog(name));
        Reader reader = new Reader();
        log.follow(reader).toCompletableFuture().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);

        assertThat(reader.latest).containsEntry("orders", "v2").containsEntry("payments", "v1");
        List<String> orders = reader.records.stream().filter(r -> r.startsWith("orders=")).toList();
        assertThat(orders.get(orders.size() - 1)).as("the newest record of a key comes last").isEqualTo("orders=v2");
        assertThat(log.connected()).isTrue();
    }

    @Test
    @DisplayName("follow() on an empty log completes, and then records appended elsewhere arrive in order")
    void followEmptyThenLive() throws Exception {
        String name = name("live");
        ControlLog log = own(support().openLog(name));
        Reader reader = new Reader();
        log.follow(reader).toCompletableFuture().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertThat(reader.records).isEmpty();

        ControlLog writer = own(support().openLog(name));
        for (int i = 1; i <= 20; i++) {
            writer.append("k" + (i % 3), bytes(Integer.toString(i))).toCompletableFuture().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        }
        await().atMost(TIMEOUT).until(() -> reader.records.contains("k2=20"));
        List<String> distinct = reader.records.stream().distinct().toList();
        List<String> expected = new ArrayList<>();
        for (int i = 1; i <= 20; i++) {
            expected.add("k" + (i % 3) + "=" + i);
        }
        assertThat(distinct).as("every record once, in append order").containsExactlyElementsOf(expected);
        assertThat(reader.threads).as("records come from one thread").hasSize(1);
    }

    @Test
    @DisplayName("two logs of different names do not see each other's records")
    void logsAreSeparate() throws Exception {
        ControlLog a = own(support().openLog(name("a")));
        ControlLog b = own(support().openLog(name("b")));
        a.append("x", bytes("from-a")).toCompletableFuture().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        Reader reader = new Reader();
        b.follow(reader).toCompletableFuture().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        b.append("y", bytes("from-b")).toCompletableFuture().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        await().atMost(TIMEOUT).until(() -> reader.latest.containsKey("y"));
        assertThat(reader.latest).doesNotContainKey("x");
    }

    /** Counts elections and revocations of one campaigner. */
    private static final class Campaigner implements Leadership.Listener {
        final AtomicInteger elected = new AtomicInteger();
        final AtomicInteger revoked = new AtomicInteger();
        Leadership leadership;

        @Override
        public void elected() {
            elected.incrementAndGet();
        }

        @Override
        public void revoked() {
            revoked.incrementAndGet();
        }
    }

    @Test
    @DisplayName("of three campaigners one leads; closing the leader elects another, never two at once")
    void oneLeaderAtATime() {
        String name = name("lead");
        List<Campaigner> all = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Campaigner c = new Campaigner();
            c.leadership = own(support().campaign(name, c));
            all.add(c);
        }
        await().atMost(TIMEOUT).until(() -> leaders(all) == 1);
        Campaigner first = all.stream().filter(c -> c.leadership.isLeader()).findFirst().orElseThrow();
        assertThat(first.elected).hasValue(1);
        long until = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        while (System.nanoTime() < until) {
            assertThat(leaders(all)).as("leaders at once").isLessThanOrEqualTo(1);
            Thread.onSpinWait();
        }

        first.leadership.close();
        assertThat(first.leadership.isLeader()).isFalse();
        all.remove(first);
        await().atMost(TIMEOUT).until(() -> leaders(all) == 1);
        Campaigner second = all.stream().filter(c -> c.leadership.isLeader()).findFirst().orElseThrow();
        assertThat(second.elected).hasValue(1);
        assertThat(all.stream().mapToInt(c -> c.elected.get()).sum()).as("elections among the other two").isEqualTo(1);
    }

    @Test
    @DisplayName("closing the adapter of the leader (as a dying process would) elects another campaigner")
    void leaderAdapterClosed() {
        String name = name("die");
        BrokerAdapter dying = newAdapter();
        Campaigner a = new Campaigner();
        a.leadership = dying.control().orElseThrow().campaign(name, a);
        await().atMost(TIMEOUT).until(() -> a.leadership.isLeader());
        Campaigner b = new Campaigner();
        b.leadership = own(support().campaign(name, b));
        dying.close();
        await().atMost(TIMEOUT).until(() -> b.leadership.isLeader());
        assertThat(b.elected).hasValue(1);
    }

    private static int leaders(List<Campaigner> all) {
        int n = 0;
        for (Campaigner c : all) {
            if (c.leadership.isLeader()) {
                n++;
            }
        }
        return n;
    }
}
