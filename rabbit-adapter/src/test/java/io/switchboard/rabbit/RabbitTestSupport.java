package io.switchboard.rabbit;

import io.switchboard.Switchboard;
import io.switchboard.testkit.rabbit.RabbitMqServer;
import io.switchboard.testkit.rabbit.RabbitScratch;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;

/** A fresh scratch (unique names, deleted afterwards) and Switchboards on the local server, per test. */
abstract class RabbitTestSupport {

    static final RabbitMqServer SERVER = RabbitMqServer.local();
    static final Duration TIMEOUT = Duration.ofSeconds(60);

    RabbitScratch scratch;
    private final List<Switchboard> switchboards = new ArrayList<>();

    @BeforeEach
    void openScratch(TestInfo info) {
        SERVER.require();
        scratch = SERVER.scratch(info.getTestMethod().map(m -> m.getName()).orElse("test"));
    }

    @AfterEach
    void closeEverything() throws Exception {
        switchboards.forEach(Switchboard::close);
        scratch.close();
    }

    /** The client-provided name prefix of the connections of {@link #switchboard}'s adapters. */
    String connectionName() {
        return scratch.name("conn");
    }

    /** A Switchboard on the local server; extra properties as key, value pairs. Closed after the test. */
    Switchboard switchboard(String... keyValues) {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("rabbitmq.uri", SERVER.uriWithCredentials());
        properties.put("rabbitmq.connection-name", connectionName());
        for (int i = 0; i < keyValues.length; i += 2) {
            properties.put(keyValues[i], keyValues[i + 1]);
        }
        Switchboard sb = Switchboard.builder().broker("rabbitmq").properties(properties).build();
        switchboards.add(sb);
        return sb;
    }

    static <T> T join(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }
}
