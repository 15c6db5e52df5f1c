package io.switchboard.testkit.fleet;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.internal.fleet.RouteText;
import io.switchboard.routing.ComparisonReport;
import io.switchboard.routing.Fleet;
import io.switchboard.routing.Promotion;
import io.switchboard.routing.PromotionGate;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.LoggerFactory;

/**
 * The main of a {@link FleetReplica}. Arguments: replica id, directory, then {@code key=value}
 * properties: {@code instance.<name>.broker}, {@code instance.<name>.<property>},
 * {@code common.<property>}, {@code route.<destination>=<route text>} and {@code destination}
 * (the one it loads and consumes; default {@code orders}). Commands on standard input, one a line, each answered by one line
 * {@code @@ = <answer>} (or {@code @@ ! <error>}):
 * <ul>
 *   <li>{@code load <messages per second>}: publishes the destination at that rate (0 stops)</li>
 *   <li>{@code publish <destination> <count>}: publishes and awaits {@code count} messages</li>
 *   <li>{@code update <destination> <route>}: a fleet-wide route change, answers the route version after it</li>
 *   <li>{@code route <destination>}: the route in force here</li>
 *   <li>{@code promote <destination> <from> <to> <steps;..> <hold ms> <min samples>}: starts a gate</li>
 *   <li>{@code promotion <destination>}: {@code <state> <percent>} or {@code none}</li>
 *   <li>{@code report <destination> fleet|local}: {@code <published> <consumed> <scope>}</li>
 *   <li>{@code status}: {@code <status> <route version> <leader> <replicas seen>}</li>
 *   <li>{@code gates <destination>}: completions plus rollbacks this replica drove</li>
 *   <li>{@code quit}</li>
 * </ul>
 * Events, unasked: {@code @@ version <v> <epoch ms>} when its route version changes,
 * {@code @@ finished <destination> <state>} when a promotion it saw ends, {@code @@ ready}.
 */
public final class FleetReplicaMain {

    private static final PrintStream OUT = System.out;

    private FleetReplicaMain() {}

    private static synchronized void say(String line) {
        OUT.println("@@ " + line);
        OUT.flush();
    }

    /**
     * The replica's main: see the class comment for its arguments and commands.
     *
     * @param args the arguments
     */
    public static void main(String[] args) {
        try {
            run(args);
        } catch (Throwable e) {
            // the Switchboard's non-daemon threads would keep a replica that failed to start alive until its test's deadline
            LoggerFactory.getLogger(FleetReplicaMain.class).error("Fleet replica {} failed; exiting", args.length > 0 ? args[0] : "?", e);
            System.exit(1);
        }
    }

