package io.switchboard.examples.demo;

import io.switchboard.Switchboard;
import io.switchboard.routing.ComparisonReport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.aot.AotDetector;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The A/B demo: an order service on Kafka (A) and RabbitMQ (B), split 90/10 by customer in application.yml (the
 * timed comparison splits 50/50 per message instead, application-timed.yml, so that it compares like with like),
 * with a load generator, run as {@code demo.replicas} replicas (two by default) that share one
 * route through the control channel on Kafka, as pods behind a load balancer would. By default it
 * runs a timed comparison ({@code demo.duration}, one minute) of the fleet's traffic, prints the
 * comparison table and verdict and exits 0; with {@code --serve} it keeps running and serves the
 * live comparison page on {@code server.port} (8080), the other replicas on ports of their own.
 */
@SpringBootApplication
public class DemoApplication {

    /** Entry point. */
    public static void main(String[] args) throws Exception {
        boolean serve = Arrays.asList(args).contains("--serve");
        String[] springArgs = Arrays.stream(args).filter(a -> !a.equals("--serve")).toArray(String[]::new);
        if (Boolean.getBoolean("spring.aot.processing")) {
            // the build's process-aot: Spring stops this run once the bean definitions are known; no broker is needed
            application(Map.of("demo.kafka.bootstrap-servers", "localhost:9092"), !serve).run(springArgs);
            return;
        }
        if (AotDetector.useGeneratedArtifacts()) {
            System.out.println("Running on Spring AOT's generated initializers (spring.aot.enabled=true)");
        }
        int exitCode;
        try (DemoBrokers brokers = DemoBrokers.start(System.getProperty("demo.kafka.bootstrap-servers"),
                System.getProperty("demo.rabbit.host", "127.0.0.1"), Integer.getInteger("demo.rabbit.port", 5672))) {
            ConfigurableApplicationContext context = application(brokers.properties(), !serve).run(springArgs);
            List<ConfigurableApplicationContext> others = new ArrayList<>();
            int replicas = context.getEnvironment().getProperty("demo.replicas", Integer.class, 2);
            for (int n = 2; n <= replicas; n++) {
                others.add(startReplica(n, brokers.properties(), !serve, springArgs));
            }
            if (serve) {
                System.out.println("Serving the live comparison on http://localhost:"
                        + context.getEnvironment().getProperty("local.server.port") + "/ (Ctrl-C stops)");
                for (ConfigurableApplicationContext other : others) {
                    System.out.println("  replica " + other.getEnvironment().getProperty("demo.replica") + " of the service on http://localhost:"
                            + other.getEnvironment().getProperty("local.server.port") + "/");
                }
                // Ctrl-C: the replicas and the service close before the brokers they use, then an in-process
                // broker deletes its data (Spring's own hooks are off in this mode, see application())
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    others.forEach(ConfigurableApplicationContext::close);
                    context.close();
                    brokers.close();
                }, "demo-shutdown"));
                Thread.currentThread().join();
                return;
            }
            Duration duration = context.getEnvironment().getProperty("demo.duration", Duration.class, Duration.ofSeconds(60));
            // -Ddemo.join-at=15s: one more replica joins the service that far into the timed window, its listeners
            // join the Kafka groups, and the verdict shows the rebalance it causes
            Duration joinAt = context.getEnvironment().getProperty("demo.join-at", Duration.class);
            int joining = replicas + 1;
            int code = timedComparison(context, duration, joinAt,
                    () -> others.add(startReplica(joining, brokers.properties(), true, springArgs)));
            others.forEach(other -> SpringApplication.exit(other));
            SpringApplication.exit(context, () -> code);
            exitCode = code;
        }
        // after the brokers closed: an in-process Kafka deletes its data directory on close
        System.exit(exitCode);
    }

    private static SpringApplication application(Map<String, Object> defaults, boolean timed) {
        SpringApplication app = new SpringApplication(DemoApplication.class);
        app.setDefaultProperties(defaults);
        if (timed) {
            app.setAdditionalProfiles("timed");
        } else {
            // served: main's own shutdown hook closes the contexts, then the brokers, in that order
            app.setRegisterShutdownHook(false);
        }
        return app;
    }

    /**
     * Starts replica {@code n} of the service in this JVM, as another pod would run it: the same
     * brokers and application.yml, its own web port and replica id ({@code demo.replica}); it takes
     * the fleet's current routes from the control channel, not application.yml's.
     */
    static ConfigurableApplicationContext startReplica(int n, Map<String, Object> defaults, boolean timed, String... args) {
        Map<String, Object> properties = new LinkedHashMap<>(defaults);
        properties.put("demo.replica", n);
        properties.put("server.port", 0);
        String[] replicaArgs = Arrays.stream(args).filter(a -> !a.startsWith("--server.port=")).toArray(String[]::new);
        return application(properties, timed).run(replicaArgs);
    }

    /**
     * {@return one plain sentence: whether the verdict above compared the brokers like with like, and if not, why not and
     * what would} Like with like takes a design that gives both brokers the same mix of orders (a per-message split or
     * a mirror) and loads within 2x of each other.
     */
    static String likeForLike(ComparisonReport report) {
        ComparisonReport.Design design = report.design();
        boolean paired = design == ComparisonReport.Design.SPLIT_PER_MESSAGE || design == ComparisonReport.Design.MIRROR;
        boolean loadsApart = report.verdict().notJudged().stream().anyMatch(n -> n.contains("measured at different loads"));
        if (paired && !loadsApart) {
            return "Like with like: the route is a " + design.text() + ", so both brokers carried the same mix of customers"
                    + " at comparable loads.";
        }
        StringBuilder b = new StringBuilder("Not like with like:");
        if (!paired) {
            b.append(" the route is a ").append(design.text()).append(", so the brokers carried different customers");
        }
        if (loadsApart) {
            b.append(paired ? "" : ";").append(" their loads were more than 2x apart, so latency and client CPU were not judged");
        }
        return b.append(". To compare them, run the timed comparison (its route is 50/50 per message), or set "
                + "switchboard.routes.orders.weights to {a: 50, b: 50} with per-message: true.").toString();
    }

    /** Warms up, lets the load run for {@code duration}, then prints the comparison; 0 when traffic flowed on both brokers. */
    static int timedComparison(ConfigurableApplicationContext context, Duration duration) throws InterruptedException {
        return timedComparison(context, duration, null, () -> { });
    }

    /**
     * Warms up, lets the load run for {@code duration} (starting one more replica {@code joinAt} into it, when given),
     * then prints the comparison; 0 when traffic flowed on both brokers.
     */
    static int timedComparison(ConfigurableApplicationContext context, Duration duration, Duration joinAt, Runnable join)
            throws InterruptedException {
        Switchboard sb = context.getBean(Switchboard.class);
        LoadGenerator load = context.getBean(LoadGenerator.class);
        // connections, the JIT, the replicas' Kafka groups settling: not the brokers' steady state, so not in the window
        Duration warmUp = context.getEnvironment().getProperty("demo.warm-up", Duration.class, Duration.ofSeconds(10));
        if (!warmUp.isZero()) {
            System.out.printf("Warming up for %ds before the timed window (demo.warm-up)%n", warmUp.toSeconds());
            Thread.sleep(warmUp.toMillis());
        }
        System.out.printf("Comparing %s on the application's own traffic for %ds (route of 'orders': %s)%n",
                sb.instances(), duration.toSeconds(), sb.routing().route("orders"));
        long start = System.nanoTime();
        long end = start + duration.toNanos();
        long joinAtNanos = joinAt == null ? Long.MAX_VALUE : start + joinAt.toNanos();
        while (System.nanoTime() < end) {
            long next = Math.min(end, joinAtNanos);
            Thread.sleep(Math.min(10_000, Math.max(1, (next - System.nanoTime()) / 1_000_000)));
            if (System.nanoTime() >= joinAtNanos) {
                joinAtNanos = Long.MAX_VALUE;
                System.out.printf("  %3ds: one more replica joins the service (demo.join-at)%n", joinAt.toSeconds());
                join.run();
                continue;
            }
            System.out.printf("  %3ds: %d orders placed, %d failed, %d billed, %d shipped%n",
                    duration.toSeconds() - Math.max(0, (end - System.nanoTime()) / 1_000_000_000L), load.placed(), load.failed(),
                    context.getBean(Listeners.class).billed(), context.getBean(Listeners.class).shipped());
        }
        ComparisonReport report = sb.comparison().report("orders", duration);
        System.out.println();
        System.out.println(report.toTable());
        System.out.println(likeForLike(report));
        boolean bothCarried = report.instances().stream().allMatch(i -> i.published() > 0 && i.consumed() > 0);
        System.out.println(bothCarried ? "Both brokers carried traffic; the verdict is above."
                : "A broker carried no traffic: see the table above.");
        return bothCarried && load.failed() == 0 ? 0 : 1;
    }
}
