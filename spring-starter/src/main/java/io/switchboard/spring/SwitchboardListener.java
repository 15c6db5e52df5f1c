package io.switchboard.spring;

import io.switchboard.spring.aot.ListenerReflectiveProcessor;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.aot.hint.annotation.Reflective;

/**
 * Marks a bean method as the handler of a destination's messages. The method takes the payload
 * (its type picks the codec: {@code String} text, {@code byte[]} bytes, anything else JSON), or a
 * {@link io.switchboard.Message Message&lt;T&gt;}, and optionally an
 * {@link io.switchboard.DeliveryContext}, in any order. Returning normally acknowledges the
 * message; throwing fails the attempt (retried, then dead-lettered, as the destination's retry
 * settings say).
 *
 * <pre>{@code
 * @SwitchboardListener(destination = "orders", group = "billing")
 * void bill(Order order, DeliveryContext context) { ... }
 * }</pre>
 *
 * <p>On a class, it makes one subscription whose messages go to the class's {@link SwitchboardHandler} methods by
 * their type id (one method per payload type); see {@link SwitchboardHandler}.
 *
 * <p>Attributes left empty take {@code switchboard.destinations.<destination>.*}, then core's
 * defaults. Every attribute may hold a {@code ${...}} placeholder. Listeners are subscribed when
 * the application context has been refreshed; a listener that cannot subscribe (bad destination
 * name, a guarantee or feature the broker lacks) fails startup.
 *
 * <p>Under Spring AOT the method and its payload type get reflection hints
 * ({@link ListenerReflectiveProcessor}); payload types used only by publishers need
 * {@code @RegisterReflectionForBinding} in a native image.
 */
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective(ListenerReflectiveProcessor.class)
public @interface SwitchboardListener {

    /**
     * {@return the destination (topic, exchange) to consume, or several: one subscription each, with the same settings
     * and method, as Spring Kafka's {@code topics = {..}}} An element may be a {@code ${...}} placeholder, and one that
     * resolves to a comma-separated list names several.
     */
    String[] destination();

    /** {@return the consumer group: each message goes to one member of the group [default]} */
    String group() default "";

    /** {@return whether every listener receives every message, instead of sharing them in a group} */
    boolean broadcast() default false;

    /** {@return the guarantee: at-most-once, at-least-once or exactly-once [at-least-once]} */
    String delivery() default "";

    /** {@return the handler threads [1]} */
    String concurrency() default "";

    /** {@return the messages fetched and not yet acknowledged, at most [256]} */
    String maxInFlight() default "";

    /**
     * {@return where the listener's group starts when it has no committed position yet: {@code earliest},
     * {@code latest}, {@code offset:<n>} or {@code time:<ISO-8601 instant>} (see
     * {@link io.switchboard.StartPosition#parse(String)}); a group with committed positions resumes from them [earliest
     * for a group, latest for broadcast]}
     */
    String startFrom() default "";

    /**
     * {@return on a class, the header whose type id picks the {@link SwitchboardHandler} method [{@code __TypeId__},
     * Spring's; {@code ce_type} for the CloudEvents type]}
     */
    String typeHeader() default "";
}
