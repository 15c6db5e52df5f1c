package io.switchboard.testkit.junit;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.testkit.kafka.EmbeddedKafka;
import io.switchboard.testkit.rocketmq.EmbeddedRocketMq;
import java.lang.reflect.Parameter;
import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

@DisplayName("EmbeddedBrokersExtension")
@ExtendWith(EmbeddedBrokersExtension.class)
class EmbeddedBrokersExtensionTest {

    private static EmbeddedKafka fromBeforeAll;

    @BeforeAll
    static void keepBroker(EmbeddedKafka kafka) {
        fromBeforeAll = kafka;
    }

    @Test
    @DisplayName("injects a running Kafka that clients reach at its bootstrap servers, the same one in @BeforeAll")
    void injectsRunningKafka(EmbeddedKafka kafka) throws Exception {
        assertThat(kafka).isSameAs(fromBeforeAll);
        assertThat(kafka.isRunning()).isTrue();

        String topic = "extension-" + UUID.randomUUID();
        kafka.createTopic(topic, 2);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
            Set<String> topics = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            assertThat(topics).contains(topic);
            assertThat(admin.describeCluster().nodes().get(30, TimeUnit.SECONDS)).hasSize(1);
        }
    }

    @Test
    @DisplayName("gives another test class a broker of its own, shared with its @Nested classes and closed after it")
    void closesBrokerAfterItsClass() {
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        LauncherFactory.create().execute(LauncherDiscoveryRequestBuilder.request()
                .selectors(DiscoverySelectors.selectClass(AnotherTestClass.class))
                .build(), listener);
        TestExecutionSummary summary = listener.getSummary();

        assertThat(summary.getFailures()).as("failures of AnotherTestClass").isEmpty();
        assertThat(summary.getTestsSucceededCount()).isEqualTo(2);
        assertThat(AnotherTestClass.seen).isNotNull().isNotSameAs(fromBeforeAll);
        assertThat(AnotherTestClass.seenByNested).as("the @Nested class's broker").isSameAs(AnotherTestClass.seen);
        assertThat(AnotherTestClass.seen.isRunning()).as("its broker runs after the class").isFalse();
        assertThat(fromBeforeAll.isRunning()).as("this class's broker").isTrue();
    }

    @Test
    @DisplayName("provides parameters of the two embedded broker types and no others")
    void supportsTheBrokerTypes() throws Exception {
        Parameter[] parameters = getClass().getDeclaredMethod("sample", EmbeddedKafka.class, EmbeddedRocketMq.class,
                String.class).getParameters();
        EmbeddedBrokersExtension extension = new EmbeddedBrokersExtension();

        assertThat(extension.supportsParameter(context(parameters[0]), null)).isTrue();
        assertThat(extension.supportsParameter(context(parameters[1]), null)).isTrue();
        assertThat(extension.supportsParameter(context(parameters[2]), null)).isFalse();
    }

    @SuppressWarnings("unused") // its parameters are read by supportsTheBrokerTypes
    private static void sample(EmbeddedKafka kafka, EmbeddedRocketMq rocketMq, String other) {
    }

    private static ParameterContext context(Parameter parameter) {
        return (ParameterContext) Proxy.newProxyInstance(ParameterContext.class.getClassLoader(),
                new Class<?>[] {ParameterContext.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getParameter")) {
                        return parameter;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    /** Run by {@link #closesBrokerAfterItsClass()} through the launcher; Surefire skips nested classes. */
    @ExtendWith(EmbeddedBrokersExtension.class)
    static class AnotherTestClass {

        static volatile EmbeddedKafka seen;
        static volatile EmbeddedKafka seenByNested;

        @Test
        void getsABrokerOfItsOwn(EmbeddedKafka kafka) {
            assertThat(kafka.isRunning()).isTrue();
            seen = kafka;
        }

        @Nested
        class Inner {

            @Test
            void sharesTheBrokerOfItsClass(EmbeddedKafka kafka) {
                seenByNested = kafka;
            }
        }
    }
}
