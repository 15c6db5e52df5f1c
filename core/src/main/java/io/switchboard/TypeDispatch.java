package io.switchboard;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One subscription, one handler per payload type: the message's type id (Spring's {@value TypedCodec#SPRING_TYPE_ID}
 * header by default, or the CloudEvents type) picks the class it is read into and the handler it goes to, as a
 * Spring Kafka class-level listener with a handler method per type does.
 *
 * <pre>{@code
 * TypeDispatch orders = TypeDispatch.json()
 *         .on(OrderPlaced.class, (m, ctx) -> billing.open(m.payload()))
 *         .on("order-cancelled", OrderCancelled.class, (m, ctx) -> billing.cancel(m.payload()))
 *         .build();
 * switchboard.subscriber("orders", orders.codec()).group("billing").subscribe(orders);
 * }</pre>
 *
 * <p>A message of a type nobody registered goes to the {@link Builder#otherwise default handler} when there is one
 * (its payload as received), and otherwise to the dead-letter destination at once (it is not retried: no attempt
 * can read it), with an error naming its type id and the registered ones. It is never dropped. A handler's failure
 * is retried and dead-lettered as any handler's.
 */
public final class TypeDispatch implements MessageHandler<Object> {

    private final TypedCodec<Object> codec;
    private final Map<Class<?>, MessageHandler<?>> handlers;
    private final ConcurrentHashMap<Class<?>, MessageHandler<?>> resolved = new ConcurrentHashMap<>();
    private final MessageHandler<byte[]> otherwise;

    private TypeDispatch(TypedCodec<Object> codec, Map<Class<?>, MessageHandler<?>> handlers, MessageHandler<byte[]> otherwise) {
        this.codec = codec;
        this.handlers = Map.copyOf(handlers);
        this.otherwise = otherwise;
    }

    /** {@return a builder of JSON payloads through Switchboard's default Jackson mapper} */
    public static Builder json() {
        return new Builder(TypedCodec.json(), null);
    }

    /**
     * {@return a builder of JSON payloads through the given mapper}
     *
     * @param mapper the Jackson mapper every type is read with
     */
    public static Builder json(ObjectMapper mapper) {
        return new Builder(TypedCodec.json(mapper), mapper);
    }

    /** {@return the codec to subscribe with: the registered types, by the same header} */
    public TypedCodec<Object> codec() {
        return codec;
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public void handle(Message<Object> message, DeliveryContext context) throws Exception {
        Object payload = message.payload();
        if (payload instanceof TypedCodec.Unknown unknown) {
            otherwise.handle(message.withPayload(unknown.bytes()), context);
            return;
        }
        MessageHandler handler = handlerOf(payload.getClass());
        handler.handle(message, context);
    }

    private MessageHandler<?> handlerOf(Class<?> c) {
        MessageHandler<?> h = resolved.get(c);
        if (h == null) {
            h = resolved.computeIfAbsent(c, this::resolve);
        }
        return h;
    }

    /** The handler of the class, else of its nearest registered superclass, else of a registered interface. */
    private MessageHandler<?> resolve(Class<?> c) {
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            MessageHandler<?> h = handlers.get(k);
            if (h != null) {
                return h;
            }
        }
        for (Map.Entry<Class<?>, MessageHandler<?>> e : handlers.entrySet()) {
            if (e.getKey().isAssignableFrom(c)) {
                return e.getValue();
            }
        }
        // a class the codec reads has a handler (build() checks), so this is a codec given a type of its own
        throw new IllegalStateException("No handler for payload class " + c.getName() + "; add one with on(" + c.getSimpleName()
                + ".class, handler)");
    }

    /** Builds a {@link TypeDispatch}. */
    public static final class Builder {
        private final TypedCodec.Builder<Object> codec;
        private final Map<Class<?>, MessageHandler<?>> handlers = new LinkedHashMap<>();
        private MessageHandler<byte[]> otherwise;

        private final ObjectMapper mapper;

        private Builder(TypedCodec.Builder<Object> codec, ObjectMapper mapper) {
            this.codec = codec;
            this.mapper = mapper;
        }

        /**
         * The header that carries the type id [{@value TypedCodec#SPRING_TYPE_ID}].
         *
         * @param name an application header name, or {@link Envelope#TYPE}
         * @return this builder
         */
        public Builder typeHeader(String name) {
            codec.typeHeader(name);
            return this;
        }

        /** {@return this builder, dispatching on the CloudEvents type ({@link Envelope#TYPE})} */
        public Builder cloudEventsType() {
            codec.cloudEventsType();
            return this;
        }

        /**
         * Messages whose type id is the class's name go to {@code handler}, read as that class.
         *
         * @param <X> the payload class
         * @param type the payload class
         * @param handler its handler
         * @return this builder
         */
        public <X> Builder on(Class<X> type, MessageHandler<X> handler) {
            return on(type.getName(), type, handler);
        }

        /**
         * Messages with this type id go to {@code handler}, read as {@code type}; call again with the same class to
         * give it more type ids.
         *
         * @param <X> the payload class
         * @param id the type id
         * @param type the payload class
         * @param handler its handler
         * @return this builder
         */
        public <X> Builder on(String id, Class<X> type, MessageHandler<X> handler) {
            return on(id, type, mapper == null ? Codec.json(type) : Codec.json(type, mapper), handler);
        }

        /**
         * Messages with this type id go to {@code handler}, read as {@code type} with a codec of its own.
         *
         * @param <X> the payload class
         * @param id the type id
         * @param type the payload class
         * @param typeCodec how its payloads are read
         * @param handler its handler
         * @return this builder
         */
        public <X> Builder on(String id, Class<X> type, Codec<X> typeCodec, MessageHandler<X> handler) {
            Objects.requireNonNull(handler, "handler");
            MessageHandler<?> earlier = handlers.putIfAbsent(type, handler);
            if (earlier != null && earlier != handler) {
                throw new IllegalArgumentException("Payload class " + type.getName() + " has a handler already; one class, "
                        + "one handler (give it more type ids with the same handler)");
            }
            codec.type(id, type, typeCodec);
            return this;
        }

        /**
         * Messages without a type id are read as this registered class (Spring's default type).
         *
         * @param type a class registered with {@code on(..)}
         * @return this builder
         */
        public Builder defaultType(Class<?> type) {
            codec.defaultType(type);
            return this;
        }

        /**
         * Where a message of a type nobody registered goes, with its payload as received; without one it goes to
         * the dead-letter destination.
         *
         * @param handler the default handler
         * @return this builder
         */
        public Builder otherwise(MessageHandler<byte[]> handler) {
            this.otherwise = Objects.requireNonNull(handler, "handler");
            codec.unknownTypesAsBytes();
            return this;
        }

        /** {@return the dispatching handler} */
        public TypeDispatch build() {
            return new TypeDispatch(codec.build(), handlers, otherwise);
        }
    }
}
