package io.switchboard;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * A codec for a destination that carries several payload types, each named by a type id in a header: the payload's
 * class picks the type id a publisher writes, and the type id a received message carries picks the class it is read
 * into.
 *
 * <p>By default the header is Spring's {@value #SPRING_TYPE_ID} (what spring-kafka's {@code JsonSerializer} and
 * spring-amqp's {@code Jackson2JsonMessageConverter} write and read), and the type id of a class is its name, so a
 * Switchboard publisher and a Spring consumer, or a Spring producer and a Switchboard subscription, read each
 * other's messages both ways. {@link Builder#cloudEventsType()} uses the CloudEvents {@code type} attribute
 * ({@link Envelope#TYPE}) instead, which every Switchboard envelope carries.
 *
 * <p>Only the registered types are read: a received type id that is not registered (a class name Spring would load
 * if its package were trusted) is never loaded; decoding fails with a {@link CodecException} naming the type id and
 * the registered ones, so the message goes to the dead-letter destination (reason {@code undecodable}), unless
 * {@link Builder#unknownTypesAsBytes()} hands it on as an {@link Unknown} payload (to {@link TypeDispatch}'s default
 * handler). A message without the header is read as the {@link Builder#defaultType(Class) default type}, or fails
 * the same way. A publisher writes the registered id of the payload's class (or of its nearest registered
 * superclass or interface), and for a class not registered its name, as Spring's serializer does (so a publisher's
 * codec needs no registered type).
 *
 * <pre>{@code
 * TypedCodec<Object> codec = TypedCodec.json()
 *         .type(OrderPlaced.class)                       // type id "com.acme.OrderPlaced"
 *         .type("order-cancelled", OrderCancelled.class) // Spring's type mapping "order-cancelled:com.acme.OrderCancelled"
 *         .build();
 * Publisher<Object> orders = switchboard.publisher("orders", codec).build();
 * }</pre>
 *
 * @param <T> the payloads' common type, usually {@code Object}
 */
public final class TypedCodec<T> implements Codec<T> {

    /** Spring's type-id header ({@code AbstractJavaTypeMapper.DEFAULT_CLASSID_FIELD_NAME}). */
    public static final String SPRING_TYPE_ID = "__TypeId__";

    private static final Pattern TYPE_ID = Pattern.compile("[\\x21-\\x7e]{1,255}");

    private final String header;
    private final Map<String, Registered<?>> byId;
    private final Map<Class<?>, String> idOfClass;
    /** The type id of each payload class seen by a publisher: registered, inherited or its name. */
    private final ConcurrentHashMap<Class<?>, String> resolved = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Class<?>, Codec<?>> fallback = new ConcurrentHashMap<>();
    private final ObjectMapper mapper;
    private final Registered<?> defaultType;
    private final boolean unknownAsBytes;
    private final String contentType;

    private record Registered<X>(String id, Class<X> type, Codec<X> codec) {}

    /**
     * A received message whose type id is not registered, handed on as it came when the codec was built with
     * {@link Builder#unknownTypesAsBytes()}.
     *
     * @param typeId the type id the message carried, or null when it carried none
     * @param bytes the payload as received
     */
    public record Unknown(String typeId, byte[] bytes) {}

    private TypedCodec(Builder<T> b) {
        this.header = b.header;
        this.mapper = b.mapper;
        this.byId = Map.copyOf(b.byId);
        Map<Class<?>, String> ids = new LinkedHashMap<>();
        b.byId.values().forEach(r -> ids.putIfAbsent(r.type(), r.id()));
        this.idOfClass = Map.copyOf(ids);
        this.defaultType = b.defaultType == null ? null : byId.get(ids.get(b.defaultType));
        this.unknownAsBytes = b.unknownAsBytes;
        this.contentType = b.contentType;
    }

    /** {@return a builder of JSON payloads through Switchboard's default Jackson mapper} */
    public static Builder<Object> json() {
        return new Builder<>(null, "application/json");
    }

    /**
     * {@return a builder of JSON payloads through the given mapper}
     *
     * @param mapper the Jackson mapper every registered type is written and read with
     */
    public static Builder<Object> json(ObjectMapper mapper) {
        return new Builder<>(Objects.requireNonNull(mapper, "mapper"), "application/json");
    }

    /** {@return the header that carries the type id} */
    public String header() {
        return header;
    }

    /** {@return the registered type ids and their classes, in registration order} */
    public Map<String, Class<?>> types() {
        Map<String, Class<?>> types = new LinkedHashMap<>();
        byId.forEach((id, r) -> types.put(id, r.type()));
        return types;
    }

    /**
     * The type id a publisher writes for {@code value}: the id registered for its class, else for its nearest
     * registered superclass or interface, else its class name. Resolved once per class.
     *
     * @param value the payload, not null
     * @return the type id
     */
    public String typeIdOf(T value) {
        Class<?> c = value.getClass();
        String id = resolved.get(c);
        return id != null ? id : resolved.computeIfAbsent(c, this::resolve);
    }

    private String resolve(Class<?> c) {
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            String id = idOfClass.get(k);
            if (id != null) {
                return id;
            }
        }
        for (Map.Entry<Class<?>, String> e : idOfClass.entrySet()) {
            if (e.getKey().isAssignableFrom(c)) {
                return e.getValue();
            }
        }
        return c.getName();
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public byte[] encode(T value) {
        if (value instanceof Unknown u) {
            return u.bytes();
        }
        Class<?> c = value.getClass();
        Registered r = byId.get(typeIdOf(value));
        if (r != null && r.type().isAssignableFrom(c)) {
            return r.codec().encode(value);
        }
        Codec unregistered = unregistered(c);
        return unregistered.encode(value);
    }

    /** The JSON codec of a payload class that is not registered (written under its name), made once per class. */
    private Codec<?> unregistered(Class<?> c) {
        Codec<?> codec = fallback.get(c);
        return codec != null ? codec : fallback.computeIfAbsent(c, k -> jsonOf(k, mapper));
    }

    /** The JSON codec of a class: through the given mapper, or Switchboard's default one when it is null. */
    private static <X> Codec<X> jsonOf(Class<X> type, ObjectMapper mapper) {
        return mapper == null ? Codec.json(type) : Codec.json(type, mapper);
    }

    /**
     * Decodes a payload that carries no type id: as the default type, or fails.
     *
     * @param bytes the payload
     * @return the value
     */
    @Override
    public T decode(byte[] bytes) {
        return decode(bytes, null);
    }

    /**
     * Decodes a payload by its type id.
     *
     * @param bytes the payload
     * @param typeId the header's value, or null when the message has none
     * @return the value, of the registered class, or an {@link Unknown} when unknown types are handed on
     * @throws CodecException when the type id is not registered (and unknown types are not handed on), or the bytes
     *     are not a valid payload of its type
     */
    @SuppressWarnings("unchecked")
    public T decode(byte[] bytes, String typeId) {
        Registered<?> r = typeId == null ? defaultType : byId.get(typeId);
        if (r == null) {
            if (unknownAsBytes) {
                return (T) new Unknown(typeId, bytes);
            }
            throw new CodecException(typeId == null
                    ? "Message has no '" + header + "' header and the codec has no default type; registered types are "
                            + byId.keySet() + ". Set TypedCodec.Builder.defaultType(..), or have the producer write the header"
                    : "Type id '" + typeId + "' in header '" + header + "' is not registered; registered types are "
                            + byId.keySet() + ". Register it with TypedCodec.Builder.type(\"" + typeId + "\", <class>)");
        }
        return (T) r.codec().decode(bytes);
    }

    @Override
    public String contentType() {
        return contentType;
    }

    @Override
    public String toString() {
        return "TypedCodec[header=" + header + ", types=" + byId.keySet() + "]";
    }

    /**
     * Builds a {@link TypedCodec}.
     *
     * @param <T> the payloads' common type
     */
    public static final class Builder<T> {
        private final ObjectMapper mapper;
        private final String contentType;
        private final Map<String, Registered<?>> byId = new LinkedHashMap<>();
        private String header = SPRING_TYPE_ID;
        private Class<?> defaultType;
        private boolean unknownAsBytes;

        private Builder(ObjectMapper mapper, String contentType) {
            this.mapper = mapper;
            this.contentType = contentType;
        }

        /**
         * The header that carries the type id [{@value TypedCodec#SPRING_TYPE_ID}].
         *
         * @param name an application header name, or {@link Envelope#TYPE}
         * @return this builder
         */
        public Builder<T> typeHeader(String name) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("Type header name is blank; use TypedCodec.SPRING_TYPE_ID (\""
                        + SPRING_TYPE_ID + "\") or Envelope.TYPE (\"" + Envelope.TYPE + "\")");
            }
            this.header = name;
            return this;
        }

        /** {@return this builder, reading and writing the type id as the CloudEvents type ({@link Envelope#TYPE})} */
        public Builder<T> cloudEventsType() {
            return typeHeader(Envelope.TYPE);
        }

        /**
         * Registers a class under its name as type id (Spring's default).
         *
         * @param type the payload class
         * @return this builder
         */
        public Builder<T> type(Class<? extends T> type) {
            return type(type.getName(), type);
        }

        /**
         * Registers a class under a type id of its own (Spring's type mapping {@code id:class}), read and written as
         * JSON.
         *
         * @param <X> the payload class
         * @param id the type id: 1 to 255 visible ASCII characters
         * @param type the payload class
         * @return this builder
         */
        public <X extends T> Builder<T> type(String id, Class<X> type) {
            return type(id, type, jsonOf(type, mapper));
        }

        /**
         * Registers a class under a type id with a codec of its own (for example a schema-based format).
         *
         * @param <X> the payload class
         * @param id the type id: 1 to 255 visible ASCII characters
         * @param type the payload class
         * @param codec how payloads of this type are written and read
         * @return this builder
         */
        public <X extends T> Builder<T> type(String id, Class<X> type, Codec<X> codec) {
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(codec, "codec");
            if (id == null || !TYPE_ID.matcher(id).matches()) {
                throw new IllegalArgumentException("Type id '" + id + "' for " + type.getName() + " must be 1 to 255 visible "
                        + "ASCII characters (a class name, or a token such as 'order-placed')");
            }
            Registered<?> earlier = byId.putIfAbsent(id, new Registered<>(id, type, codec));
            if (earlier != null && earlier.type() != type) {
                throw new IllegalArgumentException("Type id '" + id + "' is registered for " + earlier.type().getName()
                        + " already and cannot name " + type.getName() + " too; give one of them another id");
            }
            return this;
        }

        /**
         * The type a message without the type header is read as (Spring's default type); it must be registered.
         *
         * @param type a registered class
         * @return this builder
         */
        public Builder<T> defaultType(Class<? extends T> type) {
            this.defaultType = Objects.requireNonNull(type, "type");
            return this;
        }

        /**
         * Hands a message whose type id is not registered on as an {@link Unknown} payload instead of failing to
         * decode it (which sends it to the dead-letter destination).
         *
         * @return this builder
         */
        public Builder<T> unknownTypesAsBytes() {
            this.unknownAsBytes = true;
            return this;
        }

        /**
         * {@return the codec}
         *
         * @throws IllegalArgumentException when the default type is not registered
         */
        public TypedCodec<T> build() {
            if (defaultType != null && byId.values().stream().noneMatch(r -> r.type() == defaultType)) {
                throw new IllegalArgumentException("Default type " + defaultType.getName() + " is not registered; register "
                        + "it with type(..) first");
            }
            return new TypedCodec<>(this);
        }
    }
}
