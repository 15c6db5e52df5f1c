package io.switchboard.schemaregistry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stand-in for a schema registry in tests, NOT a real registry: a JDK HTTP server answering the three calls of the
 * Confluent Schema Registry REST API the client makes, as the API's documentation describes them (register under a
 * subject, look up under a subject, fetch by id, errors as {@code {"error_code": ..., "message": ...}}). It checks no
 * compatibility and keeps schemas as the exact text it was sent.
 */
public final class StandInRegistry implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpServer server;
    private final Map<Integer, JsonNode> byId = new ConcurrentHashMap<>();
    private final Map<String, Map<String, Integer>> subjects = new ConcurrentHashMap<>();
    private final AtomicInteger nextId = new AtomicInteger(1);
    /** Every request, as "METHOD path". */
    public final List<String> requests = new CopyOnWriteArrayList<>();
    /** Requests still to answer 503 Service Unavailable, as a registry that is down (one each, counted down). */
    public final java.util.concurrent.atomic.AtomicInteger outages = new java.util.concurrent.atomic.AtomicInteger();
    /** Every request's Authorization header ("none" when absent). */
    public final List<String> authorizations = new CopyOnWriteArrayList<>();

    /** Starts the stand-in on a free loopback port. */
    public StandInRegistry() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.start();
    }

    /** {@return the base URL} */
    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /**
     * Holds a schema under an id, as a registry that already has it (for payloads recorded elsewhere).
     *
     * @param subject the subject it is registered under
     * @param id its id
     * @param schemaType AVRO or PROTOBUF
     * @param schema its text
     */
    public void seed(String subject, int id, String schemaType, String schema) {
        byId.put(id, stored(schema, schemaType));
        subjects.computeIfAbsent(subject, s -> new ConcurrentHashMap<>()).put(schemaType + ":" + schema, id);
        nextId.accumulateAndGet(id + 1, Math::max);
    }

    /** As Confluent's registry answers: no schemaType for Avro, the default. */
    private static JsonNode stored(String schema, String type) {
        var node = JSON.createObjectNode().put("schema", schema);
        return type.equals("AVRO") ? node : node.put("schemaType", type);
    }

    private void handle(HttpExchange exchange) throws IOException {
        String method = exchange.getRequestMethod();
        String path = exchange.getRequestURI().getRawPath();
        requests.add(method + " " + path);
        String auth = exchange.getRequestHeaders().getFirst("Authorization");
        authorizations.add(auth == null ? "none" : auth);
        try (exchange) {
            if (outages.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                answer(exchange, 503, "{\"error_code\":50301,\"message\":\"Service unavailable\"}");
                return;
            }
            if (method.equals("GET") && path.startsWith("/schemas/ids/")) {
                JsonNode schema = byId.get(Integer.parseInt(path.substring("/schemas/ids/".length())));
                if (schema == null) {
                    answer(exchange, 404, "{\"error_code\":40403,\"message\":\"Schema not found\"}");
                } else {
                    answer(exchange, 200, JSON.writeValueAsString(schema));
                }
                return;
            }
            if (method.equals("POST") && path.startsWith("/subjects/")) {
                String rest = path.substring("/subjects/".length());
                boolean register = rest.endsWith("/versions");
                String subject = URLDecoder.decode(register ? rest.substring(0, rest.length() - "/versions".length()) : rest,
                        StandardCharsets.UTF_8);
                JsonNode body = JSON.readTree(exchange.getRequestBody());
                String type = body.path("schemaType").asText("AVRO");
                String key = type + ":" + body.path("schema").asText();
                Map<String, Integer> versions = subjects.computeIfAbsent(subject, s -> new ConcurrentHashMap<>());
                Integer id = versions.get(key);
                if (id == null && !register) {
                    answer(exchange, 404, "{\"error_code\":40401,\"message\":\"Subject '" + subject + "' not found.\"}");
                    return;
                }
                if (id == null) {
                    id = byId.entrySet().stream()
                            .filter(e -> (e.getValue().path("schemaType").asText("AVRO") + ":" + e.getValue().path("schema").asText()).equals(key))
                            .map(Map.Entry::getKey).findFirst().orElseGet(nextId::getAndIncrement);
                    byId.put(id, stored(body.path("schema").asText(), type));
                    versions.put(key, id);
                }
                answer(exchange, 200, "{\"id\":" + id + "}");
                return;
            }
            answer(exchange, 404, "{\"error_code\":404,\"message\":\"HTTP 404 Not Found\"}");
        }
    }

    private static void answer(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/vnd.schemaregistry.v1+json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
