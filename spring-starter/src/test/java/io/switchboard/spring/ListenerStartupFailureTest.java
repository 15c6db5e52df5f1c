package io.switchboard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.DeliveryContext;
import io.switchboard.Message;
import io.switchboard.spring.internal.SwitchboardFailureAnalyzer;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

@DisplayName("A listener that cannot work fails startup, saying why")
class ListenerStartupFailureTest {

    static final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SwitchboardAutoConfiguration.class));

    private static String failureOf(Object listenerBean, String... properties) {
        String[] message = new String[1];
        runner.withPropertyValues(properties).withBean("listener", Object.class, () -> listenerBean).run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = new SwitchboardFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).as("analysis of %s", context.getStartupFailure()).isNotNull();
            message[0] = analysis.getDescription() + "\n" + analysis.getAction();
        });
        return message[0];
    }

    @Test
    @DisplayName("no payload parameter")
    void noPayload() {
        assertThat(failureOf(new Object() {
            @SwitchboardListener(destination = "x")
            void handle(DeliveryContext context) {}
        })).contains("has no payload parameter");
    }

    @Test
    @DisplayName("a generic payload type")
    void genericPayload() {
        assertThat(failureOf(new Object() {
            @SwitchboardListener(destination = "x")
            void handle(java.util.Map<String, String> items) {}
        })).contains("generic payload type").contains("record");
    }

    @Test
    @DisplayName("a batch listener with another parameter, a return value, or a List of Message")
    void badBatchListeners() {
        assertThat(failureOf(new Object() {
            @SwitchboardListener(destination = "x")
            void handle(List<String> items, io.switchboard.DeliveryContext context) {}
        })).contains("takes a batch and other parameters").contains("Batch<Order>");
        assertThat(failureOf(new Object() {
            @SwitchboardListener(destination = "x")
            String handle(io.switchboard.Batch<String> batch) {
                return "";
            }
        })).contains("returns String").contains("return void");
        assertThat(failureOf(new Object() {
            @SwitchboardListener(destination = "x")
            void handle(List<Message<String>> items) {}
        })).contains("List of Message").contains("Batch<Order>");
    }

    @Test
    @DisplayName("a Message without its type")
    void rawMessage() {
        assertThat(failureOf(new Object() {
            @SwitchboardListener(destination = "x")
            void handle(@SuppressWarnings("rawtypes") Message message) {}
        })).contains("without its payload type");
    }

    @Test
    @DisplayName("an unknown delivery")
    void badDelivery() {
        assertThat(failureOf(new Object() {
            @SwitchboardListener(destination = "x", delivery = "twice")
            void handle(String s) {}
        })).contains("delivery 'twice'").contains("exactly-once");
    }

    @Test
    @DisplayName("a concurrency that is not a positive number")
    void badConcurrency() {
        assertThat(failureOf(new Object() {
            @SwitchboardListener(destination = "x", concurrency = "0")
            void handle(String s) {}
        })).contains("concurrency '0'");
    }

    @Test
    @DisplayName("a destination name the broker refuses")
    void badDestination() {
        assertThat(failureOf(new Object() {
            @SwitchboardListener(destination = "no spaces allowed")
            void handle(String s) {}
        })).contains("could not subscribe to 'no spaces allowed'");
    }

    @Test
    @DisplayName("a malformed tag filter names the filter and the fix")
    void malformedFilter() {
        assertThat(failureOf(new Object() {
            @SwitchboardListener(destination = "filtered")
            void handle(String s) {}
        }, "switchboard.destinations.filtered.filter=paid ||")).contains("'paid ||'").contains("tags joined by '||'");
    }

    @Test
    @DisplayName("a codec that does not fit the payload type names the property")
    void codecMismatch() {
        assertThat(failureOf(new Object() {
            @SwitchboardListener(destination = "typed")
            void handle(ListenerTest.Order order) {}
        }, "switchboard.destinations.typed.codec=bytes")).contains("switchboard.destinations.typed.codec");
    }
}
