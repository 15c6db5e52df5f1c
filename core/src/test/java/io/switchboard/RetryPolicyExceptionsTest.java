package io.switchboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
@DisplayName("RetryPolicy's exception classification")
class RetryPolicyExceptionsTest {

    @Test
    @DisplayName("retries every failure when nothing is listed")
    void retriesAllByDefault() {
        assertThat(RetryPolicy.DEFAULT.exceptions()).isSameAs(RetryPolicy.Exceptions.ALL);
        assertThat(RetryPolicy.DEFAULT.retries(new IllegalArgumentException())).isTrue();
        assertThat(new RetryPolicy(2, Duration.ZERO, 1.0, Duration.ZERO, 0.0, null).exceptions().all()).isTrue();
    }

    @Test
    @DisplayName("does not retry a listed type or its subtypes, and retries the rest")
    void notRetrying() {
        RetryPolicy p = RetryPolicy.DEFAULT.notRetrying(IllegalArgumentException.class);
        assertThat(p.retries(new IllegalArgumentException("bad"))).isFalse();
        assertThat(p.retries(new NumberFormatException("bad"))).isFalse();
        assertThat(p.retries(new IllegalStateException("busy"))).isTrue();
        assertThat(p.maxAttempts()).isEqualTo(3);
    }

    @Test
    @DisplayName("with retryable types, retries only those")
    void retryingOnly() {
        RetryPolicy p = RetryPolicy.DEFAULT.retryingOnly(TimeoutException.class, UncheckedIOException.class);
        assertThat(p.retries(new TimeoutException())).isTrue();
        assertThat(p.retries(new UncheckedIOException(new IOException()))).isTrue();
        assertThat(p.retries(new IllegalStateException())).isFalse();
    }

    @Test
    @DisplayName("looks through the cause chain: the nearest listed exception decides")
    void causes() {
        RetryPolicy p = RetryPolicy.DEFAULT.notRetrying(IllegalArgumentException.class);
        assertThat(p.retries(new CompletionException(new InvocationTargetException(new IllegalArgumentException())))).isFalse();
        RetryPolicy both = p.retryingOnly(UncheckedIOException.class);
        assertThat(both.retries(new UncheckedIOException(new IOException(new IllegalArgumentException())))).isTrue();
        assertThat(both.retries(new RuntimeException(new IllegalArgumentException()))).isFalse();
        assertThat(both.retries(new RuntimeException(new RuntimeException()))).as("nothing listed, retryable types given")
                .isFalse();
    }

    @Test
    @DisplayName("the most specific listed type wins, superclasses before interfaces")
    void specificity() {
        RetryPolicy p = RetryPolicy.DEFAULT.notRetrying(IllegalArgumentException.class).retryingOnly(RuntimeException.class);
        assertThat(p.retries(new NumberFormatException())).isFalse();
        assertThat(p.retries(new IllegalStateException())).isTrue();
        assertThat(p.retries(new IllegalArgumentException())).isFalse();
        assertThat(p.retries(new Exception())).as("not a RuntimeException: nothing listed").isFalse();
    }

    @Test
    @DisplayName("a test narrows what the types retry; several must all agree; one that throws counts as yes")
    void tests() {
        RetryPolicy p = RetryPolicy.DEFAULT.retryingWhen(e -> !e.getMessage().startsWith("4"));
        assertThat(p.retries(new IllegalStateException("404"))).isFalse();
        assertThat(p.retries(new IllegalStateException("503"))).isTrue();
        assertThat(p.retryingWhen(e -> false).retries(new IllegalStateException("503"))).isFalse();
        assertThat(p.retries(new IllegalStateException((String) null))).as("the test threw").isTrue();
        assertThat(p.notRetrying(IllegalStateException.class).retries(new IllegalStateException("503"))).isFalse();
    }

    @Test
    @DisplayName("keeps the classification through viaBroker and compares by it")
    void immutable() {
        RetryPolicy p = RetryPolicy.fixed(3, Duration.ofSeconds(1)).notRetrying(IllegalArgumentException.class);
        RetryPolicy broker = p.viaBroker(Duration.ofSeconds(1));
        assertThat(broker.retries(new IllegalArgumentException())).isFalse();
        assertThat(p).isEqualTo(RetryPolicy.fixed(3, Duration.ofSeconds(1)).notRetrying(IllegalArgumentException.class));
        assertThat(p).isNotEqualTo(RetryPolicy.fixed(3, Duration.ofSeconds(1)));
        assertThat(RetryPolicy.DEFAULT.exceptions().all()).as("the original is unchanged").isTrue();
    }

    @Test
    @DisplayName("refuses a type listed both ways, and an empty list, naming the fix")
    void validates() {
        assertThatThrownBy(() -> RetryPolicy.DEFAULT.notRetrying(IllegalArgumentException.class)
                .retryingOnly(IllegalArgumentException.class)).isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("java.lang.IllegalArgumentException").hasMessageContaining("not in both");
        assertThatThrownBy(() -> RetryPolicy.DEFAULT.notRetrying()).isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("at least one exception type");
    }
}
