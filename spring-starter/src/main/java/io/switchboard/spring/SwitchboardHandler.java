package io.switchboard.spring;

import io.switchboard.spring.aot.ListenerReflectiveProcessor;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.aot.hint.annotation.Reflective;

/**
 * Marks a method of a class annotated with {@link SwitchboardListener} as the handler of one payload type of the
 * class's destination, as Spring Kafka's {@code @KafkaHandler} does in a class-level {@code @KafkaListener}. The
 * message's type id (Spring's {@code __TypeId__} header, or the one {@link SwitchboardListener#typeHeader()} names)
 * picks the method; the method takes its payload type (or {@code Message<T>}) and optionally a
 * {@link io.switchboard.DeliveryContext}, as a method listener does.
 *
 * <pre>{@code
 * @Component
 * @SwitchboardListener(destination = "orders", group = "billing")
 * class Billing {
 *     @SwitchboardHandler
 *     void placed(OrderPlaced order) { ... }                      // type id com.acme.OrderPlaced
 *
 *     @SwitchboardHandler(typeId = "order-cancelled")
 *     void cancelled(OrderCancelled order, DeliveryContext c) { ... }
 *
 *     @SwitchboardHandler(isDefault = true)
 *     void other(Message<byte[]> message) { ... }                 // any other type id, as received
 * }
 * }</pre>
 *
 * <p>Without a default handler a message of a type no method takes goes to the dead-letter destination at once,
 * naming its type id. Only the payload types of the methods are ever read (Spring's trusted packages, made exact).
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective(ListenerReflectiveProcessor.class)
public @interface SwitchboardHandler {

    /** {@return the type id this method takes [the payload class's name, as Spring's JsonSerializer writes it]} */
    String typeId() default "";

    /** {@return whether this method takes every type id no other method takes; its payload is byte[]} */
    boolean isDefault() default false;
}
