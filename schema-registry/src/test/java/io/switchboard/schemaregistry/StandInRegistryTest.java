package io.switchboard.schemaregistry;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** A test against a fresh {@link StandInRegistry} (a stand-in, not a real registry) and a client of it. */
public abstract class StandInRegistryTest {
    /** The stand-in, started before each test and stopped after it. */
    protected StandInRegistry registry;
    /** A client of it. */
    protected SchemaRegistryClient client;

    @BeforeEach
    void startRegistry() throws Exception {
        registry = new StandInRegistry();
        client = SchemaRegistryClient.builder(registry.url()).build();
    }

    @AfterEach
    void stopRegistry() {
        registry.close();
    }
}
