package io.switchboard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.spring.internal.SwitchboardFailureAnalyzer;
import java.util.function.Consumer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Runs a context that must fail to start and hands the starter's failure analysis to a check. */
final class StartupFailures {

    private StartupFailures() {}

    static void failsWith(ApplicationContextRunner runner, String[] properties, Consumer<FailureAnalysis> check) {
        runner.withPropertyValues(properties).run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = new SwitchboardFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).as("analysis of %s", context.getStartupFailure()).isNotNull();
            check.accept(analysis);
        });
    }
}
