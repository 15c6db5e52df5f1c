package io.switchboard.spring.internal;

import io.switchboard.AsyncMessageHandler;
import io.switchboard.Batch;
import io.switchboard.BatchHandler;
import io.switchboard.ConfigurationException;
import io.switchboard.Delivery;
import io.switchboard.DeliveryContext;
import io.switchboard.Message;
import io.switchboard.MessageHandler;
import io.switchboard.ReplyingHandler;
import io.switchboard.spring.SwitchboardHandler;
import io.switchboard.spring.SwitchboardListener;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.springframework.core.ResolvableType;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * One {@link SwitchboardListener} method, checked when its bean is initialised: the payload type,
 * how each parameter is filled, and the annotation's attributes with placeholders resolved.
 *
 * @param bean the bean (or its proxy) the method is invoked on
 * @param method the invocable method
 * @param payloadType the payload class, from the payload parameter or {@code Message<T>}
 * @param arguments what fills each parameter
 * @param destination the destination
 * @param group the group, or null for the configured one
 * @param broadcast fan-out instead of a group
 * @param delivery the guarantee, or null for the configured one
 * @param concurrency handler threads, or null for the configured number
 * @param maxInFlight prefetch, or null for the configured number
 * @param startFrom where a group without committed positions starts, or null for the configured one
 * @param typeHeader for a class listener, the header of the type id (null for Spring's); null for a method listener
 * @param branches for a class listener, its {@link SwitchboardHandler} methods; empty for a method listener
 */
public record ListenerEndpoint(Object bean, Method method, Class<?> payloadType, Argument[] arguments, String destination,
        String group, boolean broadcast, Delivery delivery, Integer concurrency, Integer maxInFlight,
        io.switchboard.StartPosition startFrom, String typeHeader, List<Branch> branches) {

    /**
     * One {@link SwitchboardHandler} method of a class listener.
     *
     * @param typeId the type id it takes, or null for the default handler
     * @param method the method, checked as a method listener is (its payload type, its parameters)
     */
    public record Branch(String typeId, ListenerEndpoint method) {}

    /** {@return whether this is a class listener, dispatching by type id to its handler methods} */
    public boolean dispatchesByType() {
        return !branches.isEmpty();
    }

    /** What fills a parameter. */
    public enum Argument {
        /** The decoded payload. */
        PAYLOAD,
        /** The whole {@link Message}. */
        MESSAGE,
        /** The {@link DeliveryContext}. */
        CONTEXT,
        /** A batch listener's {@link Batch}: its messages, their contexts, and the failures it marks. */
        BATCH,
        /** A batch listener's payloads, as a {@code List}: the batch succeeds or fails as a whole. */
        PAYLOADS
    }

    /**
     * Checks a method and reads its annotation.
     *
     * @param resolver resolves {@code ${...}} placeholders in attributes
     * @throws ConfigurationException naming the method and what is wrong with it
     */
    public static ListenerEndpoint of(Object bean, Method method, SwitchboardListener annotation, UnaryOperator<String> resolver,
            String destination) {
        String where = describe(method);
        Class<?>[] types = method.getParameterTypes();
        Argument[] arguments = new Argument[types.length];
        Class<?> payloadType = null;
        for (int i = 0; i < types.length; i++) {
            Argument argument = types[i] == DeliveryContext.class ? Argument.CONTEXT
                    : types[i] == Message.class ? Argument.MESSAGE : types[i] == Batch.class ? Argument.BATCH
                    : types[i] == List.class ? Argument.PAYLOADS : Argument.PAYLOAD;
            if (Arrays.asList(arguments).contains(argument)) {
                throw invalid(where, "has more than one " + argument.name().toLowerCase(Locale.ROOT) + " parameter",
                        "take the payload or Message<T> once, and DeliveryContext at most once");
            }
            arguments[i] = argument;
            Class<?> type = argument == Argument.CONTEXT ? null : payloadOf(where, ResolvableType.forMethodParameter(method, i), argument);
            if (type != null && payloadType != null && type != payloadType) {
                throw invalid(where, "takes payload " + payloadType.getName() + " and Message<" + type.getName() + ">",
                        "use one payload type");
            }
            payloadType = type != null ? type : payloadType;
        }
        boolean batch = Arrays.asList(arguments).contains(Argument.BATCH) || Arrays.asList(arguments).contains(Argument.PAYLOADS);
        if (batch && arguments.length > 1) {
            throw invalid(where, "takes a batch and other parameters", "a batch listener takes one parameter: Batch<Order> "
                    + "(each message's context and failure are in it) or List<Order>");
        }
        if (batch && method.getReturnType() != void.class) {
            throw invalid(where, "takes a batch and returns " + method.getReturnType().getSimpleName(), "return void: a "
                    + "batch is acknowledged when the method returns (mark failed messages with Batch.fail)");
        }
        if (payloadType == null) {
            throw invalid(where, "has no payload parameter", "add a parameter for the payload (for example Order order) or "
                    + "Message<Order>");
        }
        ReflectionUtils.makeAccessible(method);
        return new ListenerEndpoint(bean, method, payloadType, arguments, destination,
                blankToNull(resolver.apply(annotation.group())), annotation.broadcast(),
                delivery(where, resolver.apply(annotation.delivery())),
                positive(where, "concurrency", resolver.apply(annotation.concurrency())),
                positive(where, "maxInFlight", resolver.apply(annotation.maxInFlight())),
                startFrom(where, resolver.apply(annotation.startFrom())), null, List.of());
    }

    /**
     * Checks a class listener: each {@link SwitchboardHandler} method as a method listener, one method per type id
     * and at most one default, whose payload is {@code byte[]}.
     *
     * @param bean the bean
     * @param target the bean's class, which carries the annotation
     * @param handlers the class's handler methods (invocable on the bean) and their annotations
     * @param annotation the class's annotation
     * @param resolver resolves {@code ${...}} placeholders in attributes
     * @throws ConfigurationException naming the class and what is wrong with it
     */
    public static ListenerEndpoint ofClass(Object bean, Class<?> target, Map<Method, SwitchboardHandler> handlers,
            SwitchboardListener annotation, UnaryOperator<String> resolver, String destination) {
        String where = ClassUtils.getShortName(ClassUtils.getUserClass(target));
        if (handlers.isEmpty()) {
            throw new ConfigurationException("@SwitchboardListener class " + where + " has no @SwitchboardHandler method; "
                    + "annotate one method per payload type with @SwitchboardHandler, or put @SwitchboardListener on a method");
        }
        List<Branch> branches = new ArrayList<>();
        Map<String, String> taken = new HashMap<>();
        ListenerEndpoint first = null;
        for (Map.Entry<Method, SwitchboardHandler> e : handlers.entrySet()) {
            ListenerEndpoint m = of(bean, e.getKey(), annotation, resolver, destination);
            if (CompletionStage.class.isAssignableFrom(e.getKey().getReturnType())) {
                throw invalid(m.description(), "returns a CompletionStage, which a @SwitchboardHandler method of a class "
                        + "listener cannot", "return void (the message is acknowledged when the method returns), or make it "
                        + "a @SwitchboardListener method of its own");
            }
            if (m.batches()) {
                throw invalid(m.description(), "takes a batch, which a @SwitchboardHandler method of a class listener "
                        + "cannot", "make it a @SwitchboardListener method of its own");
            }
            first = first == null ? m : first;
            String given = blankToNull(resolver.apply(e.getValue().typeId()));
            String typeId = e.getValue().isDefault() ? null : given != null ? given : m.payloadType().getName();
            if (typeId == null && m.payloadType() != byte[].class) {
                throw invalid(m.description(), "is the default handler but takes " + m.payloadType().getName(),
                        "take byte[] (or Message<byte[]>): a type nobody registered is handed on as received");
            }
            String earlier = taken.putIfAbsent(typeId == null ? "" : typeId, m.description());
            if (earlier != null) {
                throw invalid(m.description(), typeId == null ? "is a second default handler (" + earlier + " is one)"
                        : "takes type id '" + typeId + "', which " + earlier + " takes too", "give each type id one method");
            }
            branches.add(new Branch(typeId, m));
        }
        return new ListenerEndpoint(bean, first.method(), Object.class, first.arguments(), first.destination(), first.group(),
                first.broadcast(), first.delivery(), first.concurrency(), first.maxInFlight(), first.startFrom(),
                blankToNull(resolver.apply(annotation.typeHeader())), List.copyOf(branches));
    }

    /**
     * The destinations an annotation names: each element resolved, a resolved value split at commas, blanks dropped.
     *
     * @param where the method or class, as people read it
     * @throws ConfigurationException when it names none, or one twice
     */
    public static List<String> destinations(String where, SwitchboardListener annotation, UnaryOperator<String> resolver) {
        List<String> names = new ArrayList<>();
        for (String element : annotation.destination()) {
            String resolved = resolver.apply(element);
            for (String name : resolved == null ? new String[0] : resolved.split(",")) {
                String trimmed = name.trim();
                if (trimmed.isEmpty()) {
                    continue;
                }
                if (names.contains(trimmed)) {
                    throw invalid(where, "names destination '" + trimmed + "' twice", "name each destination once");
                }
                names.add(trimmed);
            }
        }
        if (names.isEmpty()) {
            throw invalid(where, "names no destination", "set destination = \"orders\" (or several: destination = "
                    + "{\"orders\", \"returns\"}, or a ${...} placeholder)");
        }
        return names;
    }

    private static Class<?> payloadOf(String where, ResolvableType type, Argument argument) {
        ResolvableType payload = argument == Argument.PAYLOAD ? type : type.getGeneric(0);
        Class<?> resolved = payload.resolve();
        if (resolved == null || resolved == Object.class && argument != Argument.PAYLOAD) {
            String name = argument == Argument.MESSAGE ? "Message" : argument == Argument.BATCH ? "Batch" : "List";
            throw invalid(where, "takes a " + name + " without its payload type", "declare it as " + name
                    + "<Order>, for example");
        }
        if (argument == Argument.PAYLOADS && resolved == Message.class) {
            throw invalid(where, "takes a List of Message", "take Batch<Order>: it has the messages, their contexts, and "
                    + "marks failed ones");
        }
        if (payload.hasGenerics()) {
            throw invalid(where, "takes a generic payload type " + payload,
                    "use a class, record or array type (wrap a list in a record), so the codec knows what to decode");
        }
        return resolved;
    }

    private static Delivery delivery(String where, String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return Delivery.valueOf(value.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException e) {
            throw invalid(where, "has delivery '" + value + "'", "use at-most-once, at-least-once or exactly-once");
        }
    }

    private static io.switchboard.StartPosition startFrom(String where, String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return io.switchboard.StartPosition.parse(value);
        } catch (ConfigurationException e) {
            throw invalid(where, "has startFrom '" + value + "'", "use " + io.switchboard.StartPosition.FORMS);
        }
    }

    private static Integer positive(String where, String attribute, String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            int number = Integer.parseInt(value.trim());
            if (number >= 1) {
                return number;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw invalid(where, "has " + attribute + " '" + value + "'", "use a whole number of at least 1");
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value.trim();
    }

    private static ConfigurationException invalid(String where, String problem, String fix) {
        return new ConfigurationException("@SwitchboardListener method " + where + " " + problem + "; " + fix);
    }

    /** The method as people read it: {@code Billing.bill(Order, DeliveryContext)}. */
    static String describe(Method method) {
        return ClassUtils.getShortName(ClassUtils.getUserClass(method.getDeclaringClass())) + "." + method.getName() + "("
                + Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName).collect(Collectors.joining(", ")) + ")";
    }

    /** {@return whether the method returns a {@link CompletionStage}: the message is acknowledged when it completes} */
    public boolean completesLater() {
        return !dispatchesByType() && CompletionStage.class.isAssignableFrom(method.getReturnType());
    }

    /**
     * {@return the type of the reply this method returns, or null when it replies to nothing} A method listener whose
     * return type is neither {@code void} nor a {@link CompletionStage} answers requests ({@link io.switchboard.Requester}):
     * what it returns is the reply.
     */
    public Class<?> replyType() {
        Class<?> type = method.getReturnType();
        if (dispatchesByType() || type == void.class || type == Void.class || CompletionStage.class.isAssignableFrom(type)) {
            return null;
        }
        return ClassUtils.resolvePrimitiveIfNecessary(type);
    }

    /** {@return whether this is a batch listener: it takes a {@link Batch} or a {@code List} of payloads} */
    public boolean batches() {
        return !dispatchesByType() && (arguments[0] == Argument.BATCH || arguments[0] == Argument.PAYLOADS);
    }

    /** This method as a batch handler: passes the batch, or its payloads; what it throws fails the whole batch. */
    public <T> BatchHandler<T> batchHandler() {
        boolean payloads = arguments[0] == Argument.PAYLOADS;
        return batch -> call(new Object[] {payloads ? batch.messages().stream().map(Message::payload).toList() : batch});
    }

    /** This method as a replying handler: fills the parameters and invokes it; what it returns is the reply. */
    @SuppressWarnings("unchecked")
    public <T, R> ReplyingHandler<T, R> replyingHandler() {
        return (message, context) -> (R) invoke(message, context);
    }

    /**
     * This method as an asynchronous handler: fills the parameters and invokes it; the stage it returns acknowledges
     * (completed) or fails the attempt (completed exceptionally); what it throws fails the attempt.
     */
    public <T> AsyncMessageHandler<T> asyncHandler() {
        return (message, context) -> (CompletionStage<?>) invoke(message, context);
    }

    private Object invoke(Message<?> message, DeliveryContext context) throws Exception {
        Object[] args = new Object[arguments.length];
        for (int i = 0; i < args.length; i++) {
            args[i] = switch (arguments[i]) {
                case PAYLOAD -> message.payload();
                case MESSAGE -> message;
                case CONTEXT -> context;
                case BATCH, PAYLOADS -> throw new IllegalStateException("a batch listener is called with its batch");
            };
        }
        return call(args);
    }

    private Object call(Object[] args) throws Exception {
        try {
            return method.invoke(bean, args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception exception) {
                throw exception;
            }
            throw (Error) cause;
        }
    }

    /** This method as a handler: fills the parameters and invokes it; what it throws fails the attempt. */
    public <T> MessageHandler<T> handler() {
        return (message, context) -> invoke(message, context);
    }

    /** The method (or for a class listener, the class) as people read it. */
    public String description() {
        return dispatchesByType() ? ClassUtils.getShortName(ClassUtils.getUserClass(method.getDeclaringClass())) : describe(method);
    }

    @Override
    public String toString() {
        return "ListenerEndpoint[" + description() + " on '" + destination + "']";
    }
}
