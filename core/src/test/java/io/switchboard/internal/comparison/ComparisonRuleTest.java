package io.switchboard.internal.comparison;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Random;
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

    @Test
    @DisplayName("the level follows the window's fill: 2.807 at the full window, times the square root of window / judged before")
    void levelByFill() {
        assertThat(ComparisonEngine.level(60, 60)).isEqualTo(2.807);
        assertThat(ComparisonEngine.level(90, 60)).as("more than the window").isEqualTo(2.807);
        assertThat(ComparisonEngine.level(15, 60)).isCloseTo(5.614, within(1e-9));
        assertThat(ComparisonEngine.level(0, 60)).as("nothing judged yet").isCloseTo(2.807 * Math.sqrt(60), within(1e-9));
        assertThat(ComparisonEngine.intervals(2.807)).isEqualTo("99.5% intervals");
        assertThat(ComparisonEngine.intervals(3.97)).isEqualTo("intervals at z = 3.97");
    }

    @Test
    @DisplayName("a count that drifts over 10 s is dispersed by blocks, though each second alone looks binomial")
    void dispersionByBlocks() {
        Random random = new Random(1);
        int seconds = 60;
        long[] n = new long[seconds];
        long[] hits = new long[seconds];
        long[] drifting = new long[seconds];
        double level = 0;
        for (int s = 0; s < seconds; s++) {
            n[s] = 400;
            level = 0.9 * level + 0.44 * random.nextGaussian(); // AR(1), correlation time about 10 s, sd 1: p99 of a 15% latency drift
            hits[s] = binomial(random, 400, 0.01);
            drifting[s] = binomial(random, 400, 0.01 * Math.exp(0.75 * level));
        }
        double independent = ComparisonEngine.dispersion(hits, n, 0.01);
        double drift = ComparisonEngine.dispersion(drifting, n, (double) java.util.Arrays.stream(drifting).sum() / 24_000);
        assertThat(independent).as("independent seconds (the largest of six estimates, each about 1)").isLessThan(2.5);
        assertThat(drift).as("drifting seconds, against %.2f for independent ones", independent).isGreaterThan(2 * independent);
        assertThat(ComparisonEngine.dispersion(new long[] {1, 2, 3, 4}, new long[] {400, 400, 400, 400}, 0.01))
                .as("fewer than 5 seconds").isNaN();
        long[] tail = {0, 4, 4, 4, 4, 4, 4, 17};
        long[] ended = {0, 40, 40, 40, 40, 40, 40, 17}; // the load's last second: every request left ended by its time-out
        assertThat(ComparisonEngine.dispersion(tail, ended, 0.1)).as("a second with under half the mean count is left out")
                .isEqualTo(1.0);
    }

    @Test
    @DisplayName("client CPU's rank-sum is taken down by its seconds' autocorrelation, not for independent seconds")
    void cpuDependence() {
        Random random = new Random(2);
        double[] a = new double[60];
        double[] b = new double[60];
        double[] ia = new double[60];
        double[] ib = new double[60];
        double la = 0;
        double lb = 0;
        for (int s = 0; s < 60; s++) {
            la = 0.9 * la + 0.2 * Math.sqrt(1 - 0.81) * random.nextGaussian();
            lb = 0.9 * lb + 0.2 * Math.sqrt(1 - 0.81) * random.nextGaussian();
            a[s] = 20 * Math.exp(la);
            b[s] = 20 * Math.exp(lb);
            ia[s] = 20 * Math.exp(0.2 * random.nextGaussian());
            ib[s] = 20 * Math.exp(0.2 * random.nextGaussian());
        }
        assertThat(CostFindings.dependence(a, b)).as("lag-1 autocorrelation 0.9").isGreaterThan(4.0);
        assertThat(CostFindings.dependence(ia, ib)).as("independent seconds").isLessThan(1.6);
    }

    private static long binomial(Random random, int n, double p) {
        long k = 0;
        for (int i = 0; i < n; i++) {
            k += random.nextDouble() < p ? 1 : 0;
        }
        return k;
    }
}
