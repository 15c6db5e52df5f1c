package io.switchboard.spi;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DaemonThreadsTest {

    @Test
    void makesDaemonThreadsNamedAsAsked() {
        Thread thread = DaemonThreads.newThread("sb-test", () -> { });
        assertThat(thread.isDaemon()).isTrue();
        assertThat(thread.getName()).isEqualTo("sb-test");
        assertThat(DaemonThreads.named("sb-one").newThread(() -> { }).getName()).isEqualTo("sb-one");
        var numbered = DaemonThreads.numbered("sb-n");
        assertThat(numbered.newThread(() -> { }).getName()).isEqualTo("sb-n-1");
        assertThat(numbered.newThread(() -> { }).isDaemon()).isTrue();
    }
}
