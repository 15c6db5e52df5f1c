package io.switchboard.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.routing.ComparisonReport;
import io.switchboard.routing.Promotion;
import io.switchboard.routing.PromotionGate;
import io.switchboard.routing.Route;
import io.switchboard.testkit.fault.TcpProxy;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Promotion gate and broker comparison on real brokers")
class GateAndComparisonTest extends RoutingTestSupport {

    /** Publishes keyed messages at about {@code perSecond} until stopped; returns the thread. */
    static Thread load(Publisher<String> p, int perSecond, AtomicBoolean stop) {
        Thread t = new Thread(() -> {
            long i = 0;
            long intervalNanos = 1_000_000_000L / perSecond;
            long next = System.nanoTime();
            while (!stop.get()) {
                String key = "k" + (i % 100);
                try {
                    p.publish(Message.of(key, key + ":" + i++));
                } catch (RuntimeException e) {
                    return;
                }
                next += intervalNanos;
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    java.util.concurrent.locks.LockSupport.parkNanos(wait);
                }
            }
        }, "load");
        t.setDaemon(true);
        t.start();
        return t;
    }

    @Test
    @DisplayName("a gate advances step by step on a healthy target, and rolls back at once when the target is made slow")
    void gate() throws Exception {
        String healthy = destination("gate_ok");
        String slow = destination("gate_slow");
        TcpProxy proxy = rabbitProxy();
        Switchboard sb = closeAfter(builder().instance("a", "rabbitmq", props(rabbit(), Map.of("rabbitmq.connection-name", healthy + "-a")))
                .instance("b", "rabbitmq", props(rabbitVia(proxy), Map.of("rabbitmq.connection-name", healthy + "-b")))
                .route(healthy, Route.single("a")).route(slow, Route.single("a")).build());
        PromotionGate gate = PromotionGate.from("a").to("b").steps(20, 50, 100).hold(Duration.ofSeconds(2)).maxP99Ratio(5)
                .p99Slack(Duration.ofMillis(100)).minSamples(30).build();
        for (String d : new String[] {healthy, slow}) {
            Subscription s = sb.subscriber(d, TEXT).group("g").subscribe((m, c) -> { });
            s.ready().toCompletableFuture().get();
        }
        AtomicBoolean stop = new AtomicBoolean();
        Publisher<String> okPublisher = sb.publisher(healthy, TEXT).build();
        Thread loadOk = load(okPublisher, 300, stop);

        Promotion ok = sb.routing().promote(healthy, gate);
        Promotion.State end = ok.finished().toCompletableFuture().get(60, TimeUnit.SECONDS);
        System.out.println("healthy gate: " + end + " - " + ok.reason());
        assertThat(end).isEqualTo(Promotion.State.COMPLETED);
        assertThat(sb.routing().route(healthy)).isEqualTo(Route.single("b"));
        assertThat(counter("switchboard.routing.gate.transitions", "destination", healthy, "outcome", "advance")).isEqualTo(2);
        stop.set(true);
        loadOk.join();

        stop.set(false);
        Thread loadSlow = load(sb.publisher(slow, TEXT).build(), 300, stop);
        proxy.delay(Duration.ofMillis(300));
        Promotion bad = sb.routing().promote(slow, gate);
        Promotion.State badEnd = bad.finished().toCompletableFuture().get(60, TimeUnit.SECONDS);
        System.out.println("slow gate: " + badEnd + " - " + bad.reason());
        assertThat(badEnd).isEqualTo(Promotion.State.ROLLED_BACK);
        assertThat(bad.reason()).contains("p99");
        assertThat(sb.routing().route(slow)).isEqualTo(Route.single("a"));
        assertThat(counter("switchboard.routing.gate.transitions", "destination", slow, "outcome", "rollback")).isEqualTo(1);
        stop.set(true);
        loadSlow.join();
        proxy.delay(Duration.ZERO);
    }

    @Test
    @DisplayName("the comparison names the broker made slow, and says 'no significant difference' between identical brokers")
    void comparison() throws Exception {
        String slow = destination("cmp_slow");
        String same = destination("cmp_same");
        TcpProxy proxy = rabbitProxy();
        proxy.delay(Duration.ofMillis(20));
        Switchboard sb = closeAfter(builder()
                .instance("fast", "rabbitmq", props(rabbit(), Map.of("rabbitmq.connection-name", slow + "-fast")))
                .instance("slow", "rabbitmq", props(rabbitVia(proxy), Map.of("rabbitmq.connection-name", slow + "-slow")))
                .route(slow, Route.split(Map.of("fast", 50, "slow", 50)))
                .property("switchboard.comparison.warm-up", "0s").build()); // sums every publish of an 8 s run
        ComparisonReport report = splitRun(sb, slow);
        System.out.println(report.toTable());
        System.out.println(report.toJson());
        assertThat(report.verdict().significant()).isTrue();
        assertThat(report.verdict().findings()).isNotEmpty().allSatisfy(f -> assertThat(f.behind()).isEqualTo("slow"));
        assertThat(report.verdict().summary()).startsWith("fast ahead");
        assertThat(report.toJson()).contains("\"behind\":\"slow\"");

        Switchboard twins = closeAfter(builder()
                .instance("one", "rabbitmq", props(rabbit(), Map.of("rabbitmq.connection-name", same + "-one")))
                .instance("two", "rabbitmq", props(rabbit(), Map.of("rabbitmq.connection-name", same + "-two")))
                .route(same, Route.split(Map.of("one", 50, "two", 50)))
                .property("switchboard.comparison.warm-up", "0s").build());
        ComparisonReport twinReport = splitRun(twins, same);
        System.out.println(twinReport.toTable());
        assertThat(twinReport.verdict().summary()).startsWith("no significant difference");
    }

    /**
     * Subscribes, publishes at 400 msg/s for 8 s, and reports once the report's closed seconds hold every publish
     * acknowledged before the load stopped, each consumed (the report reads closed seconds only).
     */
    private static ComparisonReport splitRun(Switchboard sb, String destination) throws Exception {
        Subscription s = sb.subscriber(destination, TEXT).group("g").subscribe((m, c) -> { });
        s.ready().toCompletableFuture().get();
        AtomicBoolean stop = new AtomicBoolean();
        Thread t = load(sb.publisher(destination, TEXT).build(), 400, stop);
        Thread.sleep(8000); // the load's duration
        stop.set(true);
        t.join();
        long stoppedAt = System.currentTimeMillis();
        AtomicReference<ComparisonReport> report = new AtomicReference<>();
        await("every acknowledged publish of '" + destination + "' consumed, in closed seconds of the comparison report")
                .atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> {
                    ComparisonReport r = sb.comparison().report(destination);
                    report.set(r);
                    long published = r.instances().stream().mapToLong(ComparisonReport.InstanceFigures::published).sum();
                    long consumed = r.instances().stream().mapToLong(ComparisonReport.InstanceFigures::consumed).sum();
                    return System.currentTimeMillis() >= stoppedAt + 1100 && published > 0 && consumed >= published;
                });
        return report.get();
    }
}