    private static void run(String[] args) throws Exception {
        String id = args[0];
        Path dir = Path.of(args[1]);
        Map<String, Map<String, String>> instances = new LinkedHashMap<>();
        Map<String, String> common = new LinkedHashMap<>();
        Map<String, String> routes = new LinkedHashMap<>();
        String destination = "orders";
        for (String a : Arrays.copyOfRange(args, 2, args.length)) {
            int eq = a.indexOf('=');
            String key = a.substring(0, eq);
            String value = a.substring(eq + 1);
            if (key.startsWith("instance.")) {
                String rest = key.substring(9);
                int dot = rest.indexOf('.');
                instances.computeIfAbsent(rest.substring(0, dot), n -> new LinkedHashMap<>()).put(rest.substring(dot + 1), value);
            } else if (key.startsWith("common.")) {
                common.put(key.substring(7), value);
            } else if (key.startsWith("route.")) {
                routes.put(key.substring(6), value);
            } else if (key.equals("destination")) {
                destination = value;
            }
        }
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        // no comparison warm-up unless the test sets one: the fleet cases sum every message of the replicas
        Switchboard.Builder builder = Switchboard.builder().property("switchboard.comparison.warm-up", "0s").properties(common)
                .property("switchboard.control.replica", id)
                .meterRegistry(registry);
        instances.forEach((name, props) -> {
            Map<String, String> p = new LinkedHashMap<>(props);
            String broker = p.remove("broker");
            builder.instance(name, broker, p);
        });
        routes.forEach((d, r) -> builder.route(d, RouteText.parse(r)));
        Switchboard sb = builder.build();
        Writer published = Files.newBufferedWriter(dir.resolve(id + ".published"), StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        Writer consumed = Files.newBufferedWriter(dir.resolve(id + ".consumed"), StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        Subscription billing = sb.subscriber(destination, Codec.utf8()).group("billing").delivery(Delivery.AT_LEAST_ONCE)
                .subscribe((m, c) -> line(consumed, m.payload()));
        billing.ready().toCompletableFuture().get(120, TimeUnit.SECONDS);
        Publisher<String> orders = sb.publisher(destination, Codec.utf8()).delivery(Delivery.AT_LEAST_ONCE).build();
        ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2, r -> {
            Thread t = new Thread(r, "replica-" + id);
            t.setDaemon(true);
            return t;
        });
        watch(sb, scheduler, destination);
        AtomicLong seq = new AtomicLong();
        ScheduledFuture<?>[] load = new ScheduledFuture<?>[1];
        say("ready");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String command;
        while ((command = in.readLine()) != null) {
            String[] w = command.trim().split(" ");
            try {
                switch (w[0]) {
                    case "load" -> {
                        if (load[0] != null) {
                            load[0].cancel(false);
                        }
                        int perTick = Integer.parseInt(w[1]) / 50;
                        if (perTick > 0) {
                            load[0] = scheduler.scheduleAtFixedRate(() -> {
                                for (int i = 0; i < perTick; i++) {
                                    long n = seq.incrementAndGet();
                                    String payload = id + "-" + n;
                                    orders.publish(Message.of("k" + (n % 97), payload)).whenComplete((r, e) -> {
                                        if (e == null) {
                                            line(published, payload);
                                        }
                                    });
                                }
                            }, 0, 20, TimeUnit.MILLISECONDS);
                        }
                        say("= ok");
                    }
                    case "publish" -> {
                        Publisher<String> p = sb.publisher(w[1], Codec.utf8()).build();
                        int count = Integer.parseInt(w[2]);
                        for (int i = 0; i < count; i++) {
                            p.publish(Message.of("k" + i, "x")).toCompletableFuture().get(30, TimeUnit.SECONDS);
                        }
                        p.close();
                        say("= " + count);
                    }
                    case "update" -> {
                        sb.routing().update(w[1], RouteText.parse(w[2]));
                        say("= " + sb.routing().fleet().routeVersion());
                    }
                    case "route" -> say("= " + RouteText.format(sb.routing().route(w[1])));
                    case "promote" -> {
                        PromotionGate gate = PromotionGate.from(w[2]).to(w[3])
                                .steps(Arrays.stream(w[4].split(";")).mapToInt(Integer::parseInt).toArray())
                                .hold(Duration.ofMillis(Long.parseLong(w[5]))).minSamples(Long.parseLong(w[6]))
                                .maxP99Ratio(1000).p99Slack(Duration.ofSeconds(10)).maxErrorRateIncrease(1).build();
                        sb.routing().promote(w[1], gate);
                        say("= ok");
                    }
                    case "promotion" -> say("= " + sb.routing().promotion(w[1]).map(p -> p.state() + " " + p.targetPercent())
                            .orElse("none"));
                    case "report" -> {
                        ComparisonReport r = w[2].equals("local") ? sb.comparison().local().report(w[1]) : sb.comparison().report(w[1]);
                        long pub = r.instances().stream().mapToLong(ComparisonReport.InstanceFigures::published).sum();
                        long con = r.instances().stream().mapToLong(ComparisonReport.InstanceFigures::consumed).sum();
                        say("= " + pub + " " + con + " " + r.scope().replace(' ', '_'));
                    }
                    case "status" -> {
                        Fleet f = sb.routing().fleet();
                        say("= " + f.status() + " " + f.routeVersion() + " " + f.leader() + " " + f.replicas().size());
                    }
                    case "gates" -> {
                        double n = 0;
                        for (Counter c : registry.find("switchboard.routing.gate.transitions").tag("destination", w[1]).counters()) {
                            String outcome = c.getId().getTag("outcome");
                            if ("complete".equals(outcome) || "rollback".equals(outcome)) {
                                n += c.count();
                            }
                        }
                        say("= " + (long) n);
                    }
                    case "quit" -> {
                        if (load[0] != null) {
                            load[0].cancel(false);
                        }
                        sb.close();
                        say("= bye");
                        System.exit(0);
                    }
                    default -> say("! unknown command '" + command + "'");
                }
            } catch (Exception e) {
                say("! " + e.toString().replace('\n', ' '));
            }
        }
        System.exit(0);
    }

    /** Reports route version changes and finished promotions as they happen. */
    private static void watch(Switchboard sb, ScheduledExecutorService scheduler, String destination) {
        long[] last = {-1};
        Object[] promotion = {null};
        scheduler.scheduleWithFixedDelay(() -> {
            long v = sb.routing().fleet().routeVersion();
            if (v != last[0]) {
                last[0] = v;
                say("version " + v + " " + System.currentTimeMillis());
            }
            Promotion p = sb.routing().promotion(destination).orElse(null);
            if (p != null && p != promotion[0]) {
                promotion[0] = p;
                p.finished().whenComplete((state, e) -> say("finished " + destination + " " + state));
            }
        }, 0, 2, TimeUnit.MILLISECONDS);
    }

    private static void line(Writer writer, String text) {
        synchronized (writer) {
            try {
                writer.write(text + "\n");
                writer.flush();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }
}
