package io.switchboard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.Message;
import io.switchboard.Poller;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

@DisplayName("The Pollers bean: pull consumers with the destination's settings, on the in-memory broker")
@Timeout(60)
class PollersTest {

    static final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SwitchboardAutoConfiguration.class))
            .withPropertyValues("switchboard.properties.[memory.broker]=pollers-test",
                    "switchboard.destinations.jobs.group=workers",
                    "switchboard.destinations.jobs.batch-size=5",
                    "switchboard.destinations.jobs.retry.max-attempts=2",
                    "switchboard.destinations.jobs.retry.initial-backoff=10ms");

    @Test
    @DisplayName("polls what was published in order, brings a nacked message back once, then dead-letters it")
    void pollAckNack() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            Pollers pollers = context.getBean(Pollers.class);
            Poller<String> jobs = pollers.get("jobs", String.class);
            assertThat(pollers.get("jobs", String.class)).isSameAs(jobs);
            assertThat(jobs.subscription().group()).isEqualTo("workers");
            Poller<String> dead = pollers.get("jobs.dlq", String.class);
            Publishers publishers = context.getBean(Publishers.class);
            for (int i = 0; i < 8; i++) {
                publishers.get("jobs", String.class).publish(Message.of("k", "job-" + i)).toCompletableFuture().join();
            }
            List<String> done = new ArrayList<>();
            List<Integer> failedAttempts = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while ((done.size() < 7 || failedAttempts.size() < 2) && System.nanoTime() < deadline) {
                List<Poller.Polled<String>> polled = jobs.poll(10, Duration.ofMillis(200));
                assertThat(polled.size()).as("at most the batch size a poll here").isLessThanOrEqualTo(5);
                for (Poller.Polled<String> p : polled) {
                    if (p.message().payload().equals("job-3")) {
                        failedAttempts.add(p.context().attempt());
                        p.nack(new IllegalStateException("printer on fire"));
                    } else {
                        done.add(p.message().payload());
                        p.ack();
                    }
                }
            }
            assertThat(done).containsExactly("job-0", "job-1", "job-2", "job-4", "job-5", "job-6", "job-7");
            assertThat(failedAttempts).containsExactly(1, 2);
            List<Poller.Polled<String>> deadLetters = new ArrayList<>();
            while (deadLetters.isEmpty() && System.nanoTime() < deadline) {
                deadLetters.addAll(dead.poll(1, Duration.ofMillis(200)));
            }
            assertThat(deadLetters).extracting(p -> p.message().payload()).containsExactly("job-3");
            deadLetters.forEach(Poller.Polled::ack);
        });
    }
}
