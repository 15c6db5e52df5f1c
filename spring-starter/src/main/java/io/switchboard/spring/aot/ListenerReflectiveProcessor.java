package io.switchboard.spring.aot;

import io.switchboard.DeliveryContext;
import io.switchboard.Message;
import java.lang.reflect.Method;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.aot.hint.annotation.SimpleReflectiveProcessor;
import org.springframework.core.ResolvableType;

/**
 * Hints for a {@link io.switchboard.spring.SwitchboardListener} method, which Spring AOT finds on
 * the application's beans through the annotation's {@code @Reflective}: the method may be invoked
 * reflectively, and its payload type (the parameter's class, or {@code T} of {@code Message<T>}) may
 * be bound by the JSON codec (constructors, fields, accessors, recursively), as
 * {@code @RegisterReflectionForBinding} would declare it.
 */
public class ListenerReflectiveProcessor extends SimpleReflectiveProcessor {

    private final BindingReflectionHintsRegistrar bindings = new BindingReflectionHintsRegistrar();

    @Override
    protected void registerMethodHint(ReflectionHints hints, Method method) {
        super.registerMethodHint(hints, method);
        Class<?>[] types = method.getParameterTypes();
        for (int i = 0; i < types.length; i++) {
            if (types[i] == DeliveryContext.class) {
                continue;
            }
            ResolvableType type = ResolvableType.forMethodParameter(method, i);
            // Message<T>, a batch listener's Batch<T> and List<T>: the payload type is the first type argument
            boolean wrapped = types[i] == Message.class || types[i] == io.switchboard.Batch.class
                    || types[i] == java.util.List.class;
            Class<?> payload = wrapped ? type.getGeneric(0).resolve() : type.resolve();
            if (payload != null && needsBinding(payload)) {
                bindings.registerReflectionHints(hints, payload);
            }
        }
        Class<?> reply = method.getReturnType(); // a replying listener's reply is encoded as its payloads are decoded
        if (reply != void.class && !java.util.concurrent.CompletionStage.class.isAssignableFrom(reply)
                && !reply.isPrimitive() && needsBinding(reply)) {
            bindings.registerReflectionHints(hints, reply);
        }
    }

    /** Text and bytes go through their own codecs; everything else through JSON. */
    private static boolean needsBinding(Class<?> payload) {
        return payload != String.class && payload != byte[].class && payload != Object.class;
    }
}
