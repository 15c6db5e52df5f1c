package io.switchboard.testkit.junit;

import io.switchboard.testkit.kafka.EmbeddedKafka;
import io.switchboard.testkit.rocketmq.EmbeddedRocketMq;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A JUnit 5 extension that gives a test class real brokers: a parameter of type {@link EmbeddedKafka}
 * or {@link EmbeddedRocketMq} (in a test method, a {@code @BeforeAll}, {@code @BeforeEach} or other
 * lifecycle method, or the constructor) receives a running broker.
 *
 * <pre>{@code
 * @ExtendWith(EmbeddedBrokersExtension.class)
 * class OrderServiceTest {
 *
 *     @Test
 *     void publishesOrders(EmbeddedKafka kafka) {
 *         try (Switchboard sb = Switchboard.builder().broker("kafka")
 *                 .property("kafka.bootstrap.servers", kafka.bootstrapServers())
 *                 .build()) {
 *             // ... the code under test, on a real Kafka
 *         }
 *     }
 * }
 * }</pre>
 *
 * <p>Each broker starts when a test of the class first asks for it, once per top-level test class
 * (its {@code @Nested} classes share it), and is closed after the class's last test and
 * {@code @AfterAll} method, which deletes its data. Tests of one class therefore see each other's
 * topics: give each test topic and group names of its own. A class that asks only for Kafka starts
 * only Kafka, so the other broker's jars may be left off the test class path.
 *
 * <p>Kafka is {@link EmbeddedKafka#start()} (KRaft, one node, a few seconds to start);
 * RocketMQ is {@link EmbeddedRocketMq#start()} (a name server and a broker; start the test JVM
 * with {@code -Dtls.server.mode=disabled} to spare it a certificate at every start). A test that
 * needs special broker settings, or a broker it stops and restarts, builds one itself with
 * {@link EmbeddedKafka#builder()}; suites that should share one broker per JVM use
 * {@link EmbeddedKafka#shared()} or {@link EmbeddedRocketMq#shared()} instead of this extension.
 *
 * <p>Closing relies on JUnit Jupiter closing {@link AutoCloseable} values of its extension store,
 * which Jupiter 5.13 and later do by default (testkit brings 5.14).
 */
public final class EmbeddedBrokersExtension implements ParameterResolver {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedBrokersExtension.class);
    private static final Namespace NAMESPACE = Namespace.create(EmbeddedBrokersExtension.class);

    // Compared by name so that a class path without one broker's jars still works for the other broker.
    static final String KAFKA = "io.switchboard.testkit.kafka.EmbeddedKafka";
    static final String ROCKETMQ = "io.switchboard.testkit.rocketmq.EmbeddedRocketMq";

    /** Creates the extension; JUnit does so for {@code @ExtendWith(EmbeddedBrokersExtension.class)}. */
    public EmbeddedBrokersExtension() {
    }

    /**
     * Tells whether the parameter is one this extension provides: of type {@link EmbeddedKafka} or
     * {@link EmbeddedRocketMq}.
     *
     * @param parameterContext the parameter to resolve
     * @param extensionContext the test or container that declares it
     * @return true for a broker parameter
     */
    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        String type = parameterContext.getParameter().getType().getName();
        return type.equals(KAFKA) || type.equals(ROCKETMQ);
    }

    /**
     * Returns the test class's broker of the parameter's type, starting it on the first request. A
     * broker that does not start fails every test that asks for it, with the broker's error.
     *
     * @param parameterContext the parameter to resolve
     * @param extensionContext the test or container that declares it
     * @return the running broker
     */
    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        String type = parameterContext.getParameter().getType().getName();
        ExtensionContext owner = topLevelClass(extensionContext);
        // only the chosen method reference is linked: the other broker's classes need not be there
        Supplier<AutoCloseable> start = type.equals(KAFKA) ? EmbeddedKafka::start : EmbeddedRocketMq::start;
        return owner.getStore(NAMESPACE).getOrComputeIfAbsent(type, key -> {
            log.debug("Starting {} for {}; it stops after the class's last test", key, owner.getDisplayName());
            return start.get();
        }, AutoCloseable.class);
    }

    /** The context of the outermost test class around {@code context}: brokers live as long as it. */
    private static ExtensionContext topLevelClass(ExtensionContext context) {
        ExtensionContext root = context.getRoot();
        ExtensionContext current = context;
        Optional<ExtensionContext> parent = current.getParent();
        while (parent.isPresent() && parent.get() != root) {
            current = parent.get();
            parent = current.getParent();
        }
        return current;
    }
}
