package io.switchboard.internal.comparison;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.routing.ComparisonReport.Finding;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The comparison's judgement of client CPU per message (per-second figures)")
class CostFindingsTest {

    private final List<Finding> findings = new ArrayList<>();
    private final List<String> notJudged = new ArrayList<>();
    private final Map<String, Integer> wins = new HashMap<>();

    @Test
    @DisplayName("two preempted seconds in the cheaper instance do not hide a 50 us difference (a CI run's shape)")
    void longTailDoesNotHideADifference() {
        assertThat(ClientCost.measured()).as("this JVM has thread CPU clocks").isTrue();
        double[] a = {15, 14, 16, 15, 13, 17, 15, 14, 16, 15, 300, 15, 320}; // mean 60
        double[] b = {68, 70, 66, 69, 71, 67, 68, 72, 65, 69, 70, 68, 74}; // mean 69
        assertThat(CostFindings.judge("a", a, "b", b, 0.10, findings, notJudged, wins)).isEqualTo(1);
        assertThat(findings).singleElement().satisfies(f -> {
            assertThat(f.ahead()).isEqualTo("a");
            assertThat(f.behind()).isEqualTo("b");
            assertThat(f.aheadValue()).isEqualTo(15.0);
            assertThat(f.behindValue()).isEqualTo(69.0);
            assertThat(f.text()).startsWith("a is ahead on client CPU per message by 78% (15.0 us vs 69.0 us, medians of 13 "
                    + "and 13 seconds, rank-sum z = ");
        });
        assertThat(wins).containsEntry("a", 1);
    }

    @Test
    @DisplayName("the same figures in another order are no finding; nor is a difference below min-difference")
    void noDifference() {
        assertThat(ClientCost.measured()).as("this JVM has thread CPU clocks").isTrue();
        double[] a = {10, 12, 11, 13, 9, 10, 12, 11, 13, 9, 40};
        double[] b = {13, 9, 40, 10, 12, 11, 12, 11, 10, 9, 13};
        CostFindings.judge("a", a, "b", b, 0.10, findings, notJudged, wins);
        double[] c = {100, 101, 100, 101, 100, 101, 100, 101, 100, 101};
        double[] d = {105, 106, 105, 106, 105, 106, 105, 106, 105, 106};
        assertThat(CostFindings.judge("c", c, "d", d, 0.10, findings, notJudged, wins)).as("judged").isEqualTo(1);
        assertThat(findings).as("5% apart, below min-difference 10%, though every d ranks above c").isEmpty();
        CostFindings.judge("c", c, "d", d, 0.04, findings, notJudged, wins);
        assertThat(findings).as("the same at min-difference 4%").singleElement()
                .satisfies(f -> assertThat(f.ahead()).isEqualTo("c"));
    }

    @Test
    @DisplayName("fewer than 10 seconds on a side is not judged, and says so")
    void tooFewSeconds() {
        assertThat(ClientCost.measured()).as("this JVM has thread CPU clocks").isTrue();
        double[] a = {1, 1, 1, 1, 1, 1, 1, 1, 1};
        double[] b = {9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9};
        assertThat(CostFindings.judge("a", a, "b", b, 0.10, findings, notJudged, wins)).isZero();
        assertThat(findings).isEmpty();
        assertThat(notJudged).containsExactly("client CPU per message: a has 9 and b has 11 seconds with at least 10 "
                + "messages; needs 10 each");
    }

    @Test
    @DisplayName("rank-sum z: ties share their rank, all-equal figures give 0, complete separation of 10 and 10 gives 3.78")
    void rankSumZ() {
        double[] low = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
        double[] high = {11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
        assertThat(CostFindings.rankSumZ(low, high)).isCloseTo(-3.78, org.assertj.core.data.Offset.offset(0.01));
        assertThat(CostFindings.rankSumZ(high, low)).isCloseTo(3.78, org.assertj.core.data.Offset.offset(0.01));
        assertThat(CostFindings.rankSumZ(new double[] {5, 5, 5}, new double[] {5, 5})).isZero();
        assertThat(CostFindings.rankSumZ(low, low.clone())).isZero();
    }
}
