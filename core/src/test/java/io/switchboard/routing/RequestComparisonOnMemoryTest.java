package io.switchboard.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Codec;
import io.switchboard.Message;
import io.switchboard.Requester;
import io.switchboard.Switchboard;
import io.switchboard.routing.ComparisonReport.Finding;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Request-to-reply latency in the live comparison (issue 86), across a 50/50 split of two memory brokers: the
 * responder on b sleeps before it replies and leaves some requests unanswered, so the report must find b behind on
 * request latency and timeout rate; with the same responder on both, it must find nothing about requests.
 */
@DisplayName("The comparison judges request-to-reply latency per broker (memory broker)")
@Timeout(120)
class RequestComparisonOnMemoryTest {

    private static final Codec<String> TEXT = Codec.utf8();
    /** How long b's responder sleeps before each reply: the planted difference. */
    private static final long B_SLEEP_MILLIS = 5;
    /** Seconds of requests: p50 needs samples in at least 5 seconds. */
    private static final int SECONDS = 7;
    /** Requests made every 10 ms: about 400 a second, 200 on each instance (p50 needs 200 each). */
    private static final int PER_TICK = 4;

    private final Switchboard sb = TwoMemoryBrokers.builder().route("quotes", Route.split(Map.of("a", 50, "b", 50)))
            .property("switchboard.comparison.warm-up", "0s") // every request judged, from the first second
            .build();

    @AfterEach
    void stop() {
        sb.close();
    }

    @Test
    @DisplayName("b's responder 5 ms slower, and silent on one request in ten: b is behind on request p50 and timeout rate")
    void slowerResponderIsBehind() {
        ComparisonReport report = run(true, Duration.ofMillis(500));
        List<Finding> findings = report.verdict().findings();
        assertThat(findings).as(report.toTable()).anySatisfy(f -> {
            assertThat(f.figure()).isEqualTo("request p50");
            assertThat(f.behind()).isEqualTo("b");
            assertThat(f.text()).startsWith("a is ahead on request p50 by");
        }).anySatisfy(f -> {
            assertThat(f.figure()).isEqualTo("request timeout rate");
            assertThat(f.behind()).isEqualTo("b");
        }).as("nothing puts a behind on requests").noneMatch(f -> f.figure().startsWith("request") && f.behind().equals("a"));
        assertThat(report.instances().get(0).requests().timeouts()).as("a answered every request").isZero();
        assertThat(report.toTable()).contains("| request p50 / p99 / p99.9 (ms) |").contains("| request timeout rate |");
    }

    @Test
    @DisplayName("the same responder on both: request p50 judged, no finding about requests")
    void sameResponderNoFinding() {
        ComparisonReport report = run(false, Duration.ofSeconds(5));
        assertThat(report.verdict().notJudged()).as("request p50 is judged").noneMatch(n -> n.startsWith("request p50"));
        assertThat(report.verdict().findings()).as(report.toTable()).noneMatch(f -> f.figure().startsWith("request"));
        assertThat(report.instances()).allSatisfy(i -> {
            assertThat(i.requests().replies()).as("replies through %s", i.instance()).isGreaterThanOrEqualTo(200);
            assertThat(i.requests().timeouts()).isZero();
        });
    }

    /**
     * Replies ({@link #respond}), makes requests with {@code timeout} ({@link #requests}) and returns the report of
     * "quotes" once every request's end is in it, printed.
     */
    private ComparisonReport run(boolean plantOnB, Duration timeout) {
        respond(plantOnB);
        int made = requests(timeout);
        await("every request's end in a closed second").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> sb.comparison().report("quotes").instances().stream().mapToLong(i -> i.requests().ended())
                        .sum() == made);
        // the window the requests ran in (and the seconds their ends took), not the default minute: a verdict read while
        // its window fills judges at a stricter level
        ComparisonReport report = sb.comparison().report("quotes", Duration.ofSeconds(SECONDS + 2));
        System.out.print(report.toTable());
        return report;
    }

    /** A replying subscription; with {@code plantOnB}, b's handler sleeps before it replies and ignores every 10th. */
    private void respond(boolean plantOnB) {
        sb.subscriber("quotes", TEXT).group("pricing").concurrency(8).subscribeReplying(TEXT, (m, c) -> {
            if (plantOnB && c.instance().equals("b")) {
                if (Integer.parseInt(m.payload()) % 10 == 0) {
                    return null; // no reply: the request times out
                }
                Thread.sleep(B_SLEEP_MILLIS);
            }
            return "re:" + m.payload();
        }).ready().toCompletableFuture().orTimeout(10, TimeUnit.SECONDS).join();
    }

    /** Makes requests for {@link #SECONDS} at a steady pace, waits until every one ended; returns how many it made. */
    private int requests(Duration timeout) {
        List<CompletableFuture<Message<String>>> ended = new ArrayList<>();
        try (Requester<String, String> requester = sb.requester("quotes", TEXT, TEXT).timeout(timeout).build()) {
            long tick = TimeUnit.MILLISECONDS.toNanos(10);
            long next = System.nanoTime();
            long end = next + TimeUnit.SECONDS.toNanos(SECONDS);
            int n = 0;
            while (System.nanoTime() < end) {
                for (int i = 0; i < PER_TICK; i++) {
                    ended.add(requester.request(Message.of(Integer.toString(n++))));
                }
                next += tick;
                LockSupport.parkNanos(Math.max(0, next - System.nanoTime()));
            }
            CompletableFuture.allOf(ended.stream().map(f -> f.exceptionally(e -> null)).toArray(CompletableFuture[]::new))
                    .orTimeout(60, TimeUnit.SECONDS).join();
            await("no request pending").atMost(Duration.ofSeconds(10)).until(() -> requester.pending() == 0);
            return n;
        }
    }
}
