package io.switchboard.schemaregistry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client of the Confluent Schema Registry REST API: registers or looks up a schema under a subject and fetches a
 * schema by id. Apicurio Registry serves the same API under {@code /apis/ccompat/v7}; give that as the base URL.
 *
 * <p>Ids are cached both ways: a schema registered or looked up under a subject, and a schema fetched by id, cost one
 * HTTP call for the life of the client, so a codec makes no call per message after its first. Every call has a
 * deadline ({@link Builder#timeout(Duration)}); basic-auth credentials are sent on every call and are never logged nor
 * shown by {@link #toString()}. Thread-safe; share one client between the codecs of an application.
 *
 * <p>Uses {@code POST /subjects/{subject}/versions} (register), {@code POST /subjects/{subject}} (look up without
 * registering) and {@code GET /schemas/ids/{id}}.
 */
public final class SchemaRegistryClient {
    private static final Logger log = LoggerFactory.getLogger(SchemaRegistryClient.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String MEDIA_TYPE = "application/vnd.schemaregistry.v1+json";

    private final String baseUrl;
    private final Duration timeout;
    private final String authorization; // never logged, never in toString
    private final HttpClient http;
    private final Map<SubjectSchema, Integer> ids = new ConcurrentHashMap<>();
    private final Map<Integer, RegisteredSchema> schemas = new ConcurrentHashMap<>();

    private SchemaRegistryClient(Builder b) {
        this.baseUrl = b.baseUrl;
        this.timeout = b.timeout;
        this.authorization = b.authorization;
        this.http = HttpClient.newBuilder().connectTimeout(b.timeout).followRedirects(HttpClient.Redirect.NORMAL).build();
    }

    /**
     * {@return a builder of a client of the registry at the URL}
     *
     * @param baseUrl the registry's base URL, e.g. {@code http://registry:8081} for Confluent Schema Registry or
     *     {@code http://registry:8080/apis/ccompat/v7} for Apicurio Registry
     * @throws IllegalArgumentException when the URL is not an absolute http or https URL
     */
    public static Builder builder(String baseUrl) {
        return new Builder(baseUrl);
    }

    /** {@return the registry's base URL, without a trailing slash} */
    public String baseUrl() {
        return baseUrl;
    }

    /**
     * Registers the schema under the subject (the registry answers with the existing id when the subject already
     * has it), once per client: later calls with the same subject, type and text are answered from the cache.
     *
     * @param subject the subject, e.g. {@code orders-value}
     * @param type the schema's format
     * @param schema the schema's text
     * @return the schema's id
     * @throws SchemaRegistryException when the registry refuses it (an incompatible schema, bad credentials), answers
     *     something unreadable or not in time
     */
    public int register(String subject, SchemaType type, String schema) {
        return idOf(subject, type, schema, true);
    }

    /**
     * Looks up the id of a schema already registered under the subject, without registering it; cached like {@link
     * #register(String, SchemaType, String)}.
     *
     * @param subject the subject, e.g. {@code orders-value}
     * @param type the schema's format
     * @param schema the schema's text
     * @return the schema's id
     * @throws SchemaRegistryException when the subject does not have the schema (status 404), or the registry
     *     refuses the call, answers something unreadable or not in time
     */
    public int lookup(String subject, SchemaType type, String schema) {
        return idOf(subject, type, schema, false);
    }

    /**
     * Fetches the schema with the id, once per client.
     *
     * @param id the schema's id, as a payload in the wire format carries it
     * @return the schema
     * @throws SchemaRegistryException when the registry does not know the id (status 404), or refuses the call,
     *     answers something unreadable or not in time
     */
    public RegisteredSchema schema(int id) {
        RegisteredSchema cached = schemas.get(id);
        if (cached != null) {
            return cached;
        }
        String url = baseUrl + "/schemas/ids/" + id;
        JsonNode answer = call(HttpRequest.newBuilder(URI.create(url)).GET(), url, "schema id " + id,
                "check that the payload was written against this registry (" + baseUrl + ")");
        JsonNode text = answer.get("schema");
        if (text == null || !text.isTextual()) {
            throw new SchemaRegistryException("The schema registry at " + url + " answered without a \"schema\" for id "
                    + id + "; check that the URL is a Confluent-compatible registry API (for Apicurio Registry: "
                    + "<registry>/apis/ccompat/v7)", 200, null);
        }
        RegisteredSchema schema = new RegisteredSchema(id, typeOf(answer, url), text.asText());
        schemas.put(id, schema);
        log.debug("Fetched schema id {} ({}) from {}", id, schema.type(), baseUrl);
        return schema;
    }

    private int idOf(String subject, SchemaType type, String schema, boolean register) {
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(schema, "schema");
        SubjectSchema key = new SubjectSchema(subject, type, schema);
        Integer cached = ids.get(key);
        if (cached != null) {
            return cached;
        }
        String url = baseUrl + "/subjects/" + URLEncoder.encode(subject, StandardCharsets.UTF_8).replace("+", "%20")
                + (register ? "/versions" : "");
        ObjectNode body = JSON.createObjectNode().put("schema", schema);
        if (type != SchemaType.AVRO) { // Avro is the default; registries older than Confluent 5.5 know no schemaType
            body.put("schemaType", type.name());
        }
        String fix = register
                ? "check that the schema is compatible with the subject's earlier versions (the subject's compatibility "
                        + "setting) and that the credentials may register schemas"
                : "register the schema under subject '" + subject + "' first, or let the codec register it";
        JsonNode answer;
        try {
            answer = call(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", MEDIA_TYPE)
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))), url, "subject '" + subject + "'", fix);
        } catch (IOException e) { // writing a tree of two strings does not fail
            throw new IllegalStateException(e);
        }
        JsonNode id = answer.get("id");
        if (id == null || !id.canConvertToInt()) {
            throw new SchemaRegistryException("The schema registry at " + url + " answered without an \"id\" for subject '"
                    + subject + "'; check that the URL is a Confluent-compatible registry API (for Apicurio Registry: "
                    + "<registry>/apis/ccompat/v7)", 200, null);
        }
        int value = id.asInt();
        ids.put(key, value);
        schemas.putIfAbsent(value, new RegisteredSchema(value, type, schema));
        log.debug("{} schema id {} under subject '{}' at {}", register ? "Registered" : "Found", value, subject, baseUrl);
        return value;
    }

    private JsonNode call(HttpRequest.Builder request, String url, String what, String fix) {
        request.timeout(timeout).header("Accept", MEDIA_TYPE + ", application/json");
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        HttpResponse<String> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (HttpTimeoutException e) {
            throw new SchemaRegistryException("The schema registry at " + url + " did not answer within " + timeout
                    + " (" + what + "); check that the registry is up and reachable, or raise the client's timeout", -1, e);
        } catch (IOException e) {
            throw new SchemaRegistryException("Cannot reach the schema registry at " + url + " (" + what + "): " + e
                    + "; check the registry's URL and that it is up", -1, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SchemaRegistryException("Interrupted while calling the schema registry at " + url + " (" + what
                    + ")", -1, e);
        }
        int status = response.statusCode();
        if (status / 100 != 2) {
            String hint = status == 401 || status == 403
                    ? "check the credentials (SchemaRegistryClient.Builder.basicAuth)"
                    : fix;
            throw new SchemaRegistryException("The schema registry at " + url + " answered " + status + " for " + what
                    + ": " + errorOf(response.body()) + "; " + hint, status, null);
        }
        try {
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new SchemaRegistryException("The schema registry at " + url + " answered " + what
                    + " with a body that is not JSON; check that the URL is a Confluent-compatible registry API", status, e);
        }
    }

    private static String errorOf(String body) {
        try {
            JsonNode error = JSON.readTree(body);
            if (error != null && error.hasNonNull("message")) {
                return error.path("error_code").asText("") + " " + error.get("message").asText();
            }
        } catch (IOException e) {
            // not JSON: the body as it is, shortened
        }
        String text = body == null ? "" : body.strip();
        return text.length() > 200 ? text.substring(0, 200) + "..." : text;
    }

    private static SchemaType typeOf(JsonNode answer, String url) {
        JsonNode type = answer.get("schemaType");
        if (type == null || type.isNull()) {
            return SchemaType.AVRO;
        }
        try {
            return SchemaType.valueOf(type.asText());
        } catch (IllegalArgumentException e) {
            throw new SchemaRegistryException("The schema registry at " + url + " answered with schemaType '"
                    + type.asText() + "'; Switchboard reads AVRO and PROTOBUF schemas, use a codec of that format", 200, e);
        }
    }

    /** {@return the registry's URL and timeout, never the credentials} */
    @Override
    public String toString() {
        return "SchemaRegistryClient[" + baseUrl + ", timeout " + timeout + (authorization == null ? "" : ", basic auth")
                + "]";
    }

    private record SubjectSchema(String subject, SchemaType type, String schema) {}

    /** Builds a {@link SchemaRegistryClient}. */
    public static final class Builder {
        private final String baseUrl;
        private Duration timeout = Duration.ofSeconds(10);
        private String authorization;

        private Builder(String baseUrl) {
            Objects.requireNonNull(baseUrl, "baseUrl");
            String url = baseUrl.strip();
            while (url.endsWith("/")) {
                url = url.substring(0, url.length() - 1);
            }
            URI uri;
            try {
                uri = URI.create(url);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("Schema registry URL '" + baseUrl + "' is not a URL; give e.g. "
                        + "http://registry:8081", e);
            }
            if (uri.getHost() == null || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
                throw new IllegalArgumentException("Schema registry URL '" + baseUrl + "' is not an http or https URL "
                        + "with a host; give e.g. http://registry:8081 (Confluent) or "
                        + "http://registry:8080/apis/ccompat/v7 (Apicurio Registry)");
            }
            this.baseUrl = url;
        }

        /**
         * Sets the deadline of every call: connecting, and the whole answer. 10 seconds unless set.
         *
         * @param timeout a positive duration
         * @return this builder
         */
        public Builder timeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isZero() || timeout.isNegative()) {
                throw new IllegalArgumentException("Schema registry timeout " + timeout + " is not positive; give e.g. "
                        + "Duration.ofSeconds(10)");
            }
            this.timeout = timeout;
            return this;
        }

        /**
         * Sends HTTP basic-auth credentials on every call (Confluent's {@code basic.auth.user.info}). They are kept
         * only as the header's value: never logged, never in a message or {@code toString()}.
         *
         * @param user the user (or API key)
         * @param password the password (or API secret)
         * @return this builder
         */
        public Builder basicAuth(String user, String password) {
            Objects.requireNonNull(user, "user");
            Objects.requireNonNull(password, "password");
            this.authorization = "Basic " + Base64.getEncoder().encodeToString((user + ":" + password)
                    .getBytes(StandardCharsets.UTF_8));
            return this;
        }

        /** {@return the client} */
        public SchemaRegistryClient build() {
            return new SchemaRegistryClient(this);
        }
    }
}
