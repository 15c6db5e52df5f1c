package io.switchboard.schemaregistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The client against {@link StandInRegistry}, a stand-in for a registry (not a real one). */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SchemaRegistryClientTest extends StandInRegistryTest {
    private static final String SCHEMA = "{\"type\":\"record\",\"name\":\"Order\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"}]}";


    @Test
    void registersOnceAndAnswersFromTheCacheBothWays() {
        SchemaRegistryClient client = SchemaRegistryClient.builder(registry.url() + "/").build();

        int id = client.register("orders-value", SchemaType.AVRO, SCHEMA);
        assertThat(client.register("orders-value", SchemaType.AVRO, SCHEMA)).isEqualTo(id);
        assertThat(client.lookup("orders-value", SchemaType.AVRO, SCHEMA)).isEqualTo(id);
        assertThat(client.schema(id)).isEqualTo(new RegisteredSchema(id, SchemaType.AVRO, SCHEMA));

        // a schema registered under the subject is also known there to a look-up: one call in all
        assertThat(registry.requests).containsExactly("POST /subjects/orders-value/versions");
    }

    @Test
    void fetchesASchemaByIdOnceAndReadsItsType() {
        registry.seed("other-value", 7, "PROTOBUF", "syntax = \"proto3\"; message A { int64 id = 1; }");
        SchemaRegistryClient client = SchemaRegistryClient.builder(registry.url()).build();

        RegisteredSchema schema = client.schema(7);
        client.schema(7);

        assertThat(schema.type()).isEqualTo(SchemaType.PROTOBUF);
        assertThat(schema.schema()).contains("message A");
        assertThat(registry.requests).containsExactly("GET /schemas/ids/7");
    }

    @Test
    void sendsAProtobufSchemaTypeAndEncodesTheSubject() {
        SchemaRegistryClient client = SchemaRegistryClient.builder(registry.url()).build();

        int id = client.register("team a/orders-value", SchemaType.PROTOBUF, "syntax = \"proto3\";");

        assertThat(registry.requests).containsExactly("POST /subjects/team%20a%2Forders-value/versions");
        registry.requests.clear();
        assertThat(client.schema(id).type()).isEqualTo(SchemaType.PROTOBUF);
        assertThat(registry.requests).isEmpty();
    }

    @Test
    void sendsBasicAuthButNeverShowsIt() {
        SchemaRegistryClient client = SchemaRegistryClient.builder(registry.url()).basicAuth("svc", "s3cr3t-pw").build();

        client.register("orders-value", SchemaType.AVRO, SCHEMA);

        assertThat(registry.authorizations).containsExactly(
                "Basic " + Base64.getEncoder().encodeToString("svc:s3cr3t-pw".getBytes(StandardCharsets.UTF_8)));
        assertThat(client.toString()).contains(registry.url()).doesNotContain("s3cr3t-pw").doesNotContain("svc");
        assertThatThrownBy(() -> client.schema(99)).hasMessageNotContaining("s3cr3t-pw");
    }

    @Test
    void anUnknownIdNamesTheUrlTheIdAndTheFix() {
        SchemaRegistryClient client = SchemaRegistryClient.builder(registry.url()).build();

        assertThatThrownBy(() -> client.schema(42))
                .isInstanceOf(SchemaRegistryException.class)
                .hasMessageContaining(registry.url() + "/schemas/ids/42")
                .hasMessageContaining("404")
                .hasMessageContaining("40403 Schema not found")
                .hasMessageContaining("check that the payload was written against this registry")
                .satisfies(e -> assertThat(((SchemaRegistryException) e).status()).isEqualTo(404));
    }

    @Test
    void aLookupOfAnUnregisteredSchemaNamesTheSubjectAndTheFix() {
        SchemaRegistryClient client = SchemaRegistryClient.builder(registry.url()).build();

        assertThatThrownBy(() -> client.lookup("orders-value", SchemaType.AVRO, SCHEMA))
                .isInstanceOf(SchemaRegistryException.class)
                .hasMessageContaining(registry.url() + "/subjects/orders-value")
                .hasMessageContaining("subject 'orders-value'")
                .hasMessageContaining("register the schema under subject 'orders-value' first");
    }

    @Test
    void aRegistryThatDoesNotAnswerFailsAtTheDeadline() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        HttpServer silent = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        silent.createContext("/", exchange -> {
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            exchange.close();
        });
        silent.start();
        try {
            String url = "http://127.0.0.1:" + silent.getAddress().getPort();
            SchemaRegistryClient client = SchemaRegistryClient.builder(url).timeout(Duration.ofMillis(300)).build();
            long start = System.nanoTime();

            assertThatThrownBy(() -> client.schema(1))
                    .isInstanceOf(SchemaRegistryException.class)
                    .hasMessageContaining(url + "/schemas/ids/1")
                    .hasMessageContaining("did not answer within PT0.3S")
                    .hasMessageContaining("raise the client's timeout");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        } finally {
            release.countDown();
            silent.stop(0);
        }
    }

    @Test
    void aRegistryThatIsDownNamesTheUrl() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        SchemaRegistryClient client = SchemaRegistryClient.builder("http://127.0.0.1:" + port)
                .timeout(Duration.ofSeconds(2)).build();

        assertThatThrownBy(() -> client.register("orders-value", SchemaType.AVRO, SCHEMA))
                .isInstanceOf(SchemaRegistryException.class)
                .hasMessageContaining("http://127.0.0.1:" + port + "/subjects/orders-value/versions")
                .hasMessageContaining("check the registry's URL and that it is up");
    }

    @Test
    void refusesAUrlThatIsNotHttp() {
        assertThatThrownBy(() -> SchemaRegistryClient.builder("registry:8081"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'registry:8081'")
                .hasMessageContaining("http://registry:8081");
        assertThatThrownBy(() -> SchemaRegistryClient.builder("http://r:8081").timeout(Duration.ZERO))
                .hasMessageContaining("not positive");
    }
}
