package io.switchboard.bench.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.switchboard.bench.driver.BrokerEndpoints;
import io.switchboard.bench.workload.Workload;
import io.switchboard.bench.workload.WorkloadParser;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class SuiteRunnerTest {

    @Test
    @DisplayName("--jfr-settings takes the JDK's settings by name and refuses an unknown one, naming it and the choices")
    void jfrSettings() {
        BrokerEndpoints none = new BrokerEndpoints(null, null, null);
        Path dir = Path.of("target", "jfr-settings-test");
        new SuiteRunner(none, Duration.ZERO, dir, "default", Duration.ZERO);
        new SuiteRunner(none, Duration.ZERO, dir, "profile", Duration.ZERO);
        new SuiteRunner(none, Duration.ZERO, dir, "cpu", Duration.ZERO); // default with method samples every 2 ms
        // without --jfr the settings are not read
        new SuiteRunner(none, Duration.ZERO, null, "nonsense", Duration.ZERO);
        assertThatThrownBy(() -> new SuiteRunner(none, Duration.ZERO, dir, "profiel", Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'profiel'").hasMessageContaining("use default, profile or cpu");
    }

    @Test
    @DisplayName("the soak workload parses, and --sdk-only plans it through Switchboard only, once per broker")
    void soakSdkOnly() {
        // the module's directory is the working directory of its tests
        List<Workload> soak = WorkloadParser.parse(Path.of("workloads/soak/soak.yaml"), false);
        assertThat(soak).hasSize(1);
        assertThat(soak.get(0).duration()).hasMinutes(10);
        assertThat(soak.get(0).producerRate()).isEqualTo(2000);

        List<PlannedRun> sdkOnly = SuiteRunner.plan(soak, List.of(), true, false);
        assertThat(sdkOnly).extracting(PlannedRun::broker).containsExactly("kafka", "rabbitmq", "rocketmq");
        assertThat(sdkOnly).extracting(PlannedRun::mode).containsOnly("sdk");

        List<PlannedRun> both = SuiteRunner.plan(soak, List.of("kafka"), false, false);
        assertThat(both).extracting(PlannedRun::mode).containsExactlyInAnyOrder("sdk", "native");

        List<PlannedRun> envelope = SuiteRunner.plan(soak, List.of("rabbitmq"), false, true);
        assertThat(envelope).extracting(PlannedRun::mode).containsExactlyInAnyOrder("sdk", "native", "native-ce");

        List<PlannedRun> all = SuiteRunner.plan(soak, List.of("kafka"), false, true, true);
        assertThat(all).extracting(PlannedRun::mode).containsExactlyInAnyOrder("sdk", "sdk-compact", "native", "native-ce");
        assertThat(SuiteRunner.plan(soak, List.of("kafka"), true, false, true)).extracting(PlannedRun::mode)
                .containsExactlyInAnyOrder("sdk", "sdk-compact");
        assertThat(SuiteRunner.plan(soak, List.of(), false, java.util.Set.of("native-batch"))).extracting(PlannedRun::mode)
                .containsExactlyInAnyOrder("sdk", "native", "sdk", "native", "sdk", "native", "native-batch");
        assertThat(SuiteRunner.plan(soak, List.of("rocketmq"), false, java.util.Set.of("native-batch", "native-ce")))
                .extracting(PlannedRun::mode)
                .containsExactlyInAnyOrder("sdk", "native", "native-ce", "native-batch", "native-batch-ce");
        assertThat(SuiteRunner.plan(soak, List.of("kafka"), false, java.util.Set.of("native-batch", "native-ce")))
                .extracting(PlannedRun::mode).containsExactlyInAnyOrder("sdk", "native", "native-ce");
    }
}
