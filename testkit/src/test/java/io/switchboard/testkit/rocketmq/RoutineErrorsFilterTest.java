package io.switchboard.testkit.rocketmq;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.RejectedExecutionException;
import org.apache.rocketmq.logging.ch.qos.logback.classic.spi.ThrowableProxy;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Which of RocketMQ's ERROR lines the embedded broker keeps off the console. */
class RoutineErrorsFilterTest {

    @Test
    @DisplayName("a client that went away and a server stopping are routine; other errors still reach the console")
    void routineOnly() {
        assertThat(RoutineErrorsFilter.routine("Failed to write response[request code: 11]",
                new ThrowableProxy(new ClosedChannelException()))).isTrue();
        assertThat(RoutineErrorsFilter.routine("processRequestWrapper response to /127.0.0.1:1 failed",
                new ThrowableProxy(new IOException("wrapped", new ClosedChannelException())))).isTrue();
        assertThat(RoutineErrorsFilter.routine("RemotingCommand [code=11, language=JAVA]", null)).isTrue();
        assertThat(RoutineErrorsFilter.routine("the topic t not exist, consumer: 127.0.0.1:5", null)).isTrue();
        assertThat(RoutineErrorsFilter.routine("Failed to submit a listener notification task. Event loop shut down?",
                new ThrowableProxy(new RejectedExecutionException("event executor terminated")))).isTrue();
        assertThat(RoutineErrorsFilter.routine("Handle unregister broker request failed",
                new ThrowableProxy(new InterruptedException()))).isTrue();

        assertThat(RoutineErrorsFilter.routine("ScheduledTask refresh metadata exception",
                new ThrowableProxy(new IOException("connect to 127.0.0.1:1 failed")))).isFalse();
        assertThat(RoutineErrorsFilter.routine("put message failed", new ThrowableProxy(new InterruptedException())))
                .isFalse();
        assertThat(RoutineErrorsFilter.routine("the store is full", null)).isFalse();
        assertThat(RoutineErrorsFilter.routine(null, null)).isFalse();
    }
}
