package io.switchboard.internal.comparison;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The comparison's rule for a latency quantile")
class ComparisonRuleTest {

    @Test
    @DisplayName("disjoint intervals 0.05 ms apart (11%, seen between two instances on one broker) are no difference")
    void belowHalfAMillisecond() {
        assertThat(ComparisonEngine.differs(0.44, new double[] {0.43, 0.45}, 0.49, new double[] {0.49, 0.50}, 0.10)).isFalse();
    }

    @Test
    @DisplayName("disjoint intervals, 10% or more and 0.5 ms or more apart, differ")
    void aRealDifference() {
        assertThat(ComparisonEngine.differs(1.64, new double[] {1.18, 6.02}, 41.22, new double[] {24.96, 41.73}, 0.10)).isTrue();
        assertThat(ComparisonEngine.differs(4.0, new double[] {3.9, 4.1}, 4.6, new double[] {4.5, 4.7}, 0.10)).isTrue();
    }

    @Test
    @DisplayName("overlapping intervals, or less than the relative minimum, are no difference")
    void overlapOrSmallRelativeGap() {
        assertThat(ComparisonEngine.differs(10.0, new double[] {9.0, 12.0}, 11.5, new double[] {11.0, 12.5}, 0.10)).isFalse();
        assertThat(ComparisonEngine.differs(50.0, new double[] {49.9, 50.1}, 52.0, new double[] {51.9, 52.1}, 0.10)).isFalse();
    }
}
