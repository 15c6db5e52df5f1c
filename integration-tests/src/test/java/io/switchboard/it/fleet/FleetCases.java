package io.switchboard.it.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.switchboard.testkit.fault.TcpProxy;
import io.switchboard.testkit.fleet.FleetReplica;
import io.switchboard.testkit.kafka.EmbeddedKafka;
import io.switchboard.testkit.rabbit.RabbitMqServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Three replicas of one application, each a JVM of its own, sharing their routes through the
 * control channel on one broker (a subclass per broker), reached through a {@link TcpProxy} so that
 * it can be cut. Data goes to {@code a} (the embedded Kafka) and {@code b} (the local RabbitMQ)
 * directly, under load all along; the last case checks that nothing acknowledged was lost.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class FleetCases {

    static final Logger log = LoggerFactory.getLogger(FleetCases.class);
    static final RabbitMqServer RABBIT = RabbitMqServer.local();
    static final Duration WAIT = Duration.ofSeconds(90);
    static final int LOAD = 50;

    final String run = "fl_" + UUID.randomUUID().toString().substring(0, 8);
    final String destination = run + "_orders";
    final List<FleetReplica> replicas = new ArrayList<>();
    final List<FleetReplica> gone = new ArrayList<>();
    Path dir;
    int started;

    /** The control broker's id, for the printed lines. */
    abstract String controlBroker();

    /** Starts the control broker behind a proxy; returns the control instance's properties (broker, connection). */
    abstract Map<String, String> startControl() throws Exception;

    /** The proxy in front of the control broker. */
    abstract TcpProxy proxy();

    /** Stops the control broker. */
    abstract void stopControl() throws Exception;

    Map<String, String> replicaProperties() throws Exception {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("instance.a.broker", "kafka");
        p.put("instance.a.kafka.bootstrap.servers", EmbeddedKafka.shared().bootstrapServers());
        // three replica JVMs start at once beside the brokers on two cores: the first admin answer can take longer than 5 s
        p.put("instance.a.kafka.connect-timeout", "30s");
        p.put("instance.b.broker", "rabbitmq");
        p.put("instance.b.rabbitmq.uri", RABBIT.uriWithCredentials());
        controlProperties.forEach((k, v) -> p.put("instance.ctl." + k, v));
        p.put("common.switchboard.control.instance", "ctl");
        p.put("common.switchboard.control.fleet", run);
        p.put("common.switchboard.control.write-timeout", "5s");
        p.put("route." + destination, "split:a=80,b=20");
        p.put("destination", destination);
        return p;
    }

    private Map<String, String> controlProperties;

    FleetReplica startReplica() throws Exception {
        FleetReplica r = FleetReplica.start("r" + (++started), replicaProperties(), dir);
        replicas.add(r);
        return r;
    }

    @BeforeAll
    void startFleet() throws Exception {
        RABBIT.require();
        // in the module's build directory, not /tmp: the replicas' logs stay for a failure's post-mortem
        Path target = Files.createDirectories(Path.of("target", "fleet"));
        dir = Files.createTempDirectory(target, controlBroker() + "-");
        controlProperties = startControl();
        List<FleetReplica> three = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            three.add(startReplica());
        }
        for (FleetReplica r : three) {
            r.awaitReady(WAIT);
            r.call("load " + LOAD);
        }
    }

    @AfterAll
    void stopFleet() throws Exception {
        for (FleetReplica r : replicas) {
            r.close();
        }
        stopControl();
        RABBIT.deleteNamesStartingWith(List.of(run, "switchboard-" + run));
    }

    @Test
    @Order(1)
    @DisplayName("a route change made on any replica reaches every replica (50 changes under load)")
    void changesReachEveryReplica() {
        List<Long> delays = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            FleetReplica writer = replicas.get(i % 3);
            String route = "split:a=" + (90 - i) + ",b=" + (10 + i);
            long t0 = System.currentTimeMillis();
            long version = Long.parseLong(writer.call("update " + destination + " " + route));
            for (FleetReplica r : replicas) {
                await().atMost(WAIT).until(() -> r.versionSeenAt(version) != null);
                if (r != writer) {
                    delays.add(Math.max(0, r.versionSeenAt(version) - t0));
                }
            }
            for (FleetReplica r : replicas) {
                assertThat(r.call("route " + destination)).as("route on %s after change %d", r.id(), i).isEqualTo(route);
            }
        }
        delays.sort(null);
        log.warn("fleet=propagation control={} replicas=3 changes=50 samples={} p50_ms={} p99_ms={} max_ms={}", controlBroker(),
                delays.size(), delays.get(delays.size() / 2), delays.get((int) Math.ceil(delays.size() * 0.99) - 1),
                delays.get(delays.size() - 1));
    }

    @Test
    @Order(2)
    @DisplayName("a replica started later starts on the fleet's route, not on its configuration")
    void lateReplicaStartsOnFleetRoute() throws Exception {
        replicas.get(0).call("update " + destination + " split:a=30,b=70");
        FleetReplica late = startReplica();
        late.awaitReady(WAIT);
        assertThat(late.call("route " + destination)).isEqualTo("split:a=30,b=70");
        assertThat(late.call("status").split(" ")[1]).isEqualTo(replicas.get(0).call("status").split(" ")[1]);
        late.close();
        replicas.remove(late);
        gone.add(late);
    }

    @Test
    @Order(3)
    @DisplayName("the fleet comparison's counts are the sum of the replicas' own")
    void fleetComparisonSumsReplicas() {
        String audit = run + "_audit";
        int[] counts = {120, 80, 40};
        for (int i = 0; i < 3; i++) {
            replicas.get(i).call("publish " + audit + " " + counts[i]);
        }
        await().atMost(WAIT).until(() -> replicas.stream().allMatch(r -> r.call("report " + audit + " fleet").startsWith("240 ")));
        long sum = 0;
        for (int i = 0; i < 3; i++) {
            String[] local = replicas.get(i).call("report " + audit + " local").split(" ");
            assertThat(Long.parseLong(local[0])).as("local count of %s", replicas.get(i).id()).isEqualTo(counts[i]);
            sum += Long.parseLong(local[0]);
        }
        String[] fleet = replicas.get(1).call("report " + audit + " fleet").split(" ");
        assertThat(Long.parseLong(fleet[0])).isEqualTo(sum);
        assertThat(fleet[2]).isEqualTo("fleet_of_3_replica(s)");
        log.warn("fleet=comparison control={} replicas=3 local={},{},{} fleet={}", controlBroker(), counts[0], counts[1], counts[2],
                fleet[0]);
    }

    @Test
    @Order(4)
    @DisplayName("a promotion gate whose driver is killed mid-gate ends once, on another replica")
    void gateSurvivesDriverKill() throws Exception {
        replicas.get(0).call("update " + destination + " single:a");
        FleetReplica driver = replicas.stream().filter(r -> r.call("status").split(" ")[2].equals("true")).findFirst().orElseThrow();
        FleetReplica asker = replicas.stream().filter(r -> r != driver).findFirst().orElseThrow();
        asker.call("promote " + destination + " a b 10;50;100 2000 20");
        await().atMost(WAIT).until(() -> asker.call("promotion " + destination).equals("RUNNING 10"));
        driver.kill();
        replicas.remove(driver);
        gone.add(driver);
        await().atMost(Duration.ofMinutes(3)).until(() -> replicas.stream().allMatch(r -> !r.call("promotion " + destination)
                .startsWith("RUNNING")));
        Set<String> ends = new HashSet<>();
        long driven = 0;
        for (FleetReplica r : replicas) {
            await().atMost(WAIT).until(() -> !r.finishedPromotions().isEmpty());
            assertThat(r.finishedPromotions()).as("promotions %s saw end", r.id()).hasSize(1);
            ends.add(r.finishedPromotions().get(0));
            driven += Long.parseLong(r.call("gates " + destination));
        }
        assertThat(ends).hasSize(1);
        assertThat(ends.iterator().next()).isIn(destination + " COMPLETED", destination + " ROLLED_BACK");
        assertThat(driven).as("completions and rollbacks driven by the surviving replicas").isEqualTo(1);
        log.warn("fleet=gate control={} replicas=3 driver_killed={} end={} ends_driven={}", controlBroker(), driver.id(),
                ends.iterator().next(), driven);
        FleetReplica replacement = startReplica();
        replacement.awaitReady(WAIT);
        replacement.call("load " + LOAD);
    }

    @Test
    @Order(5)
    @DisplayName("with the control channel cut, replicas keep their routes and say DEGRADED; restored, they converge")
    void controlCutAndRestored() {
        String before = replicas.get(0).call("route " + destination);
        long t0 = System.currentTimeMillis();
        proxy().cut();
        try {
            await().atMost(WAIT).until(() -> replicas.stream().allMatch(r -> r.call("status").startsWith("DEGRADED")));
            long degradedMs = System.currentTimeMillis() - t0;
            for (FleetReplica r : replicas) {
                assertThat(r.call("route " + destination)).isEqualTo(before);
            }
            assertThatThrownBy(() -> replicas.get(0).call("update " + destination + " split:a=50,b=50"))
                    .hasMessageContaining("was not made");
            long t1 = System.currentTimeMillis();
            proxy().restore();
            await().atMost(WAIT).until(() -> replicas.stream().allMatch(r -> r.call("status").startsWith("UP")));
            long upMs = System.currentTimeMillis() - t1;
            replicas.get(1).call("update " + destination + " split:a=60,b=40");
            await().atMost(WAIT).until(() -> replicas.stream().allMatch(r -> r.call("route " + destination).equals("split:a=60,b=40")));
            log.warn("fleet=cut control={} replicas=3 degraded_after_ms={} up_after_restore_ms={} converged=true", controlBroker(),
                    degradedMs, upMs);
        } finally {
            proxy().restore();
        }
    }

    @Test
    @Order(9)
    @DisplayName("nothing any replica's publisher had acknowledged was lost")
    void nothingLost() {
        for (FleetReplica r : replicas) {
            r.call("load 0");
        }
        List<FleetReplica> all = new ArrayList<>(replicas);
        all.addAll(gone);
        Set<String> published = new HashSet<>();
        all.forEach(r -> published.addAll(r.published()));
        Set<String> consumed = new HashSet<>();
        try {
            await().atMost(WAIT).until(() -> {
                consumed.clear();
                all.forEach(r -> consumed.addAll(r.consumed()));
                return consumed.containsAll(published);
            });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            // reported below with the count
        }
        Set<String> lost = new HashSet<>(published);
        lost.removeAll(consumed);
        log.warn("fleet=ledger control={} replicas={} published={} consumed_unique={} lost={}", controlBroker(), all.size(),
                published.size(), consumed.size(), lost.size());
        System.out.printf(Locale.ROOT, "fleet=ledger control=%s published=%d lost=%d%n", controlBroker(), published.size(), lost.size());
        assertThat(published).as("the replicas published under load").hasSizeGreaterThan(1000);
        assertThat(lost).as("acknowledged but never consumed").isEmpty();
    }
}
