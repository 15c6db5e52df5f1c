package io.switchboard.examples.demo;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts the demo's brokers before the Spring context and stops them after it: declared before
 * {@code @SpringBootTest}, it wraps Spring's extension, so the application's clients commit and
 * close while the brokers are still up (with {@code @DirtiesContext} closing the context after the class).
 */
final class DemoBrokersExtension implements BeforeAllCallback, AfterAllCallback {

    private DemoBrokers brokers;

    @Override
    public void beforeAll(ExtensionContext context) {
        brokers = DemoBrokers.start(null, "127.0.0.1", 5672);
        brokers.properties().forEach((k, v) -> System.setProperty(k, v.toString()));
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (brokers != null) {
            brokers.properties().keySet().forEach(System::clearProperty);
            brokers.close();
        }
    }
}
