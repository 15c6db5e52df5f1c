package io.switchboard.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.routing.ComparisonReport;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The timed run's last word on its verdict: whether it compared like with like, and what would. No broker needed. */
@DisplayName("The demo says whether its verdict compares like with like")
class LikeForLikeTest {

    @Test
    @DisplayName("per message at comparable loads: like with like")
    void perMessage() {
        assertThat(DemoApplication.likeForLike(report(ComparisonReport.Design.SPLIT_PER_MESSAGE, List.of())))
                .startsWith("Like with like: the route is a split per message");
    }

    @Test
    @DisplayName("by customer at 90/10: not like with like, says why and what would")
    void byKeyAtDifferentLoads() {
        String said = DemoApplication.likeForLike(report(ComparisonReport.Design.SPLIT_BY_KEY, List.of("latency and client CPU "
                + "per message between a and b: measured at different loads: a carried 1075 msg/s and b 125 msg/s (8.6x)")));
        assertThat(said).startsWith("Not like with like: the route is a split by key (sticky)")
                .contains("more than 2x apart").contains("per-message: true");
    }

    private static ComparisonReport report(ComparisonReport.Design design, List<String> notJudged) {
        return new ComparisonReport(Instant.EPOCH, Duration.ofSeconds(60), "orders", List.of(),
                new ComparisonReport.Verdict(List.of(), notJudged, "no significant difference"), "process", List.of(), design);
    }
}
